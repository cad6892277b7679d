// Package dynadot reads Dynadot's public price list: one GET, without a key,
// of the document Dynadot's own TLD price page loads,
//
//	https://www.dynadot.com/dynadot-vue-api/dynadot-service/domain-search?command=get_current_list&lang=en
//
// which answers with every zone Dynadot sells, about 800:
//
//	{"code":200,"msg":"success","data":{"current_tlds":[
//	  {"name":"com","reg_price":"$6.99","original_reg_price":"$10.88",
//	   "renew_price":"$10.88","original_renew_price":"-1",
//	   "tr_price":"$10.88","restore":"$100.92", ...}, ...]}}
//
// Dynadot documents no such endpoint (its documented API needs a key); it
// is the one its site uses. What is KNOWN comes from public code that reads
// it or the same rows:
//
//   - A TypeScript price-comparison adapter (found by searching public
//     GitHub code for the URL; the index names no repository) fetches this
//     exact URL, reads data.current_tlds[] with name, reg_price,
//     original_reg_price, renew_price, tr_price and restore, all strings,
//     says the list holds 800-odd zones, and reads original_reg_price
//     "-1" as no promotion and any other value as "the registration price
//     shown is a sale price".
//   - A public TLD directory's reader of Dynadot's price page (the same
//     rows, embedded in the page's Nuxt payload; found the same way) shows
//     the values: prices are strings with a currency symbol ("$10.88",
//     "$267.72"), original_reg_price and original_renew_price are "-1" or
//     the regular price while the shown one is a sale, and rows may carry
//     google_data.currency. It reports that the same URL answered in US
//     dollars and, an hour later from the same machine, in yuan ("$10.88"
//     became "¥73.80"), so it reads the currency row by row and keeps
//     prices in whatever currency Dynadot chose.
//   - Dynadot's help pages list the currencies it shows: US dollars (the
//     default for every account), pounds, euros, yuan, Canadian dollars
//     (C$), Mexican pesos (MX$), reais (R$) and rupees (Rs.).
//   - github.com/7c/domain-prices keeps a list read from Dynadot: zones as
//     A-labels ("xn--mk1bu44c"), second-level zones ("co.uk", "com.mx") as
//     their own rows, no transfer price for .uk and .co.uk, and .sexy at
//     2900 dollars (so thousands separators: "$2,900.00").
//
// How the document is read, decision by decision:
//
//   - Currency: read from each price's symbol or ISO code ("$", "US$", "€",
//     "£", "¥", "C$", "MX$", "R$", "Rs.", "₹", "USD 10.88", "10.88 EUR"),
//     and from the row's google_data.currency where it has one. Every price
//     of a row must agree; a row whose prices disagree, or that names no
//     currency at all, is skipped (the currency varies by visitor, so none
//     is assumed). "$" alone is the US dollar: Dynadot writes other dollars
//     with their prefix. No query parameter or header that asks this
//     endpoint for a currency is known (the site switches currency with a
//     page and a cookie), so the request asks for none; USD is Dynadot's
//     default.
//   - Tax: every price set says contracts.TaxExcluded. Dynadot's price
//     page (www.dynadot.com/domain/prices) says that applicable taxes are
//     added at checkout by the customer's location: KNOWN second-hand,
//     from a public price comparison of 2026-08-11 that cites the page
//     (this machine cannot read it), which also says the page's structured
//     data states the ICANN fee is included.
//   - Promotions: where original_reg_price (or original_renew_price, or
//     original_tr_price, which no sample shows: ASSUMED by analogy) is a
//     price above the shown one, the shown price is a sale: the original is
//     the regular price and the shown one a contracts.Promo on it, with no
//     end (Dynadot gives none). "-1", absent or null means no sale; an
//     original at or below the shown price is no discount, and the shown
//     price stands as the regular one.
//   - Prices are strings (a JSON number is read too, by its digits), read
//     with money.Parse after their currency mark is taken off, never
//     through a float; thousands separators ("$2,900.00") are read as such.
//     "-1", "", "-", "N/A", null or absent means the operation is not
//     offered (nil). A zero price also reads as not offered, for every
//     operation: nothing says Dynadot gives names or transfers away, so a
//     zero is left out rather than published as a free operation that may
//     not exist (ASSUMED). Any other unreadable price (an unknown symbol, a
//     decimal comma) skips the row rather than publishing it with an
//     operation silently missing, as does a price above contracts.MaxAmount.
//   - restore (restoring a deleted name) is not one of the operations this
//     service compares: it is not read. Nor are privacy, idn, restrictions,
//     usage and grace_period.
//   - Each name is a zone of its own: second-level zones ("co.uk") are
//     priced as themselves, never folded into their parent; IDNs are
//     accepted in Unicode ("닷컴") or as A-labels ("xn--mk1bu44c"), with or
//     without a leading dot, in any case, and normalised with
//     contracts.NormalizeZone. A name that does not normalise skips the
//     row. A zone listed twice keeps its first listing; the other is
//     skipped.
//   - A row offering no operation at all is left out: it is not a zone
//     Dynadot sells. Dynadot marks no names outside the DNS root (such as
//     Handshake names) in this document, so none is left out on that
//     ground (no such marker is known).
//   - A body that is not one complete JSON object (truncated, an HTML error
//     page served with 200) fails the fetch, as does one without a
//     data.current_tlds array or with an empty one, or with a "code" of 400
//     or more (ASSUMED from public scripts reading Dynadot's sibling
//     endpoints, whose envelope is {"code":200,"msg":...,"data":...} and
//     whose errors carry a code of 400 or more), naming "msg".
//
// A row left out is not a price this package publishes: its zone is
// withdrawn like one that left the list. A row skipped could not be read:
// it is counted in the list's Skipped (zoneprice_ingest_rows_skipped_total,
// and the runner logs it), and when its name is a zone, that zone keeps its
// last good price (Keep) rather than being withdrawn. The error names the
// rows left out and skipped only when nothing usable remains.
//
// The request is a plain GET of a document, made conditional with the
// validators of the last answer (fetch.Client.Get).
package dynadot

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

