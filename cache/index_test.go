package cache

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/eventtest"
)

func TestOutcomeString(t *testing.T) {
	tests := []struct {
		in   Outcome
		want string
	}{
		{Applied, "applied"},
		{Unchanged, "unchanged"},
		{Redelivered, "redelivered"},
		{Refused, "refused"},
		{SourceFull, "source_full"},
		{Outcome(99), "unknown"},
	}
	for _, tt := range tests {
		if got := tt.in.String(); got != tt.want {
			t.Errorf("Outcome(%d).String() = %q, want %q", int(tt.in), got, tt.want)
		}
	}
}

// TestSourceFull: a source holds at most MaxRegistrarsPerSource of a
// zone's registrars, a registrar moving to a full source is refused and
// keeps its price, and one leaving a source makes room in it.
func TestSourceFull(t *testing.T) {
	from := func(source, reg string, amount int64) *contracts.PriceSet {
		ev := eventtest.Priced(reg, ".club", t0, "USD", amount, amount, amount)
		ev.Source = source
		return ev
	}
	x := NewIndex("USD")
	seq := uint64(0)
	apply := func(ev contracts.Event) Outcome {
		seq++
		return x.Apply(seq, t0, ev)
	}
	for i := range contracts.MaxRegistrarsPerSource {
		if got := apply(from("junk", fmt.Sprintf("junk%03d", i), 100)); got != Applied {
			t.Fatalf("registrar %d of the source: %v, want applied", i, got)
		}
	}
	if got := apply(from("junk", "junk-more", 100)); got != SourceFull {
		t.Errorf("one more of the source's registrars: %v, want source_full", got)
	}
	if got := apply(from("porkbun", "porkbun", 199)); got != Applied {
		t.Errorf("another source's registrar: %v, want applied", got)
	}
	if got := apply(from("junk", "porkbun", 1)); got != SourceFull {
		t.Errorf("a registrar handed over to the full source: %v, want source_full", got)
	}
	if got := apply(from("junk", "junk000", 101)); got != Applied {
		t.Errorf("a new price of a registrar the source holds: %v, want applied", got)
	}
	if got := apply(eventtest.Withdrawal("junk001", ".club", t0)); got != Applied {
		t.Errorf("a withdrawal: %v, want applied", got)
	}
	if got := apply(from("junk", "junk-more", 100)); got != Applied {
		t.Errorf("a registrar of the source once one left: %v, want applied", got)
	}
}

type seqEvent struct {
	seq uint64
	ev  contracts.Event
}

func TestApplyOutcomes(t *testing.T) {
	const com = ".com"
	first := eventtest.Priced("alpha", com, t0, "USD", 1000, 1200, 900)
	samePricesLater := eventtest.Priced("alpha", com, at(time.Hour), "USD", 1000, 1200, 900)
	changed := eventtest.Priced("alpha", com, at(time.Hour), "USD", 1100, 1200, 900)
	changedEarlier := eventtest.Priced("alpha", com, at(-time.Hour), "USD", 1100, 1200, 900)
	meta := eventtest.ZoneMeta(com, contracts.TypeGeneric, t0, "generic")
	metaLater := eventtest.ZoneMeta(com, contracts.TypeGeneric, at(time.Hour), "generic")
	metaChanged := eventtest.ZoneMeta(com, contracts.TypeGeneric, at(time.Hour), "generic", "legacy-gtld")
	metaEarlier := eventtest.ZoneMeta(com, contracts.TypeGeneric, at(-time.Hour), "generic", "legacy-gtld")
	eur := eventtest.Rates(t0, "EUR", map[string]string{"USD": "1.0830"})
	eurLater := eventtest.Rates(at(24*time.Hour), "EUR", map[string]string{"USD": "1.0900"})
	eurEarlier := eventtest.Rates(at(-24*time.Hour), "EUR", map[string]string{"USD": "1.0700"})

	tests := []struct {
		name   string
		before []seqEvent
		ev     seqEvent
		want   Outcome
		// wantDirty is whether the event leaves something to re-render.
		wantDirty bool
	}{
		{
			name: "new price set",
			ev:   seqEvent{1, first}, want: Applied, wantDirty: true,
		},
		{
			name:   "same prices observed later",
			before: []seqEvent{{1, first}},
			ev:     seqEvent{2, samePricesLater}, want: Unchanged, wantDirty: true,
		},
		{
			name:   "changed prices",
			before: []seqEvent{{1, first}},
			ev:     seqEvent{2, changed}, want: Applied, wantDirty: true,
		},
		{
			name:   "another registrar in the zone",
			before: []seqEvent{{1, first}},
			ev:     seqEvent{2, eventtest.Priced("beta", com, t0, "USD", 1, 2, 3)}, want: Applied, wantDirty: true,
		},
		{
			name:   "same sequence again",
			before: []seqEvent{{1, first}},
			ev:     seqEvent{1, changed}, want: Redelivered,
		},
		{
			name:   "lower sequence",
			before: []seqEvent{{5, first}},
			ev:     seqEvent{3, changed}, want: Redelivered,
		},
		{
			name:   "observed before the current prices: stream order wins",
			before: []seqEvent{{1, first}},
			ev:     seqEvent{2, changedEarlier}, want: Applied, wantDirty: true,
		},
		{
			name:   "withdrawal of a priced registrar",
			before: []seqEvent{{1, first}},
			ev:     seqEvent{2, eventtest.Withdrawal("alpha", com, at(time.Hour))}, want: Applied, wantDirty: true,
		},
		{
			name:   "withdrawal observed before the price set: stream order wins",
			before: []seqEvent{{1, first}},
			ev:     seqEvent{2, eventtest.Withdrawal("alpha", com, at(-time.Hour))}, want: Applied, wantDirty: true,
		},
		{
			name: "withdrawal of a never-priced registrar",
			ev:   seqEvent{1, eventtest.Withdrawal("alpha", com, t0)}, want: Unchanged,
		},
		{
			name:   "price set after a withdrawal of a never-priced registrar",
			before: []seqEvent{{1, eventtest.Withdrawal("alpha", com, t0)}},
			ev:     seqEvent{2, changedEarlier}, want: Applied, wantDirty: true,
		},
		{
			name:   "price set observed after a withdrawal",
			before: []seqEvent{{1, first}, {2, eventtest.Withdrawal("alpha", com, at(time.Hour))}},
			ev:     seqEvent{3, eventtest.Priced("alpha", com, at(2*time.Hour), "USD", 1, 2, 3)}, want: Applied, wantDirty: true,
		},
		{
			name:   "second withdrawal",
			before: []seqEvent{{1, first}, {2, eventtest.Withdrawal("alpha", com, at(time.Hour))}},
			ev:     seqEvent{3, eventtest.Withdrawal("alpha", com, at(2*time.Hour))}, want: Unchanged,
		},
		{
			name: "new zone meta",
			ev:   seqEvent{1, meta}, want: Applied, wantDirty: true,
		},
		{
			name:   "same zone meta observed later",
			before: []seqEvent{{1, meta}},
			ev:     seqEvent{2, metaLater}, want: Unchanged,
		},
		{
			name:   "changed zone meta",
			before: []seqEvent{{1, meta}},
			ev:     seqEvent{2, metaChanged}, want: Applied, wantDirty: true,
		},
		{
			name:   "zone meta at the same sequence",
			before: []seqEvent{{1, meta}},
			ev:     seqEvent{1, metaChanged}, want: Redelivered,
		},
		{
			name:   "zone meta observed earlier: stream order wins",
			before: []seqEvent{{1, meta}},
			ev:     seqEvent{2, metaEarlier}, want: Applied, wantDirty: true,
		},
		{
			name: "first rates",
			ev:   seqEvent{1, eur}, want: Applied, wantDirty: true,
		},
		{
			name:   "newer rates",
			before: []seqEvent{{1, eur}},
			ev:     seqEvent{2, eurLater}, want: Applied, wantDirty: true,
		},
		{
			name:   "rates at the same sequence",
			before: []seqEvent{{1, eur}},
			ev:     seqEvent{1, eurLater}, want: Redelivered,
		},
		{
			name:   "rates observed earlier: stream order wins",
			before: []seqEvent{{1, eur}},
			ev:     seqEvent{2, eurEarlier}, want: Applied, wantDirty: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := NewIndex("USD")
			for _, e := range tt.before {
				applyAt(t, x, e.seq, e.ev)
			}
			before := x.Build(t0)
			got := applyAt(t, x, tt.ev.seq, tt.ev.ev)
			if got != tt.want {
				t.Errorf("Apply = %v, want %v", got, tt.want)
			}
			if got := x.Dirty(); got != tt.wantDirty {
				t.Errorf("Dirty() = %v, want %v", got, tt.wantDirty)
			}
			if !tt.wantDirty {
				if got := x.Build(t0); got != before {
					t.Errorf("Build after a no-op event made version %d, want the unchanged version %d", got.Version, before.Version)
				}
			}
		})
	}
}

