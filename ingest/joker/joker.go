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

// Name is the source's name and Joker.com's registrar id.
const Name = "joker"

// DefaultURL is the price list Joker.com's pages load.
const DefaultURL = "https://joker.com/api/v1/price/list"

// Config configures a Source.
type Config struct {
	// URL is the price list; empty means DefaultURL.
	URL string
}

// Validate reports a configuration that cannot work, naming the field
// (contracts.ValidationError).
func (c Config) Validate() error {
	if err := fetch.CheckURL(c.URL); err != nil {
		return contracts.Invalid("URL", "joker URL %v", err)
	}
	return nil
}

// Source fetches Joker.com's price list.
type Source struct {
	url    string
	client *fetch.Client
	now    func() time.Time
}

var _ ingest.Source = (*Source)(nil)

var _ ingest.Describer = (*Source)(nil)

// Describe implements ingest.Describer.
func (s *Source) Describe() ingest.Description {
	return ingest.OneRegistrar(contracts.SourceSite, s.url, "", contracts.TaxUnknown, Name, "Joker.com", "https://joker.com")
}

// New returns a Source that fetches with client and stamps what it observes
// with now() (time.Now when nil).
func New(cfg Config, client *fetch.Client, now func() time.Time) (*Source, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if client == nil {
		return nil, errors.New("joker source needs a fetch client")
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
// is conditional, and an unchanged list costs Joker a 304.
func (s *Source) Fetch(ctx context.Context) (*ingest.List, error) {
	resp, err := s.client.Get(ctx, s.url, http.Header{"Accept": {"application/json"}})
	if err != nil {
		return nil, fmt.Errorf("fetch joker price list: %w", err)
	}
	return Parse(resp.Body, s.now())
}

// response is the envelope. Entries stay raw so that one odd entry costs
// only its zone.
type response struct {
	Result *struct {
		Pricelist *struct {
			Domains map[string]json.RawMessage `json:"domains"`
		} `json:"pricelist"`
	} `json:"result"`
	Error   json.RawMessage `json:"error"`
	Message json.RawMessage `json:"message"`
}

type entry struct {
	Registration *operation `json:"registration"`
	Renewal      *operation `json:"renewal"`
	Transfer     *operation `json:"transfer"`
}

type operation struct {
	Total *struct {
		DisplayTotal json.RawMessage `json:"display_total"`
		Currency     json.RawMessage `json:"currency"`
	} `json:"total"`
}

// parse reads one response body of the price list into price sets observed
// at observed. See the package comment for how each quirk is read.
func parse(body []byte, observed time.Time) (*ingest.List, error) {
	var r response
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("decode joker price list: %w", err)
	}
	if r.Result == nil || r.Result.Pricelist == nil || r.Result.Pricelist.Domains == nil {
		for _, said := range []json.RawMessage{r.Error, r.Message} {
			if !isNull(said) {
				return nil, fmt.Errorf("joker price list has no result.pricelist.domains; joker answered %.200s", bytes.TrimSpace(said))
			}
		}
		return nil, errors.New("joker price list has no result.pricelist.domains")
	}
	domains := r.Result.Pricelist.Domains
	if len(domains) == 0 {
		return nil, errors.New("joker price list has no zones")
	}
	keys := make([]string, 0, len(domains))
	for k := range domains {
		keys = append(keys, k)
	}
	slices.Sort(keys)

	var t ingest.Tally
	for _, key := range keys {
		ps, err := parseEntry(key, domains[key], observed)
		t.Add(strconv.Quote(key), ps, err)
	}
	return t.List("joker price list")
}

// parseEntry turns one entry into a price set, or says why it cannot: an
// ingest.LeftOut for an entry that is not a zone Joker sells, another error
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
	var e entry
	if err := json.Unmarshal(raw, &e); err != nil {
		return ps, fmt.Errorf("entry does not decode: %w", err)
	}
	cur := ""
	for _, f := range []struct {
		name       string
		op         *operation
		dst        **contracts.OpPrice
		zeroIsFree bool // false: a zero price means the operation is missing
	}{
		{"registration", e.Registration, &ps.Register, false},
		{"renewal", e.Renewal, &ps.Renew, false},
		{"transfer", e.Transfer, &ps.Transfer, true},
	} {
		p, err := opPrice(f.op)
		if err != nil {
			return ps, fmt.Errorf("%s: %w", f.name, err)
		}
		if p == nil || (p.Amount == 0 && !f.zeroIsFree) {
			continue
		}
		if cur != "" && p.Currency != cur {
			return ps, fmt.Errorf("%s: priced in %s, the zone's other operations in %s", f.name, p.Currency, cur)
		}
		cur = p.Currency
		*f.dst = &contracts.OpPrice{Regular: *p}
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

// opPrice reads one operation's total; nil when it is not offered.
func opPrice(op *operation) (*contracts.Price, error) {
	if op == nil || op.Total == nil {
		return nil, nil
	}
	text, err := decimalText(op.Total.DisplayTotal)
	if errors.Is(err, money.ErrNoPrice) || isMinusOne(text) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("display_total: %w", err)
	}
	if strings.Contains(text, ",") && !strings.Contains(text, ".") {
		return nil, fmt.Errorf("display_total %q is ambiguous: a thousands separator or a decimal comma", text)
	}
	var code string
	if err := json.Unmarshal(op.Total.Currency, &code); err != nil || isNull(op.Total.Currency) {
		return nil, fmt.Errorf("currency %.200s is not a string", op.Total.Currency)
	}
	code = strings.ToUpper(strings.TrimSpace(code))
	amount, err := money.Parse(text, code) // an unknown currency fails here
	if errors.Is(err, money.ErrNoPrice) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("display_total: %w", err)
	}
	return &contracts.Price{Amount: amount, Currency: code}, nil
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