// Name is the source's name and Dynadot's registrar id.
const Name = "dynadot"

// DefaultURL is Dynadot's public price list.
const DefaultURL = "https://www.dynadot.com/dynadot-vue-api/dynadot-service/domain-search?command=get_current_list&lang=en"

// Config configures a Source.
type Config struct {
	// URL is the price list; empty means DefaultURL.
	URL string
}

// Validate reports a configuration that cannot work, naming the field
// (contracts.ValidationError).
func (c Config) Validate() error {
	if err := fetch.CheckURL(c.URL); err != nil {
		return contracts.Invalid("URL", "dynadot URL %v", err)
	}
	return nil
}

// Source fetches Dynadot's price list.
type Source struct {
	url    string
	client *fetch.Client
	now    func() time.Time
}

var _ ingest.Source = (*Source)(nil)

var _ ingest.Describer = (*Source)(nil)

// Describe implements ingest.Describer.
func (s *Source) Describe() ingest.Description {
	return ingest.OneRegistrar(contracts.SourceSite, s.url, "", contracts.TaxExcluded, Name, "Dynadot", "https://www.dynadot.com")
}

// New returns a Source that fetches with client and stamps what it observes
// with now() (time.Now when nil).
func New(cfg Config, client *fetch.Client, now func() time.Time) (*Source, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if client == nil {
		return nil, errors.New("dynadot source needs a fetch client")
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
		return nil, fmt.Errorf("fetch dynadot price list: %w", err)
	}
	return Parse(resp.Body, s.now())
}

// response is the document. Rows stay raw so that one odd row costs only
// its zone.
type response struct {
	Code json.RawMessage `json:"code"`
	Msg  string          `json:"msg"`
	Data *struct {
		CurrentTLDs []json.RawMessage `json:"current_tlds"`
	} `json:"data"`
}

