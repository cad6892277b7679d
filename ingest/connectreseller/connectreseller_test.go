package connectreseller_test

import (
	"context"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/connectreseller"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/kit"
)

func op(cents int64) *contracts.OpPrice {
	return &contracts.OpPrice{Regular: contracts.Price{Amount: cents, Currency: "USD"}}
}

// TestFetch reads the price table by its headings, "$" written as an
// entity: 10 zones; .XYZ's offer is skipped (its regular price is not
// shown), .TK offers nothing, the top bar's row and the note's are no
// zones, and restoration is not read.
func TestFetch(t *testing.T) {
	_, srv := ingesttest.NewAPI(t, ingesttest.Fixture(t, "domain-prices.html"), nil)
	list, err := suite.Source(t, srv.URL, nil).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := suite.ByZone(t, list)
	if len(got) != 10 || list.Skipped != 1 {
		t.Errorf("%d zones, %d skipped; want 10 and 1 skipped (.xyz's offer)", len(got), list.Skipped)
	}
	if list.Drift == nil || !list.Drift.Empty() {
		t.Errorf("drift %+v, want none", list.Drift)
	}
	for _, tt := range []struct {
		name, zone                string
		register, renew, transfer *contracts.OpPrice
	}{
		{"entity dollar", ".com", op(1025), op(1025), op(1025)},
		{"empty offer validity", ".info", op(1699), op(1699), op(1699)},
		{"upper-case second-level zone", ".com.ng", op(489), op(489), op(489)},
		{"free transfer", ".co.uk", op(549), op(549), op(0)},
		{"N/A transfer", ".de", op(525), op(525), nil},
		{"dash transfer", ".in", op(799), op(799), nil},
		{"thousands separator", ".hospital", op(104900), op(104900), op(104900)},
		{"upper-case Unicode zone", ".xn--p1ai", op(750), op(750), op(750)},
	} {
		t.Run(tt.name, func(t *testing.T) { ingesttest.CheckOps(t, got[tt.zone], tt.register, tt.renew, tt.transfer) })
	}
	for _, zone := range []string{".xyz", ".tk"} {
		if _, ok := got[zone]; ok {
			t.Errorf("%s is listed; want it skipped or left out", zone)
		}
	}
}

// TestParseQuirks covers the page's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	const head = `<tr><th>TLD</th><th>Registration</th><th>Renewal</th><th>Transfer</th><th>Restoration</th><th>Offer Validity</th></tr>`
	page := func(head, rows string) string {
		return `<html><body><table>` + head +
			`<tr><td>.NET</td><td>&#36;11.89</td><td>&#36;11.89</td><td>&#36;11.89</td><td>&#36;85.00</td><td>-</td></tr>` +
			rows + `</table></body></html>`
	}
	suite.Quirks(t, []ingesttest.Quirk{
		{
			Name: "an offer with a date skips the row", Body: page(head, `<tr><td>.COM</td><td>&#36;5.99</td><td>&#36;10.25</td><td>&#36;10.25</td><td>&#36;85.00</td><td>15 Jan 2027</td></tr>`),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.connectreseller.com"},
		},
		{
			Name: "a price in another currency skips the row", Body: page(head, `<tr><td>.COM</td><td>&#8364;9.99</td><td>&#36;10.25</td><td>&#36;10.25</td><td>&#36;85.00</td><td>-</td></tr>`),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.connectreseller.com"},
		},
		{
			Name: "a plain dollar sign reads as the entity", Body: page(head, `<tr><td>.COM</td><td>$10.25</td><td>$10.25</td><td>$10.25</td><td>$85.00</td><td>-</td></tr>`),
			Zone: ".com", Want: suite.Set(".com", op(1025), op(1025), op(1025)),
		},
		{
			Name: "a zone without its dot is no zone's row", Body: page(head, `<tr><td>COM</td><td>&#36;10.25</td><td>&#36;10.25</td><td>&#36;10.25</td><td>&#36;85.00</td><td>-</td></tr>`),
			Zone: ".com",
		},
		{
			Name: "columns read by heading, in another order", Body: page(
				`<tr><th>TLD</th><th>Renewal</th><th>Registration</th><th>Transfer</th><th>Restoration</th><th>Offer Validity</th></tr>`,
				`<tr><td>.COM</td><td>&#36;10.25</td><td>&#36;5.99</td><td>&#36;10.25</td><td>&#36;85.00</td><td>-</td></tr>`),
			Zone: ".com", Want: suite.Set(".com", op(599), op(1025), op(1025)),
		},
		{Name: "a page without the table", Body: `<html><body><p>Maintenance</p></body></html>`, WantErr: "no table rows"},
		{Name: "a page cut short", Body: page(head, "")[:120], WantErr: "does not end with </html>"},
	})
}

// suite is the source, for the conformance suite and the tests above.
var suite = ingesttest.Suite{
	Name: connectreseller.Name, Registrar: connectreseller.Name, Parse: connectreseller.Declaration().Read,
	New: func(url string, client *fetch.Client, now func() time.Time) (ingest.Source, error) {
		return kit.New(connectreseller.Declaration(), kit.Config{URL: url}, client, now)
	},
	Validate: func(url string) error { return kit.Config{URL: url}.Validate() },
	Fixtures: []string{"domain-prices.html"}, Shrunk: "domain-prices_shrunk.html", Conditional: true, Golden: "*.html",
	Observed: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC), Tax: contracts.TaxUnknown,
}

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, connectreseller.Declaration().Read, "*.html") }
