package inwx_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/inwx"
)

// list2200 is an INWX all-prices response with 2,200 zones, INWX's size,
// in the real shape: prices as JSON numbers, every 7th row's as strings,
// every 97th with a thousands separator, every 10th row in euros, a
// restore price in every row.
func list2200() []byte {
	var b strings.Builder
	b.WriteString(`{"tlds":[`)
	for i := range 2200 {
		if i > 0 {
			b.WriteByte(',')
		}
		zone := fmt.Sprintf("z%c%c%c", 'a'+i/676%26, 'a'+i/26%26, 'a'+i%26)
		reg := fmt.Sprintf("%d.%02d", 2+i%60, i%100)
		switch {
		case i%97 == 0:
			reg = `"2,190.00"`
		case i%7 == 0:
			reg = `"` + reg + `"`
		}
		cur := "USD"
		if i%10 == 0 {
			cur = "EUR"
		}
		fmt.Fprintf(&b, `{"tld":%q,"createPrice":%s,"renewalPrice":%d.9,"transferPrice":%s,"restorePrice":79,"currency":%q}`,
			zone, reg, 10+i%40, reg, cur)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// BenchmarkParse2200 parses the list into price sets; BenchmarkDecode2200
// is its baseline in the same run (make bench-ingest).
func BenchmarkParse2200(b *testing.B) {
	ingesttest.BenchParse(b, inwx.Declaration().Read, list2200(), 2200)
}

func BenchmarkDecode2200(b *testing.B) { ingesttest.BenchDecode(b, list2200()) }
