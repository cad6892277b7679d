package porkbun_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/porkbun"
)

// list1000 is a Porkbun pricing response with 1,000 zones in the real
// shape: string prices, some with thousands separators, empty coupon
// arrays, a coupon object every 50th zone.
func list1000() []byte {
	var b strings.Builder
	b.WriteString(`{"status":"SUCCESS","pricing":{`)
	for i := range 1000 {
		if i > 0 {
			b.WriteByte(',')
		}
		zone := fmt.Sprintf("z%c%c%c", 'a'+i/676%26, 'a'+i/26%26, 'a'+i%26)
		reg := fmt.Sprintf("%d.%02d", 2+i%60, i%100)
		if i%97 == 0 {
			reg = "2,060.23"
		}
		coupons := `[]`
		if i%50 == 0 {
			coupons = `{"registration":{"code":"AWESOMENESS","max_per_user":1,"first_year_only":"yes","type":"amount","amount":1}}`
		}
		fmt.Fprintf(&b, `%q:{"registration":%q,"renewal":"%d.98","transfer":%q,"coupons":%s}`, zone, reg, 10+i%40, reg, coupons)
	}
	b.WriteString(`}}`)
	return []byte(b.String())
}

// BenchmarkParse1000 parses the list into price sets; BenchmarkDecode1000
// is its baseline in the same run (make bench-ingest).
func BenchmarkParse1000(b *testing.B) {
	ingesttest.BenchParse(b, porkbun.Declaration().Read, list1000(), 1000)
}

func BenchmarkDecode1000(b *testing.B) { ingesttest.BenchDecode(b, list1000()) }

// BenchmarkRoundUnchanged1000 is one runner round on the unchanged list.
func BenchmarkRoundUnchanged1000(b *testing.B) {
	ingesttest.BenchRoundUnchanged(b, porkbun.Name, porkbun.Declaration().Read, list1000())
}
