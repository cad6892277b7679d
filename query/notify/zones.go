package notify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
)

// Zones holds each zone's categories as the query pods show them: from
// the zone metadata on the state stream (zones.v1.*), which the zone
// sources publish from contracts' category data, read through the same
// last-per-subject reader the query pods replay the state with. A category
// filter matches a change by them.
type Zones struct {
	state StateReaders
	log   *slog.Logger

	mu         sync.RWMutex
	categories map[string][]string

	caughtUp     chan struct{}
	caughtUpOnce sync.Once
}

// StateReaders opens readers of the state stream (bus.Streams).
type StateReaders interface {
	Open(ctx context.Context, stream string, cfg bus.ReaderConfig) (*bus.Reader, error)
}

func newZones(state StateReaders, log *slog.Logger) *Zones {
	return &Zones{state: state, log: log, categories: map[string][]string{}, caughtUp: make(chan struct{})}
}

// CaughtUp is closed once the metadata the state stream held at start has
// been read.
func (z *Zones) CaughtUp() <-chan struct{} { return z.caughtUp }

// Categories returns zone's category IDs; the caller must not modify them.
func (z *Zones) Categories(zone string) []string {
	z.mu.RLock()
	defer z.mu.RUnlock()
	return z.categories[zone]
}

// Run reads the zone metadata, then follows it, until ctx ends.
func (z *Zones) Run(ctx context.Context) error {
	for backoff := 200 * time.Millisecond; ; backoff = min(2*backoff, 5*time.Second) {
		err := z.follow(ctx)
		if ctx.Err() != nil {
			return nil
		}
		z.log.Warn("cannot read zone metadata; retrying", "stream", contracts.StateStream, "err", err, "in", backoff)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(backoff):
		}
	}
}

func (z *Zones) follow(ctx context.Context) error {
	r, err := z.state.Open(ctx, contracts.StateStream, bus.ReaderConfig{Filters: []string{contracts.ZoneSubjectPrefix + "*"}})
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, r.Stop)
	defer stop()
	defer r.Stop()
	for {
		if r.CaughtUp() {
			z.caughtUpOnce.Do(func() { close(z.caughtUp) })
		}
		m, err := r.NextWithin(bus.StallWait)
		switch {
		case errors.Is(err, bus.ErrTimeout), errors.Is(err, bus.ErrNoMetadata):
			continue
		case err != nil:
			return fmt.Errorf("read zone metadata: %w", err)
		}
		ev, err := contracts.Decode(m.Data)
		meta, ok := ev.(*contracts.ZoneMeta)
		if err != nil || !ok || meta.Subject() != m.Subject {
			z.log.Warn("zone metadata that does not decode; its zone keeps its categories", "subject", m.Subject, "seq", m.Seq, "err", err)
			continue
		}
		z.mu.Lock()
		z.categories[meta.Zone] = meta.Categories
		z.mu.Unlock()
	}
}
