package hostpoint_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/hostpoint"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

// fragment500 is a fragment of 500 tiles in the fixture's shape.
func fragment500() []byte {
	var b strings.Builder
	b.WriteString(`<div class="domains7-tiles">`)
	for i := range 500 {
		fmt.Fprintf(&b, "\n<div class=\"domains7-tile\" data-ren=\"%d.90\" data-tra=\"%d.00\" data-res=\"80.00\">"+
			"<div class=\"title\">.z%c%c%c</div><div class=\"price\">%d.90</div></div>",
			10+i%40, i%30, 'a'+i/676%26, 'a'+i/26%26, 'a'+i%26, 1+i%50)
	}
	b.WriteString("\n</div>\n")
	return []byte(b.String())
}

// BenchmarkParse500 parses the fragment into price sets;
// BenchmarkDecode500 is its baseline, an HTML parse of the same bytes, in
// the same run (make bench-ingest).
func BenchmarkParse500(b *testing.B) {
	ingesttest.BenchParse(b, hostpoint.Declaration().Read, fragment500(), 500)
}

func BenchmarkDecode500(b *testing.B) { ingesttest.BenchDecodeHTML(b, fragment500()) }
