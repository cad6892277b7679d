package vpsor_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/vpsor"
)

// list600 is a product list of 600 zones in the real shape: each price
// table ten years long, a JSON string inside the row.
func list600() []byte {
	var b strings.Builder
	b.WriteString(`{"status":2000,"message":"success","data":[`)
	for i := range 600 {
		if i > 0 {
			b.WriteByte(',')
		}
		table := func(first int) string {
			var years []string
			for y := 1; y <= 10; y++ {
				years = append(years, fmt.Sprintf(`\"%d\":%d`, y, first*y))
			}
			return `"{` + strings.Join(years, ",") + `}"`
		}
		fmt.Fprintf(&b, `{"domainTld":".z%c%c%c","languageType":"en","languageTypeName":"英文域名","regUnitPrice":%d,"regPriceInfo":%s,`+
			`"renewUnitPrice":%d,"renewPriceInfo":%s,"description":"描述","needTmValid":false,"pos":%d}`,
			'a'+i/676%26, 'a'+i/26%26, 'a'+i%26, 4800+i, table(4900+i), 6000+i, table(5300+i), i+1)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// BenchmarkParse600 parses the list into price sets; BenchmarkDecode600
// is its baseline in the same run (make bench-ingest).
func BenchmarkParse600(b *testing.B) {
	ingesttest.BenchParse(b, vpsor.Declaration().Read, list600(), 600)
}

func BenchmarkDecode600(b *testing.B) { ingesttest.BenchDecode(b, list600()) }
