package iwantmyname_test

import (
	"fmt"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/iwantmyname"
)

// page600 is an iwantmyname page of 600 zones in the real shape:
// totalRows and rows, an object keyed by the zone written with its dot,
// each operation an object holding its price as a string, a free transfer
// every 20th zone, a thousands separator every 97th. Its totalRows is its
// own length, so the one saved page is the whole list.
func page600() []byte {
	return ingesttest.BenchDocument(600, `{"totalRows":600,"rows":{`, ",", "\n}}\n", func(i int) string {
		reg := fmt.Sprintf("%d.%02d", 2+i%60, i%100)
		if i%97 == 0 {
			reg = "2,060.23"
		}
		renew := fmt.Sprintf("%d.50", 10+i%40)
		transfer := renew
		if i%20 == 0 {
			transfer = "0.00"
		}
		return fmt.Sprintf("\n"+`".%s":{"registration":{"price":%q},"renewal":{"price":%q},"transfer":{"price":%q}}`,
			ingesttest.BenchZone(i), reg, renew, transfer)
	})
}

// BenchmarkParse600 parses the page into price sets; BenchmarkDecode600
// is its baseline in the same run (make bench-ingest).
func BenchmarkParse600(b *testing.B) {
	ingesttest.BenchParse(b, iwantmyname.Declaration().Read, page600(), 600)
}

func BenchmarkDecode600(b *testing.B) { ingesttest.BenchDecode(b, page600()) }
