package ingest_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/eventtest"
	"github.com/zoneprice/zoneprice/ingest"
)

// history reads every change the history stream holds, oldest first.
func (h *harness) history(t *testing.T) []*contracts.PriceChange {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := h.js.Stream(ctx, contracts.HistoryStream)
	if err != nil {
		t.Fatal(err)
	}
	n := s.CachedInfo().State.Msgs
	var out []*contracts.PriceChange
	if n == 0 {
		return nil
	}
	cons, err := s.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	for uint64(len(out)) < n {
		msg, err := cons.Next(jetstream.FetchMaxWait(5 * time.Second))
		if err != nil {
			t.Fatalf("read change %d of %d: %v", len(out)+1, n, err)
		}
		ev, err := contracts.Decode(msg.Data())
		if err != nil {
			t.Fatalf("decode change on %s: %v", msg.Subject(), err)
		}
		c, ok := ev.(*contracts.PriceChange)
		if !ok || !contracts.OnSubject(c, msg.Subject()) {
			t.Fatalf("history holds %T on %s", ev, msg.Subject())
		}
		out = append(out, c)
	}
	return out
}

// change describes a change as the tests compare it: kind, zone, and the
// registration price before and after (-1 for none).
type change struct {
	kind          contracts.Change
	zone          string
	before, after int64
}

func describe(cs []*contracts.PriceChange) []change {
	amount := func(o *contracts.Offer) int64 {
		if o == nil || o.Register == nil {
			return -1
		}
		return o.Register.Regular.Amount
	}
	out := make([]change, len(cs))
	for i, c := range cs {
		out[i] = change{c.Change, c.Zone, amount(c.Before), amount(c.After)}
	}
	return out
}

func wantChanges(t *testing.T, h *harness, want ...change) []*contracts.PriceChange {
	t.Helper()
	got := h.history(t)
	d := describe(got)
	if len(d) != len(want) {
		t.Fatalf("history holds %d changes %+v, want %d %+v", len(d), d, len(want), want)
	}
	for i := range want {
		if d[i] != want[i] {
			t.Errorf("change %d = %+v, want %+v", i, d[i], want[i])
		}
	}
	return got
}

// TestChangesByKind runs a registrar's list through additions, a price
// change, a promotion starting and ending, an unchanged round and a
// withdrawal, and checks the history records each change once.
func TestChangesByKind(t *testing.T) {
	h := newHarness(t)
	ends := t0.Add(30 * 24 * time.Hour)
	promo := func() contracts.PriceSet {
		p := set("a", ".net", 200)
		p.Register = eventtest.Promo("USD", 200, 99, &ends)
		return p
	}
	rounds := []*ingest.List{
		list(set("a", ".com", 100), set("a", ".net", 200)),
		list(set("a", ".com", 100), set("a", ".net", 200)), // unchanged
		list(set("a", ".com", 150), promo()),
		list(set("a", ".com", 150), set("a", ".net", 200)), // the promotion ended
		list(set("a", ".com", 120)),                        // .net withdrawn
	}
	for i, l := range rounds {
		if err := h.once(t, l, nil); err != nil {
			t.Fatalf("round %d: %v", i+1, err)
		}
	}
	got := wantChanges(t, h,
		change{contracts.ChangeAdded, ".com", -1, 100},
		change{contracts.ChangeAdded, ".net", -1, 200},
		change{contracts.ChangeChanged, ".com", 100, 150},
		change{contracts.ChangeChanged, ".net", 200, 200}, // the promotion started
		change{contracts.ChangeChanged, ".net", 200, 200}, // and ended
		change{contracts.ChangeChanged, ".com", 150, 120},
		change{contracts.ChangeWithdrawn, ".net", 200, -1},
	)
	if p := got[3].After.Register.Promo; p == nil || p.Price.Amount != 99 || !p.EndsAt.Equal(ends) {
		t.Errorf("the promotion's change has after.register.promo %+v, want 0.99 until %v", p, ends)
	}
	if !got[3].Dropped() || got[4].Dropped() || got[2].Dropped() || !got[5].Dropped() {
		t.Errorf("dropped: promotion start %v, promotion end %v, rise %v, cut %v; want true, false, false, true",
			got[3].Dropped(), got[4].Dropped(), got[2].Dropped(), got[5].Dropped())
	}
	for _, c := range got {
		if c.Registrar != "a" || c.Source == "" || c.ObservedAt.IsZero() {
			t.Errorf("change %+v lacks its registrar, source or time", c)
		}
	}
	if got[2].ObservedAt != t0.Add(3*time.Minute) {
		t.Errorf("the third round's change was observed at %v, want the list's %v", got[2].ObservedAt, t0.Add(3*time.Minute))
	}
	for kind, want := range map[string]float64{"added": 2, "changed": 4, "withdrawn": 1, "known": 0} {
		if n := counter(t, h.reg, "zoneprice_ingest_changes_total", "change", kind); n != want {
			t.Errorf("zoneprice_ingest_changes_total{change=%q} = %v, want %v", kind, n, want)
		}
	}
}

