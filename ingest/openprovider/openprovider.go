// Package openprovider reads Openprovider's public price list: one GET,
// without a key, of the document the price pages of www.openprovider.com
// load,
//
//	https://www.openprovider.com/api/pricing-data?currency=USD
//
// which answers with every zone Openprovider sells, about 2,000:
//
//	{"data":[{"tld":"com","registerFee":10.45,"renewalFee":10.45,
//	  "transferFee":10.45,"restoreFee":85.5}, ...]}
//
// Openprovider documents no such endpoint; it is the one its own site uses.
// What is KNOWN comes from public client code that reads it:
// github.com/hellouy/domainhub adapters/openprovider.ts (commit 422007e), a
// price-comparison adapter that fetches this exact URL, reads
// data[] with tld, registerFee, renewalFee, transferFee and restoreFee,
// converts each fee with JavaScript's Number() (so a JSON number or a
// numeric string) and keeps only fees above zero, says the list holds 2,069
// zones in US dollars, and in a later version reads the fees from an object
// "nonMember" (the public retail price, it says) falling back to "member",
// with a per-row "currency" beside them:
//
//	{"tld":"com","currency":"USD","nonMember":{"registerFee":10.45,...},
//	 "member":{"registerFee":8.99,...}}
//
// (Re-read for issue 22: code search now holds only the flat version, at
// 422007e; the nonMember version, read when this package was written, is
// not among what it returns, so that shape rests on that earlier reading.
// Neither version reads a sale price beside a regular one, a sale end
// date or an ICANN fee, and none is known.)
//
// Openprovider's support pages (support.openprovider.eu, "Sizes of
// Membership plans and domains counter") say that member prices are cost
// prices for paying Membership subscribers and that everyone else is
// invoiced at the "non-member" price.
//
// How the document is read, decision by decision:
//
//   - Currency: a row's "currency" where it has one, else the document's
//     top-level "currency", else US dollars, which the request asks for
//     (currency=USD; Config.Validate refuses a URL asking for another
//     currency, since unlabelled prices are read as dollars). A currency
//     that is not an ISO 4217 code skips the row. (ASSUMED: that a
//     top-level currency would label the whole list; no sample shows one.)
//   - Tax: every price set says contracts.TaxExcluded. KNOWN: Openprovider's
//     support article "VAT charges" (support.openprovider.eu, article
//     216644108) says VAT is added when purchasing, by the customer's
//     country and VAT number (always in the Netherlands, in the EU without a
//     VAT number, never outside the EU bar two countries), so the list price
//     is before VAT; its terms of service sell only to professionals.
//   - Which price: the non-member price, from "nonMember" when the row has
//     it and otherwise from the row's own registerFee, renewalFee and
//     transferFee (the older flat shape). A row with only a "member" price
//     is left out: a member price needs a paid Membership, so it is not a
//     price anyone can compare with another registrar's list price.
//   - Prices are JSON numbers or strings, read by their literal digits with
//     money.Parse (never through a float); thousands separators ("1,500.00")
//     are read as such. A missing, null, "" or "n/a" fee means the operation
//     is not offered (nil). A zero fee also reads as not offered, for every
//     operation, transfer included: the public client code reads zero as no
//     price, and nothing says whether Openprovider's zero is a free transfer
//     or a placeholder, so a zero is left out rather than published as a
//     free operation that may not exist (ASSUMED). Any other unreadable fee
//     (a negative one, a currency symbol, an object) skips the row rather
//     than publishing it with an operation silently missing, as does a fee
//     above contracts.MaxAmount.
//   - restoreFee (restoring a deleted name) is not one of the operations this
//     service compares: it is not read.
//   - Each tld is a zone of its own: second-level zones ("co.uk") are priced
//     as themselves, never folded into their parent; IDNs are accepted in
//     Unicode ("рф") or as A-labels ("xn--p1ai"), with or without a leading
//     dot, in any case, and normalised with contracts.NormalizeZone. A tld
//     that does not normalise skips the row. A zone listed twice keeps its
//     first listing; the other is skipped.
//   - A row offering no operation at all is left out: it is not a zone
//     Openprovider sells. Openprovider marks no names outside the DNS root
//     (such as Handshake names) in this document, so none is left out on
//     that ground (no such marker is known).
//   - Openprovider gives no promotions in this document: every price is a
//     regular price.
//   - A body that is not one complete JSON object (truncated, an HTML error
//     page served with 200) fails the fetch, as does one without a "data"
//     array or with an empty one. An error envelope is named in the error:
//     a non-zero "code" with its "desc" (the envelope of Openprovider's
//     REST API; ASSUMED to be what this endpoint answers on failure), or
//     a "message" or "error".
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
//   - the document: data, currency (read; currency an ASSUMED name at this
//     level); code, desc, message, error (an error envelope).
//   - a row: tld, currency, nonMember, member, and the flat registerFee,
//     renewalFee, transferFee (read); restoreFee (ignored).
//   - nonMember and member: registerFee, renewalFee, transferFee (read);
//     restoreFee (ignored).
package openprovider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/money"
)

