// Package truehost reads Truehost Kenya's domain price list,
// https://truehost.co.ke/domains/: an HTML table, a row a zone, whose
// cells after the zone are the registration, the renewal, the transfer and
// a grace period, prices in Kenyan shillings.
//
// What is KNOWN, from the one public reader of this list,
// github.com/hellouy/domainhub: adapters/table-registrars.ts (truehostAdapter
// at commit 001f44c, through adapters/shared/table-adapter.ts) fetches the
// URL with a plain GET (the entries of that file that need a browser say so
// with a "browser" option; this one has none) and reads the cells after the
// zone as register, renew, transfer and one it skips, in KES, numbers
// written "1,234.56". .monkeycode/docs/registrar-candidate-pool.md (its
// 2026-09-29 re-check, in the version the search index stores as id
// 70111431896) says the page's currency is KES, not the USD an earlier
// entry for truehost.cloud claimed, that the skipped column is "Grace
// Period", that the page lists 514 zones, and gives .com 999/1600/1259,
// .co.ke 999/1500/1000 and .ke 2999/3000/2999 (registration, renewal,
// transfer).
//
// What is ASSUMED:
//
//   - The cells are read by position: zone, registration, renewal,
//     transfer; the grace period is not read. Headings are not known: those
//     below are a guess, and any other shows as unknown drift on the first
//     real page read.
//   - A price shows "KES" or "KSh" before or after it, or nothing; another
//     mark ("$") skips the row. Thousands are separated by commas, decimals
//     by a point. "", "-" or "n/a" is not offered; a zero transfer is free;
//     a word such as "Free" skips the row, named.
//   - The zone is written with its leading dot, alone in its cell; a row
//     whose first cell does not start with "." is left out (kit.DottedZone).
//     A zone listed twice with the same prices (the page's tabs repeating a
//     popular zone) is one listing; listed again with other prices, the
//     later row is skipped, named, and the first stands (kit.Table.Repeats).
//   - Tax: the page is not known to say whether Kenya's VAT is in its
//     prices: unknown.
//
// # Fields
//
// The table's cells, by position: 0 zone, 1 registration, 2 renewal,
// 3 transfer (read), 4 grace period (not read); headings ASSUMED "domain",
// "register", "renew", "transfer", "grace period" (known, not read).
package truehost

import (
	"github.com/zoneprice/zoneprice/ingest/kit"
)

// Name is the source's name and Truehost's registrar id.
const Name = "truehost"

// Declaration is the source, as the package comment reads it.
func Declaration() *kit.Declaration {
	return kit.Site(Name, "Truehost", "https://truehost.co.ke", "https://truehost.co.ke/domains/", "truehost price list", "KES", &kit.Table{
		Format: kit.HTML, Rows: "table tr", Zone: "0", Symbols: true, Prepare: kit.DottedZone, Repeats: true,
		Register: kit.Op{Price: "1"}, Renew: kit.Op{Price: "2"}, Transfer: kit.Op{Price: "3", ZeroFree: true},
		Ignore: []string{"domain", "register", "renew", "transfer", "grace period"},
	})
}
