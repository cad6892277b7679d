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
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

// Name is the source's name and TierraNet's registrar id.
const Name = "tierra"

// DefaultURL is TierraNet's public price list.
const DefaultURL = "https://registry.tierra.net:8443/pricingData"

// currency is the currency the list is read in; see the package comment.
const currency = "USD"

// Config configures a Source.
type Config struct {
	// URL is the price list; empty means DefaultURL.
	URL string
}

// Validate reports a configuration that cannot work, naming the field
// (contracts.ValidationError).
func (c Config) Validate() error {
	if err := fetch.CheckURL(c.URL); err != nil {
		return contracts.Invalid("URL", "tierra URL %v", err)
	}
	return nil
}

// Source fetches TierraNet's price list.
type Source struct {
	url    string
	client *fetch.Client
	now    func() time.Time
}

var _ ingest.Source = (*Source)(nil)

var _ ingest.Describer = (*Source)(nil)

// Describe implements ingest.Describer.
func (s *Source) Describe() ingest.Description {
	return ingest.OneRegistrar(contracts.SourceSite, s.url, currency, contracts.TaxUnknown, Name, "TierraNet", "https://www.tierra.net")
}

// New returns a Source that fetches with client and stamps what it observes
// with now() (time.Now when nil).
func New(cfg Config, client *fetch.Client, now func() time.Time) (*Source, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if client == nil {
		return nil, errors.New("tierra source needs a fetch client")
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

// Fetch implements ingest.Source. The document depends on its URL alone,
// so the request is conditional.
func (s *Source) Fetch(ctx context.Context) (*ingest.List, error) {
	resp, err := s.client.Get(ctx, s.url, http.Header{"Accept": {"application/json"}})
	if err != nil {
		return nil, fmt.Errorf("fetch tierra price list: %w", err)
	}
	return Parse(resp.Body, s.now())
}

// The positions of an entry's values.
const (
	posRegister = iota
	posRenew
	posTransfer
	posSale
	posType
	positions
)

// parse reads one response body of the price list into price sets observed
// at observed. See the package comment for how each quirk of the format is
// read.
func parse(body []byte, observed time.Time) (*ingest.List, error) {
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(body, &entries); err != nil {
		return nil, fmt.Errorf("decode tierra price list: %w", err)
	}
	if entries == nil {
		return nil, errors.New("decode tierra price list: null")
	}
	for _, key := range []string{"error", "message"} {
		var msg string
		if json.Unmarshal(entries[key], &msg) == nil && strings.TrimSpace(msg) != "" {
			return nil, fmt.Errorf("tierra answered %s %q", key, strings.TrimSpace(msg))
		}
	}
	if len(entries) == 0 {
		return nil, errors.New("tierra price list has no zones")
	}
	keys := make([]string, 0, len(entries))
	for k := range entries {
		keys = append(keys, k)
	}
	slices.Sort(keys)

	var t ingest.Tally
	for _, key := range keys {
		ps, err := parseEntry(key, entries[key], observed)
		t.Add(strconv.Quote(key), ps, err)
	}
	return t.List("tierra price list")
}

// parseEntry turns one entry into a price set, or says why it cannot: an
// ingest.LeftOut for an entry that is not a zone priced here, another error
// for one that cannot be read. With an error the set still names the zone
// when the key is one, so that its last good price can be kept.
func parseEntry(key string, raw json.RawMessage, observed time.Time) (contracts.PriceSet, error) {
	ps := contracts.PriceSet{
		V: contracts.SchemaVersion, Kind: contracts.KindPriceSet, Registrar: Name,
		ObservedAt: observed, Source: Name, Tax: contracts.TaxUnknown,
	}
	z, zerr := contracts.NormalizeZone(strings.TrimSpace(key))
	if zerr == nil {
		ps.Zone = z.ASCII
	}
	var values []json.RawMessage
	if err := json.Unmarshal(raw, &values); err != nil {
		return ps, fmt.Errorf("entry %s is not an array", snippet(raw))
	}
	values = append(values, make([]json.RawMessage, positions-min(len(values), positions))...)
	if typ, err := kind(values[posType]); err != nil {
		return ps, err
	} else if typ != "" {
		return ps, ingest.LeftOut(fmt.Sprintf("type %q is not a DNS zone", typ))
	}
	if zerr != nil {
		return ps, zerr
	}
	for _, f := range []struct {
		name       string
		pos        int
		dst        **contracts.OpPrice
		zeroIsFree bool // false: a zero price means the operation is missing
	}{
		{"register", posRegister, &ps.Register, false},
		{"renew", posRenew, &ps.Renew, false},
		{"transfer", posTransfer, &ps.Transfer, true},
	} {
		amount, ok, err := price(values[f.pos])
		if err != nil {
			return ps, fmt.Errorf("%s: %w", f.name, err)
		}
		if ok && (amount > 0 || f.zeroIsFree) {
			*f.dst = &contracts.OpPrice{Regular: contracts.Price{Amount: amount, Currency: currency}}
		}
	}
	ops := ps.Ops()
	if !slices.ContainsFunc(ops[:], func(o *contracts.OpPrice) bool { return o != nil }) {
		return ps, ingest.LeftOut("no operation offered")
	}
	if !slices.ContainsFunc(ops[:], func(o *contracts.OpPrice) bool { return o != nil && o.Regular.Amount > 0 }) {
		return ps, ingest.LeftOut("nothing priced but a free transfer: a zone tierra does not sell")
	}
	if sale, ok, err := price(values[posSale]); err == nil && ok && sale > 0 && ps.Register != nil && sale < ps.Register.Regular.Amount {
		ps.Register.Promo = &contracts.Promo{Price: contracts.Price{Amount: sale, Currency: currency}}
	}
	if err := ps.Validate(); err != nil {
		return ps, err
	}
	return ps, nil
}

// kind reads an entry's type: "" for a DNS zone priced here, the type
// itself for a name outside the ICANN root, an error for a type not
// understood.
func kind(raw json.RawMessage) (string, error) {
	if isNull(raw) {
		return "", nil
	}
	var typ string
	if err := json.Unmarshal(raw, &typ); err != nil {
		return "", fmt.Errorf("type %s is not a string", snippet(raw))
	}
	switch strings.ToLower(strings.TrimSpace(typ)) {
	case "", "icann", "dns", "gtld", "cctld", "ngtld", "newgtld", "sld", "generic", "sponsored", "country", "country-code", "idn":
		return "", nil
	case "handshake", "hns", "web3", "blockchain", "crypto", "ens", "alt", "altroot":
		return typ, nil
	}
	return "", fmt.Errorf("type %q is not understood", typ)
}

// price reads one price in cents; ok is false when none is given.
func price(raw json.RawMessage) (amount int64, ok bool, err error) {
	if isNull(raw) {
		return 0, false, nil
	}
	var text string
	switch t := bytes.TrimSpace(raw); {
	case t[0] == '"':
		if err := json.Unmarshal(t, &text); err != nil {
			return 0, false, err
		}
		text = strings.TrimPrefix(strings.TrimSpace(text), "$")
	case t[0] == '-' || (t[0] >= '0' && t[0] <= '9'):
		// Kept as its literal digits: a float64 would round them.
		var n json.Number
		if err := json.Unmarshal(t, &n); err != nil {
			return 0, false, err
		}
		text = n.String()
	default:
		return 0, false, fmt.Errorf("%s is neither a string nor a number", snippet(raw))
	}
	amount, err = money.Parse(text, currency)
	if errors.Is(err, money.ErrNoPrice) {
		return 0, false, nil
	}
	return amount, err == nil, err
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

// snippet is raw JSON for an error message, shortened.
func snippet(raw json.RawMessage) string {
	const max = 40
	t := bytes.TrimSpace(raw)
	if len(t) > max {
		return string(bytes.ToValidUTF8(t[:max], []byte("?"))) + "…"
	}
	return string(bytes.ToValidUTF8(t, []byte("?")))
}
