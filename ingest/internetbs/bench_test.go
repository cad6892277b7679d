package internetbs_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/internetbs"
)

// page600 is a price page of 600 zones in the fixture's shape.
func page600() []byte {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html><head><title>Price List</title></head><body><table class="pricelist">` +
		`<thead><tr><th>Domain</th><th>Registration</th><th>Transfer</th><th>Renewal</th></tr></thead><tbody>`)
	for i := range 600 {
		fmt.Fprintf(&b, "\n<tr><td>.z%c%c%c</td><td>$%d.29</td><td>$%d.29</td><td>$1,%03d.49</td></tr>",
			'a'+i/676%26, 'a'+i/26%26, 'a'+i%26, 2+i%50, 9+i%30, i)
	}
	b.WriteString("\n</tbody></table></body></html>\n")
	return []byte(b.String())
}

// BenchmarkParse600 parses the page into price sets; BenchmarkDecode600
// is its baseline, an HTML parse of the same bytes, in the same run (make
// bench-ingest).
func BenchmarkParse600(b *testing.B) {
	ingesttest.BenchParse(b, internetbs.Declaration().Read, page600(), 600)
}

func BenchmarkDecode600(b *testing.B) { ingesttest.BenchDecodeHTML(b, page600()) }
