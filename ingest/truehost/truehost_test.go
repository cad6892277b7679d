package truehost_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/truehost"
)

func kes(cents int64) *contracts.OpPrice {
	return &contracts.OpPrice{Regular: contracts.Price{Amount: cents, Currency: "KES"}}
}

// suite is the source, for the conformance suite and the tests below.
var suite = ingesttest.Declared(truehost.Declaration()).Reads("pricing.html", "pricing_shrunk.html")

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

// TestFetch reads register, renew and transfer by position: 17 zones, the
// popular tab's three repeated alike in the full table, the note no zone.
func TestFetch(t *testing.T) {
	got := suite.Fetched(t, "pricing.html", 17, 0)
	ingesttest.CheckEach(t, got, []ingesttest.Ops{
		{Name: "the re-check's .com", Zone: ".com", Register: kes(99900), Renew: kes(160000), Transfer: kes(125900)},
		{Name: "the re-check's .co.ke", Zone: ".co.ke", Register: kes(99900), Renew: kes(150000), Transfer: kes(100000)},
		{Name: "the re-check's .ke", Zone: ".ke", Register: kes(299900), Renew: kes(300000), Transfer: kes(299900)},
		{Name: "empty transfer", Zone: ".online", Register: kes(49900), Renew: kes(450000)},
		{Name: "free transfer", Zone: ".co.za", Register: kes(120000), Renew: kes(120000), Transfer: kes(0)},
		{Name: "dash transfer", Zone: ".ng", Register: kes(450000), Renew: kes(450000)},
		{Name: "six digits", Zone: ".security", Register: kes(39999900), Renew: kes(39999900), Transfer: kes(39999900)},
	})
}

// TestParseQuirks covers the list's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	page := func(rows string) string {
		return `<html><body><table><tr><th>Domain</th><th>Register</th><th>Renew</th><th>Transfer</th><th>Grace Period</th></tr>` +
			`<tr><td>.ke</td><td>KES 2,999.00</td><td>KES 3,000.00</td><td>KES 2,999.00</td><td>30 days</td></tr>` + rows + `</table></body></html>`
	}
	row := func(register, renew, transfer string) string {
		return `<tr><td>.com</td><td>` + register + `</td><td>` + renew + `</td><td>` + transfer + `</td><td>30 days</td></tr>`
	}
	skipped := func(name, body string) ingesttest.Quirk {
		return ingesttest.Quirk{Name: name, Body: body, Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.truehost.com"}}
	}
	want := suite.Set(".com", kes(99900), kes(160000), kes(125900))
	suite.Quirks(t, []ingesttest.Quirk{
		{Name: "KES before", Body: page(row("KES 999.00", "KES 1,600.00", "KES 1,259.00")), Zone: ".com", Want: want},
		{Name: "KSh and KES after", Body: page(row("KSh 999", "Ksh1,600", "1,259.00 KES")), Zone: ".com", Want: want},
		{Name: "bare numbers", Body: page(row("999", "1600", "1,259")), Zone: ".com", Want: want},
		{
			Name: "a repeat with the same prices is one listing", Body: page(row("KES 999", "KES 1,600", "KES 1,259") + row("KES 999.00", "KES 1,600.00", "KES 1,259.00")),
			Zone: ".com", Want: want,
		},
		{
			Name: "a repeat with other prices is skipped and the first listing stands", Body: page(row("KES 999", "KES 1,600", "KES 1,259") + row("KES 1,099", "KES 1,600", "KES 1,259")),
			Zone: ".com", Skipped: 1, Want: want,
		},
		skipped("a dollar price skips the row", page(row("$7.99", "KES 1,600", "KES 1,259"))),
		skipped("a free transfer in words skips the row", page(row("KES 999", "KES 1,600", "Free"))),
		skipped("a decimal comma skips the row", page(row("KES 999,00", "KES 1.600,00", "KES 1.259,00"))),
		{
			Name: "a zone without its dot is no zone's row", Body: page(`<tr><td>com</td><td>KES 999</td><td>KES 1,600</td><td>KES 1,259</td><td></td></tr>`),
			Zone: ".com",
		},
		{Name: "a page without the table", Body: `<html><body><p>Maintenance</p></body></html>`, WantErr: "no table rows"},
		{Name: "a page cut short", Body: page("")[:150], WantErr: "does not end with </html>"},
	})
}

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, truehost.Declaration().Read, "*.html") }
