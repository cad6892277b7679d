package sav_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/sav"
)

var op = ingesttest.USD

// TestFetch reads the price table in its column order, register, renew,
// transfer: 12 zones; .gg offers nothing but a free transfer, and the
// menu's row and the note's are no zones.
func TestFetch(t *testing.T) {
	got := suite.Fetched(t, "pricing.html", 12, 0)
	ingesttest.CheckEach(t, got, []ingesttest.Ops{
		{Name: "renewal before transfer", Zone: ".org", Register: op(798), Renew: op(1198), Transfer: op(998)},
		{Name: "first-year price", Zone: ".xyz", Register: op(198), Renew: op(1248), Transfer: op(1248)},
		{Name: "N/A transfer", Zone: ".de", Register: op(698), Renew: op(698)},
		{Name: "dash transfer", Zone: ".store", Register: op(98), Renew: op(5498)},
		{Name: "free transfer", Zone: ".co.uk", Register: op(598), Renew: op(798), Transfer: op(0)},
		{Name: "thousands separator", Zone: ".cars", Register: op(234898), Renew: op(234898), Transfer: op(234898)},
		{Name: "Unicode zone", Zone: ".xn--p1ai", Register: op(798), Renew: op(798), Transfer: op(798)},
		{Name: "upper-case second-level zone", Zone: ".com.mx", Register: op(1498), Renew: op(1498), Transfer: op(1498)},
	}, ".gg")
}

// TestParseQuirks covers the page's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	page := func(rows string) string {
		return `<html><body><table><tr><th>Extension</th><th>Registration</th><th>Renewal</th><th>Transfer</th></tr>` +
			`<tr><td>.net</td><td>$11.98</td><td>$12.98</td><td>$11.98</td></tr>` + rows + `</table></body></html>`
	}
	suite.Quirks(t, []ingesttest.Quirk{
		{
			Name: "a promotion beside its regular price skips the row", Body: page(`<tr><td>.com</td><td>$5.98 <s>$9.98</s></td><td>$10.98</td><td>$9.98</td></tr>`),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.sav.com"},
		},
		{
			Name: "a badge beside the zone skips the row, naming no zone", Body: page(`<tr><td>.com <span>Sale</span></td><td>$9.98</td><td>$10.98</td><td>$9.98</td></tr>`),
			Zone: ".com", Skipped: 1,
		},
		{
			Name: "a price in another currency skips the row", Body: page(`<tr><td>.com</td><td>€9.98</td><td>$10.98</td><td>$9.98</td></tr>`),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.sav.com"},
		},
		{
			Name: "a zone without its dot is no zone's row", Body: page(`<tr><td>com</td><td>$9.98</td><td>$10.98</td><td>$9.98</td></tr>`),
			Zone: ".com",
		},
		{
			Name: "cells after the transfer are not read", Body: page(`<tr><td>.com</td><td>$9.98</td><td>$10.98</td><td>$9.98</td><td>Register</td></tr>`),
			Zone: ".com", Want: suite.Set(".com", op(998), op(1098), op(998)),
		},
		{Name: "a page without the table", Body: `<html><body><p>Maintenance</p></body></html>`, WantErr: "no table rows"},
		{Name: "a page cut short", Body: page("")[:120], WantErr: "does not end with </html>"},
	})
}

// suite is the source, for the conformance suite and the tests above.
var suite = ingesttest.Declared(sav.Declaration()).Reads("pricing.html", "pricing_shrunk.html")

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, sav.Declaration().Read, "*.html") }
