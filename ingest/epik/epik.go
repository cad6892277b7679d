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

// Name is the source's name and Epik's registrar id.
const Name = "epik"

// DefaultURL is the price list Epik's pages load.
const DefaultURL = "https://registrar.epik.com/api/load-200-plus-prices"

// defaultCurrency is the currency of an entry that names none.
const defaultCurrency = "USD"

// Config configures a Source.
type Config struct {
	// URL is the price list; empty means DefaultURL.
	URL string
}

// Validate reports a configuration that cannot work, naming the field
// (contracts.ValidationError).
func (c Config) Validate() error {
	if err := fetch.CheckURL(c.URL); err != nil {
		return contracts.Invalid("URL", "epik URL %v", err)
	}
	return nil
}

// Source fetches Epik's price list.
type Source struct {
	url    string
	client *fetch.Client
	now    func() time.Time
}

var _ ingest.Source = (*Source)(nil)

var _ ingest.Describer = (*Source)(nil)

// Describe implements ingest.Describer.
func (s *Source) Describe() ingest.Description {
	return ingest.OneRegistrar(contracts.SourceSite, s.url, defaultCurrency, contracts.TaxUnknown, Name, "Epik", "https://www.epik.com")
}

// New returns a Source that fetches with client and stamps what it observes
// with now() (time.Now when nil).
func New(cfg Config, client *fetch.Client, now func() time.Time) (*Source, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if client == nil {
		return nil, errors.New("epik source needs a fetch client")
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

// Fetch implements ingest.Source. The list is a plain document: the request
// is conditional, and an unchanged list costs Epik a 304.
func (s *Source) Fetch(ctx context.Context) (*ingest.List, error) {
	resp, err := s.client.Get(ctx, s.url, http.Header{"Accept": {"application/json"}})
	if err != nil {
		return nil, fmt.Errorf("fetch epik price list: %w", err)
	}
	return Parse(resp.Body, s.now())
}

// envelopeKeys are top-level keys that mean Epik answered with an error,
// not a price list.
var envelopeKeys = []string{"message", "error", "errors"}

type entry struct {
	Price            json.RawMessage `json:"price"`
	Renew            json.RawMessage `json:"renew"`
	Transfer         json.RawMessage `json:"transfer"`
	PriceStandard    json.RawMessage `json:"priceStandard"`
	RenewStandard    json.RawMessage `json:"renewStandard"`
	TransferStandard json.RawMessage `json:"transferStandard"`
	Currency         json.RawMessage `json:"currency"`
}

// parse reads one response body of the price list into price sets observed
// at observed. See the package comment for how each quirk is read.
func parse(body []byte, observed time.Time) (*ingest.List, error) {
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(body, &entries); err != nil {
		return nil, fmt.Errorf("decode epik price list: %w", err)
	}
	if entries == nil {
		return nil, errors.New("decode epik price list: null")
	}
	for _, k := range envelopeKeys {
		if said, ok := entries[k]; ok {
			return nil, fmt.Errorf("epik answered %s: %.200s", k, bytes.TrimSpace(said))
		}
	}
	if len(entries) == 0 {
		return nil, errors.New("epik price list has no zones")
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
	return t.List("epik price list")
}

// parseEntry turns one entry into a price set, or says why it cannot: an
// ingest.LeftOut for an entry that is not a zone Epik sells, another error
// for one that cannot be read. With an error the set still names the zone
// when the key is one, so that its last good price can be kept.
func parseEntry(key string, raw json.RawMessage, observed time.Time) (contracts.PriceSet, error) {
	ps := contracts.PriceSet{
		V: contracts.SchemaVersion, Kind: contracts.KindPriceSet, Registrar: Name,
		ObservedAt: observed, Source: Name, Tax: contracts.TaxUnknown,
	}
	if strings.HasSuffix(strings.TrimSpace(key), "/") {
		return ps, ingest.LeftOut("a Handshake name, not a DNS zone")
	}
	z, err := contracts.NormalizeZone(strings.TrimSpace(key))
	if err != nil {
		return ps, err
	}
	ps.Zone = z.ASCII
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return ps, fmt.Errorf("entry %.200s is not an object", bytes.TrimSpace(raw))
	}
	var e entry
	if err := json.Unmarshal(raw, &e); err != nil {
		return ps, fmt.Errorf("entry does not decode: %w", err)
	}
	cur := defaultCurrency
	if !isNull(e.Currency) {
		if err := json.Unmarshal(e.Currency, &cur); err != nil {
			return ps, fmt.Errorf("currency %.200s is not a string", e.Currency)
		}
		cur = strings.ToUpper(strings.TrimSpace(cur))
		if _, ok := contracts.CurrencyExponent(cur); !ok {
			return ps, fmt.Errorf("unknown currency %q", cur)
		}
	}
	for _, f := range []struct {
		name              string
		current, standard json.RawMessage
		dst               **contracts.OpPrice
		zeroIsFree        bool // false: a zero price is a missing one
	}{
		{"price", e.Price, e.PriceStandard, &ps.Register, false},
		{"renew", e.Renew, e.RenewStandard, &ps.Renew, false},
		{"transfer", e.Transfer, e.TransferStandard, &ps.Transfer, true},
	} {
		op, err := opPrice(f.current, f.standard, cur, f.zeroIsFree)
		if err != nil {
			return ps, fmt.Errorf("%s: %w", f.name, err)
		}
		*f.dst = op
	}
	ops := ps.Ops()
	if !slices.ContainsFunc(ops[:], func(o *contracts.OpPrice) bool { return o != nil }) {
		return ps, ingest.LeftOut("no operation offered")
	}
	if !slices.ContainsFunc(ops[:], func(o *contracts.OpPrice) bool { return o != nil && o.Regular.Amount > 0 }) {
		return ps, ingest.LeftOut("nothing priced but a free transfer")
	}
	return ps, nil
}

// opPrice reads one operation's price of the day and standard price; nil
// when it is not offered. Unless zeroIsFree, a zero price is a missing one.
func opPrice(currentRaw, standardRaw json.RawMessage, cur string, zeroIsFree bool) (*contracts.OpPrice, error) {
	current, err := amount(currentRaw, cur)
	if err != nil {
		return nil, err
	}
	if current == nil || (*current == 0 && !zeroIsFree) {
		return nil, nil
	}
	standard, err := amount(standardRaw, cur)
	if err != nil {
		return nil, fmt.Errorf("standard: %w", err)
	}
	regular := *current
	if standard != nil && *standard > regular {
		regular = *standard
	}
	o := &contracts.OpPrice{Regular: contracts.Price{Amount: regular, Currency: cur}}
	if *current < regular {
		o.Promo = &contracts.Promo{Price: contracts.Price{Amount: *current, Currency: cur}}
	}
	return o, nil
}

// amount reads one price in minor units; nil when the field says there is
// none.
func amount(raw json.RawMessage, cur string) (*int64, error) {
	text, err := decimalText(raw)
	if errors.Is(err, money.ErrNoPrice) || isMinusOne(text) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	v, err := money.Parse(text, cur)
	if errors.Is(err, money.ErrNoPrice) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// isMinusOne reports "-1" (or "-1.00"), read as no price.
func isMinusOne(text string) bool {
	t := strings.TrimSpace(text)
	return t == "-1" || (strings.HasPrefix(t, "-1.") && strings.Trim(t[3:], "0") == "")
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

// decimalText returns the decimal a JSON string or number holds, as text,
// never through a float. Absent and null give money.ErrNoPrice.
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
		var n json.Number
		if err := json.Unmarshal(t, &n); err != nil {
			return "", err
		}
		return n.String(), nil
	}
	return "", fmt.Errorf("%.200s is neither a string nor a number", bytes.TrimSpace(raw))
}