// A redelivered event must not change what is rendered.
func TestApplyIgnoredEventsLeaveBodies(t *testing.T) {
	f := newFeed(t, "USD")
	f.apply(eventtest.Priced("alpha", ".com", at(time.Hour), "USD", 1000, 1200, 900))
	want := bytes.Clone(f.x.Build(t0).Domains.JSON)

	if got := applyAt(t, f.x, 1, eventtest.Priced("alpha", ".com", at(2*time.Hour), "USD", 1, 1, 1)); got != Redelivered {
		t.Fatalf("Apply = %v, want %v", got, Redelivered)
	}
	f.x.allDirty = true // force a full re-render to compare bytes
	if got := f.x.Build(t0).Domains.JSON; !bytes.Equal(got, want) {
		t.Errorf("domains after ignored events:\ngot  %s\nwant %s", got, want)
	}
}

func TestWithdrawalOfOnlyRegistrarRemovesZone(t *testing.T) {
	f := newFeed(t, "USD")
	f.apply(
		eventtest.Priced("alpha", ".com", t0, "USD", 1000, 1200, 900),
		eventtest.Priced("alpha", ".net", t0, "USD", 1100, 1300, 1000),
		eventtest.Priced("beta", ".net", t0, "USD", 1050, 1350, 950),
	)
	s := f.x.Build(t0)
	if _, ok := s.Comparison(".com"); !ok {
		t.Fatal("Comparison(.com) missing before the withdrawal")
	}

	if got := f.apply(eventtest.Withdrawal("alpha", ".com", at(time.Hour))); got != Applied {
		t.Fatalf("withdrawal: Apply = %v, want %v", got, Applied)
	}
	if got := f.apply(eventtest.Withdrawal("beta", ".net", at(time.Hour))); got != Applied {
		t.Fatalf("withdrawal: Apply = %v, want %v", got, Applied)
	}
	s = f.x.Build(at(time.Hour))

	if _, ok := s.Comparison(".com"); ok {
		t.Error("Comparison(.com) present after its only registrar withdrew, want missing")
	}
	d := decode[domainsJSON](t, s.Domains.JSON)
	if d.Count != 1 || len(d.Zones) != 1 || d.Zones[0].Zone != ".net" {
		t.Errorf("domains count %d zones %v, want only .net", d.Count, d.Zones)
	}
	if got := d.Zones[0].Registrars; got != 1 {
		t.Errorf(".net registrars = %d, want 1", got)
	}
	net := comparison(t, s, ".net")
	if got, want := net.registrars(), []string{"alpha"}; !slices.Equal(got, want) {
		t.Errorf(".net rows = %v, want %v", got, want)
	}
	if s.Zones != 1 || s.Prices != 1 || s.Registrars != 1 {
		t.Errorf("snapshot zones/prices/registrars = %d/%d/%d, want 1/1/1", s.Zones, s.Prices, s.Registrars)
	}
	cz := decode[comparisonZonesJSON](t, s.ComparisonZones.JSON)
	if cz.Count != 0 || cz.Zones == nil || len(cz.Zones) != 0 {
		t.Errorf("comparison zones = %+v, want an empty list", cz)
	}

	// The registrar comes back.
	f.apply(eventtest.Priced("alpha", ".com", at(2*time.Hour), "USD", 999, 1200, 900))
	s = f.x.Build(at(2 * time.Hour))
	if got := comparison(t, s, ".com").row(t, "alpha").amounts(); got != (amounts{"9.99", "12.00", "9.00"}) {
		t.Errorf(".com alpha after re-pricing = %v, want [9.99 12.00 9.00]", got)
	}
}

// catalog applies .com with three USD registrars and .co.uk with one.
func catalog(t testing.TB) *feed {
	t.Helper()
	f := newFeed(t, "USD")
	f.apply(
		eventtest.Priced("alpha", ".com", t0, "USD", 1099, 1599, 1099),
		eventtest.Priced("beta", ".com", at(time.Minute), "USD", 968, 1650, 968),
		eventtest.Priced("gamma", ".com", at(2*time.Minute), "USD", 968, 1450, 1200),
		eventtest.PriceSet("alpha", ".co.uk", at(3*time.Minute), eventtest.Regular("USD", 599), eventtest.Regular("USD", 899), nil),
	)
	return f
}

func TestBuildDomains(t *testing.T) {
	f := catalog(t)
	s := f.x.Build(t0)
	d := decode[domainsJSON](t, s.Domains.JSON)

	if d.Currency != "USD" {
		t.Errorf("currency = %q, want USD", d.Currency)
	}
	if d.AsOf == nil || *d.AsOf != "2025-03-01T12:03:00Z" {
		t.Errorf("as_of = %v, want 2025-03-01T12:03:00Z", d.AsOf)
	}
	if d.Rates != nil {
		t.Errorf("rates = %+v, want null before any rates event", d.Rates)
	}
	if d.Count != 2 {
		t.Errorf("count = %d, want 2", d.Count)
	}
	var order []string
	for _, z := range d.Zones {
		order = append(order, z.Zone)
	}
	// ".co.uk" sorts before ".com" because '.' < 'm'.
	if want := []string{".co.uk", ".com"}; !slices.Equal(order, want) {
		t.Fatalf("zones = %v, want %v", order, want)
	}

	type minimum struct{ price, registrar string }
	tests := []struct {
		zone       string
		registrars int
		min        [3]*minimum // register, renew, transfer
	}{
		{
			zone: ".co.uk", registrars: 1,
			min: [3]*minimum{{"5.99", "alpha"}, {"8.99", "alpha"}, nil},
		},
		{
			// beta and gamma tie on register; beta wins by id.
			zone: ".com", registrars: 3,
			min: [3]*minimum{{"9.68", "beta"}, {"14.50", "gamma"}, {"9.68", "beta"}},
		},
	}
	for i, tt := range tests {
		t.Run(tt.zone, func(t *testing.T) {
			z := d.Zones[i]
			if z.Registrars != tt.registrars {
				t.Errorf("registrars = %d, want %d", z.Registrars, tt.registrars)
			}
			if z.Type != nil || z.Categories == nil || len(z.Categories) != 0 {
				t.Errorf("type %v categories %v, want null and [] without zone meta", z.Type, z.Categories)
			}
			for op := range contracts.Ops {
				name := contracts.Op(op).String()
				got, ok := z.Min[name]
				if !ok {
					t.Errorf("min.%s missing, want it present (null when nobody offers it)", name)
					continue
				}
				want := tt.min[op]
				switch {
				case want == nil && got != nil:
					t.Errorf("min.%s = %+v, want null", name, *got)
				case want != nil && got == nil:
					t.Errorf("min.%s = null, want %s by %s", name, want.price, want.registrar)
				case want != nil && (got.Price.String() != want.price || got.Registrar != want.registrar):
					t.Errorf("min.%s = %s by %s, want %s by %s", name, got.Price, got.Registrar, want.price, want.registrar)
				}
			}
		})
	}
}

