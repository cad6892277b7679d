// Package inwx reads INWX's public price list: one GET, without a key, of
// the document INWX's own price list page (www.inwx.com/en/domain/pricelist)
// loads,
//
//	https://www.inwx.com/api/v1/domain/all-prices
//
// which answers with every zone INWX sells, about 2,200:
//
//	{"tlds":[{"tld":"com","createPrice":11.9,"renewalPrice":11.9,
//	  "transferPrice":11.9,"restorePrice":95,"currency":"USD"}, ...]}
//
// INWX documents no such endpoint (its documented API, the DomRobot
// JSON-RPC API, needs an account); it is the one its site uses. What is
// KNOWN comes from public client code that reads it:
// github.com/hellouy/domainhub adapters/inwx.ts (commit b0b57be), a
// price-comparison adapter that fetches this exact URL, reads
// tlds[] with tld, createPrice, renewalPrice, transferPrice, restorePrice
// and currency, converts each price with JavaScript's Number() (so a JSON
// number or a numeric string) and keeps only prices above zero, and says
// the list holds 2,232 zones, "mostly USD, some EUR", the currency chosen
// by where the visitor is; a second adapter of the same project
// (adapters/auto-registrars.ts, in one of the versions code search holds)
// notes that the endpoint "by default answers in USD according to the
// visitor's location" and reads the currency row by row. Re-read for
// issue 22: no field beside those (no regular or original price, no sale
// end date, no ICANN fee) is in that code.
//
// How the document is read, decision by decision:
//
//   - Currency: each row's "currency" (any case), else the document's
//     top-level "currency" (ASSUMED: no sample shows one). A row whose
//     currency nobody gives is skipped: the currency varies by visitor, so
//     guessing one would publish a price in the wrong money. No query
//     parameter or header that asks this endpoint for a currency is known,
//     so the request asks for none; the list's currencies are what INWX
//     chose for the fetching machine's location.
//   - Tax: every price set says contracts.TaxUnknown. INWX is German
//     (InterNetworX; the terms on www.inwx.com name INWX Inc. as the
//     provider) and sells to consumers as well as resellers, and a price
//     shown to an EU consumer must include VAT; so the list may be gross
//     for some visitors and net for others, as its currency is. Nothing
//     found says which, for which visitor, or at which rate, and neither
//     the document nor the public client code carries a tax field. A price
//     that might include 19% VAT is not comparable with a net one, and
//     TaxUnknown says so.
//   - Prices are JSON numbers or strings, read by their literal digits with
//     money.Parse (never through a float); thousands separators ("2,190.00")
//     are read as such. A missing, null, "" or "n/a" price means the
//     operation is not offered (nil). A zero price also reads as not
//     offered, for every operation, transfer included: the public client
//     code reads zero as no price, and nothing says whether INWX's zero is
//     a free transfer or a placeholder, so a zero is left out rather than
//     published as a free operation that may not exist (ASSUMED). Any other
//     unreadable price (negative, with a currency symbol, an object) skips
//     the row rather than publishing it with an operation silently missing,
//     as does a price above contracts.MaxAmount.
//   - restorePrice (restoring a deleted name) is not one of the operations
//     this service compares: it is not read.
//   - Each tld is a zone of its own: second-level zones ("co.uk") are priced
//     as themselves, never folded into their parent; IDNs are accepted in
//     Unicode ("みんな") or as A-labels ("xn--q9jyb4c"), with or without a
//     leading dot, in any case, and normalised with contracts.NormalizeZone.
//     A tld that does not normalise skips the row. A zone listed twice keeps
//     its first listing; the other is skipped.
//   - A row offering no operation at all is left out: it is not a zone INWX
//     sells. INWX marks no names outside the DNS root (such as Handshake
//     names) in this document, so none is left out on that ground (no such
//     marker is known).
//   - INWX gives no promotions in this document (no sale or original price
//     is known): every price is a regular price.
//   - A body that is not one complete JSON object (truncated, an HTML error
//     page served with 200) fails the fetch, as does one without a "tlds"
//     array or with an empty one. An error envelope is named in the error:
//     "code" with "msg" and "reason" (the envelope of INWX's DomRobot API;
//     ASSUMED to be what this endpoint answers on failure), or a "message"
//     or "error".
//
// A row left out is not a price this package publishes: its zone is
// withdrawn like one that left the list. A row skipped could not be read:
// it is counted in the list's Skipped (zoneprice_ingest_rows_skipped_total,
// and the runner logs it), and when its tld is a zone, that zone keeps its
// last good price (Keep) rather than being withdrawn. The error names the
// rows left out and skipped only when nothing usable remains.
//
// The request is a plain GET of a document, made conditional with the
// validators of the last answer (fetch.Client.Get).
//
// # Fields
//
// The fields this package knows, read or deliberately ignored; any other
// is one it has never seen:
//
//   - the document: tlds, currency (read; currency an ASSUMED name at this
//     level); code, msg, reason, message, error (an error envelope).
//   - a row: tld, createPrice, renewalPrice, transferPrice, currency
//     (read); restorePrice (ignored).
package inwx

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

