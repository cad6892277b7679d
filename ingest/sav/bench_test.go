package sav_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/sav"
)

// page600 is a price page of 600 zones in the fixture's shape.
func page600() []byte {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html><head><title>Domain Pricing | Sav</title></head><body><table class="table pricing-table">` +
		`<thead><tr><th>Extension</th><th>Registration</th><th>Renewal</th><th>Transfer</th></tr></thead><tbody>`)
	for i := range 600 {
		fmt.Fprintf(&b, "\n<tr><td>.z%c%c%c</td><td>$%d.98</td><td>$1,%03d.98</td><td>$%d.98</td></tr>",
			'a'+i/676%26, 'a'+i/26%26, 'a'+i%26, 1+i%50, i, 9+i%30)
	}
	b.WriteString("\n</tbody></table></body></html>\n")
	return []byte(b.String())
}

// BenchmarkParse600 parses the page into price sets; BenchmarkDecode600
// is its baseline, an HTML parse of the same bytes, in the same run (make
// bench-ingest).
func BenchmarkParse600(b *testing.B) {
	ingesttest.BenchParse(b, sav.Declaration().Read, page600(), 600)
}

func BenchmarkDecode600(b *testing.B) { ingesttest.BenchDecodeHTML(b, page600()) }
