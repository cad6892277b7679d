// Command zoneprice-query is a query pod: it joins an existing NATS with
// JetStream, replays the state stream into memory and serves the API. It
// reports ready on /readyz only once caught up. Run as many as you like
// behind a load balancer.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/zoneprice/zoneprice/cmd/internal/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "zoneprice-query:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, getenv app.Env, stderr io.Writer) error {
	fs := flag.NewFlagSet("zoneprice-query", flag.ContinueOnError)
	fs.SetOutput(stderr)
	natsURL := app.String(fs, getenv, "nats-url", "NATS_URL", "nats://127.0.0.1:4222", "NATS server(s) to join, comma-separated")
	creds := app.String(fs, getenv, "nats-creds", "NATS_CREDS", "", "NATS credentials file")
	logFormat := app.String(fs, getenv, "log-format", "ZONEPRICE_LOG_FORMAT", "json", "log format: json or text")
	logLevel := app.String(fs, getenv, "log-level", "ZONEPRICE_LOG_LEVEL", "info", "log level: debug, info, warn, error")
	q, err := app.RegisterQueryFlags(fs, getenv)
	if err != nil {
		return err
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	log, err := app.Logger(stderr, *logFormat, *logLevel)
	if err != nil {
		return err
	}
	reg := app.Registry()
	nc, js, err := app.Connect(*natsURL, "zoneprice-query", *creds, log)
	if err != nil {
		return err
	}
	defer nc.Close()
	consumer, server, err := app.Query(js, q, log, reg)
	if err != nil {
		return err
	}
	return app.RunAll(ctx, consumer.Run, server.Run)
}