// Name is the source's name and INWX's registrar id.
const Name = "inwx"

// DefaultURL is INWX's public price list.
const DefaultURL = "https://www.inwx.com/api/v1/domain/all-prices"

// Config configures a Source.
type Config struct {
	// URL is the price list; empty means DefaultURL.
	URL string
}

// Validate reports a configuration that cannot work, naming the field
// (contracts.ValidationError).
func (c Config) Validate() error {
	if err := fetch.CheckURL(c.URL); err != nil {
		return contracts.Invalid("URL", "inwx URL %v", err)
	}
	return nil
}

// Source fetches INWX's price list.
type Source struct {
	url    string
	client *fetch.Client
	now    func() time.Time
}

var _ ingest.Source = (*Source)(nil)

var _ ingest.Describer = (*Source)(nil)

// Describe implements ingest.Describer.
func (s *Source) Describe() ingest.Description {
	return ingest.OneRegistrar(contracts.SourceSite, s.url, "", contracts.TaxUnknown, Name, "INWX", "https://www.inwx.com")
}

// New returns a Source that fetches with client and stamps what it observes
// with now() (time.Now when nil).
func New(cfg Config, client *fetch.Client, now func() time.Time) (*Source, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if client == nil {
		return nil, errors.New("inwx source needs a fetch client")
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

// Fetch implements ingest.Source. The list is fetched conditionally: its
// answer depends on the URL alone (and the machine's location, which does
// not move).
func (s *Source) Fetch(ctx context.Context) (*ingest.List, error) {
	resp, err := s.client.Get(ctx, s.url, http.Header{"Accept": {"application/json"}})
	if err != nil {
		return nil, fmt.Errorf("fetch inwx price list: %w", err)
	}
	return Parse(resp.Body, s.now())
}

// response is the document. Rows stay raw so that one odd row costs only
// its zone.
type response struct {
	TLDs     []json.RawMessage `json:"tlds"`
	Currency string            `json:"currency"`
	// An error instead of a list.
	Code    json.RawMessage `json:"code"`
	Msg     string          `json:"msg"`
	Reason  string          `json:"reason"`
	Message string          `json:"message"`
	Error   json.RawMessage `json:"error"`
}

type row struct {
	TLD           string          `json:"tld"`
	CreatePrice   json.RawMessage `json:"createPrice"`
	RenewalPrice  json.RawMessage `json:"renewalPrice"`
	TransferPrice json.RawMessage `json:"transferPrice"`
	Currency      string          `json:"currency"`
}

// parse reads one response body of the price list into a list of price sets
// observed at observed. See the package comment for how each quirk of the
// format is read.
func parse(body []byte, observed time.Time) (*ingest.List, error) {
	var r response
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("decode inwx price list: %w", err)
	}
	if r.TLDs == nil {
		return nil, r.failure()
	}
	if len(r.TLDs) == 0 {
		return nil, errors.New("inwx price list has no zones")
	}
	var t ingest.Tally
	for i, raw := range r.TLDs {
		label, ps, err := parseRow(raw, r.Currency, observed)
		if label == "" {
			label = fmt.Sprintf("row %d", i)
		}
		t.Add(label, ps, err)
	}
	return t.List("inwx price list")
}

// failure is the error a document without a "tlds" array reports.
func (r *response) failure() error {
	var msg []string
	if code := strings.Trim(string(bytes.TrimSpace(r.Code)), `"`); code != "" && code != "null" {
		msg = append(msg, "code "+code)
	}
	for _, m := range []string{r.Msg, r.Reason, r.Message, string(bytes.Trim(bytes.TrimSpace(r.Error), `"`))} {
		if m != "" && m != "null" {
			msg = append(msg, m)
		}
	}
	if len(msg) == 0 {
		return errors.New("inwx price list has no tlds")
	}
	return fmt.Errorf("inwx answered %s", strings.Join(msg, ": "))
}

// parseRow turns one row of tlds into a price set, or says why it cannot:
// an ingest.LeftOut for a row that is not a price this package publishes,
// another error for one that cannot be read. With an error the set still
// names the zone when the row did, so that its last good price can be
// kept. label names the row in the list's reasons.
func parseRow(raw json.RawMessage, docCurrency string, observed time.Time) (string, contracts.PriceSet, error) {
	ps := contracts.PriceSet{
		V: contracts.SchemaVersion, Kind: contracts.KindPriceSet, Registrar: Name,
		ObservedAt: observed, Source: Name, Tax: contracts.TaxUnknown,
	}
	var rw row
	bad := json.Unmarshal(raw, &rw)
	if bad != nil {
		// The prices may be what is wrong: read what names the zone.
		var head struct {
			TLD string `json:"tld"`
		}
		if json.Unmarshal(raw, &head) != nil {
			return "", ps, fmt.Errorf("row does not decode: %w", bad)
		}
		rw = row{TLD: head.TLD}
	}
	label := strconv.Quote(rw.TLD)
	z, err := contracts.NormalizeZone(strings.TrimSpace(rw.TLD))
	if err != nil {
		return label, ps, err
	}
	ps.Zone = z.ASCII
	if bad != nil {
		return label, ps, fmt.Errorf("row does not decode: %w", bad)
	}
	cur := strings.ToUpper(strings.TrimSpace(rw.Currency))
	if cur == "" {
		cur = strings.ToUpper(strings.TrimSpace(docCurrency))
	}
	if cur == "" {
		return label, ps, errors.New("no currency given")
	}
	if _, ok := contracts.CurrencyExponent(cur); !ok {
		return label, ps, fmt.Errorf("currency %q is not an ISO 4217 code", cur)
	}
	for _, op := range []struct {
		name string
		raw  json.RawMessage
		dst  **contracts.OpPrice
	}{
		{"createPrice", rw.CreatePrice, &ps.Register},
		{"renewalPrice", rw.RenewalPrice, &ps.Renew},
		{"transferPrice", rw.TransferPrice, &ps.Transfer},
	} {
		amount, err := amount(op.raw, cur)
		if err != nil {
			return label, ps, fmt.Errorf("%s: %w", op.name, err)
		}
		if amount > 0 {
			*op.dst = &contracts.OpPrice{Regular: contracts.Price{Amount: amount, Currency: cur}}
		}
	}
	ops := ps.Ops()
	if !slices.ContainsFunc(ops[:], func(o *contracts.OpPrice) bool { return o != nil }) {
		return label, ps, ingest.LeftOut("no operation priced")
	}
	return label, ps, nil
}

// amount reads one price, a JSON number or string in cur, into minor
// units; 0 means not offered (absent, null, "", "n/a", zero).
func amount(raw json.RawMessage, cur string) (int64, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return 0, nil
	}
	// A number is read by its literal digits (a float64 would round
	// them); anything but a number or a string fails money.Parse.
	text := string(t)
	if t[0] == '"' {
		if err := json.Unmarshal(t, &text); err != nil {
			return 0, err
		}
	}
	a, err := money.Parse(text, cur)
	switch {
	case errors.Is(err, money.ErrNoPrice):
		return 0, nil
	case err != nil:
		return 0, err
	case a > contracts.MaxAmount:
		return 0, fmt.Errorf("price %q is above the ceiling of %d minor units", text, contracts.MaxAmount)
	}
	return a, nil
}
