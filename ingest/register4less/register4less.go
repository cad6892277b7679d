// Package register4less reads Register4Less's price page,
// https://register4less.com/info/pricing: one static HTML table, a row a
// zone, in three columns (the zone in capitals, a description, the yearly
// registration price in US dollars written "&dollar;50.95"), each between
// narrow separator cells:
//
//	<tr><td width=1></td><td>ACADEMY</td><td width=1></td>
//	    <td>Identity Digital gTLD</td><td width=1></td>
//	    <td align=right>&dollar;50.95</td><td width=1></td></tr>
//
// KNOWN, from a public client of this page, github.com/hellouy/domainhub
// adapters/register4less.ts (commit cfb2da1): the URL; the row above; the
// heading row names "Domain Extension" and "Yearly Price" (it is told
// from the rows by those words); zones are written in capitals, some as
// second-level zones ("AB.CA", "YU.CA"); the price is a registration
// price in US dollars for one year, with no renewal or transfer column;
// about 433 rows; the page is plain HTML, no script or challenge.
//
// ASSUMED: the heading row is of <th> cells, "Domain Extension",
// "Description" and "Yearly Price" (read by those names: a heading worded
// otherwise is drift, and every row then fails, loudly); the separator
// cells hold no heading. A second-level zone is priced as itself (".ab.ca",
// not folded into ".ca" as that client does: the Canadian provincial zones
// are zones of their own). Of a zone listed twice, the first row stands
// and the second is skipped (counted). A price that is not a decimal with "$" skips its row.
// Tax: the page says nothing of it (unknown).
package register4less

import (
	"github.com/zoneprice/zoneprice/ingest/kit"
)

// Name is the source's name and Register4Less's registrar id.
const Name = "register4less"

// Declaration is the source, as the package comment reads it.
func Declaration() *kit.Declaration {
	return kit.Site(Name, "Register4Less", "https://www.register4less.com", "https://register4less.com/info/pricing", "register4less price page", "USD", &kit.Table{
		Format: kit.HTML, Rows: "table tr", Zone: "domain extension", Symbols: true,
		Ignore:   []string{"description"},
		Register: kit.Op{Price: "yearly price"},
	})
}
