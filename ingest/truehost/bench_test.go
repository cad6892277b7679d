package truehost_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/truehost"
)

// page600 is a price list of 600 zones in the fixture's shape: KES
// prices with thousands separators and a grace period.
func page600() []byte {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="en-US"><head><meta charset="UTF-8"><title>Domain Prices in Kenya | Truehost Cloud</title></head><body>` +
		`<table class="domain-pricing"><thead><tr><th>Domain</th><th>Register</th><th>Renew</th><th>Transfer</th><th>Grace Period</th></tr></thead><tbody>`)
	for i := range 600 {
		fmt.Fprintf(&b, "\n<tr><td class=\"tld\">.z%c%c%c</td><td>KES %d,%03d.00</td><td>KES %d,%03d.00</td><td>KES %d,%03d.00</td><td>30 days</td></tr>",
			'a'+i/676%26, 'a'+i/26%26, 'a'+i%26, 1+i%9, i%1000, 1+i%7, (i*7)%1000, 1+i%5, (i*3)%1000)
	}
	b.WriteString("\n</tbody></table></body></html>\n")
	return []byte(b.String())
}

// BenchmarkParse600 parses the page into price sets; BenchmarkDecode600
// is its baseline, an HTML parse of the same bytes, in the same run (make
// bench-ingest).
func BenchmarkParse600(b *testing.B) {
	ingesttest.BenchParse(b, truehost.Declaration().Read, page600(), 600)
}

func BenchmarkDecode600(b *testing.B) { ingesttest.BenchDecodeHTML(b, page600()) }
