package lws_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/lws"
)

var eur = ingesttest.In("EUR")

func promo(regular, price int64) *contracts.OpPrice { return ingesttest.Promo(regular, price, "EUR") }

// suite is the source, for the conformance suite and the tests below.
var suite = ingesttest.Declared(lws.Declaration()).Reads("pricing.html", "pricing_shrunk.html")

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

// TestFetch reads the list by its headings, Register before Transfer
// before Renewal: 16 zones, and the note's row is no zone.
func TestFetch(t *testing.T) {
	got := suite.Fetched(t, "pricing.html", 16, 0)
	ingesttest.CheckEach(t, got, []ingesttest.Ops{
		{Name: "promotion after the regular price", Zone: ".com", Register: promo(1459, 899), Renew: eur(1459), Transfer: eur(1459)},
		{Name: "promotion and free transfer", Zone: ".fr", Register: promo(999, 199), Renew: eur(999), Transfer: eur(0)},
		{Name: "no promotion", Zone: ".net", Register: eur(1699), Renew: eur(1699), Transfer: eur(1699)},
		{Name: "dash transfer", Zone: ".be", Register: eur(999), Renew: eur(999)},
		{Name: "second-level zone", Zone: ".co.uk", Register: eur(999), Renew: eur(999), Transfer: eur(999)},
		{Name: "thousands separator", Zone: ".security", Register: eur(279900), Renew: eur(279900), Transfer: eur(279900)},
	})
}

// TestParseQuirks covers the list's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	page := func(rows string) string {
		return `<html><body><table><tr><th>Extension</th><th>Category</th><th>Top</th><th>Register</th><th>Transfer</th><th>Renewal</th><th></th></tr>` +
			`<tr><td>.net</td><td>Generic</td><td></td><td>16.99€</td><td>16.99€</td><td>16.99€</td><td>Order</td></tr>` + rows + `</table></body></html>`
	}
	row := func(register, transfer, renewal string) string {
		return `<tr><td>.com</td><td>Generic</td><td>Top</td><td>` + register + `</td><td>` + transfer + `</td><td>` + renewal + `</td><td>Order</td></tr>`
	}
	suite.Quirks(t, []ingesttest.Quirk{
		{
			Name: "the reader's example cell", Body: page(row("14.59€ 1.99 €", "14.59€", "14.59€")),
			Zone: ".com", Want: suite.Set(".com", promo(1459, 199), eur(1459), eur(1459)),
		},
		{
			Name: "the mark before the price", Body: page(row("€14.59 €1.99", "€ 14.59", "14.59 €")),
			Zone: ".com", Want: suite.Set(".com", promo(1459, 199), eur(1459), eur(1459)),
		},
		{
			Name: "a second amount above the first skips the row", Body: page(row("1.99€ 14.59€", "14.59€", "14.59€")),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.lws.com"},
		},
		{
			Name: "two amounts in the renewal skip the row", Body: page(row("14.59€", "14.59€", "14.59€ 9.99€")),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.lws.com"},
		},
		{
			Name: "a decimal comma skips the row", Body: page(row("14,59 €", "14,59 €", "14,59 €")),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.lws.com"},
		},
		{
			Name: "a dollar price skips the row", Body: page(row("$14.59", "14.59€", "14.59€")),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.lws.com"},
		},
		{
			Name: "a zone without its dot is no zone's row", Body: page(`<tr><td>com</td><td>Generic</td><td></td><td>14.59€</td><td>14.59€</td><td>14.59€</td><td></td></tr>`),
			Zone: ".com",
		},
		{Name: "a page without the table", Body: `<html><body><p>Maintenance</p></body></html>`, WantErr: "no table rows"},
		{Name: "a page cut short", Body: page("")[:150], WantErr: "does not end with </html>"},
	})
}

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, lws.Declaration().Read, "*.html") }
