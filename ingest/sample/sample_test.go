package sample

import (
	"context"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/iana"
)

var testTime = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

func fixedClock() time.Time { return testTime }

func fetch(t testing.TB, now func() time.Time) *ingest.List {
	t.Helper()
	list, err := New(now).Fetch(context.Background())
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	return list
}

func zones(t testing.TB) []contracts.Zone {
	t.Helper()
	zs, err := Zones()
	if err != nil {
		t.Fatalf("Zones: %v", err)
	}
	return zs
}

// TestZonesAreBuiltinCatalog checks that the sample prices the builtin
// catalog (whose contents ingest/iana tests) and hands out its own copy.
func TestZonesAreBuiltinCatalog(t *testing.T) {
	cat, err := iana.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	zs := zones(t)
	if !slices.Equal(zs, cat.Zones()) {
		t.Fatalf("Zones() gives %d zones, not the builtin catalog's %d", len(zs), cat.Len())
	}
	zs[0] = contracts.Zone{ASCII: ".mutated"}
	if again := zones(t); again[0].ASCII == ".mutated" {
		t.Error("Zones() shares its slice with callers")
	}
}

func TestZoneMeta(t *testing.T) {
	list := fetch(t, fixedClock)
	if got, want := len(list.Zones), len(zones(t)); got != want {
		t.Fatalf("got %d zone metadata events, want one per zone (%d)", got, want)
	}
	byZone := map[string]contracts.ZoneMeta{}
	for _, m := range list.Zones {
		if err := m.Validate(); err != nil {
			t.Errorf("zone meta %s: %v", m.Zone, err)
		}
		if m.Source != MetaSource {
			t.Errorf("zone meta %s: source %q, want %q", m.Zone, m.Source, MetaSource)
		}
		byZone[m.Zone] = m
	}
	for _, tc := range []struct {
		zone    string
		unicode string
		typ     string
		cats    []string
	}{
		{".com", ".com", contracts.TypeGeneric, []string{"generic", "legacy-gtld"}},
		{".app", ".app", contracts.TypeGeneric, []string{"generic", "new-gtld", "technology"}},
		{".co.uk", ".co.uk", contracts.TypeCountryCode, []string{"country-code", "second-level"}},
		{".com.au", ".com.au", contracts.TypeCountryCode, []string{"country-code", "second-level"}},
		{".xn--p1ai", ".рф", contracts.TypeCountryCode, []string{"country-code", "idn"}},
		{".xn--80asehdb", ".онлайн", contracts.TypeGeneric, []string{"generic", "idn", "new-gtld"}},
		{".io", ".io", contracts.TypeCountryCode, []string{"country-code", "cctld-as-generic", "technology"}},
		{".co", ".co", contracts.TypeCountryCode, []string{"country-code", "cctld-as-generic", "business"}},
		{".com.co", ".com.co", contracts.TypeCountryCode, []string{"country-code", "second-level"}},
		{".biz", ".biz", contracts.TypeGenericRestricted, []string{"generic-restricted", "legacy-gtld", "business"}},
		{".aero", ".aero", contracts.TypeSponsored, []string{"sponsored"}},
		{".gov", ".gov", contracts.TypeSponsored, []string{"sponsored"}},
		{".arpa", ".arpa", contracts.TypeInfrastructure, []string{"infrastructure"}},
	} {
		t.Run(tc.zone, func(t *testing.T) {
			m, ok := byZone[tc.zone]
			if !ok {
				t.Fatalf("no metadata for %s", tc.zone)
			}
			if m.Unicode != tc.unicode || m.Type != tc.typ || !slices.Equal(m.Categories, tc.cats) {
				t.Errorf("got %s %s %v, want %s %s %v", m.Unicode, m.Type, m.Categories, tc.unicode, tc.typ, tc.cats)
			}
		})
	}
}

// TestZoneMetaIsBuiltinCatalog checks that the sample publishes the iana
// source's builtin metadata unchanged: the two sources must never disagree
// about a zone.
func TestZoneMetaIsBuiltinCatalog(t *testing.T) {
	cat, err := iana.Builtin()
	if err != nil {
		t.Fatalf("iana.Builtin: %v", err)
	}
	list := fetch(t, fixedClock)
	if got, want := len(list.Zones), cat.Len(); got != want {
		t.Fatalf("sample publishes %d zone metadata events, the builtin catalog has %d zones", got, want)
	}
	for _, m := range list.Zones {
		want, ok := cat.Meta(m.Zone, testTime)
		if !ok {
			t.Errorf("%s is not in the builtin catalog", m.Zone)
			continue
		}
		if !reflect.DeepEqual(m, want) {
			t.Errorf("sample metadata for %s = %+v, builtin catalog's = %+v", m.Zone, m, want)
		}
	}
}