// TestNoChangeOnRepublish republishes every price (the stream repair) and
// refreshes observed_at: neither is a change.
func TestNoChangeOnRepublish(t *testing.T) {
	h := newHarness(t)
	r, err := ingest.NewRunner(h.src, bus.NewStreams(h.js), bus.NewPublisher(h.js), ingest.RunnerConfig{Timeout: 10 * time.Second, MinKeepRatio: 0.5, Refresh: time.Minute},
		slog.New(slog.DiscardHandler), prometheus.NewRegistry(), func() time.Time { return h.now })
	if err != nil {
		t.Fatal(err)
	}
	h.r = r
	both := func() *ingest.List { return list(set("a", ".com", 100), set("a", ".net", 200)) }
	if err := h.once(t, both(), nil); err != nil {
		t.Fatal(err)
	}
	seq := h.lastSeq(t)
	h.r.Republish()
	for range 3 {
		if err := h.once(t, both(), nil); err != nil {
			t.Fatal(err)
		}
	}
	if h.lastSeq(t) == seq {
		t.Fatal("the prices were not republished; the test proves nothing")
	}
	wantChanges(t, h,
		change{contracts.ChangeAdded, ".com", -1, 100},
		change{contracts.ChangeAdded, ".net", -1, 200},
	)
}

// TestChangesExactlyOnceAcrossCrash stops a round between recording its
// changes and publishing its prices, as a crash there would, then runs a
// new runner (the restarted ingester) on the same list: every change is
// in the history once, and the prices are published.
func TestChangesExactlyOnceAcrossCrash(t *testing.T) {
	h := newHarness(t)
	if err := h.once(t, list(set("a", ".com", 100), set("a", ".net", 200)), nil); err != nil {
		t.Fatal(err)
	}
	crash := errors.New("killed between the two publishes")
	ingest.CrashBeforeState(h.r, crash)
	if err := h.once(t, list(set("a", ".com", 150), set("a", ".net", 200)), nil); !errors.Is(err, crash) {
		t.Fatalf("round = %v, want the crash", err)
	}
	if ps := h.current(t, "a", ".com").(*contracts.PriceSet); ps.Register.Regular.Amount != 100 {
		t.Fatalf("a .com after the crash = %d, want the old 100 (the state was not published)", ps.Register.Regular.Amount)
	}
	wantChanges(t, h,
		change{contracts.ChangeAdded, ".com", -1, 100},
		change{contracts.ChangeAdded, ".net", -1, 200},
		change{contracts.ChangeChanged, ".com", 100, 150},
	)

	// The restart, a round later: past the duplicate window as far as
	// the runner is concerned, since its list has a new observed_at.
	reg := prometheus.NewRegistry()
	r, err := ingest.NewRunner(h.src, bus.NewStreams(h.js), bus.NewPublisher(h.js), ingest.RunnerConfig{Timeout: 10 * time.Second, MinKeepRatio: 0.5},
		slog.New(slog.DiscardHandler), reg, func() time.Time { return h.now })
	if err != nil {
		t.Fatal(err)
	}
	h.r = r
	if err := h.once(t, list(set("a", ".com", 150), set("a", ".net", 200)), nil); err != nil {
		t.Fatal(err)
	}
	if ps := h.current(t, "a", ".com").(*contracts.PriceSet); ps.Register.Regular.Amount != 150 {
		t.Errorf("a .com after the restart = %d, want 150", ps.Register.Regular.Amount)
	}
	if n := counter(t, reg, "zoneprice_ingest_changes_total", "change", "changed"); n != 0 {
		t.Errorf("the restarted runner recorded %v changes, want none: the history already held it", n)
	}
	// A change after the crash follows the history's last word.
	if err := h.once(t, list(set("a", ".com", 170), set("a", ".net", 200)), nil); err != nil {
		t.Fatal(err)
	}
	wantChanges(t, h,
		change{contracts.ChangeAdded, ".com", -1, 100},
		change{contracts.ChangeAdded, ".net", -1, 200},
		change{contracts.ChangeChanged, ".com", 100, 150},
		change{contracts.ChangeChanged, ".com", 150, 170},
	)
}

