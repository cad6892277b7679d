package domaincostclub_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/domaincostclub"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

// page460 is a members panel of 460 zones in three tables, in the
// fixture's shape.
func page460() []byte {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html><head><title>Pricing - Domain Cost Club</title></head><body><div class="row panel_type_members">`)
	for i := range 460 {
		if i%154 == 0 {
			if i > 0 {
				b.WriteString("</table></div>")
			}
			b.WriteString(`<div class="col-md-4"><table class="table"><tr><th>Extension</th><th>Registration</th><th>Renewals</th></tr>`)
		}
		fmt.Fprintf(&b, "\n<tr><td>.z%c%c%c</td><td>$%d.44</td><td>$1,%03d.44</td></tr>",
			'a'+i/676%26, 'a'+i/26%26, 'a'+i%26, 1+i%50, i)
	}
	b.WriteString("\n</table></div></div></body></html>\n")
	return []byte(b.String())
}

// BenchmarkParse460 parses the page into price sets; BenchmarkDecode460
// is its baseline, an HTML parse of the same bytes, in the same run (make
// bench-ingest).
func BenchmarkParse460(b *testing.B) {
	ingesttest.BenchParse(b, domaincostclub.Declaration().Read, page460(), 460)
}

func BenchmarkDecode460(b *testing.B) { ingesttest.BenchDecodeHTML(b, page460()) }
