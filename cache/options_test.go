package cache

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/eventtest"
)

// optionsFeed prices .com by four registrars (one on a promotion, one in
// EUR, one whose renewal is a trap), .net, .shop and .рф.
func optionsFeed(t *testing.T) *feed {
	t.Helper()
	f := newFeed(t, "USD")
	f.apply(
		eventtest.Rates(t0, "EUR", map[string]string{"USD": "1.25", "GBP": "0.8"}),
		// First year 1.99 on promotion, renewals 12.00: a trap, and 2 years
		// cost 13.99, not 2 × 1.99.
		eventtest.PriceSet("alpha", ".com", t0, eventtest.Promo("USD", 1000, 199, nil), eventtest.Regular("USD", 1200), eventtest.Regular("USD", 1000)),
		eventtest.Priced("bravo", ".com", t0, "USD", 900, 1300, 900),
		eventtest.Priced("charlie", ".com", t0, "EUR", 800, 800, 800), // 10.00, 10.00, 10.00 USD
		eventtest.PriceSet("delta", ".com", t0, eventtest.Regular("USD", 950), nil, eventtest.Regular("USD", 700)),
		eventtest.Priced("bravo", ".net", t0, "USD", 1100, 1400, 1100),
		eventtest.Priced("alpha", ".shop", t0, "USD", 150, 3000, 3000),
		eventtest.Priced("bravo", ".xn--p1ai", t0, "USD", 500, 500, 500),
		eventtest.ZoneMeta(".com", contracts.TypeGeneric, t0, "generic", "legacy-gtld"),
		eventtest.ZoneMeta(".shop", contracts.TypeGeneric, t0, "generic", "new-gtld", "shopping"),
		eventtest.ZoneMeta(".xn--p1ai", contracts.TypeCountryCode, t0, "country-code", "idn"),
	)
	return f
}

func TestRenderComparisonOptions(t *testing.T) {
	s := optionsFeed(t).x.Build(t0)
	render := func(o ComparisonOptions) comparisonJSON {
		t.Helper()
		b, ok := s.RenderComparison(".com", o)
		if !ok {
			t.Fatal("RenderComparison(.com) missing")
		}
		return decode[comparisonJSON](t, b.JSON)
	}

	plain := render(ComparisonOptions{})
	if own, _ := s.Comparison(".com"); string(own.JSON) != string(mustRender(t, s, ".com", ComparisonOptions{})) {
		t.Error("the zero options do not render the snapshot's own body")
	}
	for reg, want := range map[string]bool{"alpha": true, "bravo": false, "charlie": false, "delta": false} {
		if got := plain.row(t, reg).Trap; got == nil || *got != want {
			t.Errorf("%s renewal_trap = %v, want %v", reg, got, want)
		}
	}

	tests := []struct {
		name      string
		o         ComparisonOptions
		order     []string
		costs     map[string]string // registrar → cost.total
		cheapest  string            // cheapest.register
		currency  string
		firstPays string // the first row's register amount
	}{
		{name: "default order", o: ComparisonOptions{}, order: []string{"alpha", "bravo", "delta", "charlie"}, cheapest: "alpha", currency: "USD", firstPays: "1.99"},
		{name: "by renewal", o: ComparisonOptions{Sort: SortRenew}, order: []string{"charlie", "alpha", "bravo", "delta"}, cheapest: "alpha", currency: "USD", firstPays: "10.00"},
		{name: "by transfer, dearest first", o: ComparisonOptions{Sort: SortTransfer, Desc: true}, order: []string{"alpha", "charlie", "bravo", "delta"}, cheapest: "alpha", currency: "USD", firstPays: "1.99"},
		{name: "by registrar", o: ComparisonOptions{Sort: SortRegistrar, Desc: true}, order: []string{"delta", "charlie", "bravo", "alpha"}, cheapest: "alpha", currency: "USD", firstPays: "9.50"},
		{
			name: "three-year cost", o: ComparisonOptions{Sort: SortCost, Years: 3},
			// alpha 1.99 + 2 × 12.00; bravo 9.00 + 2 × 13.00; charlie (8.00 + 16.00) EUR
			// converted once; delta does not renew.
			order:    []string{"alpha", "charlie", "bravo", "delta"},
			costs:    map[string]string{"alpha": "25.99", "bravo": "35.00", "charlie": "30.00", "delta": "null"},
			cheapest: "alpha", currency: "USD", firstPays: "1.99",
		},
		{
			name: "one-year cost is the first year", o: ComparisonOptions{Years: 1},
			order: []string{"alpha", "bravo", "delta", "charlie"},
			costs: map[string]string{"alpha": "1.99", "delta": "9.50"}, cheapest: "alpha", currency: "USD", firstPays: "1.99",
		},
		{
			name: "only some registrars", o: ComparisonOptions{Registrars: []string{"bravo", "charlie", "nobody"}},
			order: []string{"bravo", "charlie"}, cheapest: "bravo", currency: "USD", firstPays: "9.00",
		},
		{
			name: "excluding", o: ComparisonOptions{Exclude: []string{"alpha", "delta"}},
			order: []string{"bravo", "charlie"}, cheapest: "bravo", currency: "USD", firstPays: "9.00",
		},
		{
			name: "in euros", o: ComparisonOptions{Currency: "EUR"},
			order: []string{"alpha", "bravo", "delta", "charlie"}, cheapest: "alpha", currency: "EUR", firstPays: "1.59",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := render(tt.o)
			if got := c.registrars(); !slices.Equal(got, tt.order) {
				t.Errorf("rows = %v, want %v", got, tt.order)
			}
			if c.Currency != tt.currency || c.Cheapest["register"] == nil || *c.Cheapest["register"] != tt.cheapest {
				t.Errorf("currency %s, cheapest.register %v; want %s, %s", c.Currency, c.Cheapest["register"], tt.currency, tt.cheapest)
			}
			if got := c.Prices[0].amounts()[0]; got != tt.firstPays {
				t.Errorf("first row registers at %s, want %s", got, tt.firstPays)
			}
			for reg, want := range tt.costs {
				cost := c.row(t, reg).Cost
				if cost == nil || cost.Years != tt.o.Years || amountsOf(cost.Total, nil, nil)[0] != want {
					t.Errorf("%s cost = %+v, want %d years totalling %s", reg, cost, tt.o.Years, want)
				}
			}
			if tt.o.Years == 0 && c.Prices[0].Cost != nil {
				t.Errorf("a cost without years: %+v", c.Prices[0].Cost)
			}
		})
	}
	if c := render(ComparisonOptions{Currency: "EUR"}); c.row(t, "charlie").Native != nil || c.row(t, "bravo").Native == nil {
		t.Error("in euros, the euro row should have no native block and the dollar rows one")
	}
}

