package connectreseller_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/connectreseller"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

// page650 is a price page of 650 zones in the fixture's shape.
func page650() []byte {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html><head><title>Domain Prices | ConnectReseller</title></head><body><table id="domainPrice"><thead>` +
		`<tr><th>TLD</th><th>Registration</th><th>Renewal</th><th>Transfer</th><th>Restoration</th><th>Offer Validity</th></tr></thead><tbody>`)
	for i := range 650 {
		fmt.Fprintf(&b, "\n<tr><td>.Z%c%c%c</td><td><span>&#36;%d.89</span></td><td><span>&#36;1,%03d.89</span></td>"+
			"<td><span>&#36;%d.89</span></td><td><span>&#36;85.00</span></td><td>-</td></tr>",
			'A'+i/676%26, 'A'+i/26%26, 'A'+i%26, 1+i%50, i, 9+i%30)
	}
	b.WriteString("\n</tbody></table></body></html>\n")
	return []byte(b.String())
}

// BenchmarkParse650 parses the page into price sets; BenchmarkDecode650
// is its baseline, an HTML parse of the same bytes, in the same run (make
// bench-ingest).
func BenchmarkParse650(b *testing.B) {
	ingesttest.BenchParse(b, connectreseller.Declaration().Read, page650(), 650)
}

func BenchmarkDecode650(b *testing.B) { ingesttest.BenchDecodeHTML(b, page650()) }
