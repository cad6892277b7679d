package gandi_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/zoneprice/zoneprice/ingest/gandi"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

// pages600 are 600 zones in the fixture's shape, 50 a page, and the empty
// page that ends them.
func pages600() []string {
	var pages []string
	for p := range 13 {
		var b strings.Builder
		b.WriteString(`<!DOCTYPE html><html lang="en"><head><title>Domain name extensions and prices - Gandi.net</title></head><body><main>` +
			`<table class="tld-table"><thead><tr><th>Extension</th><th>Registration</th><th>Renewal</th><th>Transfer</th></tr></thead><tbody>`)
		for i := p * 50; i < min(600, (p+1)*50); i++ {
			fmt.Fprintf(&b, "\n<tr><td class=\"tld\">.z%c%c%c</td><td>€%d.50</td><td>€1,%03d.00</td><td>€%d.50</td></tr>",
				'a'+i/676%26, 'a'+i/26%26, 'a'+i%26, 1+i%50, i, 9+i%30)
		}
		b.WriteString("\n</tbody></table></main></body></html>\n")
		pages = append(pages, b.String())
	}
	return pages
}

// BenchmarkParse600 parses the saved pages into price sets;
// BenchmarkDecode600 is its baseline in the same run (make bench-ingest): a
// plain decode of the same bytes, the saved JSON array of pages by
// encoding/json and each page by an x/net/html parse.
func BenchmarkParse600(b *testing.B) {
	saved, err := json.Marshal(pages600())
	if err != nil {
		b.Fatal(err)
	}
	ingesttest.BenchParse(b, gandi.Declaration().Read, saved, 600)
}

func BenchmarkDecode600(b *testing.B) {
	saved, err := json.Marshal(pages600())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		var pages []string
		if err := json.Unmarshal(saved, &pages); err != nil {
			b.Fatal(err)
		}
		for _, p := range pages {
			if _, err := html.Parse(strings.NewReader(p)); err != nil {
				b.Fatal(err)
			}
		}
	}
}
