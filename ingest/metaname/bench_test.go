package metaname_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/metaname"
)

// page600 is a price page of 600 zones in the fixture's shape: five
// tiers, two amounts a cell.
func page600() []byte {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html><head><title>Pricing - Metaname</title></head><body><table class="pricing">` +
		`<thead><tr><th>TLD</th><th>0-15</th><th>16-127</th><th>128-511</th><th>512-1023</th><th>1024+</th></tr></thead><tbody>`)
	for i := range 600 {
		fmt.Fprintf(&b, "\n<tr><td class=\"tld\">.z%c%c%c</td>", 'a'+i/676%26, 'a'+i/26%26, 'a'+i%26)
		for tier := range 5 {
			ex := 2000 + i*7 - tier*50
			inc := ex * 115 / 100
			fmt.Fprintf(&b, `<td class="price">$%d.%02d $%d.%02d</td>`, ex/100, ex%100, inc/100, inc%100)
		}
		b.WriteString("</tr>")
	}
	b.WriteString("\n</tbody></table></body></html>\n")
	return []byte(b.String())
}

// BenchmarkParse600 parses the page into price sets; BenchmarkDecode600
// is its baseline, an HTML parse of the same bytes, in the same run (make
// bench-ingest).
func BenchmarkParse600(b *testing.B) {
	ingesttest.BenchParse(b, metaname.Declaration().Read, page600(), 600)
}

func BenchmarkDecode600(b *testing.B) { ingesttest.BenchDecodeHTML(b, page600()) }
