// Package digest is the daily digest, by email, of the price drops and the
// renewal increases in their zones, to the confirmed subscribers of package
// subscribe who chose them (each a choice of its own).
//
// A Service follows the history stream through a durable consumer
// (AlertsConsumer) that every process sending digests shares, so each
// change is collected once; it mirrors the subscribers' bucket, adds each
// change's drop to the record of every subscriber who follows its zone
// with a threshold it reaches, and its rise of the renewal price to the
// record of every subscriber who follows the zone's renewal increases
// (collect.go), and once a day is over (UTC) mails each of them the
// changes of the days before, in one mail of a section each (send.go, from
// templates/mail.txt and mail.html). The records hold what is collected,
// so a restart loses none. It also has the subscription delete the
// addresses never confirmed in time (subscribe.Service.DeleteExpired).
// Mails leave through package mail, counted with kind "digest"; the
// changes are counted by section (metrics.go).
package digest

import (
	"context"
	"embed"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/errgroup"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/query/mail"
	"github.com/zoneprice/zoneprice/query/subscribe"
)

//go:embed templates
var templateFS embed.FS

// mails is the digest's mail, parsed once and never changed.
var mails = mail.MustParse(templateFS, "templates/mail.txt", "templates/mail.html")

// AlertsConsumer is the durable consumer of the history stream that
// collects price changes for the digests. Every process that runs a Service
// shares it, so each change is collected once. Its configuration is
// bus.AlertsConsumerConfig.
const AlertsConsumer = bus.AlertsConsumer

// Consumer is AlertsConsumer on the history stream (bus.Durable).
type Consumer interface {
	Consume(ctx context.Context, cfg bus.ConsumeConfig, handle func(bus.Job)) error
}

// Service sends the digests: it follows the history stream and adds each
// drop, and each renewal increase, to the pending digest of every
// confirmed subscriber who follows it (kept in the subscriber's record, so
// a restart loses none), and once a day sends each of them the changes of
// the days before, in one mail. It also deletes addresses not confirmed in
// time.
//
// Exactly once, as far as SMTP allows: a change is acknowledged only once
// every matching record holds it, and is not added twice (a change
// delivered again is found by its sequence); a digest is claimed in the
// record (LastDigestAt, DigestedThrough, the changes taken out) before it is
// sent, so two processes never both send it, and put back when the relay
// refuses it. A process killed between the claim and the relay's answer
// loses that one digest rather than send it twice.
type Service struct {
	subs    *subscribe.Service
	history Consumer
	log     *slog.Logger
	m       *metrics
	now     func() time.Time
	tick    time.Duration

	mu sync.Mutex
	// mirror mirrors the subscribers bucket (by key), loaded is closed
	// once the mirror holds the whole bucket.
	mirror     map[string]*contracts.Subscriber
	loaded     chan struct{}
	loadedOnce sync.Once
}

// New returns the digests of subs' subscribers, collecting the changes
// that history hands out; every tick it looks for digests due (the
// decision is now's, the tick only how often it is asked).
func New(subs *subscribe.Service, history Consumer, log *slog.Logger, reg prometheus.Registerer, now func() time.Time, tick time.Duration) (*Service, error) {
	m, err := newMetrics(reg)
	if err != nil {
		return nil, err
	}
	return &Service{subs: subs, history: history, log: log, m: m, now: now, tick: tick,
		mirror: map[string]*contracts.Subscriber{}, loaded: make(chan struct{})}, nil
}

// Run collects and sends until ctx ends.
func (s *Service) Run(ctx context.Context) error {
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error { return s.subs.Store().Follow(ctx, (*mirror)(s)) })
	g.Go(func() error {
		select {
		case <-s.loaded:
		case <-ctx.Done():
			return nil
		}
		return s.collect(ctx)
	})
	g.Go(func() error {
		t := time.NewTicker(s.tick)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-t.C:
			}
			select {
			case <-s.loaded:
				s.sendDue(ctx)
			default:
			}
		}
	})
	return g.Wait()
}

// Loaded is closed once the subscribers are loaded.
func (s *Service) Loaded() <-chan struct{} { return s.loaded }

// mirror is the bus.Follower that keeps Service's mirror in step with the
// subscribers bucket.
type mirror Service

// Loaded replaces the mirror with the bucket's subscribers.
func (m *mirror) Loaded(all []bus.Entry[contracts.Subscriber]) {
	m.mu.Lock()
	clear(m.mirror)
	m.mu.Unlock()
	m.Changed(all)
	m.loadedOnce.Do(func() { close(m.loaded) })
}

// Changed applies changes of the bucket. A record that does not decode is
// skipped, and the subscriber kept as last seen.
func (m *mirror) Changed(batch []bus.Entry[contracts.Subscriber]) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, e := range batch {
		switch {
		case e.Err != nil:
			m.log.Error("a subscriber record that does not decode; skipped", "revision", e.Revision, "err", e.Err)
		case e.Value == nil:
			delete(m.mirror, e.Key)
		default:
			m.mirror[e.Key] = e.Value
		}
	}
}

// Down logs a failed attempt to follow the bucket, which Follow makes
// again: waiting for it to be provisioned, or after a watch ended.
func (m *mirror) Down(err error) {
	m.log.Warn("cannot follow the subscribers bucket; retrying", "err", err)
}
