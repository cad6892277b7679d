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
	"log/slog"
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
	f, err := parseFlags(args, getenv, stderr)
	if err != nil {
		return err
	}
	log, err := f.common.Logger(stderr)
	if err != nil {
		return err
	}
	url, nc, js, closeNATS, err := f.connect(log)
	if err != nil {
		return err
	}
	defer closeNATS()
	defer nc.Close()
	if f.ing.Provision == app.ProvisionOnly {
		if err := app.Provision(ctx, js, f.ing.StreamOptions(), log); err != nil {
			return err
		}
		log.Info("stream and keys bucket provisioned; --provision only, so exiting", "replicas", f.ing.Replicas)
		return nil
	}
	parts, err := f.parts(ctx, js, getenv, log)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "zoneprice: API on %s (NATS %s); Ctrl-C stops\n", f.q.Server.Addr, url)
	return app.RunAll(ctx, parts...)
}

// flags are the all-in-one's settings: those of every part it runs.
type flags struct {
	common            *app.Common
	dataDir, embedded string
	ing               *app.IngestFlags
	q                 *app.QueryFlags
	nf                *app.NotifyFlags
}

func parseFlags(args []string, getenv app.Env, stderr io.Writer) (*flags, error) {
	fs := flag.NewFlagSet("zoneprice", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &flags{common: app.RegisterCommon(fs, getenv, "", "NATS server to join; empty starts an embedded server")}
	app.StringVar(fs, getenv, &f.dataDir, "data-dir", "ZONEPRICE_DATA_DIR", app.DefaultDataDir, "embedded JetStream store, and the credentials of the commands that join it")
	app.StringVar(fs, getenv, &f.embedded, "embedded-listen", "ZONEPRICE_EMBEDDED_LISTEN", app.DefaultEmbeddedListen, `address the embedded NATS listens on for other processes ("" for in-process only)`)
	var err error
	if f.ing, err = app.RegisterIngestFlags(fs, getenv); err != nil {
		return nil, err
	}
	if f.q, err = app.RegisterQueryFlags(fs, getenv); err != nil {
		return nil, err
	}
	if f.nf, err = app.RegisterNotifyFlags(fs, getenv); err != nil {
		return nil, err
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	return f, f.ing.Validate()
}

// connect starts the embedded NATS server and connects to it, or joins the
// one --nats-url names. It returns the URL processes reach NATS at, and
// closeNATS, which shuts the embedded server down once the connection is
// closed.
func (f *flags) connect(log *slog.Logger) (url string, nc *nats.Conn, js jetstream.JetStream, closeNATS func(), err error) {
	closeNATS = func() {}
	if f.common.NATSURL != "" {
		nc, js, err = f.common.Connect(f.common.NATSURL, "zoneprice", log)
		return f.common.NATSURL, nc, js, closeNATS, err
	}
	srv, err := app.StartLocal(f.dataDir, f.embedded, log)
	if err != nil {
		return "", nil, nil, nil, err
	}
	closeNATS = func() {
		srv.Shutdown()
		srv.WaitForShutdown()
	}
	if f.common.Auth.Given() {
		log.Warn("the nats credential and tls settings are for joining a nats with --nats-url; the embedded one ignores them")
	}
	if nc, js, err = srv.Connect("zoneprice", log); err != nil {
		closeNATS()
		return "", nil, nil, nil, err
	}
	return srv.ClientURL(), nc, js, closeNATS, nil
}

// parts are the ingesters, the query service, the webhooks' notifier and
// the consumer that feeds the query service, on js.
func (f *flags) parts(ctx context.Context, js jetstream.JetStream, getenv app.Env, log *slog.Logger) ([]func(context.Context) error, error) {
	reg := app.NewMetricsRegistry()
	sel, err := sources.Select(f.ing, getenv)
	if err != nil {
		return nil, err
	}
	ingesters, err := f.ing.Ingesters(ctx, js, sel, getenv, log, reg)
	if err != nil {
		return nil, err
	}
	// Subscriptions work offline too: without --smtp-host the mails are
	// files in --data-dir's outbox, and the links' secret is made and kept
	// beside the NATS seeds. The price-drop digests run here.
	if err := f.q.Subscribe.Local(f.dataDir, f.q.Server.Addr); err != nil {
		return nil, err
	}
	f.q.Subscribe.WithDigests = true
	consumer, serving, err := app.Query(js, f.q, log, reg)
	if err != nil {
		return nil, err
	}
	// Webhooks with the same safety as zoneprice-notify's: loopback
	// receivers only with --webhook-allow-loopback.
	notifier, err := app.Notify(js, f.nf, log, reg)
	if err != nil {
		return nil, err
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
	return append(parts, ingesters.Parts...), nil
}
