// Package internetbs reads Internet.bs's price list page,
// https://internetbs.net/en/domain-name-registrations/pricelist.html: an
// HTML table whose rows name a zone (".com") and then its prices for
// registration, transfer and renewal, in that order, in US dollars.
//
// What is KNOWN, from the one public reader of this page,
// github.com/hellouy/domainhub adapters/table-registrars.ts (commit
// 001f44c, internetbsAdapter, through adapters/shared/table-adapter.ts):
// the page is fetched with a plain GET and no header of its own; its
// prices are read from every table row whose first cell is a zone, the
// cells after it being register, transfer and renew (not the register,
// renew, transfer most pages use); amounts are in US dollars, written
// with a currency mark and thousands separators ("1,234.56").
//
// What is ASSUMED:
//
//   - The columns are read by position: the zone first, then register,
//     transfer and renew; cells after them are not read. Their headings
//     are not known: those below are a guess, and any other heading shows
//     as unknown drift on the first real page read, which says what they
//     are.
//   - A row whose first cell does not start with "." is another table's
//     or a heading's, not a zone's: left out (kit.DottedZone).
//   - Prices show "$" or nothing, and are US dollars; another mark skips
//     the row. "", "-" or "n/a" is not offered; a zero registration or
//     renewal is no price, a zero transfer a free one.
//   - Tax: the page is not known to say: unknown.
//
// # Fields
//
// The table's columns, by position: zone, register, transfer, renew
// (read); headings ASSUMED "domain", "registration", "transfer",
// "renewal" (known, not read).
package internetbs

import (
	"github.com/zoneprice/zoneprice/ingest/kit"
)

// Name is the source's name and Internet.bs's registrar id.
const Name = "internetbs"

// Declaration is the source, as the package comment reads it.
func Declaration() *kit.Declaration {
	return kit.Site(Name, "Internet.bs", "https://internetbs.net", "https://internetbs.net/en/domain-name-registrations/pricelist.html", "internetbs price page", "USD", &kit.Table{
		Format: kit.HTML, Rows: "table tr", Zone: "0", Symbols: true, Prepare: kit.DottedZone,
		Register: kit.Op{Price: "1"}, Transfer: kit.Op{Price: "2", ZeroFree: true}, Renew: kit.Op{Price: "3"},
		Ignore: []string{"domain", "registration", "transfer", "renewal"},
	})
}
