// Package ingesttest is what every adapter's tests share. It runs an ingest
// source through a real Runner against an in-process JetStream server and
// reads back what the stream holds, so that each adapter checks what
// consumers would see: the last good prices kept after a bad fetch, a
// shrunken list refused. It also serves a registrar's API from a scripted
// fake, loads fixtures, and checks the invariants every parsed list keeps.
package ingesttest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/iana"
	"github.com/zoneprice/zoneprice/query/querytest"
)

// Harness is a Runner for one source on a fresh provisioned stream.
type Harness struct {
	// Streams and Publisher are the stream's, for a test that runs
	// another Runner beside Runner.
	Streams   *bus.Streams
	Publisher *bus.Publisher
	Runner    *ingest.Runner
	Registry  *prometheus.Registry
	// Log is what the runner logged, as text.
	Log *querytest.LogBuffer
}

// New starts a server and a Runner for src with a ten-second timeout, the
// default shrink guard (a list below half the last is refused) and the
// root-zone guard every command's runner has (iana.Root).
func New(t testing.TB, src ingest.Source) *Harness {
	t.Helper()
	_, js := bustest.Provisioned(t)
	h := &Harness{Streams: bus.NewStreams(js), Publisher: bus.NewPublisher(js), Registry: prometheus.NewRegistry(), Log: &querytest.LogBuffer{}}
	cfg := ingest.RunnerConfig{Timeout: 10 * time.Second, MinKeepRatio: 0.5}
	r, err := ingest.NewRunner(src, h.Streams, h.Publisher, cfg, slog.New(slog.NewTextHandler(h.Log, nil)), h.Registry, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	r.Guard(iana.NewRoot(h.Streams))
	h.Runner = r
	return h
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
	out := map[string]contracts.Event{}
	var bad error
	err := h.Streams.ReadLast(ctx, contracts.StateStream, bus.ReaderConfig{Filters: []string{filter}}, func(m bus.Msg) bool {
		ev, err := contracts.Decode(m.Data)
		if err != nil {
			bad = fmt.Errorf("decode %s: %w", m.Subject, err)
			return false
		}
		out[m.Subject] = ev
		return true
	})
	if err == nil {
		err = bad
	}
	if err != nil {
		t.Fatal(err)
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

// Round runs a round that must succeed and returns the registrar's live
// prices after it.
func (h *Harness) Round(t testing.TB, registrar string) map[string]*contracts.PriceSet {
	t.Helper()
	if err := h.Once(t); err != nil {
		t.Fatalf("round: %v", err)
	}
	return h.Prices(t, registrar)
}

// RoundFails runs a round that must fail, with an error that is target
// when target is not nil, and checks that the registrar's live prices are
// still before.
func (h *Harness) RoundFails(t testing.TB, registrar string, before map[string]*contracts.PriceSet, target error) {
	t.Helper()
	err := h.Once(t)
	switch {
	case err == nil:
		t.Fatal("a round that should fail succeeded")
	case target != nil && !errors.Is(err, target):
		t.Fatalf("round error = %v, want %v", err, target)
	}
	if after := h.Prices(t, registrar); !reflect.DeepEqual(after, before) {
		t.Errorf("a failed round changed the prices: %d zones before, %d after", len(before), len(after))
	}
}

// Counter reads the value of one of the runner's counters: its one
// series, or the one whose labels include the label pairs given
// ("reason", "not-in-root").
func (h *Harness) Counter(t testing.TB, name string, labels ...string) float64 {
	t.Helper()
	return h.metric(t, name, labels).GetCounter().GetValue()
}

// Gauge reads the value of one of the runner's gauges, as Counter does.
func (h *Harness) Gauge(t testing.TB, name string, labels ...string) float64 {
	t.Helper()
	return h.metric(t, name, labels).GetGauge().GetValue()
}

// metric finds one series of the runner's metric name.
func (h *Harness) metric(t testing.TB, name string, labels []string) *dto.Metric {
	t.Helper()
	mfs, err := h.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if len(labels) == 0 && len(mf.GetMetric()) == 1 || hasLabels(m, labels) {
				return m
			}
		}
	}
	t.Fatalf("no metric %s%q", name, labels)
	return nil
}

// hasLabels reports whether m has every label pair given, and some.
func hasLabels(m *dto.Metric, pairs []string) bool {
	for i := 0; i+1 < len(pairs); i += 2 {
		if !slices.ContainsFunc(m.GetLabel(), func(l *dto.LabelPair) bool { return l.GetName() == pairs[i] && l.GetValue() == pairs[i+1] }) {
			return false
		}
	}
	return len(pairs) > 0
}