func TestBuildComparisonZones(t *testing.T) {
	f := catalog(t)
	f.apply(
		eventtest.Priced("alpha", ".xn--p1ai", t0, "USD", 500, 500, 500),
		eventtest.Priced("beta", ".xn--p1ai", t0, "USD", 400, 600, 500),
		eventtest.Priced("alpha", ".ai", t0, "USD", 7000, 7000, 7000),
	)
	cz := decode[comparisonZonesJSON](t, f.x.Build(t0).ComparisonZones.JSON)

	type zone struct {
		Zone, Unicode string
		Registrars    int
	}
	var got []zone
	for _, z := range cz.Zones {
		got = append(got, zone{z.Zone, z.Unicode, z.Registrars})
	}
	want := []zone{{".com", ".com", 3}, {".xn--p1ai", ".рф", 2}}
	if !slices.Equal(got, want) {
		t.Errorf("comparison zones = %v, want %v", got, want)
	}
	if cz.Count != len(want) {
		t.Errorf("count = %d, want %d", cz.Count, len(want))
	}
}

func TestBuildCategories(t *testing.T) {
	f := catalog(t)
	f.apply(
		eventtest.ZoneMeta(".com", contracts.TypeGeneric, t0, "generic", "legacy-gtld"),
		eventtest.ZoneMeta(".co.uk", contracts.TypeCountryCode, t0, "country-code", "second-level"),
		// Not priced: its categories must not count.
		eventtest.ZoneMeta(".xn--p1ai", contracts.TypeCountryCode, t0, "country-code", "idn"),
		// Priced but without metadata.
		eventtest.Priced("alpha", ".net", t0, "USD", 1200, 1200, 1200),
	)
	s := f.x.Build(t0)
	c := decode[categoriesJSON](t, s.Categories.JSON)

	type category struct {
		ID, Name string
		Zones    int
	}
	var got []category
	for _, c := range c.Categories {
		got = append(got, category{c.ID, c.Name, c.Zones})
	}
	want := []category{
		{"country-code", "Country code", 1},
		{"generic", "Generic", 1},
		{"legacy-gtld", "Legacy gTLD", 1},
		{"second-level", "Second-level", 1},
	}
	if !slices.Equal(got, want) {
		t.Errorf("categories = %v, want %v", got, want)
	}
	if c.Count != len(want) {
		t.Errorf("count = %d, want %d", c.Count, len(want))
	}

	// Pricing the IDN zone brings its categories in.
	f.apply(eventtest.Priced("alpha", ".xn--p1ai", t0, "USD", 500, 500, 500))
	c = decode[categoriesJSON](t, f.x.Build(t0).Categories.JSON)
	counts := map[string]int{}
	for _, c := range c.Categories {
		counts[c.ID] = c.Zones
	}
	if counts["country-code"] != 2 || counts["idn"] != 1 {
		t.Errorf("after pricing .рф: country-code %d idn %d, want 2 and 1", counts["country-code"], counts["idn"])
	}

	// The zone's meta reaches its domains element and comparison body.
	com := comparison(t, f.x.Snapshot(), ".com")
	if com.Type == nil || *com.Type != contracts.TypeGeneric || !slices.Equal(com.Categories, []string{"generic", "legacy-gtld"}) {
		t.Errorf(".com type %v categories %v, want generic [generic legacy-gtld]", com.Type, com.Categories)
	}
}

func TestCategoryName(t *testing.T) {
	tests := []struct{ id, want string }{
		{"generic", "Generic"},
		{"country-code", "Country code"},
		{"idn", "Internationalized (IDN)"},
		{"cctld-as-generic", "ccTLD used as generic"},
		{"new-thing", "New thing"},
		{"x", "X"},
	}
	for _, tt := range tests {
		if got := CategoryName(tt.id); got != tt.want {
			t.Errorf("CategoryName(%q) = %q, want %q", tt.id, got, tt.want)
		}
	}
}

func TestComparisonRowsAndCheapest(t *testing.T) {
	f := catalog(t)
	f.apply(eventtest.PriceSet("delta", ".com", t0, nil, eventtest.Regular("USD", 1400), nil))
	c := comparison(t, f.x.Build(t0), ".com")

	if c.Zone != ".com" || c.Unicode != ".com" || c.Currency != "USD" {
		t.Errorf("zone %q unicode %q currency %q, want .com .com USD", c.Zone, c.Unicode, c.Currency)
	}
	if c.AsOf == nil || *c.AsOf != "2025-03-01T12:02:00Z" {
		t.Errorf("as_of = %v, want the newest observed_at 2025-03-01T12:02:00Z", c.AsOf)
	}
	// Cheapest registration first, ties by id, rows without registration last.
	if got, want := c.registrars(), []string{"beta", "gamma", "alpha", "delta"}; !slices.Equal(got, want) {
		t.Errorf("rows = %v, want %v", got, want)
	}
	wantCheapest := map[string]string{"register": "beta", "renew": "delta", "transfer": "beta"}
	for op, want := range wantCheapest {
		if got := c.Cheapest[op]; got == nil || *got != want {
			t.Errorf("cheapest.%s = %v, want %s", op, got, want)
		}
	}

	tests := []struct {
		registrar string
		amounts   amounts
		cheapest  []string
	}{
		{"beta", amounts{"9.68", "16.50", "9.68"}, []string{"register", "transfer"}},
		{"gamma", amounts{"9.68", "14.50", "12.00"}, []string{"register"}},
		{"alpha", amounts{"10.99", "15.99", "10.99"}, []string{}},
		{"delta", amounts{"null", "14.00", "null"}, []string{"renew"}},
	}
	for _, tt := range tests {
		t.Run(tt.registrar, func(t *testing.T) {
			r := c.row(t, tt.registrar)
			if got := r.amounts(); got != tt.amounts {
				t.Errorf("amounts = %v, want %v", got, tt.amounts)
			}
			if r.Cheapest == nil || !slices.Equal(r.Cheapest, tt.cheapest) {
				t.Errorf("cheapest = %#v, want %#v", r.Cheapest, tt.cheapest)
			}
			if !r.Converted {
				t.Error("converted = false, want true for a price in the index currency")
			}
			if r.Native != nil {
				t.Errorf("native = %+v, want absent for a price in the index currency", *r.Native)
			}
			if r.Source != "test" {
				t.Errorf("source = %q, want test", r.Source)
			}
		})
	}
}

func TestSamePricesObservedLaterShowNewObservedAt(t *testing.T) {
	f := catalog(t)
	f.x.Build(t0)
	if got := f.apply(eventtest.Priced("alpha", ".com", at(time.Hour), "USD", 1099, 1599, 1099)); got != Unchanged {
		t.Fatalf("Apply = %v, want %v", got, Unchanged)
	}
	r := comparison(t, f.x.Build(t0), ".com").row(t, "alpha")
	if want := "2025-03-01T13:00:00Z"; r.ObservedAt != want {
		t.Errorf("observed_at = %q, want %q", r.ObservedAt, want)
	}
}

