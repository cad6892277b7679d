package tierra_test

import (
	"fmt"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/tierra"
)

// list600 is a TierraNet pricingData object of 600 zones in the real
// shape: each zone an array of register, renew, transfer, sale and kind,
// strings mostly, "$" on every 13th, JSON numbers on every 17th, a sale
// every 10th, an empty transfer every 20th and a thousands separator every
// 97th.
func list600() []byte {
	return ingesttest.BenchDocument(600, "{", ",\n", "}\n", func(i int) string {
		reg := fmt.Sprintf("%d.%02d", 2+i%60, i%100)
		if i%97 == 0 {
			reg = "2,299.00"
		}
		renew := fmt.Sprintf("%d.99", 10+i%40)
		transfer, sale, kind := renew, "", []string{"gTLD", "ccTLD", ""}[i%3]
		if i%20 == 0 {
			transfer = ""
		}
		if i%10 == 0 {
			sale = "1.99"
		}
		row := fmt.Sprintf(`[%q,%q,%q,%q,%q]`, reg, renew, transfer, sale, kind)
		switch {
		case i%13 == 0:
			row = fmt.Sprintf(`["$%s","$%s","$%s",%q,%q]`, reg, renew, renew, sale, kind)
		case i%17 == 0:
			row = fmt.Sprintf(`[%d.99,%s,null,"",%q]`, 8+i%30, renew, kind)
		}
		return fmt.Sprintf(`%q:%s`, ingesttest.BenchZone(i), row)
	})
}

// BenchmarkParse600 parses the list into price sets; BenchmarkDecode600
// is its baseline in the same run (make bench-ingest).
func BenchmarkParse600(b *testing.B) {
	ingesttest.BenchParse(b, tierra.Declaration().Read, list600(), 600)
}

func BenchmarkDecode600(b *testing.B) { ingesttest.BenchDecode(b, list600()) }