// TestFirstKnownPeriods starts history on a state stream that already
// holds prices (the first start after history was deployed): each current
// price is recorded once as its first known period, then changes follow.
func TestFirstKnownPeriods(t *testing.T) {
	h := newHarness(t)
	pub := bus.NewPublisher(h.js)
	old := t0.Add(-48 * time.Hour)
	for _, ev := range []contracts.Event{
		eventtest.RegisterOnly("a", ".com", old, "USD", 100),
		eventtest.RegisterOnly("a", ".net", old, "USD", 200),
		eventtest.Withdrawal("a", ".org", old),
		eventtest.RegisterOnly("b", ".com", old, "USD", 300), // another ingester's
	} {
		if _, err := pub.Publish(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		if err := h.once(t, list(set("a", ".com", 100), set("a", ".net", 250), set("a", ".org", 400)), nil); err != nil {
			t.Fatal(err)
		}
	}
	got := wantChanges(t, h,
		change{contracts.ChangeKnown, ".com", -1, 100},
		change{contracts.ChangeKnown, ".net", -1, 200},
		change{contracts.ChangeChanged, ".net", 200, 250},
		change{contracts.ChangeAdded, ".org", -1, 400},
	)
	if !got[0].ObservedAt.Equal(old) || got[0].Source != eventtest.Source {
		t.Errorf("first known period observed %v by %q, want the stored price's %v", got[0].ObservedAt, got[0].Source, old)
	}
}

// TestSampleHistory records the sample's prices as history while they are
// served and their withdrawal when the sample steps aside.
func TestSampleHistory(t *testing.T) {
	h := newHarness(t)
	if err := h.once(t, list(set("sample-alpha", ".com", 100)), nil); err != nil {
		t.Fatal(err)
	}
	if err := h.once(t, &ingest.List{Retired: []string{"sample-alpha"}}, nil); err != nil {
		t.Fatal(err)
	}
	wantChanges(t, h,
		change{contracts.ChangeAdded, ".com", -1, 100},
		change{contracts.ChangeWithdrawn, ".com", 100, -1},
	)
}

// TestNoHistoryStream runs against a deployment provisioned before
// history: prices are still published, and history starts from them once
// the stream exists.
func TestNoHistoryStream(t *testing.T) {
	h := newHarness(t)
	if err := h.js.DeleteStream(context.Background(), contracts.HistoryStream); err != nil {
		t.Fatal(err)
	}
	if err := h.once(t, list(set("a", ".com", 100)), nil); err != nil {
		t.Fatalf("round without a history stream: %v", err)
	}
	if ps, ok := h.current(t, "a", ".com").(*contracts.PriceSet); !ok || ps.Register.Regular.Amount != 100 {
		t.Fatalf("a .com = %v, want the price published", h.current(t, "a", ".com"))
	}
	if _, err := h.js.CreateStream(context.Background(), bus.HistoryConfig(bus.Options{})); err != nil {
		t.Fatal(err)
	}
	if err := h.once(t, list(set("a", ".com", 110)), nil); err != nil {
		t.Fatal(err)
	}
	wantChanges(t, h,
		change{contracts.ChangeKnown, ".com", -1, 100},
		change{contracts.ChangeChanged, ".com", 100, 110},
	)
}

// TestReconcileOffline stops a first import between recording its changes
// and publishing its prices, as kill -9 there would, and restarts the
// ingester on a machine where the source cannot be fetched any more: its
// first failed round publishes what the history says (the added and the
// changed prices, and a withdrawal), so the state no longer lags the
// history; a state newer than the history is left alone, and a second
// failed round publishes nothing.
func TestReconcileOffline(t *testing.T) {
	h := newHarness(t)
	if err := h.once(t, list(set("a", ".com", 100), set("a", ".net", 200), set("a", ".org", 300)), nil); err != nil {
		t.Fatal(err)
	}
	ingest.CrashBeforeState(h.r, errors.New("killed between the two publishes"))
	if err := h.once(t, list(set("a", ".com", 150), set("a", ".net", 200), set("a", ".toys", 900)), nil); err == nil {
		t.Fatal("the crashed round succeeded")
	}
	if h.current(t, "a", ".toys") != nil {
		t.Fatal("the crashed round published .toys's price")
	}

	r, err := ingest.NewRunner(h.src, bus.NewStreams(h.js), bus.NewPublisher(h.js), ingest.RunnerConfig{Timeout: 10 * time.Second, MinKeepRatio: 0.5},
		slog.New(slog.DiscardHandler), prometheus.NewRegistry(), func() time.Time { return h.now })
	if err != nil {
		t.Fatal(err)
	}
	h.r = r
	offline := errors.New("no route to host")
	if err := h.once(t, list(), offline); !errors.Is(err, offline) {
		t.Fatalf("offline round = %v, want the fetch error", err)
	}
	for zone, want := range map[string]int64{".com": 150, ".net": 200, ".toys": 900} {
		ps, ok := h.current(t, "a", zone).(*contracts.PriceSet)
		if !ok || ps.Register.Regular.Amount != want {
			t.Errorf("a %s after the offline round = %v, want a price of %d", zone, h.current(t, "a", zone), want)
		}
	}
	if _, ok := h.current(t, "a", ".org").(*contracts.Withdrawal); !ok {
		t.Errorf("a .org after the offline round = %v, want its withdrawal", h.current(t, "a", ".org"))
	}
	seq := h.lastSeq(t)
	if err := h.once(t, list(), offline); !errors.Is(err, offline) {
		t.Fatal(err)
	}
	if got := h.lastSeq(t); got != seq {
		t.Errorf("a second offline round published %d documents, want none", got-seq)
	}
}