func mustRender(t *testing.T, s *Snapshot, zone string, o ComparisonOptions) []byte {
	t.Helper()
	b, ok := s.RenderComparison(zone, o)
	if !ok {
		t.Fatalf("RenderComparison(%s) missing", zone)
	}
	return b.JSON
}

func zonesOf(d domainsJSON) []string {
	zones := make([]string, len(d.Zones))
	for i, z := range d.Zones {
		zones[i] = z.Zone
	}
	return zones
}

func TestRenderCatalogOptions(t *testing.T) {
	s := optionsFeed(t).x.Build(t0)
	if got := s.RenderCatalog(CatalogOptions{}); string(got.JSON) != string(s.Domains.JSON) {
		t.Error("the zero options do not render the snapshot's own catalog")
	}
	tests := []struct {
		name  string
		o     CatalogOptions
		zones []string
		count int
		check func(t *testing.T, d domainsJSON)
	}{
		{name: "one category", o: CatalogOptions{Categories: []string{"idn"}}, zones: []string{".xn--p1ai"}, count: 1},
		{name: "any of two categories", o: CatalogOptions{Categories: []string{"shopping", "legacy-gtld"}}, zones: []string{".com", ".shop"}, count: 2},
		{name: "no metadata, no category", o: CatalogOptions{Categories: []string{"generic"}}, zones: []string{".com", ".shop"}, count: 2},
		{name: "search ASCII", o: CatalogOptions{Query: "ne"}, zones: []string{".net"}, count: 1},
		{name: "search Unicode", o: CatalogOptions{Query: "рф"}, zones: []string{".xn--p1ai"}, count: 1},
		{name: "search punycode", o: CatalogOptions{Query: "xn--p1"}, zones: []string{".xn--p1ai"}, count: 1},
		{name: "by registration", o: CatalogOptions{Sort: SortRegister}, zones: []string{".shop", ".com", ".xn--p1ai", ".net"}, count: 4},
		{name: "by renewal, dearest first", o: CatalogOptions{Sort: SortRenew, Desc: true}, zones: []string{".shop", ".net", ".com", ".xn--p1ai"}, count: 4},
		{name: "by zone, reversed", o: CatalogOptions{Desc: true}, zones: []string{".xn--p1ai", ".shop", ".net", ".com"}, count: 4},
		{
			// .shop's 1.50 first year renews at 30.00: over two years .com
			// (alpha 1.99 + 12.00) is cheaper.
			name: "two-year cost", o: CatalogOptions{Sort: SortCost, Years: 2}, zones: []string{".xn--p1ai", ".com", ".net", ".shop"}, count: 4,
			check: func(t *testing.T, d domainsJSON) {
				c := d.Zones[1].Cost
				if c == nil || c.Years != 2 || c.Price.String() != "13.99" || *c.Registrar != "alpha" {
					t.Errorf(".com cost = %+v, want 13.99 by alpha over 2 years", c)
				}
			},
		},
		{
			name: "in euros", o: CatalogOptions{Currency: "EUR", Query: "com"}, zones: []string{".com"}, count: 1,
			check: func(t *testing.T, d domainsJSON) {
				if d.Currency != "EUR" || d.Zones[0].Min["register"].Price.String() != "1.59" || d.Zones[0].Min["renew"].Registrar != "charlie" {
					t.Errorf("in euros: %+v %+v", d.Currency, d.Zones[0].Min)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := decode[domainsJSON](t, s.RenderCatalog(tt.o).JSON)
			if got := zonesOf(d); !slices.Equal(got, tt.zones) || d.Count != tt.count {
				t.Errorf("zones %v count %d, want %v count %d", got, d.Count, tt.zones, tt.count)
			}
			if d.Next != nil {
				t.Errorf("next_cursor without a limit: %v", *d.Next)
			}
			if tt.check != nil {
				tt.check(t, d)
			}
		})
	}
}

// TestCatalogPagesStayConsistent walks the catalog two zones at a time while
// zones appear and vanish between pages: no zone that stayed is shown twice
// or skipped.
func TestCatalogPagesStayConsistent(t *testing.T) {
	for _, o := range []CatalogOptions{{}, {Sort: SortRegister}, {Sort: SortRenew, Desc: true}, {Sort: SortCost, Years: 3}} {
		t.Run(o.Sort.String(), func(t *testing.T) {
			f := optionsFeed(t)
			s := f.x.Build(t0)
			o.Limit = 2
			var seen []string
			for page := 0; ; page++ {
				b := s.RenderCatalog(o)
				d := decode[domainsJSON](t, b.JSON)
				if !strings.Contains(string(b.JSON), `"next_cursor":`) || (d.Next == nil) != (b.Next == "") || (d.Next != nil && *d.Next != b.Next) || len(d.Zones) > 2 {
					t.Fatalf("page %d: next_cursor %v, Next %q, count %d", page, d.Next, b.Next, d.Count)
				}
				seen = append(seen, zonesOf(d)...)
				if b.Next == "" {
					break
				}
				c, err := ParseCursor(b.Next)
				if err != nil {
					t.Fatalf("ParseCursor(%q): %v", b.Next, err)
				}
				o.After = &c
				if page == 0 {
					// Between pages: a zone sorting before the cursor
					// appears, one not yet seen vanishes.
					f.apply(eventtest.Priced("bravo", ".aaa", at(time.Minute), "USD", 100, 100, 100),
						eventtest.Withdrawal("bravo", ".net", at(time.Minute)))
					s = f.x.Build(at(time.Minute))
				}
			}
			for _, z := range seen {
				if n := countOf(seen, z); n != 1 {
					t.Errorf("%s shown %d times over the pages %v", z, n, seen)
				}
			}
			for _, z := range []string{".com", ".shop", ".xn--p1ai"} {
				if !slices.Contains(seen, z) {
					t.Errorf("%s, there all along, was skipped: %v", z, seen)
				}
			}
		})
	}
}

func countOf(list []string, s string) int {
	n := 0
	for _, v := range list {
		if v == s {
			n++
		}
	}
	return n
}

func TestParseCursor(t *testing.T) {
	c := Cursor{Sort: SortCost, Desc: true, Currency: "EUR", Years: 3, Has: true, Value: 1399, Zone: ".co.uk"}
	got, err := ParseCursor(c.String())
	if err != nil || got != c {
		t.Fatalf("round trip: %+v, %v; want %+v", got, err, c)
	}
	for _, bad := range []string{"", "!!", c.String()[:10], "MnxjdXN0", strings.Repeat("A", 40)} {
		if _, err := ParseCursor(bad); err == nil {
			t.Errorf("ParseCursor(%q) accepted", bad)
		}
	}
}

// TestRenderWhileApplying renders options from published snapshots on
// other goroutines while the index keeps applying events (new registrars
// grow the symbol table) and building (past the parallel render size): the
// views a snapshot shares with the index must never change under a reader.
// Run with -race.
func TestRenderWhileApplying(t *testing.T) {
	f := newFeed(t, "USD")
	f.apply(eventtest.Rates(t0, "EUR", map[string]string{"USD": "1.25"}))
	zones := make([]string, 300)
	for i := range zones {
		zones[i] = fmt.Sprintf(".z%03d", i)
		f.apply(eventtest.Priced("alpha", zones[i], t0, "USD", 1000, 1200, 900))
	}
	var current atomic.Pointer[Snapshot]
	current.Store(f.x.Build(t0))
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				s := current.Load()
				s.RenderCatalog(CatalogOptions{Currency: "EUR", Years: 2, Sort: SortCost, Limit: 10})
				if b, ok := s.RenderComparison(zones[(w*31+i)%len(zones)], ComparisonOptions{Currency: "EUR", Years: 3}); ok {
					b.Gzip()
				}
			}
		})
	}
	for round := range 20 {
		for i, z := range zones {
			f.apply(eventtest.Priced(fmt.Sprintf("r%02d", round), z, at(time.Duration(round)*time.Minute), "USD", int64(900+i), 1100, 800))
		}
		current.Store(f.x.Build(at(time.Duration(round) * time.Minute)))
	}
	close(stop)
	wg.Wait()
	d := decode[domainsJSON](t, current.Load().RenderCatalog(CatalogOptions{}).JSON)
	if d.Count != len(zones) || d.Zones[0].Registrars != 21 {
		t.Errorf("after the rounds: %d zones, %d registrars on the first; want %d and 21", d.Count, d.Zones[0].Registrars, len(zones))
	}
}

