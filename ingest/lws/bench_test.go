package lws_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/lws"
)

// page600 is a price list of 600 zones in the fixture's shape, every
// third with a promotion after its regular price.
func page600() []byte {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Domain name prices - LWS</title></head><body>` +
		`<table class="table table-pricing"><thead><tr><th>Extension</th><th>Category</th><th>Top</th><th>Register</th><th>Transfer</th><th>Renewal</th><th></th></tr></thead><tbody>`)
	for i := range 600 {
		promo := ""
		if i%3 == 0 {
			promo = fmt.Sprintf(" %d.99 €", i%9)
		}
		fmt.Fprintf(&b, "\n<tr><td class=\"ext\">.z%c%c%c</td><td>Generic</td><td></td><td class=\"price\">%d.99€%s</td><td class=\"price\">%d.59€</td><td class=\"price\">%d.59€</td><td><a class=\"btn\" href=\"/domain-name\">Order</a></td></tr>",
			'a'+i/676%26, 'a'+i/26%26, 'a'+i%26, 10+i%90, promo, 10+i, 10+i%70)
	}
	b.WriteString("\n</tbody></table></body></html>\n")
	return []byte(b.String())
}

// BenchmarkParse600 parses the page into price sets; BenchmarkDecode600
// is its baseline, an HTML parse of the same bytes, in the same run (make
// bench-ingest).
func BenchmarkParse600(b *testing.B) {
	ingesttest.BenchParse(b, lws.Declaration().Read, page600(), 600)
}

func BenchmarkDecode600(b *testing.B) { ingesttest.BenchDecodeHTML(b, page600()) }
