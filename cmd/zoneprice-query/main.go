// Command zoneprice-query is a query pod: it joins an existing NATS with
// JetStream, replays the state stream into memory and serves the API. It
// reports ready on /readyz only once caught up and with the API keys
// loaded. Run as many as you like behind a load balancer; rate limits are
// per pod (see package query/access).
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
	common := app.RegisterCommon(fs, getenv, "nats://127.0.0.1:4222", "NATS server(s) to join, comma-separated")
	q, err := app.RegisterQueryFlags(fs, getenv)
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
	nc, js, err := common.Connect(common.NATSURL, "zoneprice-query", log)
	if err != nil {
		return err
	}
	defer nc.Close()
	consumer, parts, err := app.Query(js, q, log, app.NewMetricsRegistry())
	if err != nil {
		return err
	}
	return app.RunAll(ctx, append(parts, consumer.Run)...)
}
