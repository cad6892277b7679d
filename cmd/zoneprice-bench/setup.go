package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/zoneprice/zoneprice/cmd/internal/app"
	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/ingest/sample"
)

// publishWindow is how many publishes PublishAll keeps in flight.
const publishWindow = 4096

// natsEnv is the embedded NATS server holding the generated data set, and
// what the later measurements need to know about that data.
type natsEnv struct {
	srv *server.Server
	nc  *nats.Conn
	js  jetstream.JetStream
	url string // for other processes

	zones     []contracts.Zone // the generated zones, sorted
	registrar string           // the first generated registrar
	prices    int              // price sets published: zones × registrars
	messages  uint64           // messages in the state stream
	changes   uint64           // messages in the history stream
	probe     *historyProbe    // the subject whose history freshness changes
}

func (e *natsEnv) close() {
	e.nc.Close()
	e.srv.Shutdown()
	e.srv.WaitForShutdown()
}

// ingestResult is how fast the data set went in.
type ingestResult struct {
	prices, metas, rates int
	took                 time.Duration
}

func (r *ingestResult) events() int { return r.prices + r.metas + r.rates }

// setup starts an embedded NATS with JetStream on a random loopback port,
// provisions the streams and publishes the generated data set: zones ×
// registrars price sets, plus the sample's metadata for those zones and its
// rates so that categories and conversions have real work to do.
func (b *bench) setup(ctx context.Context, res *results) (env *natsEnv, err error) {
	quiet := slog.New(slog.DiscardHandler)
	// RANDOM_PORT (-1) has the server pick a free port itself, so no other
	// process can take it between choosing and listening.
	listen := net.JoinHostPort("127.0.0.1", strconv.Itoa(server.RANDOM_PORT))
	srv, err := app.StartEmbedded(filepath.Join(b.tmp, "nats"), listen, quiet)
	if err != nil {
		return nil, err
	}
	nc, js, err := app.Connect(srv.ClientURL(), "zoneprice-bench", "", quiet)
	if err != nil {
		srv.Shutdown()
		srv.WaitForShutdown()
		return nil, err
	}
	env = &natsEnv{srv: srv, nc: nc, js: js, url: srv.ClientURL()}
	defer func() {
		if err != nil {
			env.close()
			env = nil
		}
	}()
	b.log.Info("embedded nats started", "url", env.url)
	if err := app.Provision(ctx, js, bus.Options{}, quiet); err != nil {
		return nil, err
	}

	all, err := sample.Zones()
	if err != nil {
		return nil, err
	}
	if len(all) < b.cfg.zones {
		return nil, fmt.Errorf("-zones: the sample knows %d zones, fewer than %d", len(all), b.cfg.zones)
	}
	env.zones = all[:b.cfg.zones]
	events, ir, err := b.events(ctx, env.zones)
	if err != nil {
		return nil, err
	}
	env.registrar = events[len(events)-ir.prices].(*contracts.PriceSet).Registrar
	env.prices = ir.prices

	b.log.Info("publishing", "price_sets", ir.prices, "zone_metas", ir.metas, "rates", ir.rates)
	start := time.Now()
	published, _, err := bus.NewPublisher(js).PublishAll(ctx, events, publishWindow)
	ir.took = time.Since(start)
	if err != nil {
		return nil, fmt.Errorf("publish the data set: %w", err)
	}
	if published != len(events) {
		return nil, fmt.Errorf("published %d of %d events", published, len(events))
	}
	res.ingest = ir

	stream, err := js.Stream(ctx, contracts.StateStream)
	if err != nil {
		return nil, err
	}
	env.messages = stream.CachedInfo().State.Msgs
	if want := uint64(len(events)); env.messages != want {
		return nil, fmt.Errorf("state stream holds %d messages after publishing %d distinct subjects", env.messages, want)
	}
	b.log.Info("published", "events", len(events), "took", ir.took.Round(time.Millisecond))
	return env, nil
}

// events builds the data set: metadata and rates first, then the price
// sets registrar by registrar. Nothing keeps it once publishing ends, so
// the catch-up runs do not share the heap with it.
func (b *bench) events(ctx context.Context, zones []contracts.Zone) ([]contracts.Event, *ingestResult, error) {
	observed := time.Now().UTC()
	list, err := sample.New(func() time.Time { return observed }).Fetch(ctx)
	if err != nil {
		return nil, nil, err
	}
	chosen := make(map[string]bool, len(zones))
	for _, z := range zones {
		chosen[z.ASCII] = true
	}
	prices, err := sample.Generate(zones, b.cfg.registrars, observed)
	if err != nil {
		return nil, nil, err
	}
	ir := &ingestResult{prices: len(prices)}
	events := make([]contracts.Event, 0, len(list.Zones)+len(list.Rates)+len(prices))
	for i := range list.Zones {
		if chosen[list.Zones[i].Zone] {
			events = append(events, &list.Zones[i])
			ir.metas++
		}
	}
	for i := range list.Rates {
		events = append(events, &list.Rates[i])
		ir.rates++
	}
	for i := range prices {
		events = append(events, &prices[i])
	}
	return events, ir, nil
}
