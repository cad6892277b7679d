// Package epik reads the price list Epik's own registrar pages load: one
// GET of https://registrar.epik.com/api/load-200-plus-prices, without a
// key, answering with every zone Epik sells as one JSON object keyed by
// zone:
//
//	{"com":{"price":"9.99","renew":"10.99","transfer":"9.99",
//	        "priceStandard":"10.99","renewStandard":"10.99","transferStandard":"10.99"}, ...}
//
// What is KNOWN comes from public client code that parses this endpoint,
// github.com/hellouy/domainhub adapters/epik.ts (commit 69342a6) and its
// notes in .monkeycode/docs/registrar-candidate-pool.md: the top level is an
// object keyed by the zone without a leading dot; each entry has price,
// renew and transfer (the prices of the day) and priceStandard,
// renewStandard and transferStandard (the regular prices, which the client
// lists as Epik's prices); one request returns about 700 zones, without
// authentication. The client reads values through String() and parseFloat,
// so whether they are JSON strings or numbers is not known (both are read),
// and it skips top-level values that are not objects. The prices above are
// illustrative. Re-read for issue 22 (adapters/epik.ts at 69342a6, the one
// version of it public code search holds): the client takes
// priceStandard ?? price, renewStandard ?? renew and transferStandard ??
// transfer, keeps numbers above zero, and reads no other field: no end
// date of a sale, no ICANN fee and no currency is in that code, so none is
// read here. Everything else below is ASSUMED, and says so: nothing Epik
// publishes documents this endpoint.
//
// How the format is read, decision by decision:
//
//   - Currency: US dollars. The document names none and the endpoint takes
//     no known currency parameter, so none is asked for; Epik LLC is a US
//     company whose refund policy (epik.com/refund) settles in U.S.
//     dollars, and the known client reads the list as USD (ASSUMED). Should
//     an entry ever carry a "currency", that currency is used instead.
//   - Tax is unknown (contracts.TaxUnknown): nothing Epik publishes says
//     whether sales tax or VAT is added to these prices.
//   - The price of the day decides whether an operation is offered: a
//     missing, null, "", "n/a", "-" or "-1" price means it is not (ASSUMED:
//     no live example of a missing price is known), whatever the standard
//     price says. A zero registration or renewal price is a missing one
//     too (nobody gives names away); a zero transfer is a free one.
//   - The regular price is the standard price; the price of the day, when
//     lower, is a promotion (with no end date: Epik gives none). A price of
//     the day above the standard one is what customers pay, so it becomes
//     the regular price. A missing, zero or "-1" standard price leaves the
//     price of the day as the regular price.
//   - Prices are read as decimals with money.Parse ("9.99", "2,060.23"), a
//     JSON number by its literal digits, never through a float. Any other
//     unreadable price, negative or not a number, makes the whole zone
//     unusable: it is skipped rather than published with an operation
//     silently missing.
//   - Each key is a zone of its own: second-level zones ("co.uk") are priced
//     as themselves. Keys are normalised with contracts.NormalizeZone, so
//     IDNs may come as Unicode or as A-labels; a key that is not a zone is
//     skipped. A key ending in "/" is how Handshake names are written, not a
//     DNS root zone: left out (ASSUMED: no marker of Epik's is known). An
//     entry with no operation offered, or only a free transfer, is not a
//     zone Epik sells: left out.
//   - A body that is not one complete JSON object (truncated, an HTML error
//     page served with 200) fails the fetch: never a partial list. So does
//     an object with an "error", "errors" or "message" key (ASSUMED: Epik's
//     error shape is not known; no zone is called that), naming it. Any
//     other top-level value that is not an object is skipped.
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
//   - top level: one key per zone; "message", "error" and "errors" are an
//     error envelope (ASSUMED names).
//   - an entry: price, renew, transfer, priceStandard, renewStandard,
//     transferStandard (read); currency (read where present; an ASSUMED
//     name, never seen).
package epik

import (
	"github.com/zoneprice/zoneprice/ingest/kit"
)

// Name is the source's name and Epik's registrar id.
const Name = "epik"

// DefaultURL is the price list Epik's pages load.
const DefaultURL = "https://registrar.epik.com/api/load-200-plus-prices"

// Declaration is the source, as the package comment reads it: what
// --sources registers, --file imports (Read) and its tests check.
func Declaration() *kit.Declaration {
	d := kit.Site(Name, "Epik", "https://www.epik.com", DefaultURL, "epik price list", "USD", &kit.Table{
		Rows: "*", Errors: []string{"message", "error", "errors"}, Prepare: kit.SlashKey,
		Register: kit.Op{Price: "price", Regular: "priceStandard"},
		Renew:    kit.Op{Price: "renew", Regular: "renewStandard"},
		Transfer: kit.Op{Price: "transfer", Regular: "transferStandard", ZeroFree: true},
		Currency: "currency", NotOffered: kit.MinusOne,
	})
	d.Shape = format()
	return d
}
