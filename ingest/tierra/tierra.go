// Package tierra reads TierraNet's public price list: one GET, without a
// key, of https://registry.tierra.net:8443/pricingData, which answers with
// one JSON object keyed by zone, each value a positional array:
//
//	{"com":["10.99","10.99","10.99","",""],
//	 "xyz":["11.99","12.99","12.99","1.99",""], ...}
//
// What is KNOWN, from a public client of this endpoint,
// github.com/hellouy/domainhub adapters/tierra.ts (commit 4eb324f, "Tierra
// Registry — 公开 JSON 价目 API"), and its notes in
// .monkeycode/docs/registrar-candidate-pool.md: the body maps each tld to
// [register, renew, transfer, sale, type]; values are strings; about 360
// zones are listed, in US dollars; the prices are the retail prices
// TierraNet's own price page shows. That client reads the first three
// values only. Its comment calls the fourth "sale 溢价注册价（demand/special）",
// a "sale" that is a premium (溢价: marked-up) registration price for names
// in demand, and suggests it only as a reference for premium names; it
// names the fifth "type" without saying what it holds. Re-read for issue
// 22: no end date of a sale, no ICANN fee and no currency is in that code
// or its notes.
//
// What is ASSUMED, decision by decision:
//
//   - Currency: the document states none, and no currency parameter or
//     header of the endpoint is known, so none can be asked for. Every price
//     is read as US dollars: TierraNet is a US registrar that bills in
//     dollars, and its public client reads them as USD. A value may carry a
//     leading "$" (that client strips every non-digit); any other symbol
//     makes the value unreadable.
//   - The fourth value, sale: at or above the registration price it is the
//     client's premium price, which depends on the name, and is not read.
//     Below the registration price it becomes that price's promotion, with
//     no end date (none is given). That reading is ASSUMED, from the word
//     "sale" alone: the client's "premium" says such a value should not
//     occur, and no live list is known to hold one. An empty, zero or
//     "n/a" sale is no sale; an unreadable sale is ignored and the regular
//     price stands, as a coupon that cannot be read is for Porkbun.
//   - The fifth value, type, says what kind of name the entry is. Entries
//     marked as names outside the ICANN root ("handshake", "hns", "web3",
//     "blockchain", "crypto", "ens", "alt", "altroot", in any case) are not
//     DNS zones: left out. An empty or absent type, or one naming an
//     ordinary DNS zone ("icann", "dns", "gtld", "cctld", "ngtld", "newgtld",
//     "sld", "generic", "sponsored", "country", "country-code", "idn"), is a
//     zone priced here. Any other type is not understood and the entry is
//     skipped (counted, logged, its last good price kept) rather than
//     published as a zone it may not be; the error names the type, so a
//     new value shows on the first fetch that meets it.
//   - Prices are decimal strings, thousands separators allowed; a JSON
//     number is read by its literal digits. "", null, "n/a" or "-", or a
//     value missing from a short array, means the operation is not offered.
//     A zero register or renew price means not offered too; a zero transfer
//     is a free transfer. An entry left with no operation, or nothing but a
//     free transfer, is not a zone TierraNet sells: left out. Values after
//     the fifth are not read. Any other unreadable price skips the zone.
//   - Keys are zones normalised with contracts.NormalizeZone (a leading dot,
//     upper case, Unicode or A-label): "co.uk" is priced as itself. Two keys
//     naming one zone keep the first in key order; the other is skipped.
//   - Tax: TierraNet says nothing about sales tax or VAT on these prices:
//     every price set says contracts.TaxUnknown.
//
// A body that is not one complete JSON object (truncated, an HTML error
// page served with 200), or an object carrying an "error" or "message"
// string, fails the fetch: never a partial list. The request is a plain GET
// of a document, made conditional on the validators the server last sent.
//
// An entry left out is not a zone TierraNet sells here: it is withdrawn like
// a zone that left the list. An entry skipped could not be read: it is
// counted in the list's Skipped (zoneprice_ingest_rows_skipped_total, and
// the runner logs it), and when its key is a zone, that zone keeps its last
// good price (Keep).
//
// # Fields
//
// The fields this package knows, read or deliberately ignored; any other
// is one it has never seen:
//
//   - top level: one key per zone; an "error" or "message" string is an
//     error envelope (ASSUMED names).
//   - an entry's array: register, renew, transfer, sale, type (read, by
//     position); values after the fifth (ignored).
package tierra

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/kit"
)

// Name is the source's name and TierraNet's registrar id.
const Name = "tierra"

// Declaration is the source, as the package comment reads it: what --sources
// registers, --file imports (Read) and its tests check; each entry an array
// of register, renew, transfer, sale price and type.
func Declaration() *kit.Declaration {
	d := kit.Site(Name, "TierraNet", "https://www.tierra.net", "https://registry.tierra.net:8443/pricingData", "tierra price list", "USD", &kit.Table{
		Rows: "*", Errors: []string{"error", "message"}, Prepare: kind,
		Register: kit.Op{Price: "0", Sale: "3"}, Renew: kit.Op{Price: "1"}, Transfer: kit.Op{Price: "2", ZeroFree: true},
		Symbols: true,
	})
	d.Shape = format()
	return d
}

// kind reads an entry's type: nothing for a DNS zone priced here, a
// left-out name outside the ICANN root, an error for a type not
// understood.
func kind(r *kit.Row) error {
	raw := r.Get("4")
	if kit.IsNull(raw) {
		return nil
	}
	var typ string
	if err := json.Unmarshal(raw, &typ); err != nil {
		return fmt.Errorf("type %s is not a string", kit.Snippet(raw))
	}
	switch strings.ToLower(strings.TrimSpace(typ)) {
	case "", "icann", "dns", "gtld", "cctld", "ngtld", "newgtld", "sld", "generic", "sponsored", "country", "country-code", "idn":
		return nil
	case "handshake", "hns", "web3", "blockchain", "crypto", "ens", "alt", "altroot":
		return ingest.LeftOut(fmt.Sprintf("type %q is not a DNS zone", typ))
	}
	return fmt.Errorf("type %q is not understood", typ)
}
