package notify

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/errgroup"

	"github.com/zoneprice/zoneprice/contracts/bus"
)

// Bus is the streams and the bucket a replica works on, each as the stage
// that uses it declares it (package bus has them all).
type Bus struct {
	// Webhooks is the registrations' bucket (bus.Webhooks).
	Webhooks WebhookRecords
	// State reads the zone metadata on the state stream (bus.NewStreams).
	State StateReaders
	// Dispatch is bus.DispatchConsumer on the history stream.
	Dispatch Consumer
	// Deliver is bus.DeliverConsumer on the deliveries stream, with the
	// replica's AckWait.
	Deliver WorkQueue
	// Deliveries queues deliveries and records attempts
	// (bus.NewDeliveries).
	Deliveries Deliveries
}

// Notify is one replica of the webhook delivery process.
type Notify struct {
	cfg     Config
	bus     Bus
	log     *slog.Logger
	metrics *metrics
	now     func() time.Time

	regs     *Registrations
	zones    *Zones
	sender   *sender
	recorder *recorder
	busy     *slots
	census   *census
	// queueing is held while a change's deliveries are queued, and while
	// the census counts; dropping while an endpoint's are dropped.
	queueing, dropping sync.Mutex

	deferredMu sync.Mutex
	deferredBy map[string]int
}

// New returns a replica that works on b; now is the clock that signs
// deliveries and decides when an endpoint has failed for long enough.
func New(b Bus, cfg Config, log *slog.Logger, reg prometheus.Registerer, now func() time.Time) (*Notify, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.AllowLoopback {
		log.Warn("deliveries may reach loopback addresses on any port: for tests and local development only, never where subscribers are untrusted")
	}
	if len(cfg.AllowPrefixes) > 0 {
		log.Warn("deliveries may reach these networks although they are internal: for tests only, never where subscribers are untrusted",
			"networks", fmt.Sprint(cfg.AllowPrefixes))
	}
	if cfg.AllowHTTP {
		log.Warn("deliveries may go over plain http: their bodies and signatures can be read on the way")
	}
	m := newMetrics(reg)
	return &Notify{
		cfg: cfg, bus: b, log: log, metrics: m, now: now,
		regs:   newRegistrations(b.Webhooks, log.With("part", "registrations"), m),
		zones:  newZones(b.State, log.With("part", "zones")),
		sender: newSender(cfg),
		// A closure, not the method value, so that a Notify made only for
		// its metrics (with no bus) can be made.
		recorder: newRecorder(func(ctx context.Context, as []bus.Attempt) (int, error) {
			return b.Deliveries.RecordAll(ctx, as)
		}, cfg.RecordInterval, cfg.AckWait/4, log.With("part", "records")),
		busy: &slots{limit: cfg.EndpointConcurrency, busy: map[string]int{}},
		census: newCensus(cfg.MaxQueuedPerKey, func(ctx context.Context, owner string) (int, error) {
			return b.Deliveries.Queued(ctx, owner)
		}, now),
		deferredBy: map[string]int{},
	}, nil
}

// Run follows the registrations and the zones, dispatches changes and
// sends deliveries until ctx ends.
func (n *Notify) Run(ctx context.Context) error {
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error { return n.regs.Run(ctx) })
	g.Go(func() error { return n.zones.Run(ctx) })
	g.Go(func() error { return n.dispatch(ctx) })
	g.Go(func() error { return n.deliver(ctx) })
	g.Go(func() error { n.recorder.run(); return nil })
	g.Go(func() error { return n.poll(ctx) })
	g.Go(func() error { return n.drops(ctx) })
	return g.Wait()
}

// poll sets the queue's gauges from the deliveries stream and its
// consumer, and counts what waits for each key (takeCensus), every
// StatsInterval.
func (n *Notify) poll(ctx context.Context) error {
	t := time.NewTicker(n.cfg.StatsInterval)
	defer t.Stop()
	for {
		n.pollOnce(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

func (n *Notify) pollOnce(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	n.takeCensus(ctx)
	state, err := n.bus.Deliveries.State(ctx)
	if err != nil {
		return
	}
	n.metrics.queueDepth.Set(float64(state.Msgs))
	age := 0.0
	if state.Msgs > 0 {
		age = max(n.now().Sub(state.Oldest).Seconds(), 0)
	}
	n.metrics.queueOldest.Set(age)
	// Before this replica created the consumer, there is none to ask.
	if info, err := n.bus.Deliver.Info(ctx); err == nil {
		n.metrics.queuePending.Set(float64(info.Pending))
		n.metrics.queueRedelivery.Set(float64(info.AckPending))
	}
}
