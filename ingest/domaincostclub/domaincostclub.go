// Package domaincostclub reads DomainCostClub's price page,
// https://www.domaincostclub.com/pricing.dhtml: its members' prices for
// registration and renewal, in US dollars, in several side-by-side
// tables of the members panel. DomainCostClub sells names at cost to
// members who pay a yearly fee, which these prices leave out: they are a
// floor, not what a visitor pays without joining.
//
// What is KNOWN, from the one public reader of this page,
// github.com/hellouy/domainhub adapters/domaincostclub.ts (commit
// 69342a6; "about 460 TLDs", USD a year): the page is fetched with a
// plain GET; it holds several tables (in .col-md-4 columns) per panel,
// and only the visible members panel, <div class="row
// panel_type_members">, is read; each table's heading is Extension,
// Registration, Renewals; a row is <td>extension</td><td>$REG</td>
// <td>$REN</td>; there is no transfer price.
//
// What is ASSUMED:
//
//   - The heading row of each table is of <th> cells; columns are read
//     by heading (the first table's; the others repeat it), so a renamed
//     or missing one is drift.
//   - Extensions are written with or without their dot, in any case
//     (the reader strips a dot and lower-cases); one that is no zone
//     skips its row, named.
//   - Prices show "$" or nothing; another mark skips the row. "", "-"
//     or "n/a" is not offered; a zero price is none. A zone listed twice
//     alike is read once; with other prices, the first listing stands
//     and the repeat is skipped, named.
//   - Tax: the page is not known to say: unknown.
//
// # Fields
//
// extension (zone), registration, renewals (read).
package domaincostclub

import (
	"github.com/zoneprice/zoneprice/ingest/kit"
)

// Name is the source's name and DomainCostClub's registrar id.
const Name = "domaincostclub"

// Declaration is the source, as the package comment reads it.
func Declaration() *kit.Declaration {
	return kit.Site(Name, "DomainCostClub", "https://www.domaincostclub.com", "https://www.domaincostclub.com/pricing.dhtml", "domaincostclub members' price page", "USD", &kit.Table{
		Format: kit.HTML, Rows: "div.panel_type_members tr", Zone: "extension", Symbols: true, Repeats: true,
		Register: kit.Op{Price: "registration"}, Renew: kit.Op{Price: "renewals"},
	})
}
