package ingesttest

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
)

// CheckList checks every price set of a one-registrar list: it validates,
// names the registrar and source, was observed at observed, and no zone is
// priced twice. It returns the price sets by zone.
func CheckList(t testing.TB, list *ingest.List, registrar, source string, observed time.Time) map[string]contracts.PriceSet {
	t.Helper()
	out := map[string]contracts.PriceSet{}
	for _, p := range list.Prices {
		if err := p.Validate(); err != nil {
			t.Errorf("%s: %v", p.Zone, err)
		}
		if p.Registrar != registrar || p.Source != source || !p.ObservedAt.Equal(observed) {
			t.Errorf("%s: registrar %q source %q observed %v", p.Zone, p.Registrar, p.Source, p.ObservedAt)
		}
		if _, dup := out[p.Zone]; dup {
			t.Errorf("zone %s listed twice", p.Zone)
		}
		out[p.Zone] = p
	}
	return out
}

// CheckParsed checks what a one-registrar parser returned, whatever its
// input: an error comes without a list; a list is not empty, keeps no more
// zones than it skipped entries, never both prices and keeps a zone, and
// holds valid price sets, one a zone, whose promotions are discounts.
func CheckParsed(t testing.TB, list *ingest.List, err error) {
	t.Helper()
	if err != nil {
		if list != nil {
			t.Fatal("Parse returned a list with its error")
		}
		return
	}
	if len(list.Prices) == 0 {
		t.Fatal("Parse returned an empty list without an error")
	}
	if len(list.Keep) > list.Skipped {
		t.Fatalf("%d zones kept for %d entries skipped", len(list.Keep), list.Skipped)
	}
	seen := map[string]bool{}
	for _, p := range list.Prices {
		if slices.Contains(list.Keep, p.Subject()) {
			t.Fatalf("%s is both priced and kept", p.Zone)
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("invalid price set %s: %v", p.Zone, err)
		}
		if seen[p.Zone] {
			t.Fatalf("zone %s listed twice", p.Zone)
		}
		seen[p.Zone] = true
		for _, o := range p.Ops() {
			if o != nil && o.Promo != nil && o.Promo.Price.Amount >= o.Regular.Amount {
				t.Fatalf("%s: promotion %d is no discount on %d", p.Zone, o.Promo.Price.Amount, o.Regular.Amount)
			}
		}
	}
}

// CheckOutcome checks a parser's answer to one body. With wantErr set it
// wants an error mentioning wantErr and no list; otherwise no error, and a
// list that skipped skipped entries and keeps exactly the subjects keep.
// It reports whether there is a list to check further.
func CheckOutcome(t testing.TB, list *ingest.List, err error, wantErr string, skipped int, keep []string) bool {
	t.Helper()
	if wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("Parse error = %v, want one containing %q", err, wantErr)
		}
		if list != nil {
			t.Errorf("Parse returned a list with its error")
		}
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	if list.Skipped != skipped || !slices.Equal(list.Keep, keep) {
		t.Errorf("skipped %d, keep %q; want %d, %q", list.Skipped, list.Keep, skipped, keep)
	}
	return true
}

// CheckOps checks a price set's three operations against the wanted ones
// (nil: not offered).
func CheckOps(t testing.TB, p contracts.PriceSet, register, renew, transfer *contracts.OpPrice) {
	t.Helper()
	want := [contracts.NumOps]*contracts.OpPrice{register, renew, transfer}
	for op, got := range p.Ops() {
		if !reflect.DeepEqual(got, want[op]) {
			t.Errorf("%s %s = %s, want %s", p.Zone, contracts.Op(op), Show(got), Show(want[op]))
		}
	}
}

// CheckZone checks the price set of zone in prices (as CheckList returns
// them) against want; a nil want means the zone must be absent.
func CheckZone(t testing.TB, prices map[string]contracts.PriceSet, zone string, want *contracts.PriceSet) {
	t.Helper()
	got, ok := prices[zone]
	switch {
	case want == nil && ok:
		t.Errorf("%s is listed as %s/%s/%s; it should be skipped", zone, Show(got.Register), Show(got.Renew), Show(got.Transfer))
	case want != nil && !ok:
		t.Errorf("%s is missing", zone)
	case want != nil && !reflect.DeepEqual(&got, want):
		t.Errorf("%s = %s/%s/%s, want %s/%s/%s", zone, Show(got.Register), Show(got.Renew), Show(got.Transfer),
			Show(want.Register), Show(want.Renew), Show(want.Transfer))
	}
}

// Show writes an operation's price for a failure message: "1108 USD",
// "1499 EUR (promo 1199 EUR until 2026-12-31T22:59:59Z)", "not offered".
func Show(o *contracts.OpPrice) string {
	if o == nil {
		return "not offered"
	}
	s := fmt.Sprintf("%d %s", o.Regular.Amount, o.Regular.Currency)
	if o.Promo != nil {
		s += fmt.Sprintf(" (promo %d %s", o.Promo.Price.Amount, o.Promo.Price.Currency)
		if o.Promo.EndsAt != nil {
			s += " until " + o.Promo.EndsAt.Format(time.RFC3339)
		}
		s += ")"
	}
	return s
}

// A Quirk is one body a parser is fed and what it must make of it.
type Quirk struct {
	Name string
	Body string
	// Zone is the zone to check: Want is its price set, nil when it must
	// be absent.
	Zone string
	Want *contracts.PriceSet
	// WantErr, when set, is what the parse's error must mention.
	WantErr string
	// Skipped rows could not be read; Keep are the subjects whose last
	// good price stays.
	Skipped int
	Keep    []string
}

// Quirks feeds parse every quirk's body as observed at observed and
// checks the outcome (CheckOutcome) and the zone (CheckZone) of a list
// of registrar's prices from source.
func Quirks(t *testing.T, parse ingest.ParseFunc, observed time.Time, registrar, source string, quirks []Quirk) {
	t.Helper()
	for _, q := range quirks {
		t.Run(q.Name, func(t *testing.T) {
			list, err := parse([]byte(q.Body), observed)
			if CheckOutcome(t, list, err, q.WantErr, q.Skipped, q.Keep) {
				CheckZone(t, CheckList(t, list, registrar, source, observed), q.Zone, q.Want)
			}
		})
	}
}
