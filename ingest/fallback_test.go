package ingest_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
	"github.com/zoneprice/zoneprice/ingest"
)

func rates(source, usd string) contracts.Rates {
	return contracts.Rates{
		V: contracts.SchemaVersion, Kind: contracts.KindRates, Base: "EUR", Date: "2026-11-20",
		Rates: map[string]string{"USD": usd}, ObservedAt: t0, Source: source,
	}
}

func fallbackRunner(t *testing.T, h *harness, src ingest.Source) *ingest.Runner {
	t.Helper()
	fb := ingest.NewFallback(src, bus.NewStreams(h.js), slog.New(slog.DiscardHandler))
	r, err := ingest.NewRunner(fb, bus.NewStreams(h.js), bus.NewPublisher(h.js), ingest.RunnerConfig{Timeout: 10 * time.Second, MinKeepRatio: 0.5},
		slog.New(slog.DiscardHandler), prometheus.NewRegistry(), func() time.Time { return h.now })
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestFallbackStepsAsideForRealPrices(t *testing.T) {
	h := newHarness(t)
	stand := &listSource{list: &ingest.List{
		Prices: []contracts.PriceSet{set("sample-a", ".com", 1), set("sample-a", ".net", 2)},
		Rates:  []contracts.Rates{rates("sample", "1.08")},
	}}
	fb := fallbackRunner(t, h, stand)
	if err := fb.Once(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, ok := h.current(t, "sample-a", ".com").(*contracts.PriceSet); !ok {
		t.Fatalf("with no real prices the sample was not published: got %T", h.current(t, "sample-a", ".com"))
	}
	// A real registrar's price arrives; the sample's next round retires it.
	if err := h.once(t, list(set("porkbun", ".com", 968)), nil); err != nil {
		t.Fatal(err)
	}
	if err := fb.Once(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, zone := range []string{".com", ".net"} {
		if _, ok := h.current(t, "sample-a", zone).(*contracts.Withdrawal); !ok {
			t.Errorf("sample-a %s after real prices arrived: got %T, want a withdrawal", zone, h.current(t, "sample-a", zone))
		}
	}
	if _, ok := h.current(t, "porkbun", ".com").(*contracts.PriceSet); !ok {
		t.Error("the real price was touched")
	}
}

func TestFallbackLeavesOthersRates(t *testing.T) {
	h := newHarness(t)
	// Real rates are on the stream before the sample runs.
	if err := h.once(t, &ingest.List{Rates: []contracts.Rates{rates("ecb", "1.0523")}}, nil); err != nil {
		t.Fatal(err)
	}
	stand := &listSource{list: &ingest.List{
		Prices: []contracts.PriceSet{set("sample-a", ".com", 1)},
		Rates:  []contracts.Rates{rates("sample", "1.08")},
	}}
	if err := fallbackRunner(t, h, stand).Once(context.Background()); err != nil {
		t.Fatal(err)
	}
	s, err := h.js.Stream(context.Background(), contracts.StateStream)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.GetLastMsgForSubject(context.Background(), contracts.RatesSubject("EUR"))
	if err != nil {
		t.Fatal(err)
	}
	ev, err := contracts.Decode(m.Data)
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := ev.(*contracts.Rates); !ok || r.Source != "ecb" {
		t.Errorf("EUR rates after the sample ran: got %+v, want the ecb's", ev)
	}
	if _, ok := h.current(t, "sample-a", ".com").(*contracts.PriceSet); !ok {
		t.Error("the sample's prices were not published")
	}
}

func TestFileSource(t *testing.T) {
	path := t.TempDir() + "/list.txt"
	parse := func(body []byte, observed time.Time) (*ingest.List, error) {
		s := set("a", "."+string(body), 1)
		s.ObservedAt = observed
		return list(s), nil
	}
	src := ingest.NewFileSource("a", path, parse, func() time.Time { return t0 })
	if _, err := src.Fetch(context.Background()); err == nil {
		t.Fatal("a missing file gave no error")
	}
	if err := os.WriteFile(path, []byte("com"), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := src.Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Prices) != 1 || l.Prices[0].Zone != ".com" || !l.Prices[0].ObservedAt.Equal(t0) {
		t.Errorf("got %+v, want the file's one price observed at t0", l.Prices)
	}
}

func TestHeldBy(t *testing.T) {
	h := newHarness(t)
	if err := h.once(t, list(set("a", ".com", 1)), nil); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		source string
		want   bool
	}{{"test", true}, {"iana", false}} {
		got, err := ingest.HeldBy(context.Background(), bus.NewStreams(h.js), contracts.PriceSubjectPrefix+">", tt.source)
		if err != nil {
			t.Fatal(err)
		}
		if got != tt.want {
			t.Errorf("HeldBy(%q) = %v, want %v", tt.source, got, tt.want)
		}
	}
}

func TestFallbackZonesOnlyWithoutZoneSource(t *testing.T) {
	meta := contracts.ZoneMeta{
		V: contracts.SchemaVersion, Kind: contracts.KindZoneMeta, Zone: ".com", Unicode: ".com",
		Type: contracts.TypeGeneric, ObservedAt: t0, Source: "builtin",
	}
	for _, elsewhere := range []bool{false, true} {
		stand := &listSource{list: &ingest.List{
			Prices: []contracts.PriceSet{set("sample-a", ".com", 1)},
			Zones:  []contracts.ZoneMeta{meta},
		}}
		_, js := bustest.Provisioned(t)
		fb := ingest.NewFallback(stand, bus.NewStreams(js), slog.New(slog.DiscardHandler))
		fb.ZonesElsewhere = elsewhere
		l, err := fb.Fetch(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(l.Zones), map[bool]int{false: 1, true: 0}[elsewhere]; got != want {
			t.Errorf("zone source beside it %v: %d zones published, want %d", elsewhere, got, want)
		}
	}
}

func TestTally(t *testing.T) {
	var tally ingest.Tally
	tally.Add("row 1", set("a", ".net", 2), nil)
	tally.Add("row 2", set("a", ".com", 1), nil)
	tally.Add("row 3", set("a", ".com", 9), nil)                                // a duplicate: skipped, .com keeps its row
	tally.Add("row 4", set("a", ".org", 0), errors.New("price does not read"))  // skipped, kept
	tally.Add("row 5", contracts.PriceSet{}, errors.New("zone does not read"))  // skipped, nothing to keep
	tally.Add("row 6", set("a", ".hns", 0), ingest.LeftOut("a Handshake name")) // left out
	l, err := tally.List("test list")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Prices) != 2 || l.Prices[0].Zone != ".com" || l.Prices[0].Register.Regular.Amount != 1 || l.Prices[1].Zone != ".net" {
		t.Errorf("prices %+v, want .com (first listing) and .net, sorted", l.Prices)
	}
	if l.Skipped != 3 || !slices.Equal(l.Keep, []string{contracts.PriceSubject("a", ".org")}) {
		t.Errorf("skipped %d keep %v, want 3 and only .org's subject", l.Skipped, l.Keep)
	}
	var none ingest.Tally
	none.Add("row 1", contracts.PriceSet{}, ingest.LeftOut("not a zone"))
	if _, err := none.List("test list"); err == nil || !strings.Contains(err.Error(), "no usable zone in test list") {
		t.Errorf("nothing usable: err = %v", err)
	}
}
