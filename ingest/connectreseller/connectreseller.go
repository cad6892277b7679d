// Package connectreseller reads ConnectReseller's price page,
// https://www.connectreseller.com/domain-prices/: an HTML table of its
// entry tier's (Tier 1's) prices for registration, renewal, transfer and
// restoration, in US dollars written as HTML entities ("&#36;9.99").
//
// What is KNOWN, from two public readers of this page:
// github.com/hellouy/domainhub adapters/connectreseller.ts (commit
// 69342a6; "about 650 TLDs", checked by its author on 2026-09-29 that
// .com's listed prices are its regular ones), and an older Django
// command that reads .COM, .NET, .ORG and .INFO from it with
// BeautifulSoup: the page is fetched with a plain GET; its table's
// heading is TLD, Registration, Renewal, Transfer, Restoration, Offer
// Validity, in that order; zones are written upper case with their dot
// (".COM"); prices are US dollars whose "$" is a numeric entity, which
// an HTML parser decodes. Higher tiers' prices (for resellers of more
// volume) are on other pages (/domain-prices/tier-2/) and not read: the
// entry tier is what anyone pays without a commitment.
//
// What is ASSUMED:
//
//   - The heading row is of <th> cells. Columns are read by heading, so
//     a renamed or missing one is drift.
//   - A row whose TLD cell does not start with "." is no zone's (a
//     heading repeated, a note): left out (kit.DottedZone).
//   - Offer Validity empty, "-" or "n/a" means the prices are the
//     regular ones. A row with an offer's validity (a date) shows a
//     promotion whose regular price the page does not give: it is
//     skipped, its reason naming the offer, and its zone keeps its last
//     good prices.
//   - Restoration is not an operation this service compares: not read.
//   - "", "-" or "n/a" is not offered; a zero registration or renewal is
//     no price, a zero transfer a free one. Another currency's mark
//     skips the row.
//   - Tax: the page is not known to say: unknown.
//
// # Fields
//
// tld (zone), registration, renewal, transfer (read); offer validity
// (read: a date skips the row); restoration (known, not read).
package connectreseller

import (
	"fmt"

	"github.com/zoneprice/zoneprice/ingest/kit"
	"github.com/zoneprice/zoneprice/ingest/money"
)

// Name is the source's name and ConnectReseller's registrar id.
const Name = "connectreseller"

// Declaration is the source, as the package comment reads it.
func Declaration() *kit.Declaration {
	return kit.Site(Name, "ConnectReseller", "https://www.connectreseller.com", "https://www.connectreseller.com/domain-prices/", "connectreseller price page", "USD", &kit.Table{
		Format: kit.HTML, Rows: "table tr", Zone: "tld", Symbols: true, Prepare: prepare,
		Register: kit.Op{Price: "registration"}, Renew: kit.Op{Price: "renewal"},
		Transfer: kit.Op{Price: "transfer", ZeroFree: true},
		Ignore:   []string{"restoration", offerValidity},
	})
}

const offerValidity = "offer validity"

// prepare leaves out a row that is no zone's and skips one whose prices
// are an offer's.
func prepare(r *kit.Row) error {
	if err := kit.DottedZone(r); err != nil {
		return err
	}
	// The texts that say there is no price say there is no offer.
	if until, _ := kit.String(r.Get(offerValidity)); !money.NoPrice(until) {
		return fmt.Errorf("an offer valid until %q, whose regular prices the page does not show", until)
	}
	return nil
}
