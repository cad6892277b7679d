package domeneshop_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/domeneshop"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

// page600 is a price list of 600 zones in the fixture's shape.
func page600() []byte {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="no"><head><title>Prisliste | Domeneshop</title></head><body><table class="table pricelist">` +
		`<thead><tr><th>Domene</th><th>Registrering</th><th>Fornyelse</th><th>Gjenoppretting</th></tr></thead><tbody>`)
	for i := range 600 {
		fmt.Fprintf(&b, "\n<tr><td>.z%c%c%c</td><td>%d kr</td><td>1 %03d,50 kr</td><td>1 250 kr</td></tr>",
			'a'+i/676%26, 'a'+i/26%26, 'a'+i%26, 29+i%400, i)
	}
	b.WriteString("\n</tbody></table></body></html>\n")
	return []byte(b.String())
}

// BenchmarkParse600 parses the list into price sets; BenchmarkDecode600
// is its baseline, an HTML parse of the same bytes, in the same run (make
// bench-ingest).
func BenchmarkParse600(b *testing.B) {
	ingesttest.BenchParse(b, domeneshop.Declaration().Read, page600(), 600)
}

func BenchmarkDecode600(b *testing.B) { ingesttest.BenchDecodeHTML(b, page600()) }
