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
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/money"
)

// Name is the source's name and Porkbun's registrar id.
const Name = "porkbun"

// DefaultURL is Porkbun's public pricing endpoint.
const DefaultURL = "https://api.porkbun.com/api/json/v3/pricing/get"

// currency is the only currency Porkbun prices in.
const currency = "USD"

// Config configures a Source.
type Config struct {
	// URL is the pricing endpoint; empty means DefaultURL.
	URL string
}

// Validate reports a configuration that cannot work, naming the field.
func (c Config) Validate() error {
	if err := fetch.CheckURL(c.URL); err != nil {
		return fmt.Errorf("porkbun URL %w", err)
	}
	return nil
}

// Source fetches Porkbun's price list.
type Source struct {
	url    string
	client *fetch.Client
	now    func() time.Time
}

var _ ingest.Source = (*Source)(nil)

var _ ingest.Describer = (*Source)(nil)

// Describe implements ingest.Describer.
func (s *Source) Describe() ingest.Description {
	return ingest.OneRegistrar(contracts.SourceAPI, s.url, currency, contracts.TaxUnknown, Name, "Porkbun", "https://porkbun.com")
}

// New returns a Source that fetches with client and stamps what it observes
// with now() (time.Now when nil).
func New(cfg Config, client *fetch.Client, now func() time.Time) (*Source, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if client == nil {
		return nil, errors.New("porkbun source needs a fetch client")
	}
	if now == nil {
		now = time.Now
	}
	u := cfg.URL
	if u == "" {
		u = DefaultURL
	}
	return &Source{url: u, client: client, now: now}, nil
}

// Name implements ingest.Source.
func (s *Source) Name() string { return Name }

// Fetch implements ingest.Source.
func (s *Source) Fetch(ctx context.Context) (*ingest.List, error) {
	resp, err := s.client.Do(ctx, fetch.Request{
		Method: http.MethodPost,
		URL:    s.url,
		Header: http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json"}},
		Body:   []byte("{}"),
	})
	if err != nil {
		return nil, fmt.Errorf("fetch porkbun price list: %w", err)
	}
	return Parse(resp.Body, s.now())
}

// response is the envelope of /pricing/get. Entries stay raw so that one
// odd entry costs only its zone.
type response struct {
	Status  string                     `json:"status"`
	Message string                     `json:"message"`
	Code    string                     `json:"code"`
	Pricing map[string]json.RawMessage `json:"pricing"`
}

type entry struct {
	Registration json.RawMessage `json:"registration"`
	Renewal      json.RawMessage `json:"renewal"`
	Transfer     json.RawMessage `json:"transfer"`
	SpecialType  json.RawMessage `json:"specialType"`
	Coupons      json.RawMessage `json:"coupons"`
}

type coupon struct {
	Type   json.RawMessage `json:"type"`
	Amount json.RawMessage `json:"amount"`
}

// parse reads one response body of the pricing endpoint into a list of
// price sets observed at observed. See the package comment for how each
// quirk of the format is read.
func parse(body []byte, observed time.Time) (*ingest.List, error) {
	var r response
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("decode porkbun price list: %w", err)
	}
	if r.Status != "SUCCESS" {
		msg := r.Message
		if r.Code != "" {
			msg = r.Code + ": " + msg
		}
		if r.Status == "" && msg == "" {
			return nil, errors.New("porkbun price list has no status")
		}
		return nil, fmt.Errorf("porkbun answered status %q: %s", r.Status, msg)
	}
	if len(r.Pricing) == 0 {
		return nil, errors.New("porkbun price list has no zones")
	}
	keys := make([]string, 0, len(r.Pricing))
	for k := range r.Pricing {
		keys = append(keys, k)
	}
	slices.Sort(keys)

	var t ingest.Tally
	for _, key := range keys {
		ps, err := parseEntry(key, r.Pricing[key], observed)
		t.Add(strconv.Quote(key), ps, err)
	}
	return t.List("porkbun price list")
}

