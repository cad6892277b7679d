// Command zoneprice is the all-in-one service: by default it starts an
// embedded NATS server with JetStream, provisions the streams, runs the
// ingesters and serves the API, in one process. With --nats-url it joins an
// existing NATS instead and starts no embedded server.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/nats-io/nats.go"

	"github.com/zoneprice/zoneprice/cmd/internal/app"
	"github.com/zoneprice/zoneprice/cmd/internal/sources"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "zoneprice:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, getenv app.Env, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("zoneprice", flag.ContinueOnError)
	fs.SetOutput(stderr)
	common := app.RegisterCommon(fs, getenv, "", "NATS server to join; empty starts an embedded server")
	var dataDir, embedded string
	app.StringVar(fs, getenv, &dataDir, "data-dir", "ZONEPRICE_DATA_DIR", "data/nats", "embedded JetStream store directory")
	app.StringVar(fs, getenv, &embedded, "embedded-listen", "ZONEPRICE_EMBEDDED_LISTEN", "127.0.0.1:4222", `address the embedded NATS listens on for other processes ("" for in-process only)`)
	ing, err := app.RegisterIngestFlags(fs, getenv)
	if err != nil {
		return err
	}
	q, err := app.RegisterQueryFlags(fs, getenv)
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
	reg := app.Registry()

	url := common.NATSURL
	var dial []nats.Option
	if url == "" {
		srv, err := app.StartEmbedded(dataDir, embedded, log)
		if err != nil {
			return err
		}
		defer srv.WaitForShutdown()
		defer srv.Shutdown()
		url = srv.ClientURL()
		dial = append(dial, nats.InProcessServer(srv))
	}
	nc, js, err := common.Connect(url, "zoneprice", log, dial...)
	if err != nil {
		return err
	}
	defer nc.Close()
	if ing.Provision == app.ProvisionOnly {
		if err := app.Provision(ctx, js, ing.Replicas, log); err != nil {
			return err
		}
		log.Info("stream and keys bucket provisioned; --provision only, so exiting", "replicas", ing.Replicas)
		return nil
	}
	ingesters, err := ing.Ingesters(ctx, js, sources.Registry(), getenv, log, reg)
	if err != nil {
		return err
	}
	consumer, serving, err := app.Query(js, q, log, reg)
	if err != nil {
		return err
	}
	// Consume only after each source's first round, so that the first
	// catalog this process serves is whole rather than half published.
	consume := func(ctx context.Context) error {
		for _, r := range ingesters.Runners {
			select {
			case <-r.FirstRound():
			case <-ctx.Done():
				return nil
			}
		}
		return consumer.Run(ctx)
	}
	parts := append(serving, consume)
	parts = append(parts, ingesters.Parts...)
	fmt.Fprintf(stdout, "zoneprice: API on %s (NATS %s); Ctrl-C stops\n", q.Server.Addr, url)
	return app.RunAll(ctx, parts...)
}
