// Command zoneprice-ingest runs registrar sources against an existing NATS
// with JetStream: it provisions the streams, fetches each source on its
// interval and publishes what changed. With --once it publishes one round
// and exits. A least-privilege ingester runs with --provision off and
// leaves provisioning to an admin job running --provision only.
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
	"github.com/zoneprice/zoneprice/cmd/internal/sources"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "zoneprice-ingest:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, getenv app.Env, stderr io.Writer) error {
	fs := flag.NewFlagSet("zoneprice-ingest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	common := app.RegisterCommon(fs, getenv, "nats://127.0.0.1:4222", "NATS server(s) to join, comma-separated")
	var metricsAddr string
	app.StringVar(fs, getenv, &metricsAddr, "metrics-listen", "ZONEPRICE_METRICS_LISTEN", ":9091", `address of /metrics and /healthz ("" for none)`)
	ing, err := app.RegisterIngestFlags(fs, getenv)
	if err != nil {
		return err
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := ing.Validate(); err != nil {
		return err
	}
	log, err := common.Logger(stderr)
	if err != nil {
		return err
	}
	nc, js, err := common.Connect(common.NATSURL, "zoneprice-ingest", log)
	if err != nil {
		return err
	}
	defer nc.Close()
	if ing.Provision == app.ProvisionOnly {
		if err := app.Provision(ctx, js, ing.StreamOptions(), log); err != nil {
			return err
		}
		log.Info("stream and keys bucket provisioned; --provision only, so exiting", "replicas", ing.Replicas)
		return nil
	}
	sel, err := sources.Select(ing, getenv)
	if err != nil {
		return err
	}
	reg := app.NewMetricsRegistry()
	ingesters, err := ing.Ingesters(ctx, js, sel, getenv, log, reg)
	if err != nil {
		return err
	}
	if ing.Once {
		// One round and out: nothing would scrape a server that stops
		// as soon as the round ends.
		metricsAddr = ""
	}
	parts := ingesters.Parts
	if metricsAddr == "" {
		return app.RunAll(ctx, parts...)
	}
	metrics := app.NewMetricsServer(metricsAddr, reg, false, log)
	// The metrics server runs until the runners are done (or ctx ends).
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	return app.RunAll(ctx,
		func(ctx context.Context) error { defer stop(); return app.RunAll(ctx, parts...) },
		func(context.Context) error { return metrics.Run(rctx) },
	)
}