func TestFetchPrices(t *testing.T) {
	list := fetch(t, fixedClock)
	regs := map[string]string{} // registrar -> currency
	subjects := map[string]bool{}
	comBy := map[string]bool{}
	var promos, noTransfer, traps int
	for i := range list.Prices {
		p := &list.Prices[i]
		if err := p.Validate(); err != nil {
			t.Fatalf("price set %s %s: %v", p.Registrar, p.Zone, err)
		}
		if !strings.HasPrefix(p.Registrar, "sample-") {
			t.Errorf("registrar %q does not start with sample-", p.Registrar)
		}
		if p.Source != SourceName || !p.ObservedAt.Equal(testTime) {
			t.Errorf("%s %s: source %q observed %v", p.Registrar, p.Zone, p.Source, p.ObservedAt)
		}
		if subjects[p.Subject()] {
			t.Errorf("duplicate subject %s", p.Subject())
		}
		subjects[p.Subject()] = true
		if !priced(p.Zone) {
			t.Errorf("%s prices %s, which is not for sale", p.Registrar, p.Zone)
		}
		if p.Register == nil || p.Renew == nil {
			t.Fatalf("%s %s: register or renew missing", p.Registrar, p.Zone)
		}
		cur := p.Register.Regular.Currency
		if prev, ok := regs[p.Registrar]; ok && prev != cur {
			t.Errorf("%s prices in both %s and %s", p.Registrar, prev, cur)
		}
		regs[p.Registrar] = cur
		if p.Zone == ".com" {
			comBy[p.Registrar] = true
		}
		if p.Register.Regular.Amount == 0 {
			t.Errorf("%s %s: free registration", p.Registrar, p.Zone)
		}
		if pr := p.Register.Promo; pr != nil {
			promos++
			if pr.Price.Amount >= p.Register.Regular.Amount {
				t.Errorf("%s %s: promo %d not below regular %d", p.Registrar, p.Zone, pr.Price.Amount, p.Register.Regular.Amount)
			}
		}
		if p.Transfer == nil {
			noTransfer++
		}
		if p.Renew.Regular.Amount >= 2*p.Register.Regular.Amount {
			traps++
		}
	}
	n := len(list.Prices)
	t.Logf("%d price sets from %d registrars: %d promos, %d without transfer, %d renewal traps", n, len(regs), promos, noTransfer, traps)
	if len(regs) < 12 {
		t.Errorf("got %d registrars, want at least 12", len(regs))
	}
	if len(comBy) != len(regs) {
		t.Errorf(".com priced by %d of %d registrars", len(comBy), len(regs))
	}
	for _, tc := range []struct {
		name     string
		got      int
		min, max int // percent of price sets
	}{
		{"promotions", promos, 5, 15},
		{"missing transfers", noTransfer, 1, 6},
		{"renewal traps", traps, 5, 15},
	} {
		if pct := tc.got * 100 / n; pct < tc.min || pct > tc.max {
			t.Errorf("%s: %d of %d price sets (%d%%), want %d–%d%%", tc.name, tc.got, n, pct, tc.min, tc.max)
		}
	}
	for reg, want := range map[string]string{
		"sample-alpha": "USD", "sample-echo": "EUR", "sample-foxtrot": "EUR",
		"sample-golf": "GBP", "sample-hotel": "JPY", "sample-india": "INR",
	} {
		if got := regs[reg]; got != want {
			t.Errorf("%s prices in %q, want %q", reg, got, want)
		}
	}
	if len(list.Rates) != 1 {
		t.Fatalf("got %d rates events, want 1", len(list.Rates))
	}
	r := list.Rates[0]
	if err := r.Validate(); err != nil {
		t.Errorf("rates: %v", err)
	}
	if r.Source != SourceName || r.Base != "EUR" {
		t.Errorf("rates: source %q base %q", r.Source, r.Base)
	}
	for code, want := range map[string]bool{"USD": true, "GBP": true, "JPY": true, "INR": false} {
		if _, got := r.Rates[code]; got != want {
			t.Errorf("rate for %s present = %v, want %v", code, got, want)
		}
	}
}

