package iana_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest/iana"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

// single reports whether zone is a canonical one-label zone.
func single(zone string) bool {
	return contracts.IsCanonicalZone(zone) && strings.Count(zone, ".") == 1
}

func FuzzParseTLDs(f *testing.F) {
	f.Add(ingesttest.Fixture(f, "tlds-alpha-by-domain.txt"))
	f.Add([]byte("# Version 1, Last Updated x\r\nCOM\r\n\r\nXN--P1AI\r\n"))
	f.Add([]byte("# Version 2026112200\nNOT A TLD\n-BAD\nXN--\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		list, err := iana.ParseTLDs(body)
		if err != nil {
			if list != nil {
				t.Fatalf("a list returned with error %v", err)
			}
			return
		}
		if len(list.TLDs) == 0 || list.Version == "" {
			t.Fatalf("success with %d TLDs and version %q", len(list.TLDs), list.Version)
		}
		for _, z := range list.TLDs {
			if !single(z) {
				t.Fatalf("TLD %q is not a canonical one-label zone", z)
			}
		}
	})
}

func FuzzParseRootDB(f *testing.F) {
	f.Add(ingesttest.Fixture(f, "root-db.html"))
	f.Add(ingesttest.Fixture(f, "root-db-maintenance.html"))
	f.Add([]byte(`<table><tr><td>&#x200f;.امارات&#x200e;<td>country-code<td>x</table>`))
	f.Add([]byte(`<table><tr><td><a href="/domains/root/db/com.html">.com</a><td>generic`))
	f.Fuzz(func(t *testing.T, body []byte) {
		db, err := iana.ParseRootDB(body)
		if err != nil {
			if db != nil {
				t.Fatalf("a result returned with error %v", err)
			}
			return
		}
		if len(db.Entries) == 0 {
			t.Fatal("success with no entries")
		}
		for z, e := range db.Entries {
			if z != e.Zone || !single(z) || e.Type == "" {
				t.Fatalf("entry %q: %+v", z, e)
			}
		}
	})
}

// FuzzParse fuzzes the two documents together: the input is the TLD list,
// a NUL byte, then the root zone database page (one input minimises far
// faster than two). Its seeds are small, since the parsers' own targets
// take the full fixtures.
func FuzzParse(f *testing.F) {
	const tlds = "# Version 2026112200, Last Updated Sun Nov 22 07:07:01 2026 UTC\nCOM\nUK\nXN--P1AI\nZA\n"
	const row = `<tr><td><span class="domain tld"><a href="/domains/root/db/%s.html">.%s</a></span></td><td>%s</td><td>M</td></tr>`
	db := `<table id="tld-table"><tbody>` + fmt.Sprintf(row, "com", "com", "generic") + fmt.Sprintf(row, "uk", "uk", "country-code") +
		fmt.Sprintf(row, "xn--p1ai", "рф", "country-code") + fmt.Sprintf(row, "za", "za", "country-code") +
		fmt.Sprintf(row, "xn--zckzah", "テスト", "test") + `</tbody></table>`
	f.Add([]byte(tlds + "\x00" + db))
	f.Add([]byte(tlds + "\x00<table><tr><td>.com<td>generic</table>"))
	f.Add([]byte("# Version 1\nCOM\nNET\n\x00<table><tr><td><a href=\"/domains/root/db/com.html\">.com</a><td>generic<td>V</table>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tlds, db, _ := bytes.Cut(data, []byte{0})
		list, err := iana.Parse(tlds, db, observed)
		if err != nil {
			if list != nil {
				t.Fatalf("a list returned with error %v", err)
			}
			return
		}
		if len(list.Zones) == 0 {
			t.Fatal("success with no zones")
		}
		for i := range list.Zones {
			m := &list.Zones[i]
			if err := m.Validate(); err != nil {
				t.Fatalf("zone meta %s: %v", m.Zone, err)
			}
			if m.Source != iana.Name {
				t.Fatalf("zone meta %s: source %q", m.Zone, m.Source)
			}
		}
	})
}
