// Package porkbun reads Porkbun's public price list: one POST to
// https://api.porkbun.com/api/json/v3/pricing/get (API v3, no key, body
// "{}") answers with every zone Porkbun sells, in US dollars:
//
//	{"status":"SUCCESS","pricing":{"com":{"registration":"11.08",
//	 "renewal":"11.08","transfer":"11.08","coupons":[]}, ...}}
//
// Porkbun's documentation (porkbun.com/api/json/v3/documentation and
// porkbun.com/llms/pricing) shows POST; newer API versions also answer
// GET on read endpoints, but POST with "{}" is the documented form and is
// what this package sends. The request is not conditional: its answer is
// not keyed by the URL alone.
//
// Public client code of the endpoint, re-read for issue 22, shows nothing
// more than the documentation: github.com/angelxmoreno/porkbun-api-client
// src/types.ts (commit 20f3830) types each entry as {registration,
// renewal, transfer}, and github.com/hellouy/domainhub adapters/porkbun.ts
// (commit bdd4514) reads those three and only whether "coupons" holds
// any. Neither shows a regular price beside a sale price, a sale's end
// date, an ICANN fee or a currency in this list: a coupon is its only
// discount, and it has no end. (The per-name domain/checkDomain answer has
// a regularPrice and a firstYearPromo, but it needs a key and one request
// per name: not this list.)
//
// How the format is read, decision by decision:
//
//   - "status" other than "SUCCESS" (Porkbun answers {"status":"ERROR",
//     "message":...,"code":...}, sometimes with HTTP 200) fails the whole
//     fetch, naming the message. A body that is not one complete JSON
//     object (truncated, HTML from a proxy) fails too: never a partial list.
//   - Each key of "pricing" is a zone of its own. Second-level zones such as
//     "co.uk" or "com.mx" are priced as themselves, never folded into their
//     parent. Keys are normalised with contracts.NormalizeZone; a key that
//     does not normalise is skipped.
//   - An entry with a non-empty "specialType" (today only "handshake") is a
//     Handshake name, not a DNS root zone: left out. null or "" is a normal
//     zone; any other value is an unknown marker, and the entry is skipped.
//   - Prices are USD decimal strings, sometimes with thousands separators
//     ("2,060.23"); a JSON number is read by its literal digits. A missing,
//     null, "" or "n/a" price means Porkbun does not offer that operation
//     (nil), and an entry offering no operation at all is left out. Any
//     other unreadable price makes the whole zone unusable: it is skipped
//     rather than published with an operation silently missing.
//   - A zero price ("0.00", 0) means different things by operation. For
//     registration and renewal it is not a free operation but a missing
//     one: Porkbun gives no names away, so a zero there reads as not
//     offered (nil), like "n/a", and is never published as a regular
//     price of 0. (A coupon worth the whole price is a promotion to 0:
//     that one is Porkbun's own statement of a free first year.)
//     For transfer it is a real price: Porkbun transfers some zones free
//     (.uk, .co.uk) and says so with "0.00". An entry left with no
//     operation, or with nothing but a free transfer, is not a zone Porkbun
//     sells (it answers "0.00" throughout for .pl and .com.pl, its stand-in
//     for zones it does not sell): left out, not skipped.
//   - "coupons" is [] when empty (PHP's json_encode of an empty array) and an
//     object keyed by the operation when a coupon runs, e.g.
//     {"registration":{"code":"AWESOMENESS","max_per_user":1,
//     "first_year_only":"yes","type":"amount","amount":1}}; max_per_user and
//     amount arrive both as numbers and as strings. A coupon under
//     "registration", "renewal" or "transfer" becomes a promotion on that
//     operation: type "amount" takes the amount in dollars off the regular
//     price; type "percent" (or "percentage"; no live example has been
//     seen) takes that percentage off, but only when the result is a whole
//     number of cents, because Porkbun does not say how it rounds. A discount larger than the price, a zero discount, another
//     type, another key, a non-object "coupons" or a coupon that does not
//     decode is ignored: the regular price stands. Porkbun gives no end
//     date, so the promotion has none. first_year_only only matters for
//     multi-year terms and max_per_user for an account's later orders; every
//     price here is one year's for one name, so both are ignored.
//   - A zone listed twice (a Unicode key and its A-label) keeps the first in
//     key order; the other is skipped.
//
// An entry left out is not a zone Porkbun sells: it is withdrawn like a
// zone that left the list. An entry skipped could not be read: the list
// counts it in Skipped (zoneprice_ingest_rows_skipped_total, and the
// runner logs it), and when its key is a zone, that zone's last good price
// stays (Keep) rather than being withdrawn. The error names the entries
// left out and skipped only when nothing usable remains.
//
// # Fields
//
// The fields this package knows, read or deliberately ignored; any other
// is one it has never seen:
//
//   - the envelope: status, message, code, pricing (read).
//   - an entry: registration, renewal, transfer, specialType, coupons
//     (read).
//   - a coupon: type, amount (read); code, max_per_user, first_year_only
//     (ignored).
package porkbun

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/kit"
	"github.com/zoneprice/zoneprice/ingest/money"
)