// Money leaves the program as a JSON number holding the exact decimal, not a
// string and not whatever a float would print.
func TestMoneyIsExactJSONNumber(t *testing.T) {
	f := newFeed(t, "USD")
	f.apply(
		eventtest.Priced("alpha", ".com", t0, "USD", 968, 1001, 10),
		eventtest.Priced("beta", ".com", t0, "USD", 1_000_000_000_07, 5, 0),
	)
	s := f.x.Build(t0)
	b, _ := s.Comparison(".com")
	c := decode[map[string]any](t, b.JSON)

	tests := []struct {
		row  int
		op   string
		want string
	}{
		{0, "register", "9.68"},
		{0, "renew", "10.01"},
		{0, "transfer", "0.10"},
		{1, "register", "1000000000.07"},
		{1, "renew", "0.05"},
		{1, "transfer", "0.00"},
	}
	rows := c["prices"].([]any)
	for _, tt := range tests {
		v := rows[tt.row].(map[string]any)[tt.op]
		n, ok := v.(json.Number)
		if !ok {
			t.Errorf("prices[%d].%s is %T %v, want a JSON number", tt.row, tt.op, v, v)
			continue
		}
		if n.String() != tt.want {
			t.Errorf("prices[%d].%s = %s, want %s", tt.row, tt.op, n, tt.want)
		}
	}

	d := decode[map[string]any](t, s.Domains.JSON)
	mins := d["zones"].([]any)[0].(map[string]any)["min"].(map[string]any)
	p := mins["register"].(map[string]any)["price"]
	if n, ok := p.(json.Number); !ok || n.String() != "9.68" {
		t.Errorf("min.register.price = %T %v, want the JSON number 9.68", p, p)
	}
}

func TestConversion(t *testing.T) {
	f := newFeed(t, "USD")
	f.apply(
		eventtest.Priced("usd", ".com", t0, "USD", 1099, 1099, 1099),
		eventtest.Priced("eur", ".com", t0, "EUR", 1000, 500, 1200),
		eventtest.Priced("jpy", ".com", t0, "JPY", 1500, 1600, 1500),
		// Cheaper than anyone in its own units, but there is no INR rate.
		eventtest.Priced("inr", ".com", t0, "INR", 1, 1, 1),
	)

	// Before any rates only USD converts.
	c := comparison(t, f.x.Build(t0), ".com")
	if r := c.row(t, "eur"); r.Converted || r.amounts() != (amounts{"null", "null", "null"}) {
		t.Errorf("eur before rates: converted %v amounts %v, want false and nulls", r.Converted, r.amounts())
	}

	ecb := eventtest.Rates(t0, "EUR", map[string]string{"USD": "1.0830", "JPY": "160"})
	ecb.Source = "ecb"
	if got := f.apply(ecb); got != Applied {
		t.Fatalf("rates: Apply = %v, want %v", got, Applied)
	}
	s := f.x.Build(t0)
	c = comparison(t, s, ".com")

	if c.Rates == nil || *c.Rates != (ratesJSON{Base: "EUR", Date: "2025-03-01", Source: "ecb"}) {
		t.Errorf("rates = %+v, want EUR 2025-03-01 ecb", c.Rates)
	}

	tests := []struct {
		registrar string
		amounts   amounts
		converted bool
		native    *nativeJSON
		nativeAmt amounts
		cheapest  []string
	}{
		{
			// 1000 EUR cents × 1.0830 = 10.83; 500 × 1.0830 = 5.415 rounds
			// half up to 5.42; 1200 × 1.0830 = 12.996 rounds to 13.00.
			registrar: "eur", amounts: amounts{"10.83", "5.42", "13.00"}, converted: true,
			native: &nativeJSON{Currency: "EUR"}, nativeAmt: amounts{"10.00", "5.00", "12.00"},
			cheapest: []string{"renew"},
		},
		{
			// 1500 JPY / 160 × 1.0830 = 10.153125; 1600 JPY = 10.83.
			registrar: "jpy", amounts: amounts{"10.15", "10.83", "10.15"}, converted: true,
			native: &nativeJSON{Currency: "JPY"}, nativeAmt: amounts{"1500", "1600", "1500"},
			cheapest: []string{"register", "transfer"},
		},
		{
			registrar: "usd", amounts: amounts{"10.99", "10.99", "10.99"}, converted: true,
			cheapest: []string{},
		},
		{
			registrar: "inr", amounts: amounts{"null", "null", "null"}, converted: false,
			native: &nativeJSON{Currency: "INR"}, nativeAmt: amounts{"0.01", "0.01", "0.01"},
			cheapest: []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.registrar, func(t *testing.T) {
			r := c.row(t, tt.registrar)
			if got := r.amounts(); got != tt.amounts {
				t.Errorf("amounts = %v, want %v", got, tt.amounts)
			}
			if r.Converted != tt.converted {
				t.Errorf("converted = %v, want %v", r.Converted, tt.converted)
			}
			switch {
			case tt.native == nil && r.Native != nil:
				t.Errorf("native = %+v, want absent", *r.Native)
			case tt.native != nil && r.Native == nil:
				t.Errorf("native absent, want %s %v", tt.native.Currency, tt.nativeAmt)
			case tt.native != nil:
				if r.Native.Currency != tt.native.Currency || r.Native.amounts() != tt.nativeAmt {
					t.Errorf("native = %s %v, want %s %v", r.Native.Currency, r.Native.amounts(), tt.native.Currency, tt.nativeAmt)
				}
			}
			if !slices.Equal(r.Cheapest, tt.cheapest) {
				t.Errorf("cheapest = %v, want %v", r.Cheapest, tt.cheapest)
			}
		})
	}

	if got, want := c.registrars(), []string{"jpy", "eur", "usd", "inr"}; !slices.Equal(got, want) {
		t.Errorf("rows = %v, want %v (unconvertible last)", got, want)
	}
	for op, want := range map[string]string{"register": "jpy", "renew": "eur", "transfer": "jpy"} {
		if got := c.Cheapest[op]; got == nil || *got != want {
			t.Errorf("cheapest.%s = %v, want %s", op, got, want)
		}
	}
	d := decode[domainsJSON](t, s.Domains.JSON)
	if got := d.Zones[0].Min["register"]; got == nil || got.Price.String() != "10.15" || got.Registrar != "jpy" {
		t.Errorf("domains min.register = %+v, want 10.15 by jpy", got)
	}
	if d.Rates == nil || d.Rates.Base != "EUR" {
		t.Errorf("domains rates = %+v, want base EUR", d.Rates)
	}
}

func TestUnconvertibleOnlyZoneHasNoMinimum(t *testing.T) {
	f := newFeed(t, "USD")
	f.apply(eventtest.Priced("inr", ".in", t0, "INR", 50000, 60000, 50000))
	s := f.x.Build(t0)
	c := comparison(t, s, ".in")
	for _, op := range contracts.Ops {
		if got := c.Cheapest[op.String()]; got != nil {
			t.Errorf("cheapest.%s = %q, want null", op, *got)
		}
	}
	d := decode[domainsJSON](t, s.Domains.JSON)
	if got := d.Zones[0].Registrars; got != 1 {
		t.Errorf("registrars = %d, want 1: an unconvertible registrar still sells the zone", got)
	}
	for _, op := range contracts.Ops {
		if got := d.Zones[0].Min[op.String()]; got != nil {
			t.Errorf("min.%s = %+v, want null", op, *got)
		}
	}
}