// TestTaxOption shows each row's tax declaration and keeps, with the tax
// option, only the rows (and, in the catalog, the zones) that declare it.
func TestTaxOption(t *testing.T) {
	f := newFeed(t, "USD")
	excluded := eventtest.Priced("ovh", ".com", t0, "USD", 800, 900, 900)
	excluded.Tax = contracts.TaxExcluded
	included := eventtest.Priced("joker", ".com", t0, "USD", 700, 700, 700)
	included.Tax = contracts.TaxIncluded
	netIncluded := eventtest.Priced("joker", ".net", t0, "USD", 1000, 1000, 1000)
	netIncluded.Tax = contracts.TaxIncluded
	f.apply(excluded, included, eventtest.Priced("plain", ".com", t0, "USD", 600, 600, 600), netIncluded)
	s := f.x.Build(t0)

	body, _ := s.Comparison(".com")
	for reg, want := range map[string]string{"ovh": "excluded", "joker": "included", "plain": "unknown"} {
		if !strings.Contains(string(body.JSON), `{"registrar":"`+reg+`","source":"test","tax":"`+want+`"`) {
			t.Errorf("%s's row does not say tax %q: %s", reg, want, body.JSON)
		}
	}
	b, _ := s.RenderComparison(".com", ComparisonOptions{Tax: contracts.TaxExcluded})
	c := decode[comparisonJSON](t, b.JSON)
	if len(c.Prices) != 1 || c.Prices[0].Registrar != "ovh" || c.Cheapest["register"] == nil || *c.Cheapest["register"] != "ovh" {
		t.Errorf("tax=excluded: %s, want ovh alone, and the cheapest", b.JSON)
	}
	cat := decode[domainsJSON](t, s.RenderCatalog(CatalogOptions{Tax: contracts.TaxExcluded}).JSON)
	if len(cat.Zones) != 1 || cat.Zones[0].Zone != ".com" || cat.Zones[0].Registrars != 1 || cat.Zones[0].Min["register"].Registrar != "ovh" {
		t.Errorf("catalog with tax=excluded: %+v, want .com alone, priced by ovh", cat.Zones)
	}
}
