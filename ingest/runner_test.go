package ingest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
	"github.com/zoneprice/zoneprice/contracts/eventtest"
	"github.com/zoneprice/zoneprice/ingest"
)

// listSource returns whatever list or error the test sets next.
type listSource struct {
	list *ingest.List
	err  error
}

var _ ingest.Source = (*listSource)(nil)

func (s *listSource) Name() string { return "test" }

func (s *listSource) Fetch(context.Context) (*ingest.List, error) { return s.list, s.err }

var t0 = time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)

// set is reg's USD registration price for zone, as a list holds it.
func set(reg, zone string, amount int64) contracts.PriceSet {
	return *eventtest.RegisterOnly(reg, zone, t0, "USD", amount)
}

func list(sets ...contracts.PriceSet) *ingest.List { return &ingest.List{Prices: sets} }

type harness struct {
	srv *server.Server
	js  jetstream.JetStream
	src *listSource
	r   *ingest.Runner
	reg *prometheus.Registry
	now time.Time
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	srv, js := bustest.Provisioned(t)
	h := &harness{srv: srv, js: js, src: &listSource{}, reg: prometheus.NewRegistry(), now: t0}
	cfg := ingest.RunnerConfig{Timeout: 10 * time.Second, MinKeepRatio: 0.5}
	r, err := ingest.NewRunner(h.src, bus.NewStreams(js), bus.NewPublisher(js), cfg, slog.New(slog.DiscardHandler), h.reg, func() time.Time { return h.now })
	if err != nil {
		t.Fatal(err)
	}
	h.r = r
	return h
}

// once runs one round with the given list, a minute after the last.
func (h *harness) once(t *testing.T, l *ingest.List, fetchErr error) error {
	t.Helper()
	h.now = h.now.Add(time.Minute)
	for i := range l.Prices {
		l.Prices[i].ObservedAt = h.now
	}
	h.src.list, h.src.err = l, fetchErr
	return h.r.Once(context.Background())
}

func (h *harness) lastSeq(t *testing.T) uint64 {
	t.Helper()
	s, err := h.js.Stream(context.Background(), contracts.StateStream)
	if err != nil {
		t.Fatal(err)
	}
	return s.CachedInfo().State.LastSeq
}

// current decodes the last message on a price subject, or nil.
func (h *harness) current(t *testing.T, reg, zone string) contracts.Event {
	t.Helper()
	s, err := h.js.Stream(context.Background(), contracts.StateStream)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.GetLastMsgForSubject(context.Background(), contracts.PriceSubject(reg, zone))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	ev, err := contracts.Decode(m.Data)
	if err != nil {
		t.Fatalf("decode %s: %v", m.Subject, err)
	}
	return ev
}

func TestRunnerPublishesOnlyChanges(t *testing.T) {
	h := newHarness(t)
	if err := h.once(t, list(set("a", ".com", 100), set("a", ".net", 200)), nil); err != nil {
		t.Fatal(err)
	}
	if got := h.lastSeq(t); got != 2 {
		t.Fatalf("first round: got last seq %d, want 2", got)
	}
	// Same prices, later observed_at: nothing to publish.
	if err := h.once(t, list(set("a", ".com", 100), set("a", ".net", 200)), nil); err != nil {
		t.Fatal(err)
	}
	if got := h.lastSeq(t); got != 2 {
		t.Errorf("unchanged round: got last seq %d, want 2", got)
	}
	// One price changes: one message.
	if err := h.once(t, list(set("a", ".com", 150), set("a", ".net", 200)), nil); err != nil {
		t.Fatal(err)
	}
	if got := h.lastSeq(t); got != 3 {
		t.Errorf("changed round: got last seq %d, want 3", got)
	}
	if ps, ok := h.current(t, "a", ".com").(*contracts.PriceSet); !ok || ps.Register.Regular.Amount != 150 {
		t.Errorf("a .com: got %+v, want the 150 price set", ps)
	}
}