func TestPromotions(t *testing.T) {
	ends := at(24 * time.Hour)
	f := newFeed(t, "USD")
	f.apply(
		eventtest.PriceSet("alpha", ".com", t0, eventtest.Promo("USD", 1200, 500, &ends), eventtest.Regular("USD", 1400), nil),
		eventtest.Priced("beta", ".com", t0, "USD", 900, 1300, 900),
		// An open-ended promotion keeps running.
		eventtest.PriceSet("gamma", ".com", t0, eventtest.Promo("USD", 2000, 1000, nil), nil, nil),
	)
	s := f.x.Build(at(time.Hour))
	c := comparison(t, s, ".com")

	alpha := c.row(t, "alpha")
	if got := alpha.amounts(); got != (amounts{"5.00", "14.00", "null"}) {
		t.Errorf("alpha during promotion = %v, want [5.00 14.00 null]", got)
	}
	p, ok := alpha.Promo["register"]
	if !ok || p.Regular.String() != "12.00" || p.EndsAt == nil || *p.EndsAt != "2025-03-02T12:00:00Z" {
		t.Errorf("alpha promo = %+v, want register regular 12.00 ends 2025-03-02T12:00:00Z", alpha.Promo)
	}
	if len(alpha.Promo) != 1 {
		t.Errorf("alpha promo has %d operations, want 1", len(alpha.Promo))
	}
	if got := c.Cheapest["register"]; got == nil || *got != "alpha" {
		t.Errorf("cheapest.register = %v, want alpha on promotion", got)
	}
	if got := c.row(t, "gamma").Promo["register"]; got.EndsAt != nil || got.Regular.String() != "20.00" {
		t.Errorf("gamma promo = %+v, want regular 20.00 ends null", got)
	}
	if got := c.row(t, "beta").Promo; got != nil {
		t.Errorf("beta promo = %v, want absent", got)
	}

	f.x.Expire(at(time.Hour))
	if got := f.x.NextExpiry(); !got.Equal(ends) {
		t.Errorf("NextExpiry before the end = %v, want %v", got, ends)
	}
	if f.x.Dirty() {
		t.Error("Dirty() after Expire before any promotion ended = true, want false")
	}

	f.x.Expire(ends)
	if !f.x.Dirty() {
		t.Fatal("Dirty() after a promotion ended = false, want true")
	}
	s = f.x.Build(ends)
	if got := f.x.NextExpiry(); !got.IsZero() {
		t.Errorf("NextExpiry after the last promotion ended = %v, want the zero time", got)
	}
	c = comparison(t, s, ".com")
	alpha = c.row(t, "alpha")
	if got := alpha.amounts(); got != (amounts{"12.00", "14.00", "null"}) {
		t.Errorf("alpha after promotion = %v, want [12.00 14.00 null]", got)
	}
	if alpha.Promo != nil {
		t.Errorf("alpha promo after it ended = %v, want absent", alpha.Promo)
	}
	if got, want := c.registrars(), []string{"beta", "gamma", "alpha"}; !slices.Equal(got, want) {
		t.Errorf("rows after promotion = %v, want %v", got, want)
	}
	d := decode[domainsJSON](t, s.Domains.JSON)
	if got := d.Zones[0].Min["register"]; got == nil || got.Price.String() != "9.00" || got.Registrar != "beta" {
		t.Errorf("min.register after promotion = %+v, want 9.00 by beta", got)
	}
}

// A promotion rendered as already over must not be scheduled.
func TestPromotionEndedBeforeFirstBuild(t *testing.T) {
	ended := at(-time.Hour)
	f := newFeed(t, "USD")
	f.apply(eventtest.PriceSet("alpha", ".com", t0, eventtest.Promo("USD", 1200, 500, &ended), nil, nil))
	c := comparison(t, f.x.Build(t0), ".com")
	if got := c.row(t, "alpha").amounts(); got != (amounts{"12.00", "null", "null"}) {
		t.Errorf("amounts = %v, want [12.00 null null]", got)
	}
	if got := f.x.NextExpiry(); !got.IsZero() {
		t.Errorf("NextExpiry = %v, want the zero time", got)
	}
}

func TestExpireReturnsEarliestAcrossZones(t *testing.T) {
	e1, e2, e3 := at(time.Hour), at(2*time.Hour), at(3*time.Hour)
	f := newFeed(t, "USD")
	f.apply(
		eventtest.PriceSet("alpha", ".com", t0, eventtest.Promo("USD", 1200, 500, &e3), nil, nil),
		eventtest.PriceSet("alpha", ".net", t0, eventtest.Promo("USD", 1200, 500, &e1), nil, nil),
		eventtest.PriceSet("alpha", ".org", t0, eventtest.Promo("USD", 1200, 500, &e2), nil, nil),
		eventtest.Priced("alpha", ".info", t0, "USD", 1200, 1200, 1200),
	)
	f.x.Build(t0)
	if got := f.x.NextExpiry(); !got.Equal(e1) {
		t.Errorf("NextExpiry after Build(t0) = %v, want %v", got, e1)
	}
	f.x.Expire(e1)
	before := f.x.Snapshot()
	s := f.x.Build(e1)
	if got := f.x.NextExpiry(); !got.Equal(e2) {
		t.Errorf("NextExpiry after Build(e1) = %v, want %v", got, e2)
	}
	for zone, reused := range map[string]bool{".net": false, ".com": true, ".org": true, ".info": true} {
		a, _ := before.Comparison(zone)
		b, _ := s.Comparison(zone)
		if got := a == b; got != reused {
			t.Errorf("%s body reused = %v, want %v: only the zone whose promotion ended re-renders", zone, got, reused)
		}
	}
	f.x.Expire(e2)
	f.x.Build(e2)
	if got := f.x.NextExpiry(); !got.Equal(e3) {
		t.Errorf("NextExpiry after Build(e2) = %v, want %v", got, e3)
	}
	f.x.Expire(e3)
	f.x.Build(e3)
	if got := f.x.NextExpiry(); !got.IsZero() {
		t.Errorf("NextExpiry after Build(e3) = %v, want the zero time", got)
	}
}

// A zone whose first promotion ends keeps its later one scheduled.
func TestExpireKeepsLaterPromotionOfSameZone(t *testing.T) {
	e1, e2 := at(time.Hour), at(2*time.Hour)
	f := newFeed(t, "USD")
	f.apply(eventtest.PriceSet("alpha", ".com", t0, eventtest.Promo("USD", 1200, 500, &e1), eventtest.Promo("USD", 1400, 700, &e2), nil))
	f.x.Build(t0)
	f.x.Expire(e1)
	f.x.Build(e1)
	if got := f.x.NextExpiry(); !got.Equal(e2) {
		t.Errorf("NextExpiry after the register promotion ended = %v, want the renew promotion's end %v", got, e2)
	}
}

