// Command zoneprice-lb is a small HTTP load balancer for local clusters and
// tests (the compose file, the failure suite): it spreads requests
// round-robin over the query pods whose /readyz answered 200 on their last
// check, and sends a GET or HEAD on to the next pod when a connection is
// refused or reset before any byte of a response, so that a pod stopping
// or starting costs no request. With no pod ready it answers 503 with the
// API's not-ready problem body.
//
// Production uses the platform's load balancer instead: a Kubernetes
// Service in front of the query Deployment (deploy/k8s), whose readiness
// probe on /readyz does the same gating.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/zoneprice/zoneprice/cmd/internal/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "zoneprice-lb:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, getenv app.Env, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("zoneprice-lb", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := DefaultConfig()
	var backends, logFormat, logLevel string
	app.StringVar(fs, getenv, &cfg.Addr, "listen", "ZONEPRICE_LB_LISTEN", cfg.Addr, "listen address")
	app.StringVar(fs, getenv, &backends, "backends", "ZONEPRICE_LB_BACKENDS", "", "comma-separated query pod base URLs, e.g. http://query-1:8080,http://query-2:8080")
	app.StringVar(fs, getenv, &cfg.CheckPath, "check-path", "ZONEPRICE_LB_CHECK_PATH", cfg.CheckPath, "readiness path asked on every backend")
	if err := app.DurationVar(fs, getenv, &cfg.CheckInterval, "check-interval", "ZONEPRICE_LB_CHECK_INTERVAL", cfg.CheckInterval, "time between readiness checks of each backend"); err != nil {
		return err
	}
	if err := app.DurationVar(fs, getenv, &cfg.CheckTimeout, "check-timeout", "ZONEPRICE_LB_CHECK_TIMEOUT", cfg.CheckTimeout, "how long one readiness check may take (0: --check-interval)"); err != nil {
		return err
	}
	app.StringVar(fs, getenv, &logFormat, "log-format", "ZONEPRICE_LOG_FORMAT", "json", "log format: json or text")
	app.StringVar(fs, getenv, &logLevel, "log-level", "ZONEPRICE_LOG_LEVEL", "info", "log level: debug, info, warn, error")
	if err := fs.Parse(args); err != nil {
		return err
	}
	for b := range strings.SplitSeq(backends, ",") {
		if b = strings.TrimSpace(b); b != "" {
			cfg.Backends = append(cfg.Backends, b)
		}
	}
	log, err := app.Logger(stderr, logFormat, logLevel)
	if err != nil {
		return err
	}
	lb, err := NewBalancer(cfg, log)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("--listen (ZONEPRICE_LB_LISTEN): %w", err)
	}
	srv := &http.Server{
		Handler:           lb,
		ReadHeaderTimeout: 5 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    16 << 10,
	}
	fmt.Fprintf(stdout, "zoneprice-lb: listening on %s for %d backends\n", ln.Addr(), len(cfg.Backends))
	return app.RunAll(ctx, lb.Run, func(ctx context.Context) error {
		errc := make(chan error, 1)
		go func() { errc <- srv.Serve(ln) }()
		select {
		case err := <-errc:
			return err
		case <-ctx.Done():
		}
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err := srv.Shutdown(sctx)
		if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) {
			err = errors.Join(err, serr)
		}
		return err
	})
}
