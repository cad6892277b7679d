package onlydomains_test

import (
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/onlydomains"
)

var observed = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

var suite = func() ingesttest.Suite {
	s := ingesttest.Declared(onlydomains.Declaration())
	s.Fixtures, s.Shrunk, s.Golden = []string{"pricing.html"}, "pricing_shrunk.html", "*.html"
	s.Conditional, s.Check, s.Observed = true, ingesttest.PlainGet, observed
	return s
}()

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, onlydomains.Declaration().Read, "*.html") }

// row is one row of the page: zone, min. term and the three prices' cells.
func row(zone, term, price, renewal, transfer string) string {
	return `<tr><td><a href="/domains/x">` + zone + `</a></td><td>Generic</td><td>` + term + `</td><td>` + price +
		`</td><td>` + renewal + `</td><td>` + transfer + `</td><td>-</td></tr>`
}

func page(rows ...string) string {
	s := `<html><body><table><tr><th>TLD</th><th>Country/Type</th><th>Min. Term</th><th>Price</th><th>Renewal</th>` +
		`<th>Transfer</th><th>Restore*</th></tr>`
	for _, r := range rows {
		s += r
	}
	return s + `</table></body></html>`
}

var aud = ingesttest.In("AUD")

// TestQuirks covers the page's quirks one at a time.
func TestQuirks(t *testing.T) {
	com := row(".com", "1 year", "&#36;23.49", "&#36;23.49", "&#36;23.49")
	keepNet := []string{"prices.v1.onlydomains.net"}
	suite.Quirks(t, []ingesttest.Quirk{
		{Name: "a bare $ is the Australian dollar", Body: page(com), Zone: ".com", Want: suite.Set(".com", aud(2349), aud(2349), aud(2349))},
		{Name: "the screen readers' copy as a word of its own", Body: page(com, row(".net", "1 year", "&#36;26.99 <span>26</span>", "&#36;26.99", "-")),
			Zone: ".net", Want: suite.Set(".net", aud(2699), aud(2699), nil)},
		{Name: "the copy run into the price is refused, not rounded", Body: page(com, row(".net", "1 year", "&#36;9.99<span>9</span>", "&#36;9.99", "-")),
			Zone: ".net", Skipped: 1, Keep: keepNet},
		{Name: "an amount without $ is refused", Body: page(com, row(".net", "1 year", "26.99", "&#36;26.99", "-")),
			Zone: ".net", Skipped: 1, Keep: keepNet},
		{Name: "two $ amounts in a cell", Body: page(com, row(".net", "1 year", "&#36;26.99 &#36;1.99", "&#36;26.99", "-")),
			Zone: ".net", Skipped: 1, Keep: keepNet},
		{Name: "another currency's mark", Body: page(com, row(".net", "1 year", "€9.50", "€9.50", "€9.50")),
			Zone: ".net", Skipped: 1, Keep: keepNet},
		{Name: "zero transfer is free, second-level zone", Body: page(com, row(".com.au", "1 year", "&#36;19.95", "&#36;19.95", "&#36;0.00")),
			Zone: ".com.au", Want: suite.Set(".com.au", aud(1995), aud(1995), aud(0))},
		{Name: "a minimum term over a year is left out", Body: page(com, row(".ai", "2 years", "&#36;249.00", "&#36;249.00", "&#36;249.00")),
			Zone: ".ai"},
		{Name: "an unreadable minimum term skips the row", Body: page(com, row(".net", "annual", "&#36;26.99", "&#36;26.99", "-")),
			Zone: ".net", Skipped: 1, Keep: keepNet},
		{Name: "thousands separator", Body: page(com, row(".security", "1 year", "&#36;4,165.00", "&#36;4,165.00", "-")),
			Zone: ".security", Want: suite.Set(".security", aud(416500), aud(416500), nil)},
		{Name: "page without the table", Body: `<html><body><p>Maintenance</p></body></html>`, WantErr: "no table rows"},
	})
}
