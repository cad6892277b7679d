// Package loopia reads Loopia's detailed price list,
// https://www.loopia.se/domannamn/detaljerad_prislista/: an HTML table
// whose rows name a zone (".se") and then its registration and renewal
// prices in Swedish kronor, each shown with and without VAT.
//
// What is KNOWN, from the public code that reads this page:
// github.com/wolfoftyreso-debug/sajda api/domain-search.ts (commit
// 0904582, parseLoopiaOffer, priceFromCell, parseSwedishPrice) and its
// test fixture (tests reading "https://www.loopia.se/domannamn/detaljerad_prislista/"
// with a plain GET): a zone's row is a <tr> whose first <td> starts with
// the zone and its dot, sometimes followed by a footnote
// (".dev <sup>…</sup>"); the next cell is the registration, holding
// <span class="with_tax"> and <span class="without_tax"> (249,00 and
// 199,20: Swedish VAT at 25 %); the cell after it is the renewal, read
// from its with_tax span; a registration cell marked "campaign-price" is
// a first-year promotional price; amounts have a decimal comma and may
// have spaces between thousands. hellouy/domainhub
// adapters/table-registrars.ts (loopiaAdapter) names the same URL from
// f8923f7 to 60ec178, in SEK with the "eu" number format, and from 0688fba
// renders the page in a browser, which sajda does not need; at 001f44c it
// names loopia.se/domain/ again, which that project's candidate pool
// records as gone (404).
//
// What is ASSUMED:
//
//   - The zone is the first cell's own text (a footnote's <sup> is not
//     read); a row whose zone does not start with "." is another table's,
//     a heading's or a note's, and is left out (kit.DottedZone).
//   - Prices are read with VAT, as a Swedish consumer pays them: the
//     registration's and the renewal's with_tax spans. The without_tax
//     ones are known and not read.
//   - A campaign row's regular registration price is not known to be on
//     the page: the row is skipped (its zone keeps its last good price)
//     rather than publish a first-year price as the regular one.
//   - Transfer is not on the page as far as its readers know: not read.
//     A fourth cell shows as unknown drift, as does any attribute of a
//     row, so the first real page read says what is there.
//   - "", "-" or "n/a" is no price; a zero registration or renewal none.
//
// # Fields
//
// Each row's cells, as kit.Table.Cells: "td:nth-child(1)" (zone, own
// text), "td:nth-child(2) .with_tax" (register), "td:nth-child(3)
// .with_tax" (renew) read; "td:nth-child(1) sup" (footnote), the
// without_tax spans and the campaign marker known, not read as prices;
// "td:nth-child(4)" neither (drift when present).
package loopia

import (
	"errors"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest/kit"
)

// Name is the source's name and Loopia's registrar id.
const Name = "loopia"

// The cells of a row.
const (
	zone, footnote      = "td:nth-child(1)", "td:nth-child(1) sup"
	register, renew     = "td:nth-child(2) .with_tax", "td:nth-child(3) .with_tax"
	registerNet, renNet = "td:nth-child(2) .without_tax", "td:nth-child(3) .without_tax"
	campaign            = "td:nth-child(2) .campaign-price"
	fourth              = "td:nth-child(4)"
)

// Declaration is the source, as the package comment reads it.
func Declaration() *kit.Declaration {
	d := kit.Site(Name, "Loopia", "https://www.loopia.se", "https://www.loopia.se/domannamn/detaljerad_prislista/", "loopia price list", "SEK", &kit.Table{
		Format: kit.HTML, Rows: "table tr:has(td)", DecimalComma: true, Unit: "kr",
		Cells:   []string{zone, register, renew, footnote, registerNet, renNet, campaign, fourth},
		OwnText: []string{zone}, Zone: zone, Prepare: prepare,
		Register: kit.Op{Price: register}, Renew: kit.Op{Price: renew},
		// The campaign marker is read by prepare, not as a price.
		Ignore: []string{footnote, registerNet, renNet, campaign},
	})
	d.Tax = contracts.TaxIncluded
	return d
}

// errCampaign is a campaign row: a first-year price without its regular
// one.
var errCampaign = errors.New("a campaign's first-year price, its regular price not on the page")

// prepare leaves out rows that are no zone's and skips a campaign's.
func prepare(r *kit.Row) error {
	if err := kit.DottedZone(r); err != nil {
		return err
	}
	if s, _ := kit.String(r.Get(campaign)); s != "" {
		return errCampaign
	}
	return nil
}
