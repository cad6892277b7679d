package epik_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/epik"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

// list1000 is an Epik price list with 1,000 zones in the real shape: string
// prices, the regular ones beside them, some with thousands separators, a
// promotion every 20th zone.
func list1000() []byte {
	var b strings.Builder
	b.WriteByte('{')
	for i := range 1000 {
		if i > 0 {
			b.WriteByte(',')
		}
		zone := fmt.Sprintf("z%c%c%c", 'a'+i/676%26, 'a'+i/26%26, 'a'+i%26)
		std := fmt.Sprintf("%d.%02d", 2+i%60, i%100)
		if i%97 == 0 {
			std = "2,060.23"
		}
		price := std
		if i%20 == 0 {
			price = "0.99"
		}
		renew := fmt.Sprintf("%d.99", 10+i%40)
		fmt.Fprintf(&b, `%q:{"price":%q,"renew":%q,"transfer":%q,"priceStandard":%q,"renewStandard":%q,"transferStandard":%q}`,
			zone, price, renew, std, std, renew, std)
	}
	b.WriteByte('}')
	return []byte(b.String())
}

// BenchmarkParse1000 parses the list into price sets; BenchmarkDecode1000
// is its baseline in the same run (make bench-ingest).
func BenchmarkParse1000(b *testing.B) {
	ingesttest.BenchParse(b, epik.Declaration().Read, list1000(), 1000)
}

func BenchmarkDecode1000(b *testing.B) { ingesttest.BenchDecode(b, list1000()) }

// BenchmarkRoundUnchanged1000 is one runner round on the unchanged list.
func BenchmarkRoundUnchanged1000(b *testing.B) {
	ingesttest.BenchRoundUnchanged(b, epik.Name, epik.Declaration().Read, list1000())
}
