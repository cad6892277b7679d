package domeneshop_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/domeneshop"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

var nok = ingesttest.In("NOK")

// TestFetch reads the list by position, register and renew, the
// redemption column left: 15 zones; .ai prices nothing, the menu's and
// the note's rows are no zones.
func TestFetch(t *testing.T) {
	got := suite.Fetched(t, "pricelist.html", 15, 0)
	ingesttest.CheckEach(t, got, []ingesttest.Ops{
		{Name: "redemption not read as transfer", Zone: ".com", Register: nok(15900), Renew: nok(17900)},
		{Name: "comma dash", Zone: ".org", Register: nok(16900), Renew: nok(18900)},
		{Name: "decimal comma", Zone: ".se", Register: nok(21900), Renew: nok(21900)},
		{Name: "kr before the amount", Zone: ".dk", Register: nok(12550), Renew: nok(12550)},
		{Name: "currency code", Zone: ".eu", Register: nok(9900), Renew: nok(12900)},
		{Name: "thousands dot", Zone: ".cars", Register: nok(2999000), Renew: nok(2999000)},
		{Name: "first year below renewal", Zone: ".xyz", Register: nok(2900), Renew: nok(19900)},
		{Name: "mixed-case zone", Zone: ".online", Register: nok(3900), Renew: nok(44900)},
		{Name: "second-level zone", Zone: ".priv.no", Register: nok(14900), Renew: nok(14900)},
		{Name: "dash renewal", Zone: ".nu", Register: nok(24900)},
	}, ".ai")
}

// TestParseQuirks covers the list's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	page := func(rows string) string {
		return `<html><body><table><tr><th>Toppnivå-domene</th><th>Registrering</th><th>Fornyelse</th><th>Reaktivering fra redemption</th></tr>` +
			`<tr><td>.net</td><td>179 kr</td><td>199 kr</td><td>1 250 kr</td></tr>` + rows + `</table></body></html>`
	}
	suite.Quirks(t, []ingesttest.Quirk{
		{
			Name: "a decimal point is refused, not guessed", Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.domeneshop.com"},
			Body: page(`<tr><td>.com</td><td>159.50 kr</td><td>179 kr</td><td>1 250 kr</td></tr>`),
		},
		{
			Name: "a price in another currency skips the row", Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.domeneshop.com"},
			Body: page(`<tr><td>.com</td><td>€15</td><td>179 kr</td><td>1 250 kr</td></tr>`),
		},
		{
			Name: "a badge beside the zone skips the row", Zone: ".com", Skipped: 1,
			Body: page(`<tr><td>.com <span>Populær</span></td><td>159 kr</td><td>179 kr</td><td>1 250 kr</td></tr>`),
		},
		{
			Name: "cells after the redemption are not read", Zone: ".com", Want: suite.Set(".com", nok(15900), nok(17900), nil),
			Body: page(`<tr><td>.com</td><td>159 kr</td><td>179 kr</td><td>1 250 kr</td><td>Bestill</td></tr>`),
		},
		{
			Name: "a zone without its dot is no zone's row", Zone: ".com",
			Body: page(`<tr><td>com</td><td>159 kr</td><td>179 kr</td><td>1 250 kr</td></tr>`),
		},
		{Name: "a page without the table", Body: `<html><body><p>Vedlikehold</p></body></html>`, WantErr: "no table rows"},
		{Name: "a page cut short", Body: page("")[:120], WantErr: "does not end with </html>"},
	})
}

// TestDrift reports a heading the list is not known to have: a transfer
// column would show here first.
func TestDrift(t *testing.T) {
	body := `<html><body><table><tr><th>Toppnivå-domene</th><th>Registrering</th><th>Fornyelse</th><th>Flytting</th></tr>` +
		`<tr><td>.com</td><td>159 kr</td><td>179 kr</td><td>0 kr</td></tr></table></body></html>`
	list, err := domeneshop.Declaration().Read([]byte(body), suite.Observed)
	if err != nil {
		t.Fatal(err)
	}
	if got := list.Drift.Unknown; len(got) != 1 || got[0] != "flytting" {
		t.Errorf("unknown drift %q, want the transfer heading", got)
	}
}

// suite is the source, for the conformance suite and the tests above.
var suite = ingesttest.Declared(domeneshop.Declaration()).Reads("pricelist.html", "pricelist_shrunk.html")

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, domeneshop.Declaration().Read, "*.html") }
