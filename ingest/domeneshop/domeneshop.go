// Package domeneshop reads Domeneshop's price list,
// https://domene.shop/pricelist: an HTML table whose rows name a zone
// (".no") and then, in Norwegian kroner, its registration, its renewal
// and its redemption price.
//
// What is KNOWN, from the one public reader of this list,
// github.com/hellouy/domainhub adapters/table-registrars.ts
// (domeneshopAdapter, read through adapters/shared/table-adapter.ts). At
// commit 001f44c it reads domene.shop/pricelist with a plain GET (the
// entries of that file that need a browser say so with a "browser"
// option; this one has none), keeps the rows whose first cell is "." and
// a letter, and says the heading is "Toppnivå-domene | Registrering |
// Fornyelse | Reaktivering fra redemption": the third price column is the
// redemption (reactivation) price, not a transfer, and is skipped;
// amounts are NOK in the "eu" number format (decimal comma, "1.234,56").
// The same project's .monkeycode/MEMORY.md (commit 0018074) records 17
// zones read from it. Its earlier entries (55f6bea to 60ec178) read
// domene.shop/priser as register, renew, transfer; the project's
// candidate pool later records that address as gone (404).
//
// What is ASSUMED:
//
//   - The columns are read by position: the zone, register, renew; the
//     redemption after them is not an operation this service compares and
//     is not read, nor is any cell after it. The headings are the
//     reader's (above), known and not read; any other heading shows as
//     unknown drift.
//   - The zone is written with its leading dot, alone in its cell; a row
//     whose first cell does not start with "." is left out
//     (kit.DottedZone), and a zone cell with more in it is skipped.
//   - Amounts have a decimal comma; spaces or dots between thousands;
//     "199,-" is 199; "kr" or "NOK" before or after the amount. A dot
//     where a decimal comma belongs skips the row rather than be guessed.
//   - "", "-" or "n/a" is no price; a zero registration or renewal none.
//   - Transfer is not on the list as far as its reader knows: not read.
//   - Tax: the list is not known to say: unknown.
//
// # Fields
//
// The table's columns, by position: zone, register, renew (read),
// redemption (known, not read); headings "toppnivå-domene",
// "registrering", "fornyelse", "reaktivering fra redemption" (known, not
// read).
package domeneshop

import (
	"github.com/zoneprice/zoneprice/ingest/kit"
)

// Name is the source's name and Domeneshop's registrar id.
const Name = "domeneshop"

// Declaration is the source, as the package comment reads it.
func Declaration() *kit.Declaration {
	return kit.Site(Name, "Domeneshop", "https://domene.shop", "https://domene.shop/pricelist", "domeneshop price list", "NOK", &kit.Table{
		Format: kit.HTML, Rows: "table tr", Zone: "0", Symbols: true, Unit: "kr", DecimalComma: true,
		Prepare: kit.DottedZone, Register: kit.Op{Price: "1"}, Renew: kit.Op{Price: "2"},
		Ignore: []string{"toppnivå-domene", "registrering", "fornyelse", "reaktivering fra redemption"},
	})
}
