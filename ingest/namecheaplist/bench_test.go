package namecheaplist_test

import (
	"fmt"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/namecheaplist"
)

// list600 is Namecheap's tlds.json with 600 zones in the real shape: a
// list of rows, each a Name and its one-year Pricing with JSON-number
// prices (strings every 9th row), a first-year Price below its Regular
// every 5th row with its Hint, a null Regular every 11th.
func list600() []byte {
	return ingesttest.BenchDocument(600, "[", ",\n", "]\n", func(i int) string {
		regular := fmt.Sprintf("%d.%02d", 2+i%60, i%100)
		price, hint := regular, `""`
		if i%5 == 0 {
			price, hint = "1.98", `"88% off 1st year"`
		}
		renew := fmt.Sprintf("%d.98", 10+i%40)
		if i%11 == 0 {
			regular, hint = "null", "null"
		}
		if i%9 == 0 && regular != "null" {
			price, regular, renew = fmt.Sprintf("%q", price), fmt.Sprintf("%q", regular), fmt.Sprintf("%q", renew)
		}
		return fmt.Sprintf(`{"Name":%q,"Pricing":{"Price":%s,"Regular":%s,"Renewal":%s,"Hint":%s,"Duration":1,"DurationType":"YEAR"}}`,
			ingesttest.BenchZone(i), price, regular, renew, hint)
	})
}

// BenchmarkParse600 parses the list into price sets; BenchmarkDecode600
// is its baseline in the same run (make bench-ingest).
func BenchmarkParse600(b *testing.B) {
	ingesttest.BenchParse(b, namecheaplist.Declaration().Read, list600(), 600)
}

func BenchmarkDecode600(b *testing.B) { ingesttest.BenchDecode(b, list600()) }
