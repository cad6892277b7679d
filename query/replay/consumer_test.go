package replay_test

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/nats-io/nats-server/v2/server"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
	"github.com/zoneprice/zoneprice/contracts/eventtest"
	"github.com/zoneprice/zoneprice/query/querytest"
	"github.com/zoneprice/zoneprice/query/replay"
)

// running is a consumer following a real JetStream server, with its registry.
type running struct {
	c   *replay.Consumer
	reg *prometheus.Registry
}

func start(t *testing.T, js jetstream.JetStream) *running {
	t.Helper()
	return startAt(t, js, time.Now)
}

// startAt is start with the consumer's data clock now.
func startAt(t *testing.T, js jetstream.JetStream, now func() time.Time) *running {
	t.Helper()
	reg := prometheus.NewRegistry()
	c, err := replay.New(bus.NewStreams(js), replay.DefaultConfig(), slog.New(slog.DiscardHandler), reg, now)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("consumer run: %v", err)
		}
	})
	querytest.Until(t, "the consumer to catch up", c.IsReady)
	return &running{c: c, reg: reg}
}

// publishRaw stores documents as they are, past every check a publisher
// makes: what a pod must survive is whatever the stream holds.
func publishRaw(t *testing.T, js jetstream.JetStream, evs ...contracts.Event) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, ev := range evs {
		body, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		subject := contracts.PriceSubject("x", ".x")
		switch e := ev.(type) {
		case *contracts.PriceSet:
			subject = contracts.PriceSubject(e.Registrar, e.Zone)
		case *contracts.Rates:
			subject = contracts.RatesSubject(e.Base)
		case *contracts.ZoneMeta:
			subject = contracts.ZoneSubject(e.Zone)
		case *contracts.RegistrarStatus:
			subject = contracts.StatusSubject(e.Registrar)
		}
		if _, err := js.Publish(ctx, subject, body); err != nil {
			t.Fatalf("publish %s: %v", subject, err)
		}
	}
}

// value is the value of the counter or gauge name in reg, of its series
// whose first label has the value label (any series when label is "").
func value(t *testing.T, reg *prometheus.Registry, name, label string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.Metric {
			if label != "" && (len(m.Label) == 0 || m.Label[0].GetValue() != label) {
				continue
			}
			if m.Counter != nil {
				return m.Counter.GetValue()
			}
			return m.Gauge.GetValue()
		}
	}
	return 0
}

func (r *running) rejected(t *testing.T, reason string) float64 {
	t.Helper()
	return value(t, r.reg, "zoneprice_consumer_messages_rejected_total", reason)
}

func TestHostileDocumentsRejected(t *testing.T) {
	_, js := bustest.Provisioned(t)
	now := time.Now().UTC().Truncate(time.Second)
	good := eventtest.Priced("porkbun", ".com", now, "USD", 968, 1108, 1108)
	hugeAmount := eventtest.Priced("acme", ".com", now, "USD", 100, 9_223_372_036_854_775_807, 100)
	markup := eventtest.Priced("evil", ".com", now, "USD", 100, 100, 100)
	// The stream stores nothing over contracts.MaxEventSize (a 60 kB
	// source never arrives); a 10 kB one does, and is refused.
	markup.Source = "<script>" + strings.Repeat("x", 10_000)
	future := eventtest.Priced("later", ".com", time.Date(2199, 1, 1, 0, 0, 0, 0, time.UTC), "USD", 1, 1, 1)
	tiny := eventtest.Rates(now, "EUR", map[string]string{"USD": "0.0000000001"})
	publishRaw(t, js, good, hugeAmount, markup, future, tiny)

	r := start(t, js)
	s := r.c.Snapshot()
	if s.Prices != 1 || s.Registrars != 1 {
		t.Errorf("snapshot holds %d prices of %d registrars, want porkbun's alone", s.Prices, s.Registrars)
	}
	if !s.AsOf.Equal(now) {
		t.Errorf("as_of = %v, want %v: a document from 2199 must not date the data", s.AsOf, now)
	}
	want := map[string]float64{"invalid": 3, "future": 1}
	for reason, n := range want {
		if got := r.rejected(t, reason); got != n {
			t.Errorf("rejected{reason=%q} = %v, want %v", reason, got, n)
		}
	}
	if n := testutil.CollectAndCount(r.reg, "zoneprice_source_as_of_timestamp_seconds"); n != 1 {
		t.Errorf("%d source age series, want 1", n)
	}
}

