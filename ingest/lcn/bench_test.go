package lcn_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/lcn"
)

// page600 is a price table of 600 zones in the fixture's shape, every
// fourth with a first-year promotion after its regular price.
func page600() []byte {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="en-GB"><head><meta charset="utf-8"><title>Domain Names | LCN.com</title></head><body>` +
		`<table class="table table-striped"><thead><tr><th>Domain extension</th><th>1 year price</th><th>2 year price</th></tr></thead><tbody>`)
	for i := range 600 {
		one := fmt.Sprintf("£%d.99", 8+i%90)
		if i%4 == 0 {
			one = fmt.Sprintf(`<s class="was">£%d.99</s> <strong class="now">£%d.99</strong>`, 8+i%90, i%8)
		}
		fmt.Fprintf(&b, "\n<tr><td class=\"ext\">.z%c%c%c</td><td class=\"price\">%s</td><td class=\"price\">£%d.98</td></tr>",
			'a'+i/676%26, 'a'+i/26%26, 'a'+i%26, one, 2*(8+i%90)+1)
	}
	b.WriteString("\n</tbody></table></body></html>\n")
	return []byte(b.String())
}

// BenchmarkParse600 parses the page into price sets; BenchmarkDecode600
// is its baseline, an HTML parse of the same bytes, in the same run (make
// bench-ingest).
func BenchmarkParse600(b *testing.B) {
	ingesttest.BenchParse(b, lcn.Declaration().Read, page600(), 600)
}

func BenchmarkDecode600(b *testing.B) { ingesttest.BenchDecodeHTML(b, page600()) }