func TestRunnerWithdrawsAndRelists(t *testing.T) {
	h := newHarness(t)
	both := func() *ingest.List { return list(set("a", ".com", 100), set("a", ".net", 200)) }
	if err := h.once(t, both(), nil); err != nil {
		t.Fatal(err)
	}
	if err := h.once(t, list(set("a", ".com", 100)), nil); err != nil {
		t.Fatal(err)
	}
	if _, ok := h.current(t, "a", ".net").(*contracts.Withdrawal); !ok {
		t.Fatalf("a .net after it left the list: got %T, want a withdrawal", h.current(t, "a", ".net"))
	}
	// Listed again at the very same price: it must be published again.
	if err := h.once(t, both(), nil); err != nil {
		t.Fatal(err)
	}
	if ps, ok := h.current(t, "a", ".net").(*contracts.PriceSet); !ok || ps.Register.Regular.Amount != 200 {
		t.Errorf("a .net relisted: got %T, want its price set back", h.current(t, "a", ".net"))
	}
	if got := counter(t, h.reg, "zoneprice_ingest_withdrawals_total"); got != 1 {
		t.Errorf("withdrawals: got %v, want 1", got)
	}
}

func TestRunnerRefusesShrunkList(t *testing.T) {
	h := newHarness(t)
	if err := h.once(t, list(set("a", ".com", 1), set("a", ".net", 2), set("a", ".org", 3), set("a", ".io", 4)), nil); err != nil {
		t.Fatal(err)
	}
	before := h.lastSeq(t)
	err := h.once(t, list(set("a", ".com", 1)), nil)
	if !errors.Is(err, ingest.ErrShrunk) {
		t.Fatalf("got %v, want ErrShrunk", err)
	}
	if got := h.lastSeq(t); got != before {
		t.Errorf("a refused list published: last seq %d, want %d", got, before)
	}
	if _, ok := h.current(t, "a", ".org").(*contracts.PriceSet); !ok {
		t.Errorf("a .org after a refused list: got %T, want its last good price set", h.current(t, "a", ".org"))
	}
}

func TestRunnerFailingSourceKeepsLastGood(t *testing.T) {
	h := newHarness(t)
	if err := h.once(t, list(set("a", ".com", 100)), nil); err != nil {
		t.Fatal(err)
	}
	if err := h.once(t, list(), errors.New("connection refused")); err == nil {
		t.Fatal("a failing fetch returned no error")
	}
	if _, ok := h.current(t, "a", ".com").(*contracts.PriceSet); !ok {
		t.Errorf("a .com after a failed fetch: got %T, want its price set", h.current(t, "a", ".com"))
	}
}

func TestRunnerSkipsInvalidEvents(t *testing.T) {
	h := newHarness(t)
	if err := h.once(t, list(set("a", ".com", 100), set("a", ".net", 200)), nil); err != nil {
		t.Fatal(err)
	}
	bad := set("a", ".net", 300)
	bad.Register.Regular.Currency = "XYZ"
	if err := h.once(t, list(set("a", ".com", 100), bad), nil); err != nil {
		t.Fatal(err)
	}
	// The bad row is skipped and counted; .net is neither updated nor
	// withdrawn.
	if ps, ok := h.current(t, "a", ".net").(*contracts.PriceSet); !ok || ps.Register.Regular.Amount != 200 {
		t.Errorf("a .net after an invalid row: got %T, want the last good price set", h.current(t, "a", ".net"))
	}
	if got := counter(t, h.reg, "zoneprice_ingest_events_invalid_total"); got != 1 {
		t.Errorf("invalid events: got %v, want 1", got)
	}
}

// counter returns the value of a counter with no variable labels.
// counter is the value of the counter name, the one series whose labels
// include the label pairs given (the runner's source label aside).
func counter(t *testing.T, reg *prometheus.Registry, name string, labels ...string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	series:
		for _, m := range mf.GetMetric() {
			for i := 0; i+1 < len(labels); i += 2 {
				if !slices.ContainsFunc(m.GetLabel(), func(l *dto.LabelPair) bool {
					return l.GetName() == labels[i] && l.GetValue() == labels[i+1]
				}) {
					continue series
				}
			}
			return m.GetCounter().GetValue()
		}
	}
	t.Fatalf("no counter %s%v", name, labels)
	return 0
}