// row is one zone of current_tlds. Each operation has the price shown and,
// during a sale, the original (regular) price.
type row struct {
	Name               string          `json:"name"`
	RegPrice           json.RawMessage `json:"reg_price"`
	OriginalRegPrice   json.RawMessage `json:"original_reg_price"`
	RenewPrice         json.RawMessage `json:"renew_price"`
	OriginalRenewPrice json.RawMessage `json:"original_renew_price"`
	TrPrice            json.RawMessage `json:"tr_price"`
	OriginalTrPrice    json.RawMessage `json:"original_tr_price"`
	GoogleData         *struct {
		Currency string `json:"currency"`
	} `json:"google_data"`
}

// parse reads one response body of the price list into a list of price sets
// observed at observed. See the package comment for how each quirk of the
// format is read.
func parse(body []byte, observed time.Time) (*ingest.List, error) {
	var r response
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("decode dynadot price list: %w", err)
	}
	code := strings.Trim(string(bytes.TrimSpace(r.Code)), `"`)
	if n, err := strconv.Atoi(code); err == nil && n >= 400 {
		return nil, fmt.Errorf("dynadot answered code %d: %s", n, r.Msg)
	}
	if r.Data == nil || r.Data.CurrentTLDs == nil {
		if r.Msg != "" {
			return nil, fmt.Errorf("dynadot price list has no current_tlds (code %s: %s)", code, r.Msg)
		}
		return nil, errors.New("dynadot price list has no current_tlds")
	}
	if len(r.Data.CurrentTLDs) == 0 {
		return nil, errors.New("dynadot price list has no zones")
	}
	var t ingest.Tally
	for i, raw := range r.Data.CurrentTLDs {
		label, ps, err := parseRow(raw, observed)
		if label == "" {
			label = fmt.Sprintf("row %d", i)
		}
		t.Add(label, ps, err)
	}
	return t.List("dynadot price list")
}

// parseRow turns one row of current_tlds into a price set, or says why it
// cannot: an ingest.LeftOut for a row that is not a price this package
// publishes, another error for one that cannot be read. With an error the
// set still names the zone when the row did, so that its last good price
// can be kept. label names the row in the list's reasons.
func parseRow(raw json.RawMessage, observed time.Time) (string, contracts.PriceSet, error) {
	ps := contracts.PriceSet{
		V: contracts.SchemaVersion, Kind: contracts.KindPriceSet, Registrar: Name,
		ObservedAt: observed, Source: Name, Tax: contracts.TaxExcluded,
	}
	rw, label, err := readRow(raw, &ps)
	if err != nil {
		return label, ps, err
	}
	cur, amounts, err := rw.amounts()
	if err != nil {
		return label, ps, err
	}
	ops := ps.Ops()
	for op := range ops {
		sale, regular := amounts[2*op], amounts[2*op+1]
		switch {
		case sale == 0:
			// not offered
		case regular > sale:
			ops[op] = &contracts.OpPrice{
				Regular: contracts.Price{Amount: regular, Currency: cur},
				Promo:   &contracts.Promo{Price: contracts.Price{Amount: sale, Currency: cur}},
			}
		default:
			ops[op] = &contracts.OpPrice{Regular: contracts.Price{Amount: sale, Currency: cur}}
		}
	}
	ps.Register, ps.Renew, ps.Transfer = ops[contracts.OpRegister], ops[contracts.OpRenew], ops[contracts.OpTransfer]
	if !slices.ContainsFunc(ops[:], func(o *contracts.OpPrice) bool { return o != nil }) {
		return label, ps, ingest.LeftOut("no operation priced")
	}
	return label, ps, nil
}

// readRow decodes a row and puts its zone in ps. label names the row,
// empty when not even its name decodes.
func readRow(raw json.RawMessage, ps *contracts.PriceSet) (rw row, label string, err error) {
	bad := json.Unmarshal(raw, &rw)
	if bad != nil {
		// The prices may be what is wrong: read what names the zone.
		var head struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(raw, &head) != nil {
			return rw, "", fmt.Errorf("row does not decode: %w", bad)
		}
		rw = row{Name: head.Name}
	}
	label = strconv.Quote(rw.Name)
	z, err := contracts.NormalizeZone(strings.TrimSpace(rw.Name))
	if err != nil {
		return rw, label, err
	}
	ps.Zone = z.ASCII
	if bad != nil {
		return rw, label, fmt.Errorf("row does not decode: %w", bad)
	}
	return rw, label, nil
}

