// Package hostpoint reads Hostpoint's price fragment,
// https://www.hostpoint.ch/api/domain-price-api.php?lang=en: the HTML its
// domain page (/en/domains/domains.html) loads, one tile per zone, in
// Swiss francs.
//
// What is KNOWN, from the one public reader of this fragment,
// github.com/hellouy/domainhub adapters/hostpoint.ts (commit 1be0fa2, the
// same at eb92b0b): it is fetched with a plain GET, Accept text/html and
// a Referer of the domain page (sent here too); it is an HTML fragment,
// not a page, of tiles <div class="domains7-tile ..." data-ren="15.00"
// data-tra="0.00" data-res="..."> each holding <div class="title">.ch
// </div><div class="price">5.00</div>: the zone with its dot, the
// registration price as plain digits, and renewal, transfer and restore
// prices in data attributes; amounts are CHF, written "15.00".
//
// What is ASSUMED:
//
//   - The tiles are read with an HTML parser (kit.Table.Cells), not the
//     reader's regular expression: a tile's other markup may move, its
//     title, price and attributes not. A tile attribute neither read nor
//     ignored is drift, as is a title or price no tile has.
//   - A zero transfer is free: the reader's example is .ch at
//     data-tra="0.00" (it reads a zero as no price), and a .ch transfer
//     costs no year. A zero registration or renewal is no price.
//   - A tile without data-ren offers no renewal price here (the reader
//     took the registration price for it): not guessed.
//   - Amounts carry no mark, or "CHF"; another currency, or a Swiss
//     thousands separator ("1'250.00", which the reader's pattern could
//     not have matched), skips the row, named.
//   - A zone shown twice alike (a popular zone repeated) is read once;
//     with other prices, the first stands and the repeat is skipped.
//   - Restore is not an operation this service compares: not read.
//   - Tax: the fragment does not say: unknown.
//   - A fragment has no </html>: one cut short is told by an element it
//     leaves open (a cut between two whole tiles is not told; the
//     runner's shrink guard refuses a list that lost half its zones).
//
// # Fields
//
// .title (zone), .price (register), @data-ren (renew), @data-tra
// (transfer) (read); @data-res (restore), @class (known, not read).
package hostpoint

import (
	"net/http"

	"github.com/zoneprice/zoneprice/ingest/kit"
)

// Name is the source's name and Hostpoint's registrar id.
const Name = "hostpoint"

// Declaration is the source, as the package comment reads it.
func Declaration() *kit.Declaration {
	d := kit.Site(Name, "Hostpoint", "https://www.hostpoint.ch", "https://www.hostpoint.ch/api/domain-price-api.php?lang=en", "hostpoint price fragment", "CHF", &kit.Table{
		Format: kit.HTML, Fragment: true, Rows: "div.domains7-tile",
		Cells: []string{".title", ".price", "@data-ren", "@data-tra", "@data-res"},
		Zone:  ".title", Symbols: true, Prepare: kit.DottedZone, Repeats: true,
		Register: kit.Op{Price: ".price"}, Renew: kit.Op{Price: "@data-ren"},
		Transfer: kit.Op{Price: "@data-tra", ZeroFree: true},
		Ignore:   []string{"@data-res", "@class"},
	})
	d.Request = kit.Request{Header: http.Header{
		"Accept": {"text/html"}, "Referer": {"https://www.hostpoint.ch/en/domains/domains.html"},
	}}
	return d
}
