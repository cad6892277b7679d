// Command zoneprice-ingest runs registrar sources against an existing NATS
// with JetStream: it provisions the streams, fetches each source on its
// interval and publishes what changed. With --once it publishes one round
// and exits.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/zoneprice/zoneprice/cmd/internal/app"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/sample"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "zoneprice-ingest:", err)
		os.Exit(1)
	}
}

// sources are the ingest sources this build knows, by name.
func sources() map[string]app.SourceFactory {
	return map[string]app.SourceFactory{
		"sample": func(app.Env) (ingest.Source, error) { return sample.New(time.Now), nil },
	}
}

func run(ctx context.Context, args []string, getenv app.Env, stderr io.Writer) error {
	fs := flag.NewFlagSet("zoneprice-ingest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	natsURL := app.String(fs, getenv, "nats-url", "NATS_URL", "nats://127.0.0.1:4222", "NATS server(s) to join, comma-separated")
	creds := app.String(fs, getenv, "nats-creds", "NATS_CREDS", "", "NATS credentials file")
	names := app.String(fs, getenv, "sources", "ZONEPRICE_SOURCES", "sample", "comma-separated ingest sources")
	logFormat := app.String(fs, getenv, "log-format", "ZONEPRICE_LOG_FORMAT", "json", "log format: json or text")
	logLevel := app.String(fs, getenv, "log-level", "ZONEPRICE_LOG_LEVEL", "info", "log level: debug, info, warn, error")
	once := fs.Bool("once", false, "publish one round and exit")
	interval, err := app.Duration(fs, getenv, "interval", "ZONEPRICE_INGEST_INTERVAL", time.Hour, "time between fetches of each source")
	if err != nil {
		return err
	}
	replicas, err := app.Int(fs, getenv, "replicas", "ZONEPRICE_STREAM_REPLICAS", 1, "stream replicas (3 on a three-node cluster)")
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
	nc, js, err := app.Connect(*natsURL, "zoneprice-ingest", *creds, log)
	if err != nil {
		return err
	}
	defer nc.Close()
	if err := app.Provision(ctx, js, *replicas, log); err != nil {
		return err
	}
	cfg := ingest.DefaultRunnerConfig()
	cfg.Interval = *interval
	if *once {
		cfg.Interval = 0
	}
	runners, err := app.Ingest(js, *names, sources(), getenv, cfg, log, reg)
	if err != nil {
		return err
	}
	parts := make([]func(context.Context) error, 0, len(runners))
	for _, r := range runners {
		parts = append(parts, r.Run)
	}
	return app.RunAll(ctx, parts...)
}