// Name is the source's name and Openprovider's registrar id.
const Name = "openprovider"

// DefaultURL is Openprovider's public price list, asked for in US dollars.
const DefaultURL = "https://www.openprovider.com/api/pricing-data?currency=USD"

// requested is the currency the request asks for, and so the currency of
// a price nothing else labels.
const requested = "USD"

// Config configures a Source.
type Config struct {
	// URL is the price list; empty means DefaultURL. A URL that asks for a
	// currency must ask for USD.
	URL string
}

// Validate reports a configuration that cannot work, naming the field
// (contracts.ValidationError).
func (c Config) Validate() error {
	if err := fetch.CheckURL(c.URL); err != nil {
		return contracts.Invalid("URL", "openprovider URL %v", err)
	}
	if c.URL == "" {
		return nil
	}
	u, _ := url.Parse(c.URL) // CheckURL parsed it
	if cur := u.Query().Get("currency"); cur != "" && !strings.EqualFold(cur, requested) {
		return contracts.Invalid("URL", "asks for currency %q: this source reads unlabelled prices as %s, so it must ask for %s", cur, requested, requested)
	}
	return nil
}

// Source fetches Openprovider's price list.
type Source struct {
	url    string
	client *fetch.Client
	now    func() time.Time
}

var _ ingest.Source = (*Source)(nil)

var _ ingest.Describer = (*Source)(nil)

// Describe implements ingest.Describer.
func (s *Source) Describe() ingest.Description {
	return ingest.OneRegistrar(contracts.SourceSite, s.url, requested, contracts.TaxExcluded, Name, "Openprovider", "https://www.openprovider.com")
}

