package cloudflare_test

import (
	"fmt"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/cloudflare"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

// list600 is a cfdomainpricing list of 600 zones in the real shape: an
// object keyed by zone, prices as JSON numbers (some whole, some with one
// decimal), a renewal above the registration every 7th zone, an
// "updatedAt" stamp every 3rd, a four-digit price every 97th.
func list600() []byte {
	return ingesttest.BenchDocument(600, "{", ",\n", "}\n", func(i int) string {
		reg := fmt.Sprintf("%d.%d", 3+i%60, i%100)
		switch {
		case i%97 == 0:
			reg = "2060.23"
		case i%11 == 0:
			reg = fmt.Sprint(10 + i%40)
		case i%5 == 0:
			reg = fmt.Sprintf("%d.%d", 4+i%50, i%10)
		}
		renew := reg
		if i%7 == 0 {
			renew = fmt.Sprintf("%d.38", 18+i%20)
		}
		updated := ""
		if i%3 == 0 {
			updated = `,"updatedAt":"2026-11-19T06:00:12.418Z"`
		}
		return fmt.Sprintf(`%q:{"registration":%s,"renewal":%s%s}`, ingesttest.BenchZone(i), reg, renew, updated)
	})
}

// BenchmarkParse600 parses the list into price sets; BenchmarkDecode600
// is its baseline in the same run (make bench-ingest).
func BenchmarkParse600(b *testing.B) {
	ingesttest.BenchParse(b, cloudflare.Declaration().Read, list600(), 600)
}

func BenchmarkDecode600(b *testing.B) { ingesttest.BenchDecode(b, list600()) }
