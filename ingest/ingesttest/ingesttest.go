// Package ingesttest runs an ingest source through a real Runner against an
// in-process JetStream server and reads back what the stream holds, so that
// every adapter's tests check what consumers would see: the last good prices
// kept after a bad fetch, a shrunken list refused.
package ingesttest

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/natstest"
	"github.com/zoneprice/zoneprice/ingest"
)

// Harness is a Runner for one source on a fresh provisioned stream.
type Harness struct {
	JS       jetstream.JetStream
	Runner   *ingest.Runner
	Registry *prometheus.Registry
}

// New starts a server and a Runner for src with a ten-second timeout and
// the default shrink guard (a list below half the last is refused).
func New(t testing.TB, src ingest.Source) *Harness {
	t.Helper()
	_, js := natstest.Provisioned(t)
	reg := prometheus.NewRegistry()
	cfg := ingest.RunnerConfig{Timeout: 10 * time.Second, MinKeepRatio: 0.5}
	r, err := ingest.NewRunner(src, js, cfg, slog.New(slog.DiscardHandler), reg, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	return &Harness{JS: js, Runner: r, Registry: reg}
}

// Once runs one round.
func (h *Harness) Once(t testing.TB) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return h.Runner.Once(ctx)
}

// Events returns the current event on every subject matching filter
// (">" for all), decoded; a subject whose message does not decode fails
// the test.
func (h *Harness) Events(t testing.TB, filter string) map[string]contracts.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := h.JS.Stream(ctx, contracts.StateStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx, jetstream.WithSubjectFilter(filter))
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]contracts.Event, len(info.State.Subjects))
	for subject := range info.State.Subjects {
		msg, err := s.GetLastMsgForSubject(ctx, subject)
		if err != nil {
			t.Fatalf("get %s: %v", subject, err)
		}
		ev, err := contracts.Decode(msg.Data)
		if err != nil {
			t.Fatalf("decode %s: %v", subject, err)
		}
		out[subject] = ev
	}
	return out
}

// Prices returns a registrar's live price sets on the stream, by zone.
// Withdrawn zones are left out.
func (h *Harness) Prices(t testing.TB, registrar string) map[string]*contracts.PriceSet {
	t.Helper()
	out := map[string]*contracts.PriceSet{}
	for _, ev := range h.Events(t, contracts.RegistrarPriceFilter(registrar)) {
		if p, ok := ev.(*contracts.PriceSet); ok {
			out[p.Zone] = p
		}
	}
	return out
}
