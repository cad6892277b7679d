package register4less_test

import (
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/register4less"
)

var observed = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

var suite = func() ingesttest.Suite {
	s := ingesttest.Declared(register4less.Declaration())
	s.Fixtures, s.Shrunk, s.Golden = []string{"pricing.html"}, "pricing_shrunk.html", "*.html"
	s.Conditional, s.Check, s.Observed = true, ingesttest.PlainGet, observed
	return s
}()

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, register4less.Declaration().Read, "*.html") }

// row is one row of the page, between the separator cells.
func row(zone, price string) string {
	return `<tr><td width=1></td><td>` + zone + `</td><td width=1></td><td>x</td><td width=1></td><td align=right>` +
		price + `</td><td width=1></td></tr>`
}

func page(rows ...string) string {
	head := `<html><body><table><tr><th width=1></th><th>Domain Extension</th><th width=1></th><th>Description</th>` +
		`<th width=1></th><th align=right>Yearly Price</th><th width=1></th></tr>`
	for _, r := range rows {
		head += r
	}
	return head + `</table></body></html>`
}

var usd = ingesttest.USD

// TestQuirks covers the page's quirks one at a time.
func TestQuirks(t *testing.T) {
	com := row("COM", "&dollar;13.95")
	suite.Quirks(t, []ingesttest.Quirk{
		{Name: "capitals, &dollar; entity", Body: page(com), Zone: ".com", Want: suite.Set(".com", usd(1395), nil, nil)},
		{Name: "provincial zone priced as itself", Body: page(com, row("AB.CA", "&dollar;18.95")),
			Zone: ".ab.ca", Want: suite.Set(".ab.ca", usd(1895), nil, nil)},
		{Name: "thousands separator", Body: page(com, row("SECURITY", "&dollar;2,795.00")),
			Zone: ".security", Want: suite.Set(".security", usd(279500), nil, nil)},
		{Name: "a word for a price skips the row", Body: page(com, row("IO", "Call")),
			Zone: ".io", Skipped: 1, Keep: []string{"prices.v1.register4less.io"}},
		{Name: "a zone listed twice: the second is skipped", Body: page(com, row("NET", "&dollar;15.95"), row("NET", "&dollar;99.95")),
			Zone: ".net", Want: suite.Set(".net", usd(1595), nil, nil), Skipped: 1},
		{Name: "zero is no price", Body: page(com, row("DE", "&dollar;0.00")), Zone: ".de"},
		{Name: "another currency's mark", Body: page(com, row("EU", "€9.95")), Zone: ".eu", Skipped: 1,
			Keep: []string{"prices.v1.register4less.eu"}},
		{Name: "page without the table", Body: `<html><body><p>Maintenance</p></body></html>`, WantErr: "no table rows"},
		{Name: "page cut short", Body: page(com)[:120], WantErr: "does not end with </html>"},
	})
}
