package openprovider_test

import (
	"fmt"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/openprovider"
)

// list600 is an Openprovider pricing-data list of 600 zones in the real
// shape: data, a list of rows with the zone and its fees (JSON numbers,
// strings every 7th row, a thousands separator every 97th, an empty
// transfer every 20th); every 3rd row in the members' shape, the
// non-member and member prices apart, with its own currency.
func list600() []byte {
	return ingesttest.BenchDocument(600, `{"data":[`, ",", "\n]}\n", func(i int) string {
		reg := fmt.Sprintf("%d.%02d", 2+i%60, i%100)
		renew := fmt.Sprintf("%d.45", 10+i%40)
		transfer := renew
		if i%20 == 0 {
			transfer = `""`
		}
		if i%7 == 0 {
			reg, renew = fmt.Sprintf("%q", reg), fmt.Sprintf("%q", renew)
		}
		if i%97 == 0 {
			reg = `"2,060.23"`
		}
		fees := fmt.Sprintf(`"registerFee":%s,"renewalFee":%s,"transferFee":%s,"restoreFee":85.5`, reg, renew, transfer)
		if i%3 == 0 {
			return fmt.Sprintf("\n"+`{"tld":%q,"currency":"USD","nonMember":{%s},"member":{"registerFee":3.1,"renewalFee":3.1,"transferFee":3.1,"restoreFee":14.5}}`, ingesttest.BenchZone(i), fees)
		}
		return fmt.Sprintf("\n"+`{"tld":%q,%s}`, ingesttest.BenchZone(i), fees)
	})
}

// BenchmarkParse600 parses the list into price sets; BenchmarkDecode600
// is its baseline in the same run (make bench-ingest).
func BenchmarkParse600(b *testing.B) {
	ingesttest.BenchParse(b, openprovider.Parse, list600(), 600)
}

func BenchmarkDecode600(b *testing.B) { ingesttest.BenchDecode(b, list600()) }
