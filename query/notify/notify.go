package notify

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/errgroup"

	"github.com/zoneprice/zoneprice/contracts"
)

// Notify is one replica of the webhook delivery process.
type Notify struct {
	cfg     Config
	js      jetstream.JetStream
	log     *slog.Logger
	metrics *metrics
	now     func() time.Time

	regs   *Registrations
	zones  *Zones
	sender *sender
	busy   *slots

	deliveries atomic.Pointer[jetstream.Consumer]

	deferredMu sync.Mutex
	deferredBy map[string]int
}

// New returns a replica that works on js's streams; now is the clock that
// signs deliveries and decides when an endpoint has failed for long
// enough.
func New(js jetstream.JetStream, cfg Config, log *slog.Logger, reg prometheus.Registerer, now func() time.Time) (*Notify, error) {
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
		cfg: cfg, js: js, log: log, metrics: m, now: now,
		regs:       newRegistrations(js, log.With("part", "registrations"), m),
		zones:      newZones(js, log.With("part", "zones")),
		sender:     newSender(cfg),
		busy:       &slots{limit: cfg.EndpointConcurrency, busy: map[string]int{}},
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
	g.Go(func() error { return n.poll(ctx) })
	return g.Wait()
}

// poll sets the queue's gauges from the deliveries stream and its
// consumer, every StatsInterval.
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
	s, err := n.js.Stream(ctx, contracts.DeliveriesStream)
	if err != nil {
		return
	}
	state := s.CachedInfo().State
	n.metrics.queueDepth.Set(float64(state.Msgs))
	age := 0.0
	if state.Msgs > 0 {
		age = max(n.now().Sub(state.FirstTime).Seconds(), 0)
	}
	n.metrics.queueOldest.Set(age)
	if c := n.deliveries.Load(); c != nil {
		if info, err := (*c).Info(ctx); err == nil {
			n.metrics.queuePending.Set(float64(info.NumPending))
			n.metrics.queueRedelivery.Set(float64(info.NumAckPending))
		}
	}
}
