package lcn_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/lcn"
)

func gbp(pence int64) *contracts.OpPrice {
	return &contracts.OpPrice{Regular: contracts.Price{Amount: pence, Currency: "GBP"}}
}

func promo(regular, price int64) *contracts.OpPrice { return ingesttest.Promo(regular, price, "GBP") }

// suite is the source, for the conformance suite and the tests below.
var suite = ingesttest.Declared(lcn.Declaration()).Reads("pricing.html", "pricing_shrunk.html")

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

// TestFetch reads the one-year price as the registration: 14 zones; .ltd.uk
// is listed with no price, and the note is no zone.
func TestFetch(t *testing.T) {
	got := suite.Fetched(t, "pricing.html", 14, 0)
	ingesttest.CheckEach(t, got, []ingesttest.Ops{
		{Name: "the reader's example cell", Zone: ".com", Register: promo(2299, 199)},
		{Name: "no promotion", Zone: ".co.uk", Register: gbp(899)},
		{Name: "a promotion under a pound", Zone: ".online", Register: promo(3499, 99)},
		{Name: "thousands separator", Zone: ".security", Register: gbp(259999)},
	}, ".ltd.uk")
}

// TestParseQuirks covers the table's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	page := func(rows string) string {
		return `<html><body><table><tr><th>Domain extension</th><th>1 year price</th><th>2 year price</th></tr>` +
			`<tr><td>.co.uk</td><td>£8.99</td><td>£17.98</td></tr>` + rows + `</table></body></html>`
	}
	row := func(one string) string { return `<tr><td>.com</td><td>` + one + `</td><td>£45.98</td></tr>` }
	skipped := func(name, body string) ingesttest.Quirk {
		return ingesttest.Quirk{Name: name, Body: body, Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.lcn.com"}}
	}
	suite.Quirks(t, []ingesttest.Quirk{
		{Name: "the reader's example cell", Body: page(row("£22.99 £1.99")), Zone: ".com", Want: suite.Set(".com", promo(2299, 199), nil, nil)},
		{Name: "a bare number is pounds", Body: page(row("22.99")), Zone: ".com", Want: suite.Set(".com", gbp(2299), nil, nil)},
		skipped("a second amount above the first skips the row", page(row("£1.99 £22.99"))),
		skipped("three amounts skip the row", page(row("£22.99 £1.99 £0.99"))),
		skipped("a dollar price skips the row", page(row("$22.99"))),
		skipped("a word for a price skips the row", page(row("Call us"))),
		{Name: "a zone without its dot is no zone's row", Body: page(`<tr><td>com</td><td>£22.99</td><td>£45.98</td></tr>`), Zone: ".com"},
		{
			Name: "the one-year column renamed fails every row", Body: `<html><body><table><tr><th>Domain extension</th><th>Price</th></tr>` +
				`<tr><td>.com</td><td>£22.99</td></tr></table></body></html>`,
			WantErr: "no usable zone",
		},
		{Name: "a page without the table", Body: `<html><body><p>Maintenance</p></body></html>`, WantErr: "no table rows"},
		{Name: "a page cut short", Body: page("")[:150], WantErr: "does not end with </html>"},
	})
}

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, lcn.Declaration().Read, "*.html") }