func TestSnapshotVersionsAndReuse(t *testing.T) {
	x := NewIndex("USD")
	s0 := x.Snapshot()
	if s0 == nil || s0.Domains == nil || s0.Categories == nil || s0.ComparisonZones == nil {
		t.Fatalf("NewIndex snapshot = %+v, want every body rendered", s0)
	}
	if got := x.Build(t0); got != s0 {
		t.Errorf("Build with nothing applied returned version %d, want the initial snapshot", got.Version)
	}
	if x.Version() != s0.Version {
		t.Errorf("Version() = %d, want %d", x.Version(), s0.Version)
	}

	versions := []uint64{s0.Version}
	applyAt(t, x, 1, eventtest.Priced("alpha", ".com", t0, "USD", 1000, 1000, 1000))
	s1 := x.Build(t0)
	versions = append(versions, s1.Version)
	if again := x.Build(t0); again != s1 {
		t.Errorf("second Build with nothing dirty returned a new snapshot (version %d), want the same pointer", again.Version)
	}
	applyAt(t, x, 2, eventtest.Priced("alpha", ".com", t0, "USD", 1001, 1000, 1000))
	s2 := x.Build(t0)
	versions = append(versions, s2.Version)
	applyAt(t, x, 3, eventtest.Rates(t0, "EUR", map[string]string{"USD": "1.0830"}))
	s3 := x.Build(t0)
	versions = append(versions, s3.Version)

	for i := 1; i < len(versions); i++ {
		if versions[i] <= versions[i-1] {
			t.Errorf("versions = %v, want strictly increasing", versions)
			break
		}
	}
	if x.Snapshot() != s3 || x.Version() != s3.Version {
		t.Errorf("Snapshot()/Version() = %d/%d, want the last build %d", x.Snapshot().Version, x.Version(), s3.Version)
	}
}

func TestOnlyDirtyZonesRerender(t *testing.T) {
	f := newFeed(t, "USD")
	f.apply(
		eventtest.Priced("alpha", ".com", t0, "USD", 1000, 1000, 1000),
		eventtest.Priced("alpha", ".net", t0, "USD", 1100, 1100, 1100),
		eventtest.Priced("alpha", ".org", t0, "USD", 1200, 1200, 1200),
	)
	s1 := f.x.Build(t0)
	body := func(s *Snapshot, zone string) *Body {
		t.Helper()
		b, ok := s.Comparison(zone)
		if !ok {
			t.Fatalf("Comparison(%q) missing", zone)
		}
		return b
	}

	f.apply(eventtest.Priced("beta", ".com", t0, "USD", 900, 900, 900))
	s2 := f.x.Build(t0)
	if body(s2, ".com") == body(s1, ".com") {
		t.Error(".com body is the same pointer after it changed, want a new body")
	}
	for _, z := range []string{".net", ".org"} {
		if body(s2, z) != body(s1, z) {
			t.Errorf("%s body is a new pointer though the zone did not change, want it reused", z)
		}
	}

	// Zone meta for one zone re-renders only it.
	f.apply(eventtest.ZoneMeta(".net", contracts.TypeGeneric, t0, "generic"))
	s3 := f.x.Build(t0)
	if body(s3, ".net") == body(s2, ".net") {
		t.Error(".net body reused after its zone meta changed, want a new body")
	}
	if body(s3, ".com") != body(s2, ".com") || body(s3, ".org") != body(s2, ".org") {
		t.Error("a zone meta event re-rendered other zones, want only its own")
	}

	// Rates change every conversion, so everything re-renders.
	f.apply(eventtest.Rates(t0, "EUR", map[string]string{"USD": "1.0830"}))
	s4 := f.x.Build(t0)
	for _, z := range []string{".com", ".net", ".org"} {
		if body(s4, z) == body(s3, z) {
			t.Errorf("%s body reused after a rates event, want every zone re-rendered", z)
		}
	}
}

func TestSnapshotCounts(t *testing.T) {
	f := catalog(t)
	f.apply(eventtest.ZoneMeta(".xn--p1ai", contracts.TypeCountryCode, t0, "idn"))
	s := f.x.Build(t0)
	if s.Zones != 2 || s.Prices != 4 || s.Registrars != 3 {
		t.Errorf("zones/prices/registrars = %d/%d/%d, want 2/4/3", s.Zones, s.Prices, s.Registrars)
	}
	if !s.AsOf.Equal(at(3 * time.Minute)) {
		t.Errorf("AsOf = %v, want %v", s.AsOf, at(3*time.Minute))
	}
	// BodyBytes counts the bodies built with the snapshot; comparisons
	// are rendered when first asked for.
	want := int64(len(s.Domains.JSON) + len(s.Categories.JSON) + len(s.ComparisonZones.JSON) + len(s.Directory.JSON))
	if s.BodyBytes != want {
		t.Errorf("BodyBytes = %d, want %d (the sum of the bodies built)", s.BodyBytes, want)
	}
}

func TestEmptyIndexRendersEmptyLists(t *testing.T) {
	s := NewIndex("USD").Snapshot()
	tests := []struct {
		name string
		body *Body
		list string
	}{
		{"domains", s.Domains, "zones"},
		{"categories", s.Categories, "categories"},
		{"comparison zones", s.ComparisonZones, "zones"},
		{"registrars", s.Directory, "registrars"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := decode[map[string]any](t, tt.body.JSON)
			l, ok := m[tt.list].([]any)
			if !ok || len(l) != 0 {
				t.Errorf("%s = %#v, want []", tt.list, m[tt.list])
			}
			if n, ok := m["count"].(json.Number); !ok || n.String() != "0" {
				t.Errorf("count = %#v, want 0", m["count"])
			}
		})
	}
	if d := decode[domainsJSON](t, s.Domains.JSON); d.AsOf != nil {
		t.Errorf("as_of = %q, want null for an empty index", *d.AsOf)
	}
}

// every snapshot of a run that exercises every rendering path.
func buildHistory(t testing.TB) []*Snapshot {
	t.Helper()
	ends := at(2 * time.Hour)
	odd := eventtest.Priced("odd", ".com", t0, "USD", 1, 2, 3)
	// Sources are ids (contracts.ValidSource), so no event brings quotes or
	// control characters to a body any more; TestAppendString covers the
	// escaping itself.
	odd.Source = "odd-source"
	f := catalog(t)
	snaps := []*Snapshot{f.x.Snapshot(), f.x.Build(t0)}
	steps := [][]contracts.Event{
		{eventtest.ZoneMeta(".com", contracts.TypeGeneric, t0, "generic", "legacy-gtld")},
		{eventtest.Priced("eur", ".com", t0, "EUR", 1000, 1000, 1000), eventtest.Priced("inr", ".co.uk", t0, "INR", 1, 1, 1)},
		{eventtest.Rates(t0, "EUR", map[string]string{"USD": "1.0830", "JPY": "160"})},
		{eventtest.PriceSet("jpy", ".xn--p1ai", t0, eventtest.Promo("JPY", 2000, 1500, &ends), eventtest.Regular("JPY", 2000), nil)},
		{odd},
		{eventtest.Withdrawal("alpha", ".co.uk", at(time.Hour))},
	}
	for _, evs := range steps {
		f.apply(evs...)
		snaps = append(snaps, f.x.Build(at(time.Hour)))
	}
	f.x.Expire(ends)
	snaps = append(snaps, f.x.Build(ends))
	return snaps
}

func TestBodiesAreValidJSONWithStrongETags(t *testing.T) {
	type named struct {
		name string
		body *Body
	}
	var all []named
	for _, s := range buildHistory(t) {
		for route, b := range bodies(s) {
			all = append(all, named{route, b})
		}
	}
	for _, n := range all {
		if !json.Valid(n.body.JSON) {
			t.Errorf("%s is not valid JSON: %s", n.name, n.body.JSON)
		}
		e := n.body.ETag
		if len(e) < 3 || e[0] != '"' || e[len(e)-1] != '"' || strings.ContainsAny(e[1:len(e)-1], "\" ") {
			t.Errorf("%s ETag = %s, want a strong, quoted entity tag", n.name, e)
		}
	}
	for i := range all {
		for j := i + 1; j < len(all); j++ {
			a, b := all[i].body, all[j].body
			sameBody, sameTag := bytes.Equal(a.JSON, b.JSON), a.ETag == b.ETag
			if sameBody != sameTag {
				t.Errorf("%s and %s: equal bodies %v but equal ETags %v", all[i].name, all[j].name, sameBody, sameTag)
			}
		}
	}
}

