// Package lcn reads LCN's domain price table, https://www.lcn.com/domain-names:
// an HTML table, a row a zone, headed "Domain extension", "1 year price"
// and "2 year price", prices in pounds sterling, the one-year cell showing
// the regular price and, where there is one, a first-year promotion after
// it ("£22.99 £1.99").
//
// What is KNOWN, from the one public reader of this table,
// github.com/hellouy/domainhub adapters/table-registrars.ts (lcnAdapter at
// commit 001f44c, through adapters/shared/table-adapter.ts): the URL,
// fetched with a plain GET (the entries of that file that need a browser
// say so with a "browser" option; this one has none); the three headings;
// rows kept when their first cell is "." and a letter; the one-year cell's
// two values, the first the regular price ("原价 促销价", regular then
// promotion); the two-year column a total for two years, not read; GBP,
// numbers written "1,234.56". The page shows no renewal and no transfer:
// the same project's .monkeycode/MEMORY.md (commit 0018074) lists lcn
// among the sources without a renewal column, with 15 zones.
//
// What is ASSUMED:
//
//   - The heading is a row of <th> cells worded as above, read by name:
//     another wording is drift, and "1 year price" renamed leaves every row
//     unpriced, loudly.
//   - A price shows "£" before it, or no mark; another mark skips the row.
//     A second amount in the one-year cell below the first is a promotion
//     on the first year's registration, with no end the page states
//     (kit.Op.SaleAfter); one above it, or a third, skips the row.
//   - The zone is written with its leading dot; any other row is left out
//     (kit.DottedZone). "", "-" or "n/a" is not offered.
//   - The regular one-year price is the registration's; the renewal is not
//     read, as the page does not show it.
//   - Tax: the table is not known to say whether VAT is in its prices:
//     unknown.
//
// # Fields
//
// The table's columns: "domain extension" (the zone), "1 year price"
// (registration's regular price, then an optional promotion), read;
// "2 year price" (known, not read).
package lcn

import (
	"github.com/zoneprice/zoneprice/ingest/kit"
)

// Name is the source's name and LCN's registrar id.
const Name = "lcn"

// Declaration is the source, as the package comment reads it.
func Declaration() *kit.Declaration {
	return kit.Site(Name, "LCN", "https://www.lcn.com", "https://www.lcn.com/domain-names", "lcn price table", "GBP", &kit.Table{
		Format: kit.HTML, Rows: "table tr", Zone: "domain extension", Symbols: true, Prepare: kit.DottedZone,
		Register: kit.Op{Price: "1 year price", SaleAfter: true},
		Ignore:   []string{"2 year price"},
	})
}