// TestSourceSeriesBounded publishes prices from far more sources than the
// metric keeps series for: the rest share one "other" series.
func TestSourceSeriesBounded(t *testing.T) {
	_, js := bustest.Provisioned(t)
	now := time.Now().UTC().Truncate(time.Second)
	var evs []contracts.Event
	for i := range 300 {
		// Sample registrars, so that the sample is not hidden.
		ps := eventtest.Priced(fmt.Sprintf("sample-reg%03d", i), ".com", now, "USD", 100, 100, 100)
		ps.Source = fmt.Sprintf("src%03d", i)
		evs = append(evs, ps)
	}
	// The sample sorts after the cut, and keeps its own series.
	sample := eventtest.Priced("sample-alpha", ".com", now, "USD", 100, 100, 100)
	sample.Source = contracts.SampleSource
	evs = append(evs, sample)
	publishRaw(t, js, evs...)
	r := start(t, js)
	if got := r.c.Snapshot().Prices; got != 301 {
		t.Fatalf("%d prices, want 301", got)
	}
	if got := value(t, r.reg, "zoneprice_source_as_of_timestamp_seconds", contracts.SampleSource); got == 0 {
		t.Error("no series for the sample's source, which the sample alert reads")
	}
	if n := testutil.CollectAndCount(r.reg, "zoneprice_source_as_of_timestamp_seconds"); n > 66 {
		t.Errorf("%d source age series for 300 sources, want at most 66", n)
	}
}

// TestZoneFull offers one zone more registrars than it may hold.
func TestZoneFull(t *testing.T) {
	_, js := bustest.Provisioned(t)
	now := time.Now().UTC().Truncate(time.Second)
	var evs []contracts.Event
	for i := range contracts.MaxRegistrarsPerZone + 5 {
		ev := eventtest.Priced(fmt.Sprintf("reg%04d", i), ".com", now, "USD", 100, 100, 100)
		ev.Source = fmt.Sprintf("src%04d", i) // each registrar its own source, as real ones
		evs = append(evs, ev)
	}
	publishRaw(t, js, evs...)
	r := start(t, js)
	if got := r.c.Snapshot().Prices; got != contracts.MaxRegistrarsPerZone {
		t.Errorf("%d prices for .com, want %d", got, contracts.MaxRegistrarsPerZone)
	}
	if got := r.rejected(t, "zone_full"); got != 5 {
		t.Errorf("rejected{reason=zone_full} = %v, want 5", got)
	}
}

// TestSourceFull: one source's flood of 1,000 junk registrars in .club
// (an ingester gone wrong, a stolen credential) fills at most
// MaxRegistrarsPerSource of the zone, and a real registrar's price, of its
// own source, is still taken (it was refused zone_full).
func TestSourceFull(t *testing.T) {
	_, js := bustest.Provisioned(t)
	now := time.Now().UTC().Truncate(time.Second)
	var evs []contracts.Event
	for i := range 1000 {
		ev := eventtest.Priced(fmt.Sprintf("junk%04d", i), ".club", now, "USD", 1, 1, 1)
		ev.Source = "junk"
		evs = append(evs, ev)
	}
	real := eventtest.Priced("porkbun", ".club", now, "USD", 199, 1599, 1599)
	real.Source = "porkbun"
	publishRaw(t, js, append(evs, real)...)
	r := start(t, js)
	if got, want := r.c.Snapshot().Prices, contracts.MaxRegistrarsPerSource+1; got != want {
		t.Errorf("%d prices for .club, want %d: the source's first %d and porkbun's", got, want, contracts.MaxRegistrarsPerSource)
	}
	if got, want := r.rejected(t, "source_full"), float64(1000-contracts.MaxRegistrarsPerSource); got != want {
		t.Errorf("rejected{reason=source_full} = %v, want %v", got, want)
	}
	if got := r.rejected(t, "zone_full"); got != 0 {
		t.Errorf("rejected{reason=zone_full} = %v, want 0", got)
	}
}

