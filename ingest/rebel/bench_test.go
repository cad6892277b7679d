package rebel_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/rebel"
)

// list471 is a Rebel list of 471 zones in the real shape: USD and CAD
// prices as JSON numbers, a promotion every 7th zone, an underscored
// second-level name every 50th.
func list471() []byte {
	var b strings.Builder
	b.WriteString(`{"prices":[`)
	for i := range 471 {
		if i > 0 {
			b.WriteByte(',')
		}
		name := fmt.Sprintf("z%c%c%c", 'a'+i/676%26, 'a'+i/26%26, 'a'+i%26)
		if i%50 == 0 {
			name = []string{"uk_co", "au_com", "nz_co", "com_it", "au_net", "au_org", "au_id", "au_asn", "uk_co", "au_com"}[i/50]
			if i/50 >= 8 {
				name = fmt.Sprintf("zz%d", i)
			}
		}
		reg, price := fmt.Sprintf("%d.99", 9+i%40), fmt.Sprintf("%d.99", 9+i%40)
		if i%7 == 0 {
			price = "1.99"
		}
		fmt.Fprintf(&b, `{"name":%q,"prices":{"USD":{"Price":%s,"Reg":%s,"Ren":%s,"Bo":69.99},"CAD":{"Price":%s,"Reg":%s,"Ren":%s,"Bo":94.99}}}`,
			name, price, reg, reg, price, reg, reg)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// BenchmarkParse471 parses the list into price sets; BenchmarkDecode471
// is its baseline in the same run (make bench-ingest).
func BenchmarkParse471(b *testing.B) {
	ingesttest.BenchParse(b, rebel.Declaration().Read, list471(), 471)
}

func BenchmarkDecode471(b *testing.B) { ingesttest.BenchDecode(b, list471()) }
