package forpsi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/forpsi"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

// page600 is a price list of 600 zones in the fixture's shape: every cell
// without VAT and with it, every tenth row with an akce.
func page600() []byte {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="cs"><head><meta charset="utf-8"><title>Ceník domén | FORPSI</title></head><body>` +
		`<table class="table pricelist"><thead><tr><th>Doména</th><th>Období</th><th>Akce</th><th>Registrace</th><th>Prodloužení</th></tr></thead><tbody>`)
	cell := func(class string, ex int) string {
		inc := ex * 121 / 100
		return fmt.Sprintf("<td class=\"%s\"><span>%d,00&nbsp;Kč</span>\n<span>%d,%02d vč. DPH</span></td>", class, ex, inc, ex*121%100)
	}
	for i := range 600 {
		akce := `<td class="akce"></td>`
		if i%10 == 0 {
			akce = cell("akce", 49+i%50)
		}
		fmt.Fprintf(&b, "\n<tr><td class=\"tld\">.z%c%c%c</td><td class=\"period\">1 rok</td>%s%s%s</tr>",
			'a'+i/676%26, 'a'+i/26%26, 'a'+i%26, akce, cell("price", 199+i), cell("price", 249+i))
	}
	b.WriteString("\n</tbody></table></body></html>\n")
	return []byte(b.String())
}

// BenchmarkParse600 parses the page into price sets; BenchmarkDecode600
// is its baseline, an HTML parse of the same bytes, in the same run (make
// bench-ingest).
func BenchmarkParse600(b *testing.B) {
	ingesttest.BenchParse(b, forpsi.Declaration().Read, page600(), 600)
}

func BenchmarkDecode600(b *testing.B) { ingesttest.BenchDecodeHTML(b, page600()) }
