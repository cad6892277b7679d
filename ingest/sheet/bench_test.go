package sheet_test

import (
	"fmt"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/sheet"
)

// sheet600 is a CSV price sheet of 600 rows in the fixture's shape: a
// comment, the heading with its mixed-case columns, two registrars (one in
// euros), zones with and without their dot, a promotion with its end every
// 10th row, a free transfer every 20th, a quoted thousands separator every
// 97th, a note every 7th.
func sheet600() []byte {
	const heading = "# zoneprice price sheet: one row per registrar and zone (see ../SCHEMA.md).\n" +
		"Zone,Registrar,CURRENCY,Register,Renew,Transfer,Register_Promo,Register_Promo_Ends,renew_promo,renew_promo_ends,transfer_promo,transfer_promo_ends,Notes\n"
	return ingesttest.BenchDocument(600, heading, "", "", func(i int) string {
		zone := ingesttest.BenchZone(i)
		if i%2 == 0 {
			zone = "." + zone
		}
		registrar, currency := "acme-names", "USD"
		if i%3 == 0 {
			registrar, currency = "nordreg", "EUR"
		}
		reg := fmt.Sprintf("%d.%02d", 2+i%60, i%100)
		if i%97 == 0 {
			reg = `"2,499.00"`
		}
		renew := fmt.Sprintf("%d.98", 10+i%40)
		transfer := renew
		if i%20 == 0 {
			transfer = "0.00"
		}
		promo, ends, note := "", "", ""
		if i%10 == 0 {
			promo, ends = "1.99", "2026-12-31"
		}
		if i%7 == 0 {
			note = "first-year offer through 31 December"
		}
		return fmt.Sprintf("%s,%s,%s,%s,%s,%s,%s,%s,,,,,%s\n", zone, registrar, currency, reg, renew, transfer, promo, ends, note)
	})
}

// BenchmarkParse600 parses the sheet into price sets; BenchmarkDecode600
// is its baseline, an encoding/csv read of the same bytes, in the same
// run (make bench-ingest).
func BenchmarkParse600(b *testing.B) {
	ingesttest.BenchParse(b, sheet.Parse, sheet600(), 600)
}

func BenchmarkDecode600(b *testing.B) { ingesttest.BenchDecodeCSV(b, sheet600()) }