// TestDamagedStream starts a pod on a state stream that lost messages to a
// damaged block: it serves what survived, and says the catalog is
// incomplete, in its log (with the repair) and its metrics.
func TestDamagedStream(t *testing.T) {
	srv, js := bustest.Provisioned(t)
	now := time.Now().UTC().Truncate(time.Second)
	var evs []contracts.Event
	for i := range 3000 {
		evs = append(evs, eventtest.Priced("porkbun", fmt.Sprintf(".z%04d", i), now, "USD", 100, 100, 100))
	}
	publishRaw(t, js, evs...)
	srv = bustest.Damage(t, srv, contracts.StateStream, bustest.Garbage)
	_, js = bustest.Connect(t, srv)

	var logs querytest.LogBuffer
	reg := prometheus.NewRegistry()
	c, err := replay.New(bus.NewStreams(js), replay.DefaultConfig(), slog.New(slog.NewJSONHandler(&logs, nil)), reg, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("consumer run: %v", err)
		}
	})
	querytest.Until(t, "the consumer to be ready", c.IsReady)
	if got := c.Snapshot().Prices; got == 0 || got >= 3000 {
		t.Errorf("%d prices served, want the survivors of 3000", got)
	}
	if got := value(t, reg, "zoneprice_stream_healthy", ""); got != 0 {
		t.Errorf("zoneprice_stream_healthy = %v, want 0", got)
	}
	if got := value(t, reg, "zoneprice_stream_missing_messages", ""); got != float64(3000-c.Snapshot().Prices) {
		t.Errorf("zoneprice_stream_missing_messages = %v, want %d", got, 3000-c.Snapshot().Prices)
	}
	for _, want := range []string{"state stream damaged", contracts.StateStream, "zoneprice-admin stream republish", "caught up with a damaged state stream"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log does not say %q:\n%s", want, logs.String())
		}
	}
}

// TestCutStream starts a pod on a state stream whose end a crash cut in
// the middle of a new price, and on one with a message the server can no
// longer read (a flipped byte): the server calls the stream healthy, and
// older prices show again as current. The pod serves what it read, and
// says the catalog is not to be trusted, for as long as it runs: its
// catch-up ended short of what the stream counts.
func TestCutStream(t *testing.T) {
	for _, tc := range []struct {
		name, says string
		damage     func(testing.TB, *server.Server, string, []byte) *server.Server
		value      string
	}{
		{"a cut end", "were lost", bustest.Truncate, `"zone":".z02","register":{"regular":{"amount":777`},
		{"an unreadable message", "can no longer read", bustest.DamageValue, `"zone":".z07"`},
	} {
		t.Run(tc.name, func(t *testing.T) { testDamagedStart(t, tc.damage, tc.value, tc.says) })
	}
}

func testDamagedStart(t *testing.T, damage func(testing.TB, *server.Server, string, []byte) *server.Server, damaged, says string) {
	srv, js := bustest.Provisioned(t)
	now := time.Now().UTC().Truncate(time.Second)
	var evs []contracts.Event
	for i := range 10 {
		evs = append(evs, eventtest.Priced("porkbun", fmt.Sprintf(".z%02d", i), now, "USD", 100, 100, 100))
	}
	for i := range 5 {
		evs = append(evs, eventtest.Priced("porkbun", fmt.Sprintf(".z%02d", i), now.Add(time.Second), "USD", 777, 100, 100))
	}
	publishRaw(t, js, evs...)
	srv = damage(t, srv, contracts.StateStream, []byte(damaged))
	_, js = bustest.Connect(t, srv)

	var logs querytest.LogBuffer
	reg := prometheus.NewRegistry()
	streams := &countingHeads{Streams: bus.NewStreams(js)}
	c, err := replay.New(streams, replay.DefaultConfig(), slog.New(slog.NewJSONHandler(&logs, nil)), reg, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	c.SetHeadInterval(20 * time.Millisecond)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("consumer run: %v", err)
		}
	})
	querytest.Until(t, "the consumer to be ready", c.IsReady)
	for _, want := range []string{"state stream damaged", says, "zoneprice-admin stream republish"} {
		querytest.Until(t, "the log to say "+want, func() bool { return strings.Contains(logs.String(), want) })
	}
	if got := value(t, reg, "zoneprice_stream_healthy", ""); got != 0 {
		t.Errorf("zoneprice_stream_healthy = %v, want 0", got)
	}
	// The head watch reads the stream's state, which looks healthy: the
	// pod must not take that for a repair.
	asked := streams.asked.Load()
	querytest.Until(t, "the head watch", func() bool { return streams.asked.Load() > asked+1 })
	if got := value(t, reg, "zoneprice_stream_healthy", ""); got != 0 {
		t.Errorf("zoneprice_stream_healthy after the head watch = %v, want 0", got)
	}
}

// countingHeads counts how often the stream's health is asked.
type countingHeads struct {
	*bus.Streams
	asked atomic.Int64
}

func (h *countingHeads) Health(ctx context.Context, stream string) (bus.Health, error) {
	h.asked.Add(1)
	return h.Streams.Health(ctx, stream)
}
