package gname_test

import (
	"fmt"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/gname"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

// page600 is a Gname price page of 600 zones in the real shape: the
// code/msg envelope, data.ymjg a list of rows with the zone (hz, written
// with its dot) and the register, renew and transfer prices (zcjg, xfjg,
// zrjg) as strings, JSON numbers every 9th row, a free transfer every
// 20th, a thousands separator every 97th. One saved page is the whole
// list.
func page600() []byte {
	return ingesttest.BenchDocument(600, `{"code":1,"msg":"success","data":{"ymjg":[`, ",", "\n]}}\n", func(i int) string {
		reg := fmt.Sprintf("%q", fmt.Sprintf("%d.%02d", 2+i%60, i%100))
		if i%97 == 0 {
			reg = `"2,588.00"`
		}
		renew := fmt.Sprintf(`"%d.28"`, 10+i%40)
		transfer := fmt.Sprintf(`"%d.98"`, 9+i%40)
		if i%20 == 0 {
			transfer = `"0.00"`
		}
		if i%9 == 0 {
			reg, renew, transfer = fmt.Sprintf("%d.88", 30+i%10), fmt.Sprintf("%d.88", 40+i%10), fmt.Sprintf("%d.88", 40+i%10)
		}
		return fmt.Sprintf("\n"+`{"hz":".%s","zcjg":%s,"xfjg":%s,"zrjg":%s}`, ingesttest.BenchZone(i), reg, renew, transfer)
	})
}

// BenchmarkParse600 parses the page into price sets; BenchmarkDecode600
// is its baseline in the same run (make bench-ingest).
func BenchmarkParse600(b *testing.B) {
	ingesttest.BenchParse(b, gname.Parse, page600(), 600)
}

func BenchmarkDecode600(b *testing.B) { ingesttest.BenchDecode(b, page600()) }
