package domaincostclub_test

import (
	"context"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/domaincostclub"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/kit"
)

func op(cents int64) *contracts.OpPrice {
	return &contracts.OpPrice{Regular: contracts.Price{Amount: cents, Currency: "USD"}}
}

// TestFetch reads the members panel's three tables, not the hidden
// retail panel: 11 zones, register and renew only; .com listed twice
// alike is read once, .tk offers nothing.
func TestFetch(t *testing.T) {
	_, srv := ingesttest.NewAPI(t, ingesttest.Fixture(t, "pricing.html"), nil)
	list, err := suite.Source(t, srv.URL, nil).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := suite.ByZone(t, list)
	if len(got) != 11 || list.Skipped != 0 {
		t.Errorf("%d zones, %d skipped; want 11 and none skipped", len(got), list.Skipped)
	}
	if list.Drift == nil || !list.Drift.Empty() {
		t.Errorf("drift %+v, want none", list.Drift)
	}
	for _, tt := range []struct {
		name, zone                string
		register, renew, transfer *contracts.OpPrice
	}{
		{"members' price, not the retail panel's", ".com", op(1044), op(1044), nil},
		{"first-year price", ".info", op(499), op(2049), nil},
		{"second table", ".co.uk", op(625), op(625), nil},
		{"upper-case zone", ".us", op(750), op(750), nil},
		{"zone without its dot", ".io", op(3900), op(3900), nil},
		{"thousands separator", ".cars", op(234900), op(234900), nil},
		{"Unicode zone", ".xn--p1ai", op(810), op(810), nil},
		{"n/a renewal", ".de", op(515), nil, nil},
	} {
		t.Run(tt.name, func(t *testing.T) { ingesttest.CheckOps(t, got[tt.zone], tt.register, tt.renew, tt.transfer) })
	}
	if _, ok := got[".tk"]; ok {
		t.Error(".tk is listed; it offers nothing")
	}
}

// TestParseQuirks covers the page's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	page := func(rows string) string {
		return `<html><body><div class="row panel_type_members"><div class="col-md-4"><table>` +
			`<tr><th>Extension</th><th>Registration</th><th>Renewals</th></tr>` +
			`<tr><td>.net</td><td>$12.26</td><td>$12.26</td></tr>` + rows + `</table></div></div></body></html>`
	}
	suite.Quirks(t, []ingesttest.Quirk{
		{
			Name: "a repeat with other prices is skipped, the first stands", Body: page(`<tr><td>.com</td><td>$10.44</td><td>$10.44</td></tr><tr><td>.com</td><td>$9.44</td><td>$10.44</td></tr>`),
			Zone: ".com", Want: suite.Set(".com", op(1044), op(1044), nil), Skipped: 1,
		},
		{
			Name: "a price in another currency skips the row", Body: page(`<tr><td>.com</td><td>€9.99</td><td>$10.44</td></tr>`),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.domaincostclub.com"},
		},
		{
			Name: "a row of words is no zone: skipped, named", Body: page(`<tr><td>Premium names</td><td>varies</td><td>varies</td></tr>`),
			Zone: ".com", Skipped: 1,
		},
		{Name: "a page without the members panel", Body: `<html><body><table><tr><td>.com</td><td>$14.95</td><td>$14.95</td></tr></table></body></html>`, WantErr: "no table rows"},
		{Name: "a page cut short", Body: page("")[:120], WantErr: "does not end with </html>"},
	})
}

// suite is the source, for the conformance suite and the tests above.
var suite = ingesttest.Suite{
	Name: domaincostclub.Name, Registrar: domaincostclub.Name, Parse: domaincostclub.Declaration().Read,
	New: func(url string, client *fetch.Client, now func() time.Time) (ingest.Source, error) {
		return kit.New(domaincostclub.Declaration(), kit.Config{URL: url}, client, now)
	},
	Validate: func(url string) error { return kit.Config{URL: url}.Validate() },
	Fixtures: []string{"pricing.html"}, Shrunk: "pricing_shrunk.html", Conditional: true, Golden: "*.html",
	Observed: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC), Tax: contracts.TaxUnknown,
}

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, domaincostclub.Declaration().Read, "*.html") }
