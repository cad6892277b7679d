package namecom_test

import (
	"fmt"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/namecom"
)

// page600 is a name.com tldpricing page of 600 zones in the real shape:
// the paging fields, no next page (one saved page is the whole list),
// each row's price, retail and original price of every operation as JSON
// numbers, a promotion on registration every 10th zone, a free transfer
// every 20th.
func page600() []byte {
	return ingesttest.BenchDocument(600, `{"lastPage":1,"totalCount":600,"from":1,"to":600,"pricing":[`, ",", "\n]}\n", func(i int) string {
		orig := fmt.Sprintf("%d.%02d", 2+i%60, i%100)
		reg := orig
		if i%10 == 0 {
			reg = "1.99"
		}
		renew := fmt.Sprintf("%d.99", 10+i%40)
		transfer := orig
		if i%20 == 0 {
			transfer = "0"
		}
		return fmt.Sprintf("\n"+`{"tld":%q,"duration":1,"registrationPrice":%s,"registrationRetailPrice":%s,"registrationOriginalPrice":%s,"renewalPrice":%s,"renewalRetailPrice":%s,"renewalOriginalPrice":%s,"domainRestorationPrice":89.99,"domainRestorationRetailPrice":89.99,"domainRestorationOriginalPrice":89.99,"transferInPrice":%s,"transferInRetailPrice":%s,"transferInOriginalPrice":%s}`,
			ingesttest.BenchZone(i), reg, reg, orig, renew, renew, renew, transfer, transfer, transfer)
	})
}

// BenchmarkParse600 parses the page into price sets; BenchmarkDecode600
// is its baseline in the same run (make bench-ingest).
func BenchmarkParse600(b *testing.B) {
	ingesttest.BenchParse(b, namecom.Parse, page600(), 600)
}

func BenchmarkDecode600(b *testing.B) { ingesttest.BenchDecode(b, page600()) }