// parseEntry turns one entry of "pricing" into a price set, or says why it
// cannot: a ingest.LeftOut for an entry that is not a zone Porkbun sells, another
// error for one that cannot be read. With an error the set still names the
// zone when the key is one, so that its last good price can be kept.
func parseEntry(key string, raw json.RawMessage, observed time.Time) (contracts.PriceSet, error) {
	ps := contracts.PriceSet{
		V: contracts.SchemaVersion, Kind: contracts.KindPriceSet, Registrar: Name,
		ObservedAt: observed, Source: Name,
	}
	z, zerr := contracts.NormalizeZone(key)
	if zerr == nil {
		ps.Zone = z.ASCII
	}
	var e entry
	if err := json.Unmarshal(raw, &e); err != nil {
		return ps, fmt.Errorf("entry does not decode: %w", err)
	}
	special, err := specialType(e.SpecialType)
	if err != nil {
		return ps, err
	}
	if special != "" {
		return ps, ingest.LeftOut(fmt.Sprintf("special type %q is not a DNS zone", special))
	}
	if zerr != nil {
		return ps, zerr
	}
	for _, f := range []struct {
		name       string
		raw        json.RawMessage
		dst        **contracts.OpPrice
		zeroIsFree bool // false: a zero price means the operation is missing
	}{
		{"registration", e.Registration, &ps.Register, false},
		{"renewal", e.Renewal, &ps.Renew, false},
		{"transfer", e.Transfer, &ps.Transfer, true},
	} {
		op, err := opPrice(f.raw)
		if err != nil {
			return ps, fmt.Errorf("%s: %w", f.name, err)
		}
		if op != nil && op.Regular.Amount == 0 && !f.zeroIsFree {
			op = nil
		}
		*f.dst = op
	}
	ops := ps.Ops()
	if !slices.ContainsFunc(ops[:], func(o *contracts.OpPrice) bool { return o != nil }) {
		return ps, ingest.LeftOut("no operation priced")
	}
	if !slices.ContainsFunc(ops[:], func(o *contracts.OpPrice) bool { return o != nil && o.Regular.Amount > 0 }) {
		return ps, ingest.LeftOut("nothing priced but a free transfer: a zone porkbun does not sell")
	}
	applyCoupons(&ps, e.Coupons)
	return ps, nil
}

// specialType reads "specialType": a string, or null or absent for a
// normal zone. Anything else is an unknown marker, not a zone to trust.
func specialType(raw json.RawMessage) (string, error) {
	if isNull(raw) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("special type %s is not a string", raw)
	}
	return strings.TrimSpace(s), nil
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

// decimalText returns the decimal a JSON string or number holds, as text.
// Absent and null give money.ErrNoPrice.
func decimalText(raw json.RawMessage) (string, error) {
	if isNull(raw) {
		return "", money.ErrNoPrice
	}
	switch t := bytes.TrimSpace(raw); {
	case t[0] == '"':
		var s string
		if err := json.Unmarshal(t, &s); err != nil {
			return "", err
		}
		return s, nil
	case t[0] == '-' || (t[0] >= '0' && t[0] <= '9'):
		// Kept as its literal digits: a float64 would round them.
		var n json.Number
		if err := json.Unmarshal(t, &n); err != nil {
			return "", err
		}
		return n.String(), nil
	}
	return "", fmt.Errorf("%s is neither a string nor a number", raw)
}

// opPrice reads one operation's price; nil when it is not offered.
func opPrice(raw json.RawMessage) (*contracts.OpPrice, error) {
	text, err := decimalText(raw)
	if err == nil {
		var amount int64
		amount, err = money.Parse(text, currency)
		if err == nil {
			return &contracts.OpPrice{Regular: contracts.Price{Amount: amount, Currency: currency}}, nil
		}
	}
	if errors.Is(err, money.ErrNoPrice) {
		return nil, nil
	}
	return nil, err
}

// applyCoupons turns the coupons Porkbun lists for a zone into promotions,
// as the package comment describes; a coupon it cannot read exactly leaves
// the regular price alone.
func applyCoupons(ps *contracts.PriceSet, raw json.RawMessage) {
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return // [] when there is none
	}
	var coupons map[string]json.RawMessage
	if err := json.Unmarshal(raw, &coupons); err != nil {
		return
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
}

// couponPrice is the price of an operation costing regular cents once the
// coupon is applied, if that can be known exactly and is a discount.
func couponPrice(regular int64, raw json.RawMessage) (int64, bool) {
	var c coupon
	if err := json.Unmarshal(raw, &c); err != nil {
		return 0, false
	}
	var typ string
	if err := json.Unmarshal(c.Type, &typ); err != nil {
		return 0, false
	}
	text, err := decimalText(c.Amount)
	if err != nil {
		return 0, false
	}
	var discount int64
	switch strings.ToLower(strings.TrimSpace(typ)) {
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