// TestWholeYen checks that yen amounts are whole yen, not cents: a .com
// costs about ¥1,500, and the exponent says there are no minor units.
func TestWholeYen(t *testing.T) {
	if exp, _ := contracts.CurrencyExponent("JPY"); exp != 0 {
		t.Fatalf("JPY exponent %d, want 0", exp)
	}
	for _, p := range fetch(t, fixedClock).Prices {
		if p.Registrar != "sample-hotel" {
			continue
		}
		if a := p.Register.Regular.Amount; a%10 != 0 {
			t.Errorf("%s: ¥%d is not in ¥10 steps", p.Zone, a)
		}
		if p.Zone == ".com" {
			if a := p.Register.Regular.Amount; a < 1200 || a > 2200 {
				t.Errorf(".com costs ¥%d at sample-hotel, want about ¥1,500", a)
			}
		}
	}
}

func TestFetchDeterministic(t *testing.T) {
	a := fetch(t, fixedClock)
	b := fetch(t, func() time.Time { return testTime.Add(time.Hour) })
	for _, l := range []*ingest.List{a, b} {
		for i := range l.Prices {
			l.Prices[i].ObservedAt = time.Time{}
		}
		for i := range l.Zones {
			l.Zones[i].ObservedAt = time.Time{}
		}
		for i := range l.Rates {
			l.Rates[i].ObservedAt = time.Time{}
		}
	}
	if !reflect.DeepEqual(a, b) {
		t.Error("two fetches differ in more than observed_at")
	}
}

func TestFetchCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New(fixedClock).Fetch(ctx); err == nil {
		t.Error("Fetch with a canceled context succeeded")
	}
}

func TestGenerate(t *testing.T) {
	zs := zones(t)[:1500]
	got, err := Generate(zs, 150, testTime)
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	if len(got) != 1500*150 {
		t.Fatalf("got %d price sets, want %d", len(got), 1500*150)
	}
	subjects := make(map[string]bool, len(got))
	regs := map[string]bool{}
	for i := range got {
		p := &got[i]
		if err := p.Validate(); err != nil {
			t.Fatalf("price set %s %s: %v", p.Registrar, p.Zone, err)
		}
		if subjects[p.Subject()] {
			t.Fatalf("duplicate subject %s", p.Subject())
		}
		subjects[p.Subject()] = true
		regs[p.Registrar] = true
	}
	if !regs["sample-r150"] || regs["sample-r151"] || !regs["sample-alpha"] {
		t.Errorf("unexpected registrar ids: r150 %v, r151 %v, alpha %v", regs["sample-r150"], regs["sample-r151"], regs["sample-alpha"])
	}
}

func TestRunnerEndToEnd(t *testing.T) {
	_, js := bustest.Provisioned(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	src := New(fixedClock)
	list := fetch(t, fixedClock)
	// And one status per sample registrar.
	want := uint64(len(list.Prices) + len(list.Zones) + len(list.Rates) + len(src.Describe().Registrars))

	r, err := ingest.NewRunner(src, bus.NewStreams(js), bus.NewPublisher(js),
		ingest.RunnerConfig{Interval: 0, Timeout: time.Minute, MinKeepRatio: 0.5},
		slog.New(slog.DiscardHandler), prometheus.NewRegistry(), fixedClock)
	if err != nil {
		t.Fatalf("NewRunner: %v", err)
	}
	stream, err := js.Stream(ctx, contracts.StateStream)
	if err != nil {
		t.Fatalf("stream: %v", err)
	}
	state := func() (msgs, last uint64) {
		t.Helper()
		info, err := stream.Info(ctx)
		if err != nil {
			t.Fatalf("stream info: %v", err)
		}
		return info.State.Msgs, info.State.LastSeq
	}

	if err := r.Once(ctx); err != nil {
		t.Fatalf("first Once: %v", err)
	}
	msgs, last := state()
	if msgs != want {
		t.Errorf("after the first run the stream holds %d messages, want %d", msgs, want)
	}
	// The second round's statuses, observed at the same fixed time, are
	// the first round's messages, which the stream drops as duplicates.
	if err := r.Once(ctx); err != nil {
		t.Fatalf("second Once: %v", err)
	}
	if msgs2, last2 := state(); last2 != last || msgs2 != msgs {
		t.Errorf("second run of an unchanged list published: last seq %d -> %d, messages %d -> %d", last, last2, msgs, msgs2)
	}
}

func BenchmarkFetch(b *testing.B) {
	src := New(fixedClock)
	for b.Loop() {
		if _, err := src.Fetch(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGenerate(b *testing.B) {
	zs := zones(b)[:1500]
	for b.Loop() {
		if _, err := Generate(zs, 150, testTime); err != nil {
			b.Fatal(err)
		}
	}
}
