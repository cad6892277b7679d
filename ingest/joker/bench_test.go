package joker_test

import (
	"fmt"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/joker"
)

// list600 is a Joker price list of 600 zones in the real shape: the
// result.pricelist.domains object keyed by zone, each operation's total
// with its display_total (a string, a JSON number every 9th zone) and
// its lower-case currency, a free transfer every 20th zone, a thousands
// separator every 97th.
func list600() []byte {
	op := func(name, total string) string {
		return fmt.Sprintf(`%q:{"total":{"display_total":%s,"currency":"usd"}}`, name, total)
	}
	return ingesttest.BenchDocument(600, `{"result":{"pricelist":{"domains":{`, ",", "\n}}}}\n", func(i int) string {
		reg := fmt.Sprintf("%q", fmt.Sprintf("%d.%02d", 2+i%60, i%100))
		switch {
		case i%97 == 0:
			reg = `"2,060.23"`
		case i%9 == 0:
			reg = fmt.Sprintf("%d.39", 10+i%40)
		}
		renew := fmt.Sprintf(`"%d.57"`, 10+i%40)
		transfer := renew
		if i%20 == 0 {
			transfer = `"0.00"`
		}
		return fmt.Sprintf("\n"+`%q:{%s,%s,%s}`, ingesttest.BenchZone(i),
			op("registration", reg), op("renewal", renew), op("transfer", transfer))
	})
}

// BenchmarkParse600 parses the list into price sets; BenchmarkDecode600
// is its baseline in the same run (make bench-ingest).
func BenchmarkParse600(b *testing.B) {
	ingesttest.BenchParse(b, joker.Declaration().Read, list600(), 600)
}

func BenchmarkDecode600(b *testing.B) { ingesttest.BenchDecode(b, list600()) }
