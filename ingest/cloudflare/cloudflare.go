// Package cloudflare reads Cloudflare Registrar's prices from a THIRD
// PARTY: cfdomainpricing.com, a community site that mirrors the at-cost
// prices Cloudflare shows in its dashboard, as one JSON document at
// https://cfdomainpricing.com/prices.json. Cloudflare itself publishes no
// price list that can be read without an account, so this is not
// Cloudflare's own word: every price set names the third party as its
// source, "cfdomainpricing" (ListSource), while the registrar it speaks for
// is "cloudflare" (Name). The document is keyed by zone:
//
//	{"com":{"registration":10.46,"renewal":10.46},
//	 "dev":{"registration":12.20,"renewal":12.20}, ...}
//
// # What is known and what is assumed
//
// KNOWN, from public client code that reads this URL with a plain GET and
// no key (found by code search; the index did not name the
// repositories): a TypeScript price source types the reply as
// Record<string, {registration?: number; renewal?: number; updatedAt?:
// string}>, "per-year USD prices" of "every TLD Cloudflare sells",
// mirroring "the prices on Cloudflare's own search page"; a Next.js pricing
// service documents the reply as { "com": { "registration": 10.44,
// "renewal": 10.44 }, ... }, reads registration whether string or number,
// and calls the site a "third-party API that aggregates Cloudflare
// pricing"; a Cloudflare Worker converts entry.registration and
// entry.renewal (numbers) from US dollars; an Astro app counts "~407 TLDs"
// and notes the file is served with CORS "*"; a CLI takes the document's
// keys as the list of Cloudflare's TLDs. Keys are zones without a leading
// dot, in lower case. From Cloudflare itself: its API reference calls a
// multi-label extension such as co.uk an extension of its own, counts
// "400+ extensions", and says transfers are billed "except for extensions
// with zero transfer pricing (e.g. UK extensions)"
// (developers.cloudflare.com/api/resources/registrar/subresources/transfer_in/methods/create);
// its guide to transferring in says "you are required by ICANN to pay to
// extend its registration by one year" (cloudflare-docs,
// registrar/get-started/transfer-domain-to-cloudflare.md); and
// github.com/Nerahikada/cloudflare-tld-prices shows Cloudflare's own
// dashboard API answering price, renewal and icann_fee per TLD.
//
// Re-read for issue 22: one of those clients is named now,
// github.com/hellouy/domainhub adapters/cloudflare.ts (commit 854e7b2),
// which types an entry as {registration?: number, renewal?: number} and
// takes the transfer price to be the renewal price. No client reads, and
// no document shows, a regular price beside a sale price, a sale's end
// date, an ICANN fee or a currency in the mirror's entries: Cloudflare
// sells at cost and runs no sales, and the icann_fee above is in
// Cloudflare's own answer, not in the mirror's document.
//
// Everything else is ASSUMED, and each decision below says so.
//
// How the format is read, decision by decision:
//
//   - Currency: the document names none; every client reads US dollars,
//     the currency Cloudflare bills in. No currency can be asked for: this
//     is a static file and no parameter of it is known. Should an entry
//     carry a "currency" (ASSUMED name), it is read, and an unknown code
//     makes the zone unreadable.
//   - Tax is excluded (contracts.TaxExcluded): Cloudflare's billing
//     documentation ("Understanding Cloudflare sales tax",
//     support.cloudflare.com/hc/en-us/articles/360026135951) says sales tax
//     and VAT are collected on top of the price, by the billing address.
//   - The ICANN fee is included (ASSUMED, with evidence): at-cost means
//     registry price plus the fee, and the mirror's .com moved from 10.44
//     to 10.46 when the fee went from $0.18 to $0.20 while Verisign's
//     price stayed 10.26.
//   - registration is the price of one year's registration and renewal of
//     one year's renewal. A transfer in buys one year's renewal at cost, so
//     transfer is the renewal price, and absent with it; a zone under .uk
//     (uk, co.uk, org.uk, ...) transfers free, as Cloudflare's API says of
//     UK extensions, as long as the zone is sold at all. No regular price
//     is given beside either, and Cloudflare runs no sales: no promotion is
//     published.
//   - Prices are JSON numbers, read by their literal digits (never through
//     a float), or decimal strings, with thousands separators ("2,060.23").
//     A missing or null price, "", "n/a" or "-" is not offered, and so is
//     a zero (Cloudflare gives no names away). Any other unreadable price
//     ("-1", a negative number, "TBD") makes the whole zone unusable: it is
//     skipped rather than published with an operation silently missing. An
//     entry with neither price is not a zone Cloudflare sells: left out.
//   - updatedAt, when present, is when the mirror last saw the price; it is
//     not read. A price set is observed when this package fetched it.
//   - Each key is a zone of its own: second-level zones such as "co.uk"
//     are priced as themselves. Keys are normalised with
//     contracts.NormalizeZone, so IDNs may come as Unicode or as A-labels;
//     a key that is not a zone, or whose entry is not an object, is
//     skipped. Cloudflare sells only ICANN zones; no marker of Handshake or
//     other non-DNS names is known in this file (ASSUMED: it lists none).
//   - A zone listed twice (a Unicode key and its A-label) keeps the first
//     in key order; the other is skipped.
//   - A body that is not one complete JSON object (truncated, an HTML error
//     page served with 200, a JSON array) fails the fetch: never a partial
//     list. An object whose "error" or "message" (ASSUMED names) is not an
//     entry is an error envelope and fails it too, naming what it says; so
//     does an empty object.
//
// An entry left out is withdrawn like a zone that left the list. An entry
// skipped is counted in the list's Skipped (zoneprice_ingest_rows_skipped_total,
// and the runner logs it) and, when its key is a zone, keeps that zone's
// last good price (Keep). The error names the entries left out and
// skipped only when nothing usable remains.
//
// # Fields
//
// The fields this package knows, read or deliberately ignored; any other
// is one it has never seen:
//
//   - top level: one key per zone; "error" and "message" are an error
//     envelope (ASSUMED names).
//   - an entry: registration, renewal (read); currency (read where present;
//     an ASSUMED name, never seen); updatedAt (ignored).
package cloudflare

