// Package joker reads the price list Joker.com's own web pages load: one
// GET of https://joker.com/api/v1/price/list, without a key, answering with
// every zone Joker sells:
//
//	{"result":{"pricelist":{"domains":{
//	  "com":{"registration":{"total":{"display_total":"10.41","currency":"usd"}},
//	         "renewal":{"total":{...}},"transfer":{"total":{...}}}, ...}}}}
//
// What is KNOWN comes from public client code that parses this endpoint,
// github.com/hellouy/domainhub adapters/joker.ts (commit e99b893) and its
// notes in .monkeycode/docs/registrar-candidate-pool.md: the path
// result.pricelist.domains[<tld>].{registration,renewal,transfer}.total,
// with the price in display_total, a string, and the currency beside it in
// total.currency, in lower case ("usd", "eur"); keys are zones without a
// leading dot; one request returns about 600 zones, without
// authentication. The prices above are illustrative. Re-read for issue 22:
// the client reads display_total and currency of each total and nothing
// else, so no regular price beside a sale price, no sale end date and no
// ICANN fee is known. Everything else below
// is ASSUMED, and says so: nothing Joker publishes documents this endpoint.
//
// How the format is read, decision by decision:
//
//   - The currency is the document's: total.currency of each operation,
//     upper-cased and checked against ISO 4217. An operation priced without
//     a currency, in a currency unknown to ISO 4217, or in another currency
//     than the zone's other operations, makes the zone unreadable. No
//     currency is asked for: no parameter of the endpoint is known.
//   - Tax is unknown (contracts.TaxUnknown). Joker.com is run by CSL
//     Computer Service Langenbach GmbH in Düsseldorf; German price law
//     (PAngV) makes a seller quote consumers prices with VAT, and the field
//     is called a "total", but whether display_total includes VAT, and at
//     which country's rate, is said nowhere this package could read
//     (ASSUMED unknown rather than guessed either way).
//   - display_total is read as a decimal with money.Parse: "10.41",
//     "2,060.23" with thousands separators, or a JSON number by its digits.
//     A comma with no decimal point ("1,234") is refused as ambiguous: it is
//     1234 in English and 1.234 in German, and Joker is a German registrar.
//     A decimal comma ("10,41"), a currency symbol or any other text makes
//     the zone unreadable rather than guessed at (ASSUMED: none is expected;
//     the known client reads the value with parseFloat, which would misread
//     or drop all of these, and its notes report all 598 zones read right).
//   - An operation that is absent or null, has no total, or whose
//     display_total is null, "", "n/a", "-" or "-1" is not offered (ASSUMED:
//     no live example of a missing price is known). A zero registration or
//     renewal is a missing one too (nobody gives names away); a zero
//     transfer is a free one (some registries, .uk or .de among them,
//     charge nothing to transfer). An entry with no operation offered, or
//     only a free transfer, is not a zone Joker sells: left out.
//   - Joker's list holds one price per operation; no regular price beside
//     it is known, so no promotion is published. Should Joker run a sale,
//     display_total is presumably the sale price, published as the regular
//     one (ASSUMED).
//   - Each key is a zone of its own: second-level zones such as "co.uk" or
//     CentralNic's "uk.com" are priced as themselves. Keys are normalised
//     with contracts.NormalizeZone, so IDNs may come as Unicode or as
//     A-labels; a key that is not a zone is skipped. A key ending in "/" is
//     how Handshake names are written, not a DNS root zone: left out
//     (ASSUMED: Joker is not known to list any).
//   - A body that is not one complete JSON object (truncated, an HTML error
//     page served with 200) or has no result.pricelist.domains object fails
//     the fetch: never a partial list. A top-level "error" or "message" is
//     named in the error when the list is missing (ASSUMED: Joker's error
//     shape is not known).
//
// An entry left out is withdrawn like a zone that left the list. An entry
// skipped is counted in the list's Skipped and, when its key is a zone,
// keeps that zone's last good price (Keep). A zone listed twice (a Unicode
// key and its A-label) keeps the first in key order; the other is skipped.
//
// # Fields
//
// The fields this package knows, read or deliberately ignored; any other
// is one it has never seen:
//
//   - the document: result.pricelist.domains (read); error, message (an
//     error, ASSUMED names).
//   - domains: one key per zone; an entry: registration, renewal, transfer
//     (read).
//   - an operation: total.display_total, total.currency (read).
package joker

import (
	"github.com/zoneprice/zoneprice/ingest/kit"
)

// Name is the source's name and Joker.com's registrar id.
const Name = "joker"

// DefaultURL is the price list Joker.com's pages load.
const DefaultURL = "https://joker.com/api/v1/price/list"

// Declaration is the source, as the package comment reads it: what --sources
// registers, --file imports (Read) and its tests check; each operation's
// total in its own currency, which a zone's operations share.
func Declaration() *kit.Declaration {
	d := kit.Site(Name, "Joker.com", "https://joker.com", DefaultURL, "joker price list", "", &kit.Table{
		Rows: "result.pricelist.domains.*", Errors: []string{"error", "message"}, Prepare: kit.SlashKey,
		Register:   kit.Op{Price: "registration.total.display_total", Currency: "registration.total.currency"},
		Renew:      kit.Op{Price: "renewal.total.display_total", Currency: "renewal.total.currency"},
		Transfer:   kit.Op{Price: "transfer.total.display_total", Currency: "transfer.total.currency", ZeroFree: true},
		NotOffered: kit.MinusOne, AmbiguousComma: true,
	})
	d.Shape = format()
	return d
}