// New returns a Source that fetches with client and stamps what it observes
// with now() (time.Now when nil).
func New(cfg Config, client *fetch.Client, now func() time.Time) (*Source, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if client == nil {
		return nil, errors.New("openprovider source needs a fetch client")
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
// answer depends on the URL alone.
func (s *Source) Fetch(ctx context.Context) (*ingest.List, error) {
	resp, err := s.client.Get(ctx, s.url, http.Header{"Accept": {"application/json"}})
	if err != nil {
		return nil, fmt.Errorf("fetch openprovider price list: %w", err)
	}
	return Parse(resp.Body, s.now())
}

// response is the document. Rows stay raw so that one odd row costs only
// its zone.
type response struct {
	Data     json.RawMessage `json:"data"`
	Currency string          `json:"currency"`
	// An error instead of a list.
	Code    json.RawMessage `json:"code"`
	Desc    string          `json:"desc"`
	Message string          `json:"message"`
	Error   json.RawMessage `json:"error"`
}

// fees are one price list's fees for a zone: the row's own (the flat
// shape) or its nonMember or member object.
type fees struct {
	RegisterFee json.RawMessage `json:"registerFee"`
	RenewalFee  json.RawMessage `json:"renewalFee"`
	TransferFee json.RawMessage `json:"transferFee"`
}

type row struct {
	TLD      string `json:"tld"`
	Currency string `json:"currency"`
	fees
	NonMember *fees `json:"nonMember"`
	Member    *fees `json:"member"`
}

// parse reads one response body of the price list into a list of price sets
// observed at observed. See the package comment for how each quirk of the
// format is read.
func parse(body []byte, observed time.Time) (*ingest.List, error) {
	var r response
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("decode openprovider price list: %w", err)
	}
	if err := r.failure(); err != nil {
		return nil, err
	}
	var rows []json.RawMessage
	if err := json.Unmarshal(r.Data, &rows); err != nil {
		return nil, fmt.Errorf("decode openprovider price list: data: %w", err)
	}
	if len(rows) == 0 {
		return nil, errors.New("openprovider price list has no zones")
	}
	var t ingest.Tally
	for i, raw := range rows {
		label, ps, err := parseRow(raw, r.Currency, observed)
		if label == "" {
			label = fmt.Sprintf("row %d", i)
		}
		t.Add(label, ps, err)
	}
	return t.List("openprovider price list")
}

// failure names the error a document without a price list reports, or
// returns nil for a document with one.
func (r *response) failure() error {
	code := strings.Trim(string(bytes.TrimSpace(r.Code)), `"`)
	failed := code != "" && code != "0" && code != "null"
	if !failed && !isNull(r.Data) {
		return nil
	}
	var msg []string
	if failed {
		msg = append(msg, "code "+code)
	}
	for _, m := range []string{r.Desc, r.Message, string(bytes.Trim(bytes.TrimSpace(r.Error), `"`))} {
		if m != "" && m != "null" {
			msg = append(msg, m)
		}
	}
	if len(msg) == 0 {
		return errors.New("openprovider price list has no data")
	}
	return fmt.Errorf("openprovider answered %s", strings.Join(msg, ": "))
}

// parseRow turns one row of data into a price set, or says why it cannot:
// an ingest.LeftOut for a row that is not a price this package publishes,
// another error for one that cannot be read. With an error the set still
// names the zone when the row did, so that its last good price can be
// kept. label names the row in the list's reasons.
func parseRow(raw json.RawMessage, docCurrency string, observed time.Time) (string, contracts.PriceSet, error) {
	ps := contracts.PriceSet{
		V: contracts.SchemaVersion, Kind: contracts.KindPriceSet, Registrar: Name,
		ObservedAt: observed, Source: Name, Tax: contracts.TaxExcluded,
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

	f := &rw.fees
	switch {
	case rw.NonMember != nil:
		f = rw.NonMember
	case isNull(f.RegisterFee) && isNull(f.RenewalFee) && isNull(f.TransferFee) && rw.Member != nil:
		return label, ps, ingest.LeftOut("only a member price, which needs a paid membership")
	}
	cur, err := rowCurrency(rw.Currency, docCurrency)
	if err != nil {
		return label, ps, err
	}
	for _, op := range []struct {
		name string
		raw  json.RawMessage
		dst  **contracts.OpPrice
	}{
		{"registerFee", f.RegisterFee, &ps.Register},
		{"renewalFee", f.RenewalFee, &ps.Renew},
		{"transferFee", f.TransferFee, &ps.Transfer},
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

// rowCurrency is the currency of a row's prices: its own, the document's,
// or the one asked for.
func rowCurrency(own, doc string) (string, error) {
	cur := strings.ToUpper(strings.TrimSpace(own))
	if cur == "" {
		cur = strings.ToUpper(strings.TrimSpace(doc))
	}
	if cur == "" {
		return requested, nil
	}
	if _, ok := contracts.CurrencyExponent(cur); !ok {
		return "", fmt.Errorf("currency %q is not an ISO 4217 code", cur)
	}
	return cur, nil
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

// amount reads one fee, a JSON number or string in cur, into minor units;
// 0 means not offered (absent, null, "", "n/a", zero).
func amount(raw json.RawMessage, cur string) (int64, error) {
	if isNull(raw) {
		return 0, nil
	}
	// A number is read by its literal digits (a float64 would round
	// them); anything but a number or a string fails money.Parse.
	t := bytes.TrimSpace(raw)
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