// Name is the source's name and Porkbun's registrar id.
const Name = "porkbun"

// DefaultURL is Porkbun's public pricing endpoint.
const DefaultURL = "https://api.porkbun.com/api/json/v3/pricing/get"

// currency is the only currency Porkbun prices in.
const currency = "USD"

// Declaration is the source, as the package comment reads it: what
// --sources registers, --file imports (Read) and its tests check.
func Declaration() *kit.Declaration {
	d := kit.Site(Name, "Porkbun", "https://porkbun.com", DefaultURL, "porkbun price list", currency, &kit.Table{
		Rows:     "pricing.*",
		Register: kit.Op{Price: "registration"}, Renew: kit.Op{Price: "renewal"},
		Transfer: kit.Op{Price: "transfer", ZeroFree: true},
		Check:    status, Prepare: specialType, Finish: applyCoupons,
	})
	// A documented API, whose price sets, published before tax was
	// declared, say nothing of it; the documented request is a POST of
	// "{}", not conditional.
	d.Kind, d.Tax, d.Shape = contracts.SourceAPI, "", format()
	d.Request = kit.Request{Method: http.MethodPost, Body: []byte("{}"),
		Header: http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json"}}}
	return d
}

// status fails a response whose "status" is not "SUCCESS", naming its
// message.
func status(doc *kit.Doc) error {
	status, _ := kit.String(doc.Get("status"))
	if status == "SUCCESS" {
		if kit.IsNull(doc.Get("pricing")) {
			return errors.New("porkbun price list has no zones")
		}
		return nil
	}
	msg, _ := kit.String(doc.Get("message"))
	if code, _ := kit.String(doc.Get("code")); code != "" {
		msg = code + ": " + msg
	}
	if status == "" && msg == "" {
		return errors.New("porkbun price list has no status")
	}
	return fmt.Errorf("porkbun answered status %q: %s", status, msg)
}

// specialType leaves out an entry whose "specialType" is set (a
// Handshake name), and skips one whose marker is not a string.
func specialType(r *kit.Row) error {
	raw := r.Get("specialType")
	if kit.IsNull(raw) {
		return nil
	}
	special, ok := kit.String(raw)
	switch {
	case !ok:
		return fmt.Errorf("special type %s is not a string", kit.Snippet(raw))
	case special != "":
		return ingest.LeftOut(fmt.Sprintf("special type %q is not a DNS zone", special))
	}
	return nil
}

// applyCoupons turns the coupons Porkbun lists for a zone into promotions,
// as the package comment describes; a coupon it cannot read exactly leaves
// the regular price alone.
func applyCoupons(r *kit.Row, ps *contracts.PriceSet) error {
	raw := r.Get("coupons")
	if !kit.IsObject(raw) {
		return nil // [] when there is none
	}
	var coupons map[string]json.RawMessage
	if err := json.Unmarshal(raw, &coupons); err != nil {
		return nil
	}
	for key, dst := range map[string]*contracts.OpPrice{
		"registration": ps.Register, "renewal": ps.Renew, "transfer": ps.Transfer,
	} {
		c, ok := coupons[key]
		if !ok || dst == nil {
			continue
		}
		if price, ok := couponPrice(dst.Regular.Amount, c); ok {
			dst.Promo = &contracts.Promo{Price: contracts.Price{Amount: price, Currency: currency}}
		}
	}
	return nil
}

// couponPrice is the price of an operation costing regular cents once the
// coupon is applied, if that can be known exactly and is a discount.
func couponPrice(regular int64, raw json.RawMessage) (int64, bool) {
	typ, ok := kit.String(kit.Get(raw, "type"))
	if !ok {
		return 0, false
	}
	text, err := kit.DecimalText(kit.Get(raw, "amount"))
	if err != nil {
		return 0, false
	}
	var discount int64
	switch strings.ToLower(typ) {
	case "amount":
		discount, err = money.Parse(text, currency)
		if err != nil {
			return 0, false
		}
	case "percent", "percentage":
		// Hundredths of a percent, exactly: more decimals than that would
		// be rounded by money.Parse, and the result would be a guess.
		if _, frac, _ := strings.Cut(strings.TrimSpace(text), "."); len(strings.TrimRight(frac, "0")) > 2 {
			return 0, false
		}
		bp, err := money.Parse(text, currency) // percent × 100
		if err != nil || bp > 100*100 || regular > math.MaxInt64/(100*100) {
			return 0, false
		}
		if regular*bp%(100*100) != 0 {
			return 0, false // Porkbun's rounding is not documented
		}
		discount = regular * bp / (100 * 100)
	default:
		return 0, false
	}
	if discount <= 0 || discount > regular {
		return 0, false
	}
	return regular - discount, true
}
