package loopia_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/loopia"
)

// page600 is a price list of 600 zones in the fixture's shape.
func page600() []byte {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="sv"><head><title>Detaljerad prislista | Loopia</title></head><body><table class="price-list">` +
		`<thead><tr><th>Domän</th><th>Registrering</th><th>Förnyelse</th></tr></thead><tbody>`)
	for i := range 600 {
		fmt.Fprintf(&b, "\n<tr><td>.z%c%c%c</td><td><span class=\"with_tax\">%d,00</span><span class=\"without_tax\">%d,20</span></td>"+
			"<td><span class=\"with_tax\">1&nbsp;%03d,00</span><span class=\"without_tax\">%d,20</span></td></tr>",
			'a'+i/676%26, 'a'+i/26%26, 'a'+i%26, 99+i%300, 79+i%240, i, 800+i)
	}
	b.WriteString("\n</tbody></table></body></html>\n")
	return []byte(b.String())
}

// BenchmarkParse600 parses the list into price sets; BenchmarkDecode600
// is its baseline, an HTML parse of the same bytes, in the same run (make
// bench-ingest).
func BenchmarkParse600(b *testing.B) {
	ingesttest.BenchParse(b, loopia.Declaration().Read, page600(), 600)
}

func BenchmarkDecode600(b *testing.B) { ingesttest.BenchDecodeHTML(b, page600()) }