// TestRunnerRestartUsesStream starts a second runner on the same stream, as
// after a restart: it republishes nothing unchanged and still withdraws a
// zone that left the list while it was down.
func TestRunnerRestartUsesStream(t *testing.T) {
	h := newHarness(t)
	if err := h.once(t, list(set("a", ".com", 100), set("a", ".net", 200), set("a", ".org", 300)), nil); err != nil {
		t.Fatal(err)
	}
	restarted := &harness{js: h.js, src: &listSource{}, reg: prometheus.NewRegistry(), now: h.now}
	r, err := ingest.NewRunner(restarted.src, bus.NewStreams(h.js), bus.NewPublisher(h.js), ingest.RunnerConfig{Timeout: 10 * time.Second, MinKeepRatio: 0.5},
		slog.New(slog.DiscardHandler), restarted.reg, func() time.Time { return restarted.now })
	if err != nil {
		t.Fatal(err)
	}
	restarted.r = r
	before := h.lastSeq(t)
	if err := restarted.once(t, list(set("a", ".com", 100), set("a", ".org", 300)), nil); err != nil {
		t.Fatal(err)
	}
	if got := h.lastSeq(t); got != before+1 {
		t.Errorf("restarted round published %d messages, want 1 (the withdrawal)", got-before)
	}
	if _, ok := h.current(t, "a", ".net").(*contracts.Withdrawal); !ok {
		t.Errorf("a .net after a restart without it: got %T, want a withdrawal", h.current(t, "a", ".net"))
	}
}

