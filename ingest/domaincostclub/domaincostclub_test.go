package domaincostclub_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/domaincostclub"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

var op = ingesttest.USD

// TestFetch reads the members panel's three tables, not the hidden
// retail panel: 11 zones, register and renew only; .com listed twice
// alike is read once, .tk offers nothing.
func TestFetch(t *testing.T) {
	got := suite.Fetched(t, "pricing.html", 11, 0)
	ingesttest.CheckEach(t, got, []ingesttest.Ops{
		{Name: "members' price, not the retail panel's", Zone: ".com", Register: op(1044), Renew: op(1044)},
		{Name: "first-year price", Zone: ".info", Register: op(499), Renew: op(2049)},
		{Name: "second table", Zone: ".co.uk", Register: op(625), Renew: op(625)},
		{Name: "upper-case zone", Zone: ".us", Register: op(750), Renew: op(750)},
		{Name: "zone without its dot", Zone: ".io", Register: op(3900), Renew: op(3900)},
		{Name: "thousands separator", Zone: ".cars", Register: op(234900), Renew: op(234900)},
		{Name: "Unicode zone", Zone: ".xn--p1ai", Register: op(810), Renew: op(810)},
		{Name: "n/a renewal", Zone: ".de", Register: op(515)},
	}, ".tk")
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
var suite = ingesttest.Declared(domaincostclub.Declaration()).Reads("pricing.html", "pricing_shrunk.html")

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, domaincostclub.Declaration().Read, "*.html") }
