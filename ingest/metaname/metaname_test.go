package metaname_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/metaname"
)

var nzd = ingesttest.In("NZD")

// suite is the source, for the conformance suite and the tests below.
var suite = ingesttest.Declared(metaname.Declaration()).Reads("pricing.html", "pricing_shrunk.html")

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

// TestFetch reads the 0-15 tier's price without GST as the registration
// and the renewal: 16 zones; .govt.nz is listed with no price, and the
// group headings and the note are no zones.
func TestFetch(t *testing.T) {
	got := suite.Fetched(t, "pricing.html", 16, 0)
	ingesttest.CheckEach(t, got, []ingesttest.Ops{
		{Name: "the example's cell, without GST", Zone: ".nz", Register: nzd(3850), Renew: nzd(3850)},
		{Name: "a second-level zone", Zone: ".co.nz", Register: nzd(3850), Renew: nzd(3850)},
		{Name: "an international zone", Zone: ".com", Register: nzd(2700), Renew: nzd(2700)},
		{Name: "thousands separator", Zone: ".security", Register: nzd(460000), Renew: nzd(460000)},
		{Name: "another country's second level", Zone: ".com.au", Register: nzd(3000), Renew: nzd(3000)},
	}, ".govt.nz")
}

// TestParseQuirks covers the page's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	page := func(rows string) string {
		return `<html><body><table><tr><th>TLD</th><th>0-15</th><th>16-127</th><th>128-511</th><th>512-1023</th><th>1024+</th></tr>` +
			`<tr><td>.nz</td><td>$38.50 $44.27</td><td>$37.50 $43.13</td><td>$36.50 $41.98</td><td>$35.50 $40.83</td><td>$34.50 $39.68</td></tr>` +
			rows + `</table></body></html>`
	}
	tiers := `<td>$26.00 $29.90</td><td>$25.50 $29.33</td><td>$25.00 $28.75</td><td>$24.50 $28.18</td></tr>`
	suite.Quirks(t, []ingesttest.Quirk{
		{
			Name: "the first amount, without GST, is read", Body: page(`<tr><td>.com</td><td>$27.00 $31.05</td>` + tiers),
			Zone: ".com", Want: suite.Set(".com", nzd(2700), nzd(2700), nil),
		},
		{
			Name: "only the first tier is read", Body: page(`<tr><td>.com</td><td>$27.00 $31.05</td><td>-</td><td></td><td>n/a</td><td>$1 $2 $3</td></tr>`),
			Zone: ".com", Want: suite.Set(".com", nzd(2700), nzd(2700), nil),
		},
		{
			Name: "a cell of one amount cannot be told", Body: page(`<tr><td>.com</td><td>$31.05</td>` + tiers),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.metaname.com"},
		},
		{
			Name: "amounts run together are one", Body: page(`<tr><td>.com</td><td>$27.00$31.05</td>` + tiers),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.metaname.com"},
		},
		{
			Name: "a US dollar mark skips the row", Body: page(`<tr><td>.com</td><td>US$27.00 US$31.05</td>` + tiers),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.metaname.com"},
		},
		{
			Name: "a text in the first tier skips the row", Body: page(`<tr><td>.com</td><td>Contact us</td>` + tiers),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.metaname.com"},
		},
		{
			Name: "a zone without its dot is no zone's row", Body: page(`<tr><td>com</td><td>$27.00 $31.05</td>` + tiers),
			Zone: ".com",
		},
		{
			Name: "a tier renamed fails every row", Body: `<html><body><table><tr><th>TLD</th><th>1-15</th></tr>` +
				`<tr><td>.nz</td><td>$38.50 $44.27</td></tr></table></body></html>`,
			WantErr: "no usable zone",
		},
		{Name: "a page without the table", Body: `<html><body><p>Down for maintenance</p></body></html>`, WantErr: "no table rows"},
		{Name: "a page cut short", Body: page("")[:150], WantErr: "does not end with </html>"},
	})
}

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, metaname.Declaration().Read, "*.html") }