import (
	"strings"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest/kit"
)

// Name is Cloudflare's registrar id.
const Name = "cloudflare"

// ListSource is the source every price set names: cfdomainpricing.com, the
// third party whose list this is, not Cloudflare. It is the source's name,
// so that what a round publishes, withdrawals included, says where it
// came from.
const ListSource = "cfdomainpricing"

// DefaultURL is cfdomainpricing.com's price list.
const DefaultURL = "https://cfdomainpricing.com/prices.json"

// Declaration is the source, as the package comment reads it: what
// --sources registers, --file imports (Read) and its tests check.
func Declaration() *kit.Declaration {
	d := kit.Site(Name, "Cloudflare", "https://www.cloudflare.com/products/registrar/", DefaultURL, "cfdomainpricing list", "USD", &kit.Table{
		Rows: "*", Errors: []string{"error", "message"},
		Register: kit.Op{Price: "registration"}, Renew: kit.Op{Price: "renewal"}, Currency: "currency",
		Finish: transfer,
	})
	// A third party's list, which names itself as the source.
	d.Name, d.Kind, d.Tax, d.Shape = ListSource, contracts.SourceList, contracts.TaxExcluded, format()
	return d
}

// transfer is what a transfer in costs: one year's renewal, or nothing
// for the UK extensions, whose registry charges no transfer.
func transfer(_ *kit.Row, ps *contracts.PriceSet) error {
	switch {
	case ps.Zone == ".uk" || strings.HasSuffix(ps.Zone, ".uk"):
		cur := ps.Register
		if cur == nil {
			cur = ps.Renew
		}
		ps.Transfer = &contracts.OpPrice{Regular: contracts.Price{Amount: 0, Currency: cur.Regular.Currency}}
	case ps.Renew != nil:
		ps.Transfer = &contracts.OpPrice{Regular: ps.Renew.Regular}
	}
	return nil
}