// deterministicEvents has ties on every operation and many registrars per
// zone, so map iteration order would show if it leaked into a body.
func deterministicEvents(t testing.TB) []contracts.Event {
	t.Helper()
	ends := at(48 * time.Hour)
	evs := []contracts.Event{eventtest.Rates(t0, "EUR", map[string]string{"USD": "1.0830", "GBP": "0.8300"})}
	for _, zone := range []string{".com", ".net", ".co.uk", ".xn--p1ai"} {
		evs = append(evs, eventtest.ZoneMeta(zone, contracts.TypeGeneric, t0, "generic", "b-cat", "a-cat"))
		for i, reg := range []string{"r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8"} {
			cur := []string{"USD", "EUR", "GBP", "INR"}[i%4]
			ps := eventtest.Priced(reg, zone, at(time.Duration(i)*time.Minute), cur, 1000, int64(900+i%2), 1000)
			if i == 3 {
				ps.Register = eventtest.Promo(cur, 1000, 100, &ends)
			}
			evs = append(evs, ps)
		}
	}
	// Statuses of two registrars, in another order than their ids'.
	return append(evs, eventtest.Status("r5", "Registrar Five", time.Hour, at(time.Minute), 4),
		eventtest.Status("r2", "Registrar Two", time.Hour, at(-time.Hour), 4))
}

func TestRenderingIsDeterministic(t *testing.T) {
	evs := deterministicEvents(t)

	// Three indexes see the same events: two build once, one builds after
	// every event, so incremental renders are checked against full ones.
	fa, fb, fc := newFeed(t, "USD"), newFeed(t, "USD"), newFeed(t, "USD")
	for _, ev := range evs {
		fa.apply(ev)
		fb.apply(ev)
		fc.apply(ev)
		fc.x.Build(t0)
	}
	a, b, c := fa.x.Build(t0), fb.x.Build(t0), fc.x.Snapshot()
	for name, other := range map[string]*Snapshot{"same events": b, "incremental builds": c} {
		t.Run(name, func(t *testing.T) {
			ab, ob := bodies(a), bodies(other)
			if len(ab) != len(ob) {
				t.Fatalf("got %d bodies, want %d", len(ob), len(ab))
			}
			for route, want := range ab {
				got, ok := ob[route]
				if !ok {
					t.Errorf("%s missing", route)
					continue
				}
				if !bytes.Equal(got.JSON, want.JSON) {
					t.Errorf("%s differs:\ngot  %s\nwant %s", route, got.JSON, want.JSON)
				}
			}
		})
	}
}

// An ended promotion priced like the regular price is not shown as running.
func TestEndedPromotionAtRegularPriceNotShown(t *testing.T) {
	ended := at(-time.Hour)
	f := newFeed(t, "USD")
	f.apply(eventtest.PriceSet("alpha", ".com", t0, eventtest.Promo("USD", 1000, 1000, &ended), nil, nil))
	r := comparison(t, f.x.Build(t0), ".com").row(t, "alpha")
	if p, ok := r.Promo["register"]; ok {
		t.Errorf("promo.register = regular %s ends_at %v at %v, want absent", p.Regular, *p.EndsAt, t0)
	}
}

func TestCategoryNameEmptyID(t *testing.T) {
	if got := CategoryName(""); got != "" {
		t.Errorf("CategoryName(\"\") = %q, want \"\"", got)
	}
}

// With rates for several bases, every order of arrival chooses the same:
// the newest date, then the alphabetically first base.
func TestRatesChoiceIndependentOfOrder(t *testing.T) {
	eur := eventtest.Rates(t0, "EUR", map[string]string{"USD": "1.0830"})
	usd := eventtest.Rates(t0, "USD", map[string]string{"EUR": "0.9000"})
	for _, order := range [][]contracts.Event{{eur, usd}, {usd, eur}} {
		x := NewIndex("USD")
		for i, ev := range order {
			applyAt(t, x, uint64(i+1), ev)
		}
		if got := x.table.Base; got != "EUR" {
			t.Errorf("chosen base with equal dates: got %s, want EUR", got)
		}
	}
	newer := eventtest.Rates(t0, "USD", map[string]string{"EUR": "0.9000"})
	newer.Date = "2026-11-21"
	for _, order := range [][]contracts.Event{{eur, newer}, {newer, eur}} {
		x := NewIndex("USD")
		for i, ev := range order {
			applyAt(t, x, uint64(i+1), ev)
		}
		if got := x.table.Base; got != "USD" {
			t.Errorf("chosen base with a newer USD date: got %s, want USD", got)
		}
	}
}

// A render large enough to be spread over the cores gives the same bytes as
// the same data rendered zone by zone.
func TestParallelRenderMatchesSerial(t *testing.T) {
	const zones = 2 * parallelRender
	var events []contracts.Event
	for z := range zones {
		zone := fmt.Sprintf(".z%04d", z)
		for r := range 3 {
			events = append(events, eventtest.Priced(fmt.Sprintf("r%d", r), zone, t0, "USD", int64(1000+z+r), 1100, 1200))
		}
	}
	parallel := NewIndex("USD")
	serial := NewIndex("USD")
	for i, ev := range events {
		applyAt(t, parallel, uint64(i+1), ev)
		applyAt(t, serial, uint64(i+1), ev)
		if (i+1)%3 == 0 {
			serial.Build(t0) // one zone dirty at a time: the serial path
		}
	}
	p, s := parallel.Build(t0), serial.Snapshot()
	if !bytes.Equal(p.Domains.JSON, s.Domains.JSON) {
		t.Error("catalog differs between the parallel and the serial render")
	}
	for z := range zones {
		zone := fmt.Sprintf(".z%04d", z)
		pb, _ := p.Comparison(zone)
		sb, _ := s.Comparison(zone)
		if pb == nil || sb == nil || !bytes.Equal(pb.JSON, sb.JSON) {
			t.Fatalf("%s differs between the parallel and the serial render", zone)
		}
	}
}

