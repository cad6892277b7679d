package forpsi_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest/forpsi"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

func czk(hellers int64) *contracts.OpPrice {
	return &contracts.OpPrice{Regular: contracts.Price{Amount: hellers, Currency: "CZK"}}
}

func promo(regular, price int64) *contracts.OpPrice { return ingesttest.Promo(regular, price, "CZK") }

// suite is the source, for the conformance suite and the tests below.
var suite = ingesttest.Declared(forpsi.Declaration()).Reads("pricing.html", "pricing_shrunk.html")

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

// TestFetch reads each price cell's amount without VAT: 16 zones; .ai's
// term is two years, and the note's and the hosting table's rows are no
// zones.
func TestFetch(t *testing.T) {
	got := suite.Fetched(t, "pricing.html", 16, 0)
	ingesttest.CheckEach(t, got, []ingesttest.Ops{
		{Name: "without VAT", Zone: ".cz", Register: czk(19900), Renew: czk(19900)},
		{Name: "the reader's figures", Zone: ".org", Register: czk(36000), Renew: czk(38500)},
		{Name: "akce below the registration", Zone: ".online", Register: promo(89000, 4900), Renew: czk(89000)},
		{Name: "spaced thousands", Zone: ".io", Register: czk(119000), Renew: czk(119000)},
		{Name: "five digits", Zone: ".security", Register: czk(6999000), Renew: czk(6999000)},
		{Name: "second-level zone", Zone: ".co.uk", Register: czk(28900), Renew: czk(28900)},
		{Name: "dash renewal", Zone: ".pl", Register: czk(29900)},
	}, ".ai")
}

// TestParseQuirks covers the list's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	page := func(rows string) string {
		return `<html><body><table><tr><th>Doména</th><th>Období</th><th>Akce</th><th>Registrace</th><th>Prodloužení</th></tr>` +
			`<tr><td>.cz</td><td>1 rok</td><td></td><td>199,00 Kč 240,79 vč. DPH</td><td>199,00 Kč 240,79 vč. DPH</td></tr>` +
			rows + `</table></body></html>`
	}
	row := func(term, akce, register, renew string) string {
		return `<tr><td>.com</td><td>` + term + `</td><td>` + akce + `</td><td>` + register + `</td><td>` + renew + `</td></tr>`
	}
	price := "339,00 Kč 410,19 vč. DPH"
	skipped := func(name, body string) ingesttest.Quirk {
		return ingesttest.Quirk{Name: name, Body: body, Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.forpsi.com"}}
	}
	suite.Quirks(t, []ingesttest.Quirk{
		{
			Name: "the reader's example cell", Body: page(row("1 rok", "", "700,00 Kč 847,00 vč. DPH", price)),
			Zone: ".com", Want: suite.Set(".com", czk(70000), czk(33900), nil),
		},
		{
			Name: "a term picker starting at one year", Body: page(row("1 rok 2 roky 5 let", "", price, price)),
			Zone: ".com", Want: suite.Set(".com", czk(33900), czk(33900), nil),
		},
		{
			Name: "an akce above the registration is no promotion", Body: page(row("1 rok", "399,00 Kč 482,79 vč. DPH", price, price)),
			Zone: ".com", Want: suite.Set(".com", czk(33900), czk(33900), nil),
		},
		{
			Name: "an unreadable akce leaves the regular price", Body: page(row("1 rok", "Akce!", price, price)),
			Zone: ".com", Want: suite.Set(".com", czk(33900), czk(33900), nil),
		},
		{Name: "a term of five years is left out", Body: page(row("5 let", "", price, price)), Zone: ".com"},
		skipped("a term that is no number of years skips the row", page(row("měsíc", "", price, price))),
		skipped("a price with VAT only skips the row", page(row("1 rok", "", "410,19 vč. DPH", price))),
		skipped("a decimal point skips the row", page(row("1 rok", "", "339.00 Kč 410.19 vč. DPH", price))),
		skipped("a price in euros skips the row", page(row("1 rok", "", "13,90 € 16,82 vč. DPH", price))),
		skipped("a renewal without its Kč skips the row", page(row("1 rok", "", price, "339,00 410,19"))),
		{
			Name: "the zone's category after it is not read", Zone: ".com", Want: suite.Set(".com", czk(33900), czk(33900), nil),
			Body: page(`<tr><td>.com <span class="category">generické</span></td><td>1 rok</td><td></td><td>` + price + `</td><td>` + price + `</td></tr>`),
		},
		{
			Name: "a zone without its dot is no zone's row", Body: page(`<tr><td>com</td><td>1 rok</td><td></td><td>` + price + `</td><td>` + price + `</td></tr>`),
			Zone: ".com",
		},
		{Name: "a page without the table", Body: `<html><body><p>Probíhá údržba</p></body></html>`, WantErr: "no table rows"},
		{Name: "a page cut short", Body: page("")[:150], WantErr: "does not end with </html>"},
	})
}

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, forpsi.Declaration().Read, "*.html") }
