package loopia_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/loopia"
)

var sek = ingesttest.In("SEK")

// TestFetch reads the price list's three tables, with VAT: 14 zones; the
// campaign row (.shop) is skipped, the menu's and the footnote's rows are
// no zones.
func TestFetch(t *testing.T) {
	got := suite.Fetched(t, "detaljerad_prislista.html", 14, 1)
	ingesttest.CheckEach(t, got, []ingesttest.Ops{
		{Name: "with VAT, not without", Zone: ".com", Register: sek(24900), Renew: sek(34900)},
		{Name: "first year below renewal", Zone: ".se", Register: sek(9900), Renew: sek(24900)},
		{Name: "footnote after a space", Zone: ".dev", Register: sek(22900), Renew: sek(22900)},
		{Name: "footnote without a space", Zone: ".app", Register: sek(24900), Renew: sek(24900)},
		{Name: "non-breaking thousands space", Zone: ".io", Register: sek(104900), Renew: sek(104900)},
		{Name: "thousands space", Zone: ".inc", Register: sek(2499000), Renew: sek(2499000)},
		{Name: "upper-case zone", Zone: ".de", Register: sek(12900), Renew: sek(14900)},
		{Name: "dash renewal", Zone: ".co.uk", Register: sek(14900)},
		{Name: "empty renewal cell", Zone: ".dk", Register: sek(12900)},
	}, ".shop")
}

// TestParseQuirks covers the page's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	page := func(rows string) string {
		return `<html><body><table><tr><th>Domän</th><th>Registrering</th><th>Förnyelse</th></tr>` +
			`<tr><td>.net</td><td><span class="with_tax">299,00</span><span class="without_tax">239,20</span></td><td><span class="with_tax">399,00</span></td></tr>` +
			rows + `</table></body></html>`
	}
	suite.Quirks(t, []ingesttest.Quirk{
		{
			Name: "a campaign price is skipped, its zone kept", Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.loopia.com"},
			Body: page(`<tr><td>.com</td><td><span class="campaign-price"><span class="with_tax">9,00</span></span></td><td><span class="with_tax">349,00</span></td></tr>`),
		},
		{
			Name: "a price with a decimal point is refused, not guessed", Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.loopia.com"},
			Body: page(`<tr><td>.com</td><td><span class="with_tax">249.00</span></td><td><span class="with_tax">349,00</span></td></tr>`),
		},
		{
			Name: "kr beside the amount", Zone: ".com", Want: suite.Set(".com", sek(24900), sek(34900), nil),
			Body: page(`<tr><td>.com</td><td><span class="with_tax">249,00 kr</span></td><td><span class="with_tax">349 kr</span></td></tr>`),
		},
		{
			Name: "a price without VAT alone is no price", Zone: ".com",
			Body: page(`<tr><td>.com</td><td><span class="without_tax">199,20</span></td><td><span class="without_tax">279,20</span></td></tr>`),
		},
		{
			Name: "a zone without its dot is no zone's row", Zone: ".com",
			Body: page(`<tr><td>com</td><td><span class="with_tax">249,00</span></td><td><span class="with_tax">349,00</span></td></tr>`),
		},
		{Name: "a page without the table", Body: `<html><body><p>Underhåll</p></body></html>`, WantErr: "no elements match"},
		{Name: "a page cut short", Body: page("")[:150], WantErr: "does not end with </html>"},
	})
}

// TestDrift reports a column the list is not known to have.
func TestDrift(t *testing.T) {
	body := `<html><body><table><tr><td>.com</td><td><span class="with_tax">249,00</span></td>` +
		`<td><span class="with_tax">349,00</span></td><td><span class="with_tax">249,00</span></td></tr></table></body></html>`
	list, err := loopia.Declaration().Read([]byte(body), suite.Observed)
	if err != nil {
		t.Fatal(err)
	}
	if got := list.Drift.Unknown; len(got) != 1 || got[0] != "td:nth-child(4)" {
		t.Errorf("unknown drift %q, want the fourth cell", got)
	}
}

// suite is the source, for the conformance suite and the tests above.
var suite = ingesttest.Declared(loopia.Declaration()).Reads("detaljerad_prislista.html", "detaljerad_prislista_shrunk.html")

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, loopia.Declaration().Read, "*.html") }
