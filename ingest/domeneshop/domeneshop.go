// Package domeneshop reads Domeneshop's price list,
// https://domene.shop/pricelist: an HTML table whose rows name a zone
// (".no") and then, in Norwegian kroner, its registration, its renewal
// and its redemption price.
//
// What is KNOWN, from the one public reader of this list,
// github.com/hellouy/domainhub adapters/table-registrars.ts
// (domeneshopAdapter, the same from 55f6bea to 60ec178), through
// adapters/shared/table-adapter.ts: the page is fetched with a plain GET
// and no browser (unlike EuroDNS's and Loopia's, which that file renders
// from 0688fba); its prices are read from every table row naming a zone,
// the cells after the zone taken in order; amounts are NOK in the "eu"
// number format (decimal comma, "1.234,56"). That reader fetched
// domene.shop/priser, which a later status note of the same project
// records as gone (404); the list's address is domene.shop/pricelist.
// The project's research notes (shared/sources-research.md, row 22) say
// the third price column is redemption, not the transfer domainhub maps
// it to.
//
// What is ASSUMED:
//
//   - The columns are read by position: the zone, register, renew; the
//     redemption after them is not an operation this service compares and
//     is not read, nor is any cell after it. The headings are not known:
//     those below are a guess, and any other heading shows as unknown
//     drift on the first real page read.
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
// redemption (known, not read); headings ASSUMED "domene",
// "registrering", "fornyelse", "gjenoppretting" (known, not read).
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
		Ignore: []string{"domene", "registrering", "fornyelse", "gjenoppretting"},
	})
}
