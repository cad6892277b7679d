package register4less_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/register4less"
)

// page433 is the price page at its known size: 433 rows between separator
// cells, a thousands separator every 97th.
func page433() []byte {
	var rows strings.Builder
	for i := range 433 {
		zone := fmt.Sprintf("Z%c%c%c", 'A'+i/676%26, 'A'+i/26%26, 'A'+i%26)
		price := fmt.Sprintf("&dollar;%d.%02d", 9+i%60, i%100)
		if i%97 == 0 {
			price = "&dollar;2,795.00"
		}
		rows.WriteString(row(zone, price))
	}
	return []byte(strings.Replace(page(), "</table>", rows.String()+"</table>", 1))
}

// BenchmarkParse433 parses the page into price sets; BenchmarkDecode433
// is its baseline in the same run (make bench-ingest).
func BenchmarkParse433(b *testing.B) {
	ingesttest.BenchParse(b, register4less.Declaration().Read, page433(), 433)
}

func BenchmarkDecode433(b *testing.B) { ingesttest.BenchDecodeHTML(b, page433()) }
