// Command zoneprice-notify delivers webhooks about price changes: it joins
// an existing NATS with JetStream, follows the history stream and sends
// each change to the subscribers' endpoints that want it, signed, retried
// and never to an internal address (see package query/notify). Run two or
// more: the replicas share the changes and the deliveries through durable
// consumers, and none is special.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/zoneprice/zoneprice/cmd/internal/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "zoneprice-notify:", err)
		os.Exit(1)
	}
}

// defaultGOGC is the garbage collector's GOGC unless the environment sets
// one. A delivery allocates a few kilobytes that die young (its request,
// its record), and the live heap is small (the registrations' mirror):
// at the runtime's 100, collecting took about a sixth of notify's CPU
// while it delivered (make bench's webhook profile). GOMEMLIMIT, which
// the Kubernetes manifest sets below the container's limit, still makes
// it collect sooner when memory runs short.
const defaultGOGC = 400

func run(ctx context.Context, args []string, getenv app.Env, stderr io.Writer) error {
	fs := flag.NewFlagSet("zoneprice-notify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	common := app.RegisterCommon(fs, getenv, "nats://127.0.0.1:4222", "NATS server(s) to join, comma-separated")
	var metricsAddr string
	app.StringVar(fs, getenv, &metricsAddr, "metrics-listen", "ZONEPRICE_METRICS_LISTEN", ":9091", `address of /metrics and /healthz ("" for none)`)
	var profiles bool
	if err := app.ProfilesVar(fs, getenv, &profiles, ""); err != nil {
		return err
	}
	nf, err := app.RegisterNotifyFlags(fs, getenv)
	if err != nil {
		return err
	}
	sf, err := app.RegisterSubscribeFlags(fs, getenv)
	if err != nil {
		return err
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	log, err := common.Logger(stderr)
	if err != nil {
		return err
	}
	if getenv("GOGC") == "" {
		debug.SetGCPercent(defaultGOGC)
	}
	nc, js, err := common.Connect(common.NATSURL, "zoneprice-notify", log)
	if err != nil {
		return err
	}
	defer nc.Close()
	reg := app.NewMetricsRegistry()
	n, err := app.Notify(js, nf, log, reg)
	if err != nil {
		return err
	}
	parts := []func(context.Context) error{n.Run}
	// The price-drop digests, when mail can be sent (--smtp-host).
	digests, err := sf.Digests(js, log.With("part", "digests"), reg)
	if err != nil {
		return err
	}
	if digests != nil {
		parts = append(parts, digests)
	}
	if metricsAddr != "" {
		parts = append(parts, app.NewMetricsServer(metricsAddr, reg, profiles, log).Run)
	}
	return app.RunAll(ctx, parts...)
}
