package connectreseller_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/connectreseller"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

var op = ingesttest.USD

// TestFetch reads the price table by its headings, "$" written as an
// entity: 10 zones; .XYZ's offer is skipped (its regular price is not
// shown), .TK offers nothing, the top bar's row and the note's are no
// zones, and restoration is not read.
func TestFetch(t *testing.T) {
	got := suite.Fetched(t, "domain-prices.html", 10, 1)
	ingesttest.CheckEach(t, got, []ingesttest.Ops{
		{Name: "entity dollar", Zone: ".com", Register: op(1025), Renew: op(1025), Transfer: op(1025)},
		{Name: "empty offer validity", Zone: ".info", Register: op(1699), Renew: op(1699), Transfer: op(1699)},
		{Name: "upper-case second-level zone", Zone: ".com.ng", Register: op(489), Renew: op(489), Transfer: op(489)},
		{Name: "free transfer", Zone: ".co.uk", Register: op(549), Renew: op(549), Transfer: op(0)},
		{Name: "N/A transfer", Zone: ".de", Register: op(525), Renew: op(525)},
		{Name: "dash transfer", Zone: ".in", Register: op(799), Renew: op(799)},
		{Name: "thousands separator", Zone: ".hospital", Register: op(104900), Renew: op(104900), Transfer: op(104900)},
		{Name: "upper-case Unicode zone", Zone: ".xn--p1ai", Register: op(750), Renew: op(750), Transfer: op(750)},
	}, ".xyz", ".tk")
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
var suite = ingesttest.Declared(connectreseller.Declaration()).Reads("domain-prices.html", "domain-prices_shrunk.html")

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, connectreseller.Declaration().Read, "*.html") }
