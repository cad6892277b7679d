// Command zoneprice is the all-in-one service: by default it starts an
// embedded NATS server with JetStream, provisions the streams, runs the
// ingesters, serves the API and delivers webhooks, in one process. The embedded server admits
// only the all-in-one and the commands holding the credentials it keeps in
// --data-dir (see app.StartLocal). With --nats-url it joins an existing
// NATS instead and starts no embedded server.
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
	"github.com/nats-io/nats.go/jetstream"

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
	app.StringVar(fs, getenv, &dataDir, "data-dir", "ZONEPRICE_DATA_DIR", app.DefaultDataDir, "embedded JetStream store, and the credentials of the commands that join it")
	app.StringVar(fs, getenv, &embedded, "embedded-listen", "ZONEPRICE_EMBEDDED_LISTEN", app.DefaultEmbeddedListen, `address the embedded NATS listens on for other processes ("" for in-process only)`)
	ing, err := app.RegisterIngestFlags(fs, getenv)
	if err != nil {
		return err
	}
	q, err := app.RegisterQueryFlags(fs, getenv)
	if err != nil {
		return err
	}
	nf, err := app.RegisterNotifyFlags(fs, getenv)
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
	var (
		nc *nats.Conn
		js jetstream.JetStream
	)
	if url == "" {
		srv, err := app.StartLocal(dataDir, embedded, log)
		if err != nil {
			return err
		}
		defer srv.WaitForShutdown()
		defer srv.Shutdown()
		if common.Auth.Given() {
			log.Warn("the nats credential and tls settings are for joining a nats with --nats-url; the embedded one ignores them")
		}
		url = srv.ClientURL()
		if nc, js, err = srv.Connect("zoneprice", log); err != nil {
			return err
		}
	} else if nc, js, err = common.Connect(url, "zoneprice", log); err != nil {
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
	ingesters, err := ing.Ingesters(ctx, js, sources.Registry(), getenv, log, reg)
	if err != nil {
		return err
	}
	// Subscriptions work offline too: without --smtp-host the mails are
	// files in --data-dir's outbox, and the links' secret is made and kept
	// beside the NATS seeds. The price-drop digests run here.
	if err := q.Subscribe.Local(dataDir, q.Server.Addr); err != nil {
		return err
	}
	q.Subscribe.Alerts = true
	consumer, serving, err := app.Query(js, q, log, reg)
	if err != nil {
		return err
	}
	// Webhooks with the same safety as zoneprice-notify's: loopback
	// receivers only with --webhook-allow-loopback.
	notifier, err := app.Notify(js, nf, log, reg)
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
	parts := append(serving, consume, notifier.Run)
	parts = append(parts, ingesters.Parts...)
	fmt.Fprintf(stdout, "zoneprice: API on %s (NATS %s); Ctrl-C stops\n", q.Server.Addr, url)
	return app.RunAll(ctx, parts...)
}