func TestSamplePricesHiddenOnceRealPricesExist(t *testing.T) {
	f := newFeed(t, "USD")
	f.apply(
		eventtest.Priced("sample-alpha", ".com", t0, "USD", 1000, 1200, 900),
		eventtest.Priced("sample-alpha", ".net", t0, "USD", 1100, 1300, 1000),
		eventtest.Priced("sample-bravo", ".net", t0, "USD", 1150, 1350, 1050),
	)
	s := f.x.Build(t0)
	if s.Zones != 2 || s.Prices != 3 || s.Registrars != 2 {
		t.Fatalf("sample only: zones/prices/registrars = %d/%d/%d, want 2/3/2", s.Zones, s.Prices, s.Registrars)
	}

	// A real registrar prices .com: the sample disappears everywhere,
	// including .net, which only the sample prices.
	f.apply(eventtest.Priced("porkbun", ".com", at(time.Minute), "USD", 968, 1082, 968))
	s = f.x.Build(at(time.Minute))
	if got, want := comparison(t, s, ".com").registrars(), []string{"porkbun"}; !slices.Equal(got, want) {
		t.Errorf(".com rows with a real price = %v, want %v", got, want)
	}
	if _, ok := s.Comparison(".net"); ok {
		t.Error(".net, priced only by the sample, still answers beside real prices")
	}
	d := decode[domainsJSON](t, s.Domains.JSON)
	if d.Count != 1 || d.Zones[0].Zone != ".com" || d.Zones[0].Registrars != 1 {
		t.Errorf("domains = %+v, want only .com with one registrar", d)
	}
	if s.Zones != 1 || s.Prices != 1 || s.Registrars != 1 {
		t.Errorf("with a real price: zones/prices/registrars = %d/%d/%d, want 1/1/1", s.Zones, s.Prices, s.Registrars)
	}

	// The sample's made-up rates do not convert real prices.
	sampleRates := eventtest.Rates(t0, "EUR", map[string]string{"USD": "1.0830"})
	sampleRates.Source = contracts.SampleSource
	f.apply(sampleRates, eventtest.Priced("ovhcloud", ".com", at(time.Minute), "EUR", 899, 1349, 899))
	s = f.x.Build(at(time.Minute))
	if row := comparison(t, s, ".com").row(t, "ovhcloud"); row.Converted {
		t.Errorf("a real EUR price was converted with the sample's rates: %+v", row)
	}
	if !bytes.Contains(s.Domains.JSON, []byte(`"rates":null`)) {
		t.Errorf("the catalog discloses rates beside real prices with only sample rates known: %.200s", s.Domains.JSON)
	}
	f.apply(eventtest.Withdrawal("ovhcloud", ".com", at(2*time.Minute)))

	// The sample steps aside for good; the real registrar withdraws too,
	// and what the sample still holds comes back rather than nothing.
	f.apply(eventtest.Withdrawal("porkbun", ".com", at(2*time.Minute)))
	s = f.x.Build(at(2 * time.Minute))
	if got, want := comparison(t, s, ".net").registrars(), []string{"sample-alpha", "sample-bravo"}; !slices.Equal(got, want) {
		t.Errorf(".net rows with no real price left = %v, want %v", got, want)
	}
	if s.Zones != 2 || s.Prices != 3 {
		t.Errorf("after the real withdrawal: zones/prices = %d/%d, want 2/3", s.Zones, s.Prices)
	}
}

// TestLastModifiedMovesWithEveryKindOfChange checks that a body's Modified
// follows every event that changes it, not only the newest live price
// (as_of): a client revalidating with If-Modified-Since must see a
// withdrawal, a rate change, new metadata and the end of a promotion.
func TestLastModifiedMovesWithEveryKindOfChange(t *testing.T) {
	ends := at(90 * time.Minute)
	f := newFeed(t, "USD")
	f.apply(
		eventtest.Priced("alpha", ".com", t0, "USD", 1000, 1200, 900),
		eventtest.Priced("beta", ".com", at(time.Minute), "USD", 1100, 1300, 1000),
		eventtest.PriceSet("gamma", ".net", t0, eventtest.Promo("USD", 1200, 500, &ends), eventtest.Regular("USD", 1400), nil),
	)
	s := f.x.Build(at(time.Minute))
	com, _ := s.Comparison(".com")
	net, _ := s.Comparison(".net")
	if !com.Modified.Equal(at(time.Minute)) || !net.Modified.Equal(t0) || !s.Domains.Modified.Equal(at(time.Minute)) {
		t.Fatalf("first build: .com %v .net %v catalog %v, want %v %v %v", com.Modified, net.Modified, s.Domains.Modified, at(time.Minute), t0, at(time.Minute))
	}
	if com.LastModified != "Sat, 01 Mar 2025 12:01:00 GMT" {
		t.Errorf(".com LastModified = %q, want the HTTP date of 12:01:00", com.LastModified)
	}

	steps := []struct {
		name  string
		event contracts.Event
		now   time.Time
		zone  string
		want  time.Time
	}{
		// as_of stays at beta's observation: only the withdrawal's own
		// time says the body changed.
		{"withdrawal", eventtest.Withdrawal("alpha", ".com", at(2*time.Minute+500*time.Millisecond)), at(3 * time.Minute), ".com", at(2 * time.Minute)},
		{"metadata", eventtest.ZoneMeta(".com", contracts.TypeGeneric, at(3*time.Minute), "generic"), at(3 * time.Minute), ".com", at(3 * time.Minute)},
		// Rates touch every body, .net's too.
		{"rates", eventtest.Rates(at(4*time.Minute), "EUR", map[string]string{"USD": "1.08"}), at(4 * time.Minute), ".net", at(4 * time.Minute)},
		// No event at all: the promotion's end changes .net.
		{"promotion end", nil, at(2 * time.Hour), ".net", ends},
	}
	for _, st := range steps {
		if st.event != nil {
			f.apply(st.event)
		} else {
			f.x.Expire(st.now)
		}
		s = f.x.Build(st.now)
		b, ok := s.Comparison(st.zone)
		if !ok {
			t.Fatalf("%s: %s not in the snapshot", st.name, st.zone)
		}
		if !b.Modified.Equal(st.want) {
			t.Errorf("%s: %s Modified = %v, want %v", st.name, st.zone, b.Modified, st.want)
		}
		if s.Domains.Modified.Before(st.want) {
			t.Errorf("%s: catalog Modified = %v, before the change at %v", st.name, s.Domains.Modified, st.want)
		}
	}
}

func TestGzipRoundTripsAndIsDeterministic(t *testing.T) {
	s := catalog(t).x.Build(t0)
	b := s.Domains
	gz := b.Gzip()
	r, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatalf("gzip.NewReader: %v", err)
	}
	plain, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("read gzip body: %v", err)
	}
	if !bytes.Equal(plain, b.JSON) {
		t.Error("the gzip body does not decompress to the JSON body")
	}
	if etag := b.GzipETag; etag == b.ETag || !strings.HasPrefix(etag, strings.TrimSuffix(b.ETag, `"`)) || !strings.HasSuffix(etag, `-gzip"`) {
		t.Errorf("gzip ETag = %s for plain %s, want a distinct strong tag derived from it", etag, b.ETag)
	}
	if again := NewBody(b.JSON, b.Modified); !bytes.Equal(again.Gzip(), gz) || again.GzipETag != b.GzipETag {
		t.Error("compressing the same bytes twice gave different bodies or tags; pods would disagree")
	}
	if gz2 := b.Gzip(); &gz2[0] != &gz[0] {
		t.Error("a second Gzip call compressed again")
	}
}

// TestExpectSizesZones replays registrar after registrar, as a stream
// does, with and without the replay's size announced: the prices are the
// same, and with it every zone ends with room for its registrars and
// little more, where doubling ends with up to twice the room.
func TestExpectSizesZones(t *testing.T) {
	const zones, registrars = 40, 40
	replay := func(expect bool) *Index {
		x := NewIndex("USD")
		if expect {
			x.Expect(zones * registrars)
		}
		seq := uint64(0)
		for r := range registrars {
			for z := range zones {
				seq++
				ev := eventtest.Priced(fmt.Sprintf("r%02d", r), fmt.Sprintf(".z%02d", z), t0, "USD", int64(500+r), int64(700+r), int64(600+r))
				if out := x.Apply(seq, t0, ev); out != Applied {
					t.Fatalf("apply %d: %v", seq, out)
				}
			}
		}
		x.Expect(0)
		return x
	}
	sized, doubled := replay(true), replay(false)
	a, b := bodies(sized.Build(t0)), bodies(doubled.Build(t0))
	if len(a) != len(b) {
		t.Fatalf("%d bodies with Expect, %d without", len(a), len(b))
	}
	for path, body := range a {
		if !bytes.Equal(body.JSON, b[path].JSON) {
			t.Errorf("%s differs with Expect", path)
		}
	}
	for name, z := range sized.zones {
		if n, c := len(z.prices), cap(z.prices); n != registrars || c > n+n/4 {
			t.Errorf("%s: %d entries in room for %d, want %d in at most %d", name, n, c, registrars, registrars+registrars/4)
		}
	}
}
