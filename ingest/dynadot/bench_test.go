package dynadot_test

import (
	"fmt"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/dynadot"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

// list600 is a Dynadot current list of 600 zones in the real shape: the
// code/msg envelope, every price a "$" string, "-1" for no original price,
// a sale on registration every 10th zone and on renewal every 25th, a
// thousands separator every 97th, the columns Dynadot shows and the
// adapter does not read.
func list600() []byte {
	return ingesttest.BenchDocument(600, `{"code":200,"msg":"success","data":{"current_tlds":[`, ",", "\n]}}\n", func(i int) string {
		price := fmt.Sprintf("$%d.%02d", 2+i%60, i%100)
		if i%97 == 0 {
			price = "$2,060.23"
		}
		reg, origReg := price, "-1"
		if i%10 == 0 {
			reg, origReg = "$0.99", price
		}
		renew, origRenew := fmt.Sprintf("$%d.99", 10+i%40), "-1"
		if i%25 == 0 {
			renew, origRenew = fmt.Sprintf("$%d.99", 5+i%5), renew
		}
		return fmt.Sprintf("\n"+`{"name":%q,"reg_price":%q,"original_reg_price":%q,"renew_price":%q,"original_renew_price":%q,"tr_price":%q,"restore":"$100.92","privacy":"Yes","idn":"Yes","restrictions":"-","usage":"General Websites","grace_period":"30"}`,
			ingesttest.BenchZone(i), reg, origReg, renew, origRenew, price)
	})
}

// BenchmarkParse600 parses the list into price sets; BenchmarkDecode600
// is its baseline in the same run (make bench-ingest).
func BenchmarkParse600(b *testing.B) {
	ingesttest.BenchParse(b, dynadot.Declaration().Read, list600(), 600)
}

func BenchmarkDecode600(b *testing.B) { ingesttest.BenchDecode(b, list600()) }
