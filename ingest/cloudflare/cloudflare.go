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

// Name is Cloudflare's registrar id.
const Name = "cloudflare"

// ListSource is the source every price set names: cfdomainpricing.com, the
// third party whose list this is, not Cloudflare.
const ListSource = "cfdomainpricing"

// DefaultURL is cfdomainpricing.com's price list.
const DefaultURL = "https://cfdomainpricing.com/prices.json"

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
		return contracts.Invalid("URL", "cfdomainpricing URL %v", err)
	}
	return nil
}

// Source fetches the third-party list of Cloudflare Registrar's prices.
type Source struct {
	url    string
	client *fetch.Client
	now    func() time.Time
}

var _ ingest.Source = (*Source)(nil)

var _ ingest.Describer = (*Source)(nil)

// Describe implements ingest.Describer.
func (s *Source) Describe() ingest.Description {
	return ingest.OneRegistrar(contracts.SourceList, s.url, defaultCurrency, contracts.TaxExcluded, Name, "Cloudflare", "https://www.cloudflare.com/products/registrar/")
}

// New returns a Source that fetches with client and stamps what it observes
// with now() (time.Now when nil).
func New(cfg Config, client *fetch.Client, now func() time.Time) (*Source, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if client == nil {
		return nil, errors.New("cloudflare source needs a fetch client")
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

// Name implements ingest.Source: the source is the third-party list, so
// that what a round publishes, withdrawals included, says where it came
// from; the registrar its prices are for is Name.
func (s *Source) Name() string { return ListSource }

// Fetch implements ingest.Source. The list is a static file: the request is
// conditional, and an unchanged list costs the site a 304.
func (s *Source) Fetch(ctx context.Context) (*ingest.List, error) {
	resp, err := s.client.Get(ctx, s.url, http.Header{"Accept": {"application/json"}})
	if err != nil {
		return nil, fmt.Errorf("fetch cfdomainpricing list: %w", err)
	}
	return Parse(resp.Body, s.now())
}

type entry struct {
	Registration json.RawMessage `json:"registration"`
	Renewal      json.RawMessage `json:"renewal"`
	Currency     json.RawMessage `json:"currency"`
}

// parse reads one response body of the list into price sets observed at
// observed. See the package comment for how each quirk is read.
func parse(body []byte, observed time.Time) (*ingest.List, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("decode cfdomainpricing list: %w", err)
	}
	for _, k := range []string{"error", "message"} {
		if v, ok := doc[k]; ok && !isObject(v) {
			return nil, fmt.Errorf("cfdomainpricing answered %s %s", k, snippet(v))
		}
	}
	if len(doc) == 0 {
		return nil, errors.New("cfdomainpricing list has no zones")
	}
	keys := make([]string, 0, len(doc))
	for k := range doc {
		keys = append(keys, k)
	}
	slices.Sort(keys)

	var t ingest.Tally
	for _, key := range keys {
		ps, err := parseEntry(key, doc[key], observed)
		t.Add(strconv.Quote(key), ps, err)
	}
	return t.List("cfdomainpricing list")
}

// parseEntry turns one entry into a price set, or says why it cannot: an
// ingest.LeftOut for an entry that is not a zone Cloudflare sells, another
// error for one that cannot be read. With an error the set still names the
// zone when the key is one, so that its last good price can be kept.
func parseEntry(key string, raw json.RawMessage, observed time.Time) (contracts.PriceSet, error) {
	ps := contracts.PriceSet{
		V: contracts.SchemaVersion, Kind: contracts.KindPriceSet, Registrar: Name,
		ObservedAt: observed, Source: ListSource, Tax: contracts.TaxExcluded,
	}
	z, err := contracts.NormalizeZone(strings.TrimSpace(key))
	if err != nil {
		return ps, err
	}
	ps.Zone = z.ASCII
	if !isObject(raw) {
		return ps, fmt.Errorf("entry %s is not an object", snippet(raw))
	}
	var e entry
	if err := json.Unmarshal(raw, &e); err != nil {
		return ps, fmt.Errorf("entry does not decode: %w", err)
	}
	cur, err := currency(e.Currency)
	if err != nil {
		return ps, err
	}
	if ps.Register, err = opPrice(e.Registration, cur); err != nil {
		return ps, fmt.Errorf("registration: %w", err)
	}
	if ps.Renew, err = opPrice(e.Renewal, cur); err != nil {
		return ps, fmt.Errorf("renewal: %w", err)
	}
	if ps.Register == nil && ps.Renew == nil {
		return ps, ingest.LeftOut("no operation priced")
	}
	switch {
	case freeTransfer(ps.Zone):
		ps.Transfer = &contracts.OpPrice{Regular: contracts.Price{Amount: 0, Currency: cur}}
	case ps.Renew != nil:
		// A transfer in is charged one year's renewal.
		ps.Transfer = &contracts.OpPrice{Regular: ps.Renew.Regular}
	}
	return ps, nil
}

// freeTransfer reports whether Cloudflare transfers zone in for nothing:
// the UK extensions, whose registry charges no transfer.
func freeTransfer(zone string) bool { return zone == ".uk" || strings.HasSuffix(zone, ".uk") }

// currency reads an optional "currency"; absent means US dollars.
func currency(raw json.RawMessage) (string, error) {
	if isNull(raw) {
		return defaultCurrency, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("currency %s is not a string", snippet(raw))
	}
	s = strings.ToUpper(strings.TrimSpace(s))
	if s == "" {
		return defaultCurrency, nil
	}
	if _, ok := contracts.CurrencyExponent(s); !ok {
		return "", fmt.Errorf("unknown currency %q", s)
	}
	return s, nil
}

// opPrice reads one operation's price; nil when it is not offered.
func opPrice(raw json.RawMessage, cur string) (*contracts.OpPrice, error) {
	text, err := decimalText(raw)
	var amount int64
	if err == nil {
		amount, err = money.Parse(text, cur)
	}
	switch {
	case errors.Is(err, money.ErrNoPrice):
		return nil, nil
	case err != nil:
		return nil, err
	case amount == 0:
		return nil, nil // no names given away: a zero is no price
	}
	return &contracts.OpPrice{Regular: contracts.Price{Amount: amount, Currency: cur}}, nil
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
	return "", fmt.Errorf("%s is neither a string nor a number", snippet(raw))
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

func isObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '{'
}

// snippet shows a raw value in an error, shortened.
func snippet(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "(absent)"
	}
	if r := []rune(string(t)); len(r) > 80 {
		return string(r[:80]) + "…"
	}
	return string(t)
}
