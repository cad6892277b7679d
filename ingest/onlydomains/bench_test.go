package onlydomains_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/onlydomains"
)

// page400 is the price page at about its known size: 400 rows with the
// screen readers' copy beside each price, a thousands separator every
// 97th.
func page400() []byte {
	rows := make([]string, 400)
	for i := range rows {
		zone := fmt.Sprintf(".z%c%c%c", 'a'+i/676%26, 'a'+i/26%26, 'a'+i%26)
		price := fmt.Sprintf("&#36;%d.%02d <span>%d</span>", 9+i%60, i%100, 9+i%60)
		if i%97 == 0 {
			price = "&#36;4,165.00"
		}
		rows[i] = row(zone, "1 year", price, price, price)
	}
	return []byte(page(strings.Join(rows, "\n")))
}

// BenchmarkParse400 parses the page into price sets; BenchmarkDecode400
// is its baseline in the same run (make bench-ingest).
func BenchmarkParse400(b *testing.B) {
	ingesttest.BenchParse(b, onlydomains.Declaration().Read, page400(), 400)
}

func BenchmarkDecode400(b *testing.B) { ingesttest.BenchDecodeHTML(b, page400()) }
