package internetbs_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/internetbs"
)

var op = ingesttest.USD

// TestFetch reads the price table in its column order, register,
// transfer, renew: 19 zones; .pl offers nothing, and the navigation's
// row and the note's are no zones.
func TestFetch(t *testing.T) {
	got := suite.Fetched(t, "pricelist.html", 19, 0)
	ingesttest.CheckEach(t, got, []ingesttest.Ops{
		{Name: "transfer before renewal", Zone: ".com", Register: op(929), Renew: op(1049), Transfer: op(929)},
		{Name: "first-year price", Zone: ".info", Register: op(349), Renew: op(1949), Transfer: op(1499)},
		{Name: "N/A transfer", Zone: ".bs", Register: op(6900), Renew: op(6900)},
		{Name: "free transfer", Zone: ".co.uk", Register: op(699), Renew: op(699), Transfer: op(0)},
		{Name: "thousands separator", Zone: ".security", Register: op(249900), Renew: op(249900), Transfer: op(249900)},
		{Name: "dash transfer", Zone: ".de", Register: op(599), Renew: op(599)},
		{Name: "Unicode zone", Zone: ".xn--p1ai", Register: op(999), Renew: op(999), Transfer: op(999)},
		{Name: "upper-case second-level zone", Zone: ".com.au", Register: op(1299), Renew: op(1299), Transfer: op(1299)},
	})
}

// TestParseQuirks covers the page's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	page := func(rows string) string {
		return `<html><body><table><tr><th>Domain</th><th>Registration</th><th>Transfer</th><th>Renewal</th></tr>` +
			`<tr><td>.net</td><td>$11.49</td><td>$11.49</td><td>$12.99</td></tr>` + rows + `</table></body></html>`
	}
	suite.Quirks(t, []ingesttest.Quirk{
		{
			Name: "a price in another currency skips the row", Body: page(`<tr><td>.com</td><td>€9.29</td><td>$9.29</td><td>$10.49</td></tr>`),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.internetbs.com"},
		},
		{
			Name: "a word for a price skips the row", Body: page(`<tr><td>.com</td><td>Call us</td><td>$9.29</td><td>$10.49</td></tr>`),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.internetbs.com"},
		},
		{
			Name: "a zone without its dot is no zone's row", Body: page(`<tr><td>com</td><td>$9.29</td><td>$9.29</td><td>$10.49</td></tr>`),
			Zone: ".com",
		},
		{
			Name: "cells after the renewal are not read", Body: page(`<tr><td>.com</td><td>$9.29</td><td>$9.29</td><td>$10.49</td><td>Buy</td></tr>`),
			Zone: ".com", Want: suite.Set(".com", op(929), op(1049), op(929)),
		},
		{Name: "a page without the table", Body: `<html><body><p>Maintenance</p></body></html>`, WantErr: "no table rows"},
		{Name: "a page cut short", Body: page("")[:120], WantErr: "does not end with </html>"},
	})
}

// suite is the source, for the conformance suite and the tests above.
var suite = ingesttest.Declared(internetbs.Declaration()).Reads("pricelist.html", "pricelist_shrunk.html")

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, internetbs.Declaration().Read, "*.html") }