// TestRunnerRepairsOverwrittenSubject overwrites a registrar's price with a
// document that does not decode: the runner's next round puts it right.
func TestRunnerRepairsOverwrittenSubject(t *testing.T) {
	h := newHarness(t)
	both := func() *ingest.List { return list(set("a", ".com", 100), set("a", ".net", 200)) }
	if err := h.once(t, both(), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := h.js.Publish(context.Background(), contracts.PriceSubject("a", ".net"), []byte("{garbage")); err != nil {
		t.Fatal(err)
	}
	if err := h.once(t, both(), nil); err != nil {
		t.Fatal(err)
	}
	if ps, ok := h.current(t, "a", ".net").(*contracts.PriceSet); !ok || ps.Register.Regular.Amount != 200 {
		t.Errorf("a .net after the repair round: got %T, want its price set back", h.current(t, "a", ".net"))
	}
}

// TestRunnerMetricNames lints the runner's metric names and help texts.
func TestRunnerMetricNames(t *testing.T) {
	h := newHarness(t)
	if err := h.once(t, list(set("a", ".com", 100)), nil); err != nil {
		t.Fatal(err)
	}
	problems, err := testutil.GatherAndLint(h.reg)
	if err != nil || len(problems) > 0 {
		t.Errorf("metric lint: %v %v", err, problems)
	}
	if got := counter(t, h.reg, "zoneprice_ingest_events_published_total"); got != 1 {
		t.Errorf("published: got %v, want 1", got)
	}
}

// TestRunnerRefreshesUnchanged republishes an unchanged price once the
// stream's copy is older than Refresh, so observed_at stays meaningful.
func TestRunnerRefreshesUnchanged(t *testing.T) {
	h := newHarness(t)
	r, err := ingest.NewRunner(h.src, bus.NewStreams(h.js), bus.NewPublisher(h.js), ingest.RunnerConfig{Timeout: 10 * time.Second, MinKeepRatio: 0.5, Refresh: time.Hour},
		slog.New(slog.DiscardHandler), prometheus.NewRegistry(), func() time.Time { return h.now })
	if err != nil {
		t.Fatal(err)
	}
	h.r = r
	if err := h.once(t, list(set("a", ".com", 100)), nil); err != nil {
		t.Fatal(err)
	}
	before := h.lastSeq(t)
	if err := h.once(t, list(set("a", ".com", 100)), nil); err != nil {
		t.Fatal(err)
	}
	if got := h.lastSeq(t); got != before {
		t.Errorf("a minute later: published %d, want nothing", got-before)
	}
	h.now = h.now.Add(2 * time.Hour)
	if err := h.once(t, list(set("a", ".com", 100)), nil); err != nil {
		t.Fatal(err)
	}
	if got := h.lastSeq(t); got != before+1 {
		t.Errorf("two hours later: published %d, want the refresh", got-before)
	}
	if ps, ok := h.current(t, "a", ".com").(*contracts.PriceSet); !ok || !ps.ObservedAt.Equal(h.now) {
		t.Errorf("a .com after the refresh: got %+v, want observed now", h.current(t, "a", ".com"))
	}
}

// TestRunnerWithdrawsGarbageOfDroppedZone: a subject holding garbage whose
// zone left the list is withdrawn, so every pod ends up agreeing.
func TestRunnerWithdrawsGarbageOfDroppedZone(t *testing.T) {
	h := newHarness(t)
	if err := h.once(t, list(set("a", ".com", 100), set("a", ".net", 200)), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := h.js.Publish(context.Background(), contracts.PriceSubject("a", ".net"), []byte("{garbage")); err != nil {
		t.Fatal(err)
	}
	if err := h.once(t, list(set("a", ".com", 100), set("a", ".org", 300)), nil); err != nil {
		t.Fatal(err)
	}
	if _, ok := h.current(t, "a", ".net").(*contracts.Withdrawal); !ok {
		t.Errorf("a .net after it left the list with garbage on it: got %T, want a withdrawal", h.current(t, "a", ".net"))
	}
}

func TestRunnerRetiresRegistrar(t *testing.T) {
	h := newHarness(t)
	if err := h.once(t, list(set("a", ".com", 1), set("a", ".net", 2), set("b", ".com", 3)), nil); err != nil {
		t.Fatal(err)
	}
	// Retiring a is not a shrunken list: every price of a goes, b stays.
	l := list(set("b", ".com", 3))
	l.Retired = []string{"a"}
	if err := h.once(t, l, nil); err != nil {
		t.Fatal(err)
	}
	for _, zone := range []string{".com", ".net"} {
		if _, ok := h.current(t, "a", zone).(*contracts.Withdrawal); !ok {
			t.Errorf("a %s after retiring a: got %T, want a withdrawal", zone, h.current(t, "a", zone))
		}
	}
	if _, ok := h.current(t, "b", ".com").(*contracts.PriceSet); !ok {
		t.Errorf("b .com: got %T, want its price set", h.current(t, "b", ".com"))
	}
	// Retiring again publishes nothing new.
	before := h.lastSeq(t)
	if err := h.once(t, l, nil); err != nil {
		t.Fatal(err)
	}
	if got := h.lastSeq(t); got != before {
		t.Errorf("a second retirement published: last seq %d, want %d", got, before)
	}
}

func TestRunnerRefusesListedAndRetired(t *testing.T) {
	h := newHarness(t)
	l := list(set("a", ".com", 1))
	l.Retired = []string{"a"}
	if err := h.once(t, l, nil); err == nil {
		t.Fatal("a list that lists and retires the same registrar was published")
	}
}

func TestRunnerWakeAndAfterSuccess(t *testing.T) {
	h := newHarness(t)
	h.src.list = list(set("a", ".com", 1))
	r, err := ingest.NewRunner(h.src, bus.NewStreams(h.js), bus.NewPublisher(h.js), ingest.RunnerConfig{Interval: time.Hour, Timeout: 10 * time.Second, MinKeepRatio: 0.5},
		slog.New(slog.DiscardHandler), prometheus.NewRegistry(), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	rounds := make(chan int, 4)
	r.AfterSuccess(func(l *ingest.List) { rounds <- len(l.Prices) })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	<-rounds // the first round
	// The interval is an hour: only Wake explains a second round.
	r.Wake()
	select {
	case got := <-rounds:
		if got != 1 {
			t.Errorf("AfterSuccess saw %d prices, want 1", got)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Wake did not start a round")
	}
}

func TestRunnerKeepsUnreadableRows(t *testing.T) {
	h := newHarness(t)
	if err := h.once(t, list(set("a", ".com", 1), set("a", ".net", 2)), nil); err != nil {
		t.Fatal(err)
	}
	// .net's row could not be read this time: its price stays.
	l := list(set("a", ".com", 1))
	l.Keep = []string{contracts.PriceSubject("a", ".net")}
	l.Skipped = 1
	if err := h.once(t, l, nil); err != nil {
		t.Fatal(err)
	}
	if _, ok := h.current(t, "a", ".net").(*contracts.PriceSet); !ok {
		t.Errorf("a .net after an unreadable row: got %T, want its last good price set", h.current(t, "a", ".net"))
	}
	if got := counter(t, h.reg, "zoneprice_ingest_rows_skipped_total"); got != 1 {
		t.Errorf("rows skipped: got %v, want 1", got)
	}
}

func TestRunnerKeptNeverPricedDoesNotHideShrinking(t *testing.T) {
	h := newHarness(t)
	if err := h.once(t, list(set("a", ".com", 1), set("a", ".net", 2), set("a", ".org", 3), set("a", ".io", 4)), nil); err != nil {
		t.Fatal(err)
	}
	// One zone listed and three unreadable rows for zones a never priced:
	// that is still a list of one against four.
	l := list(set("a", ".com", 1))
	for _, z := range []string{".dev", ".app", ".xyz"} {
		l.Keep = append(l.Keep, contracts.PriceSubject("a", z))
	}
	if err := h.once(t, l, nil); !errors.Is(err, ingest.ErrShrunk) {
		t.Fatalf("got %v, want ErrShrunk", err)
	}
}

func TestFallbackIgnoresRejectedDocuments(t *testing.T) {
	h := newHarness(t)
	// A price set on another registrar's subject, which query pods
	// reject, is not a real price the sample must step aside for.
	wrong := set("porkbun", ".com", 968)
	body, err := json.Marshal(&wrong)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.js.Publish(context.Background(), contracts.PriceSubject("other", ".com"), body); err != nil {
		t.Fatal(err)
	}
	stand := &listSource{list: &ingest.List{Prices: []contracts.PriceSet{set("sample-a", ".com", 1)}}}
	if err := fallbackRunner(t, h, stand).Once(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, ok := h.current(t, "sample-a", ".com").(*contracts.PriceSet); !ok {
		t.Errorf("the sample stepped aside for a rejected document: got %T", h.current(t, "sample-a", ".com"))
	}
}

func TestRunnerNeverPublishesOlderRates(t *testing.T) {
	h := newHarness(t)
	newer := rates("ecb", "1.0523")
	newer.Date = "2026-11-20"
	if err := h.once(t, &ingest.List{Rates: []contracts.Rates{newer}}, nil); err != nil {
		t.Fatal(err)
	}
	before := h.lastSeq(t)
	older := rates("ecb", "1.0400")
	older.Date = "2026-11-19"
	if err := h.once(t, &ingest.List{Rates: []contracts.Rates{older}}, nil); err != nil {
		t.Fatal(err)
	}
	if got := h.lastSeq(t); got != before {
		t.Errorf("older rates were published: last seq %d, want %d", got, before)
	}
	// Another source's newer date is no reason to hold back: the ECB's
	// file replaces the sample's fixed rates whatever their dates.
	real := rates("ecb-archive", "1.0705")
	real.Date = "2024-06-28"
	if err := h.once(t, &ingest.List{Rates: []contracts.Rates{real}}, nil); err != nil {
		t.Fatal(err)
	}
	if got := h.lastSeq(t); got != before+1 {
		t.Errorf("another source's older-dated rates were not published: last seq %d, want %d", got, before+1)
	}
}

// TestRunnerRefusesRateJump keeps a source's last good rates when a rate
// moved by more than contracts.MaxRateJump since them, and counts it.
func TestRunnerRefusesRateJump(t *testing.T) {
	h := newHarness(t)
	if err := h.once(t, &ingest.List{Rates: []contracts.Rates{rates("ecb", "1.0830")}}, nil); err != nil {
		t.Fatal(err)
	}
	before := h.lastSeq(t)
	for _, usd := range []string{"0.0000001", "5.0", "0.2"} {
		next := rates("ecb", usd)
		next.Date = "2026-11-21"
		if err := h.once(t, &ingest.List{Rates: []contracts.Rates{next}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if got := h.lastSeq(t); got != before {
		t.Errorf("jumped rates were published: last seq %d, want %d", got, before)
	}
	if got := counter(t, h.reg, "zoneprice_ingest_events_refused_total", "reason", "rate_jump"); got != 3 {
		t.Errorf("refused{reason=rate_jump} = %v, want 3", got)
	}
	// A move within the bound is published, and another source's rates
	// are no yardstick.
	moved := rates("ecb", "1.5")
	moved.Date = "2026-11-22"
	other := rates("other", "9.0")
	other.Base, other.Date = "USD", "2026-11-22"
	if err := h.once(t, &ingest.List{Rates: []contracts.Rates{moved, other}}, nil); err != nil {
		t.Fatal(err)
	}
	if got := h.lastSeq(t); got != before+2 {
		t.Errorf("last seq %d, want %d: a real move and a new base are published", got, before+2)
	}
}

// TestRunnerRefusesFutureEvents does not publish a price observed ahead of
// now, which query pods would refuse.
func TestRunnerRefusesFutureEvents(t *testing.T) {
	h := newHarness(t)
	l := list(set("acme", ".com", 100))
	h.src.list = l
	h.now = h.now.Add(time.Minute)
	l.Prices[0].ObservedAt = h.now.Add(contracts.MaxClockSkew + time.Hour)
	if err := h.r.Once(context.Background()); err != nil {
		t.Fatal(err)
	}
	if ev := h.current(t, "acme", ".com"); ev != nil {
		t.Errorf("a price observed an hour ahead was published: %+v", ev)
	}
	if got := counter(t, h.reg, "zoneprice_ingest_events_refused_total", "reason", "future"); got != 1 {
		t.Errorf("refused{reason=future} = %v, want 1", got)
	}
}

// TestRunnerRepublish publishes the whole list on request, whatever the
// stream holds, and then goes back to publishing only changes.
func TestRunnerRepublish(t *testing.T) {
	h := newHarness(t)
	l := list(set("a", ".com", 100), set("a", ".net", 200))
	if err := h.once(t, l, nil); err != nil {
		t.Fatal(err)
	}
	before := h.lastSeq(t)
	h.r.Republish()
	if err := h.once(t, list(set("a", ".com", 100), set("a", ".net", 200)), nil); err != nil {
		t.Fatal(err)
	}
	if got := h.lastSeq(t); got != before+2 {
		t.Errorf("after Republish: last seq %d, want %d (both prices again)", got, before+2)
	}
	if err := h.once(t, list(set("a", ".com", 100), set("a", ".net", 200)), nil); err != nil {
		t.Fatal(err)
	}
	if got := h.lastSeq(t); got != before+2 {
		t.Errorf("the round after: last seq %d, want %d (nothing changed)", got, before+2)
	}
}

// TestRunnerDamagedStream runs a round against a state stream that lost
// messages to a damaged block: the round publishes what the stream no
// longer delivers instead of failing, and withdraws nothing.
func TestRunnerDamagedStream(t *testing.T) {
	h := newHarness(t)
	var sets []contracts.PriceSet
	for i := range 3000 {
		sets = append(sets, set("a", fmt.Sprintf(".z%04d", i), 100))
	}
	if err := h.once(t, list(sets...), nil); err != nil {
		t.Fatal(err)
	}
	srv := bustest.Damage(t, h.srv, contracts.StateStream, bustest.Garbage)
	_, h.js = bustest.Connect(t, srv)
	r, err := ingest.NewRunner(h.src, bus.NewStreams(h.js), bus.NewPublisher(h.js), ingest.RunnerConfig{Timeout: 30 * time.Second, MinKeepRatio: 0.5},
		slog.New(slog.DiscardHandler), prometheus.NewRegistry(), func() time.Time { return h.now })
	if err != nil {
		t.Fatal(err)
	}
	h.r = r
	before := h.lastSeq(t)
	if err := h.once(t, list(sets...), nil); err != nil {
		t.Fatalf("a round on the damaged stream: %v", err)
	}
	published := h.lastSeq(t) - before
	if published == 0 || published >= 3000 {
		t.Errorf("published %d prices, want those the damaged block lost", published)
	}
}

// TestRunnerDamagedStreamUnreadable runs rounds against a state stream
// with a message the server can no longer read (a flipped byte), which
// its state still counts and calls healthy: the round says so (an ERROR,
// the error) instead of serving the subject's older message as current;
// what it republishes may not be durable there (nats-server 2.15 does
// not acknowledge it, and loses it when it restarts), and every round
// after such a loss says so again, until the documented repair (bus.Repair: on a
// single server, the stream moved away and provisioned anew) makes the
// next round publish everything, for good.
func TestRunnerDamagedStreamUnreadable(t *testing.T) {
	h := newHarness(t)
	var sets []contracts.PriceSet
	for i := range 3000 {
		sets = append(sets, set("a", fmt.Sprintf(".z%04d", i), 100))
	}
	if err := h.once(t, list(sets...), nil); err != nil {
		t.Fatal(err)
	}
	restart := func(srv *server.Server) {
		h.srv = srv
		_, h.js = bustest.Connect(t, srv)
		r, err := ingest.NewRunner(h.src, bus.NewStreams(h.js), bus.NewPublisher(h.js), ingest.RunnerConfig{Timeout: 10 * time.Second, MinKeepRatio: 0.5},
			slog.New(slog.DiscardHandler), prometheus.NewRegistry(), func() time.Time { return h.now })
		if err != nil {
			t.Fatal(err)
		}
		h.r = r
	}
	readAll := func() (int, error) {
		n := 0
		err := bus.NewStreams(h.js).ReadLast(context.Background(), contracts.StateStream, bus.ReaderConfig{}, func(bus.Msg) bool { n++; return true })
		return n, err
	}
	restart(bustest.DamageValue(t, h.srv, contracts.StateStream, []byte(`".z1500"`)))
	if n, err := readAll(); n != 2999 || !errors.Is(err, bus.ErrIncomplete) {
		t.Fatalf("the damaged stream: read %d, %v; want 2999 and ErrIncomplete", n, err)
	}
	_ = h.once(t, list(sets...), nil) // republishes .z1500; the server may not acknowledge it
	restart(bustest.Stop(t, h.srv)())
	if n, err := readAll(); (n != 3000 || err != nil) && !errors.Is(err, bus.ErrIncomplete) {
		t.Fatalf("after a republish and a restart: read %d, %v; want all 3000, or the loss said (ErrIncomplete)", n, err)
	}

	restart(bustest.RemoveStream(t, h.srv, contracts.StateStream))
	if err := bus.Provision(context.Background(), h.js, bus.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := h.once(t, list(sets...), nil); err != nil {
		t.Fatalf("the round after the repair: %v", err)
	}
	restart(bustest.Stop(t, h.srv)())
	if n, err := readAll(); n != 3000 || err != nil {
		t.Errorf("after the repair and a restart: read %d, %v; want 3000 and no error", n, err)
	}
}
