// Package lws reads LWS's price list, https://lws.net/domain-pricing: an
// HTML table rendered on the server, a row a zone, headed Extension,
// Category, Top, Register, Transfer, Renewal and one empty heading (an
// order button), prices in euros with the mark after them ("14.59€"), the
// Register cell showing the regular price and, where there is one, a
// first-year promotion after it ("14.59€ 1.99 €").
//
// What is KNOWN, from the one public reader of this list,
// github.com/hellouy/domainhub adapters/table-registrars.ts (lwsAdapter at
// commit 001f44c, the fix adapters/index.ts dates 2026-10-07): the URL,
// fetched with a plain GET (its comment says "SSR"; the earlier entry for
// www.lws.fr/nom-de-domaine.php had no standard table and was rendered in
// a browser, 60ec178); the columns in that order; the Register cell's two
// values, the first the regular price; prices in euros written with a
// decimal point (the English number format, its default).
//
// What is ASSUMED:
//
//   - The heading is a row of <th> cells worded as above, read by name:
//     another wording is drift, and a price column renamed leaves every
//     row unpriced, loudly. Category and Top (a badge) are not read.
//   - A price shows "€" after it or before it, or no mark; another mark
//     skips the row. A second amount in the Register cell below the first
//     is a promotion on it, with no end the page states (kit.Op.SaleAfter);
//     one above it, or a third, skips the row. A Transfer or Renewal cell
//     with two amounts skips the row, named.
//   - The zone is written with its leading dot (the reader keeps rows whose
//     first cell is "." and a letter); any other row is left out
//     (kit.DottedZone). "", "-" or "n/a" is not offered; a zero transfer
//     is free.
//   - Tax: the list is not known to say: unknown.
//
// # Fields
//
// The table's columns: "extension" (the zone), "register" (regular price,
// then an optional promotion), "transfer", "renewal" (read); "category",
// "top" and the unnamed last column (known, not read).
package lws

import (
	"github.com/zoneprice/zoneprice/ingest/kit"
)

// Name is the source's name and LWS's registrar id.
const Name = "lws"

// Declaration is the source, as the package comment reads it.
func Declaration() *kit.Declaration {
	return kit.Site(Name, "LWS", "https://www.lws.fr", "https://lws.net/domain-pricing", "lws price list", "EUR", &kit.Table{
		Format: kit.HTML, Rows: "table tr", Zone: "extension", Symbols: true, Prepare: kit.DottedZone,
		Register: kit.Op{Price: "register", SaleAfter: true}, Renew: kit.Op{Price: "renewal"},
		Transfer: kit.Op{Price: "transfer", ZeroFree: true},
		Ignore:   []string{"category", "top"},
	})
}
