// Package sav reads Sav's price page, https://www.sav.com/domains/pricing:
// an HTML table whose rows name a zone (".com") and then its prices for
// registration, renewal and transfer, in that order, in US dollars.
//
// What is KNOWN, from the one public reader of this page,
// github.com/hellouy/domainhub adapters/table-registrars.ts (savAdapter,
// the same in every version from commit 55f6bea to 60ec178, among them
// the one adapters/index.ts imports at de6bd5c), through
// adapters/shared/table-adapter.ts (d75dca4): the page is fetched with a
// plain GET, no header of its own and no browser (unlike Hover's, which
// that file later renders); its prices are read from every table row
// that names a zone, the cells after the zone being register, renew and
// transfer; amounts are US dollars written "1,234.56".
//
// What is ASSUMED:
//
//   - The columns are read by position: the zone first, then register,
//     renew and transfer; cells after them are not read. Their headings
//     are not known: those below are a guess, and any other heading shows
//     as unknown drift on the first real page read, which says what they
//     are.
//   - The zone is written with its leading dot, alone in its cell. A row
//     whose first cell does not start with "." is another table's or a
//     heading's: left out (kit.DottedZone). A zone cell with more in it
//     (".com Sale", a badge the shared reader strips) is no zone: the row
//     is skipped, and its reason names what was written.
//   - Prices show "$" or nothing; another mark skips the row. A cell
//     with two amounts (a promotion beside its regular price, which the
//     shared reader would read as its first) skips the row, named.
//     "", "-" or "n/a" is not offered; a zero registration or renewal is
//     no price, a zero transfer a free one.
//   - Tax: the page is not known to say: unknown.
//
// # Fields
//
// The table's columns, by position: zone, register, renew, transfer
// (read); headings ASSUMED "extension", "registration", "renewal",
// "transfer" (known, not read).
package sav

import (
	"github.com/zoneprice/zoneprice/ingest/kit"
)

// Name is the source's name and Sav's registrar id.
const Name = "sav"

// Declaration is the source, as the package comment reads it.
func Declaration() *kit.Declaration {
	return kit.Site(Name, "Sav", "https://www.sav.com", "https://www.sav.com/domains/pricing", "sav price page", "USD", &kit.Table{
		Format: kit.HTML, Rows: "table tr", Zone: "0", Symbols: true, Prepare: kit.DottedZone,
		Register: kit.Op{Price: "1"}, Renew: kit.Op{Price: "2"}, Transfer: kit.Op{Price: "3", ZeroFree: true},
		Ignore: []string{"extension", "registration", "renewal", "transfer"},
	})
}
