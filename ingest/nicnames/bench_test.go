package nicnames_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/nicnames"
)

// document1000 is a comparison document in the real shape: NicNames'
// own entry with 1,000 rows (an ICANN fee to add, string prices, some with
// thousands separators, an empty transfer every 20th row), between four
// other registrars' entries of the same size, which Parse must pass over.
func document1000() []byte {
	rows := func(bump int) string {
		var b strings.Builder
		for i := range 1000 {
			if i > 0 {
				b.WriteByte(',')
			}
			zone := fmt.Sprintf("z%c%c%c", 'a'+i/676%26, 'a'+i/26%26, 'a'+i%26)
			if i%10 == 0 {
				zone = fmt.Sprintf("%c%c", 'a'+i/26%26, 'a'+i%26) // a two-letter zone: no fee
			}
			reg := fmt.Sprintf("%d.%02d", 2+(i+bump)%60, i%100)
			if i%97 == 0 {
				reg = "2,060.23"
			}
			transfer := reg
			if i%20 == 0 {
				transfer = ""
			}
			fmt.Fprintf(&b, `[%q,%q,"%d.98",%q]`, zone, reg, 10+i%40, transfer)
		}
		return b.String()
	}
	var b strings.Builder
	b.WriteString(`{"registrars":[`)
	for i, name := range []string{"namecheap.com", "godaddy.com", "nicnames.com", "porkbun.com", "spaceship.com"} {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":%q,"currency":"USD","ICANNfee":"0.20","prices":[%s]}`, name, rows(i))
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// BenchmarkParse1000 parses the list into price sets; BenchmarkDecode1000
// is its baseline in the same run (make bench-ingest).
func BenchmarkParse1000(b *testing.B) {
	ingesttest.BenchParse(b, nicnames.Declaration().Read, document1000(), 1000)
}

func BenchmarkDecode1000(b *testing.B) { ingesttest.BenchDecode(b, document1000()) }