// amounts reads the row's shown and original price of each operation, in
// the order of ops, in minor units (0 where none is shown), and the one
// currency they are in.
func (rw *row) amounts() (cur string, amounts [2 * contracts.NumOps]int64, err error) {
	fields := [len(amounts)]struct {
		name string
		raw  json.RawMessage
	}{
		{"reg_price", rw.RegPrice}, {"original_reg_price", rw.OriginalRegPrice},
		{"renew_price", rw.RenewPrice}, {"original_renew_price", rw.OriginalRenewPrice},
		{"tr_price", rw.TrPrice}, {"original_tr_price", rw.OriginalTrPrice},
	}
	if rw.GoogleData != nil {
		cur = strings.ToUpper(strings.TrimSpace(rw.GoogleData.Currency))
	}
	var texts [len(fields)]string
	for i, f := range fields {
		c, text, err := shown(f.raw)
		if err != nil {
			return "", amounts, fmt.Errorf("%s: %w", f.name, err)
		}
		switch {
		case c == "" || c == cur:
		case cur == "":
			cur = c
		default:
			return "", amounts, fmt.Errorf("%s is in %s, another price in %s", f.name, c, cur)
		}
		texts[i] = text
	}
	for i, text := range texts {
		if text == "" {
			continue
		}
		if cur == "" {
			return "", amounts, errors.New("no currency shown")
		}
		a, err := money.Parse(text, cur)
		switch {
		case err != nil:
			return "", amounts, fmt.Errorf("%s: %w", fields[i].name, err)
		case a > contracts.MaxAmount:
			return "", amounts, fmt.Errorf("%s: %q is above the ceiling of %d minor units", fields[i].name, text, contracts.MaxAmount)
		}
		amounts[i] = a
	}
	return cur, amounts, nil
}

// marks are the currency marks Dynadot writes before a price, longest
// first so that "C$" is not read as "$".
var marks = []struct{ mark, code string }{
	{"US$", "USD"}, {"CA$", "CAD"}, {"MX$", "MXN"}, {"C$", "CAD"}, {"R$", "BRL"},
	{"Rs.", "INR"}, {"Rs", "INR"}, {"₹", "INR"}, {"€", "EUR"}, {"£", "GBP"},
	{"¥", "CNY"}, {"￥", "CNY"}, {"$", "USD"},
}

// shown splits one price field into its currency (empty when it shows
// none) and its decimal text (empty when it shows no price).
func shown(raw json.RawMessage) (cur, text string, err error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return "", "", nil
	}
	s := string(t) // a number, by its literal digits
	if t[0] == '"' {
		if err := json.Unmarshal(t, &s); err != nil {
			return "", "", err
		}
	}
	s = strings.TrimSpace(strings.ReplaceAll(s, "\u00a0", " "))
	for _, m := range marks {
		if rest, ok := strings.CutPrefix(s, m.mark); ok {
			cur, s = m.code, strings.TrimSpace(rest)
			break
		}
	}
	if cur == "" && len(s) > 3 {
		if _, ok := contracts.CurrencyExponent(s[:3]); ok {
			cur, s = s[:3], strings.TrimSpace(s[3:])
		} else if _, ok := contracts.CurrencyExponent(s[len(s)-3:]); ok {
			cur, s = s[len(s)-3:], strings.TrimSpace(s[:len(s)-3])
		}
	}
	if s == "-1" {
		return cur, "", nil
	}
	// Whether the text is a price does not depend on the currency.
	if _, err := money.Parse(s, "USD"); errors.Is(err, money.ErrNoPrice) {
		return cur, "", nil
	}
	return cur, s, nil
}
