// Package metaname reads Metaname's price page,
// https://metaname.net/public/pricing: one HTML table, a row a zone,
// whose columns after the zone are volume tiers (how many names the
// customer holds) and whose every price cell shows two amounts in New
// Zealand dollars, the price without GST and with it ("$38.50 $44.27").
//
// What is KNOWN, from the public readers of this page in
// github.com/hellouy/domainhub: adapters/metaname.ts (commit 957b68c)
// fetches the URL with a plain GET (an "html" strategy, no browser; the
// earlier table-registrars.ts entry had it rendered, 60ec178, before that
// adapter replaced it), and says the heading is "TLD | 0-15 | 16-127 |
// 128-511 | 512-1023 | 1024+", the zone is the first cell (".nz"), the
// 0-15 tier is what a customer holding a few names pays, each cell holds
// two amounts ("$38.50 $44.27"), prices are NZD a year, there is no
// transfer price, and about 90 zones are listed. That reader takes the
// second amount for the renewal; it cannot be: 44.27 is 38.50 plus New
// Zealand's 15% GST (38.50 × 1.15, rounded), so the two are the price
// without GST and with it, as the same project's table-registrars.ts
// entry at commit 001f44c says ("不含GST 首值": the first is without
// GST; it reads that first amount of the 0-15 tier as the registration,
// with a plain fetch). metaname.net/public/price_changes states the
// prices are fixed in NZD, a price per domain per year.
//
// What is ASSUMED:
//
//   - The heading is a row of <th> cells worded as above; the 0-15 tier
//     is read by its heading, the other tiers are known and not read.
//     A renamed tier is drift (the 0-15 column missing, another unknown),
//     and with 0-15 gone no row has a price: the round fails, loudly.
//   - The amounts in a cell are separated by white space (markup that
//     runs them together, "$38.50$44.27", makes the cell one amount:
//     every row is then skipped, its reason named); the first is without
//     GST. A cell with one amount or three is skipped (kit.Table.Amounts).
//     "$" is the New Zealand dollar; another mark skips the row.
//   - The one price a year is both the registration's and the renewal's
//     (the page shows one price, and Metaname's pricing is cost plus a
//     fixed markup, with no first-year offers). A transfer is not priced.
//   - The zone is written with its leading dot; a row whose first cell
//     does not start with "." (a note, a group heading in <td> cells) is
//     left out (kit.DottedZone). A "-" or empty 0-15 cell is not offered.
//   - Tax: the first amount is read, so the prices exclude GST.
//
// # Fields
//
// The table's columns: "tld" (the zone, read), "0-15" (register and
// renew, the first of its two amounts), "16-127", "128-511", "512-1023",
// "1024+" (known, not read).
package metaname

import (
	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest/kit"
)

// Name is the source's name and Metaname's registrar id.
const Name = "metaname"

// Declaration is the source, as the package comment reads it.
func Declaration() *kit.Declaration {
	d := kit.Site(Name, "Metaname", "https://metaname.net", "https://metaname.net/public/pricing", "metaname price page", "NZD", &kit.Table{
		Format: kit.HTML, Rows: "table tr", Zone: "tld", Prepare: kit.DottedZone,
		Dollar: "NZD", Amounts: 2, Pick: 0,
		Register: kit.Op{Price: "0-15"}, Renew: kit.Op{Price: "0-15"},
		Ignore: []string{"16-127", "128-511", "512-1023", "1024+"},
	})
	d.Tax = contracts.TaxExcluded
	return d
}
