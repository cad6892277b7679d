// Package namecom reads name.com's TLD price list through its Core API:
// GET https://api.name.com/core/v1/tldpricing?perPage=1000&page=N&duration=1
// with HTTP Basic authentication (account username and API token), page by
// page. This is the "TLD Price List" operation (operationId TldPriceList) of
// the name.com Core API, documented at
// docs.name.com/docs/api-reference/tld-pricing/tld-price-list with its
// OpenAPI description (Core API 1.33). One page looks like this:
//
//	{"lastPage":3,"nextPage":2,"totalCount":2400,"from":1,"to":1000,
//	 "pricing":[{"tld":"com","duration":1,
//	   "registrationPrice":9.99,"registrationRetailPrice":10.99,"registrationOriginalPrice":11.99,
//	   "renewalPrice":9.99,"renewalRetailPrice":10.99,"renewalOriginalPrice":11.99,
//	   "domainRestorationPrice":120.99,"domainRestorationRetailPrice":130.99,"domainRestorationOriginalPrice":140.99,
//	   "transferInPrice":19.99,"transferInRetailPrice":20.99,"transferInOriginalPrice":21.99}, ...]}
//
// Every price is in US dollars and is a JSON number (double) or null. The
// older API v4 (api.name.com/v4) documents no price list of all TLDs, only
// prices of single domains, so this package relies on the Core API's
// TldPriceList alone. The sandbox is api.dev.name.com, with the username
// suffixed "-test" and a sandbox token.
//
// Paging: perPage defaults to 25 and may be at most 1000; this package asks
// for 1000. nextPage names the next page and is null (or absent, or 0) on
// the last one; lastPage is only populated while more pages follow. Fetch
// follows nextPage until it ends, refuses a nextPage that does not move
// forward and stops with an error after 1000 pages, so a misbehaving server
// cannot make it loop. When every page has arrived, fewer rows than the
// last page's totalCount means the listing ended early: an error, not a
// partial list. Any failed page fails the whole fetch. Parse reads one page
// body; Fetch merges the pages.
//
// How the format is read, decision by decision:
//
//   - duration is always requested as 1, because the documentation
//     contradicts itself on the default (its text says 1, its schema says 5).
//     A row for another duration is left out; a row without one is taken to
//     be for the one year asked for.
//   - Each tld is a zone of its own ("co.uk" is not folded into "uk"); IDN
//     TLDs arrive in Unicode ("みんな") and are normalised to their A-label
//     with contracts.NormalizeZone; a tld that does not normalise is skipped.
//   - name.com gives three prices per operation: the account-level price
//     (registrationPrice, renewalPrice, transferInPrice: the caller's own
//     price, with any account discounts), the retail price (…RetailPrice:
//     the public site's price of the day, with public sales) and the
//     original price (…OriginalPrice: name.com's MSRP before any discount).
//     The regular price is the original price; the retail price, when lower,
//     is a promotion (with no end date: name.com gives none). A retail price
//     above the original one is what customers pay, so it becomes the
//     regular price. The account-level price stands in for a missing retail
//     price (the docs' own example has no retail fields, and name.com says
//     the two match for an account without account-level pricing), and for
//     a missing original price after the retail price; it is otherwise not
//     read, because an account discount is not a public price. Restoration
//     prices are not read.
//   - null means the operation is not offered: the documentation says so of
//     the account-level price ("registrationPrice = null means registrations
//     are not currently available"), so a null or absent account-level price
//     makes the operation nil whatever the other two say, and a zone with
//     no operation offered is left out. (API v4 omitted fields at zero; the
//     Core API schema marks every price required and nullable. Should a
//     zero price ever be omitted, it reads as not offered: a missing price,
//     never a wrong one.)
//   - A zero price means different things by operation. For registration
//     and renewal it is not a free operation but a missing one: nobody
//     gives names away, so a zero account-level price reads as not offered
//     (nil), like null, and a zero retail price is not a free sale but a
//     missing retail price (the account-level price stands in, as above).
//     A registration or renewal is thus never published at 0, regular or
//     promotional. For transferIn 0 is a real price (a free transfer, or a
//     free transfer promotion). A zone left with no operation, or with
//     nothing but a free transfer, is not a zone anyone sells that way: it
//     is left out, not skipped.
//   - Prices are decoded as json.Number and read by their literal digits with
//     money.Parse, never through a float: 3.9899999999999998 is 399 cents
//     (rounded half up at the cent). A price in a JSON string is read the
//     same way. A negative price, exponent notation or any other unreadable
//     value makes the whole zone unusable: it is skipped rather than
//     published with an operation silently missing. A row that does not
//     decode costs only its zone; a page that does not decode, or has no
//     "pricing" array, fails the fetch.
//   - A zone listed twice (on one page, or on two pages when the list shifted
//     between requests) keeps its first listing; the other is skipped.
//
// A row left out (another duration, nothing offered, only a free transfer) is
// not a price this package publishes: its zone is withdrawn like one that
// left the list. A row skipped could not be read: it is counted in the
// list's Skipped (zoneprice_ingest_rows_skipped_total, and the runner logs
// it), and when its tld is a zone, that zone keeps its last good price
// (Keep) rather than being withdrawn.
//
// HTTP 401 and 403 mean the credentials are wrong: they fail at once, naming
// the environment variables to check, and are not retried. The error names
// the rows left out and skipped only when nothing usable remains.
package namecom

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/kit"
	"github.com/zoneprice/zoneprice/ingest/money"
)

// Name is the source's name and name.com's registrar id.
const Name = "namecom"

// DefaultURL is the production TLD price list endpoint.
const DefaultURL = "https://api.name.com/core/v1/tldpricing"

// SandboxURL is the sandbox TLD price list endpoint; it takes the username
// with "-test" appended and a sandbox token.
const SandboxURL = "https://api.dev.name.com/core/v1/tldpricing"

// MaxPerPage is the most rows name.com returns per page, and the default.
const MaxPerPage = 1000

// MaxPages is the most pages one fetch follows.
const MaxPages = 1000

// currency is the only currency name.com prices in.
const currency = "USD"

// Config configures a Source.
type Config struct {
	// URL is the TLD price list endpoint; empty means DefaultURL.
	URL string
	// Username is the name.com account username.
	Username string
	// Token is the account's API token. It is a secret: it is sent in the
	// Authorization header only and redacted from every error.
	Token string
	// PerPage is the number of rows asked for per page; zero means
	// MaxPerPage.
	PerPage int
}

// Validate reports a configuration that cannot work, naming the field
// (contracts.ValidationError).
func (c Config) Validate() error {
	if err := fetch.CheckURL(c.URL); err != nil {
		return contracts.Invalid("URL", "namecom URL %v", err)
	}
	switch {
	case strings.TrimSpace(c.Username) == "":
		return contracts.Invalid("Username", "is required: the name.com account username")
	case strings.TrimSpace(c.Token) == "":
		return contracts.Invalid("Token", "is required: the name.com API token")
	case c.PerPage < 0 || c.PerPage > MaxPerPage:
		return contracts.Invalid("PerPage", "%d is not between 1 and %d", c.PerPage, MaxPerPage)
	}
	return nil
}

// Source fetches name.com's price list.
type Source struct {
	url     *url.URL
	perPage int
	auth    string
	secrets []string
	client  *fetch.Client
	now     func() time.Time
}

var _ ingest.Source = (*Source)(nil)

var _ ingest.Describer = (*Source)(nil)

// Describe implements ingest.Describer.
func (s *Source) Describe() ingest.Description {
	return ingest.OneRegistrar(contracts.SourceAPI, s.url.String(), currency, contracts.TaxUnknown, Name, "Name.com", "https://www.name.com")
}

// New returns a Source that fetches with client and stamps what it observes
// with now() (time.Now when nil).
func New(cfg Config, client *fetch.Client, now func() time.Time) (*Source, error) {
	now, err := fetch.Ready(Name, cfg, client, now)
	if err != nil {
		return nil, err
	}
	raw := cfg.URL
	if raw == "" {
		raw = DefaultURL
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, contracts.Invalid("URL", "%v", err)
	}
	perPage := cfg.PerPage
	if perPage == 0 {
		perPage = MaxPerPage
	}
	token := strings.TrimSpace(cfg.Token)
	cred := base64.StdEncoding.EncodeToString([]byte(strings.TrimSpace(cfg.Username) + ":" + token))
	return &Source{
		url: u, perPage: perPage, auth: "Basic " + cred, secrets: []string{token, cred},
		client: client, now: now,
	}, nil
}

// Name implements ingest.Source.
func (s *Source) Name() string { return Name }

// pageURL is the address of one page of the list.
func (s *Source) pageURL(page int) string {
	u := *s.url
	q := u.Query()
	q.Set("perPage", strconv.Itoa(s.perPage))
	q.Set("page", strconv.Itoa(page))
	q.Set("duration", "1")
	u.RawQuery = q.Encode()
	return u.String()
}

// Fetch implements ingest.Source: it reads every page and merges them, or
// fails as a whole.
func (s *Source) Fetch(ctx context.Context) (*ingest.List, error) {
	observed := s.now()
	var (
		acc   accumulator
		rows  int
		total int
	)
	for page, n := 1, 1; ; n++ {
		if n > MaxPages {
			return nil, fmt.Errorf("name.com price list has more than %d pages", MaxPages)
		}
		resp, err := s.client.Do(ctx, fetch.Request{
			URL:     s.pageURL(page),
			Header:  http.Header{"Authorization": {s.auth}, "Accept": {"application/json"}},
			Secrets: s.secrets,
		})
		if err != nil {
			return nil, s.redact(s.fetchErr(page, err))
		}
		p, err := parsePage(resp.Body, observed)
		if err != nil {
			return nil, s.redact(fmt.Errorf("name.com price list page %d: %w", page, err))
		}
		acc.add(p)
		rows += p.rows
		total = p.totalCount
		if p.nextPage == 0 {
			break
		}
		if p.nextPage <= page {
			return nil, fmt.Errorf("name.com price list page %d points back to page %d", page, p.nextPage)
		}
		page = p.nextPage
	}
	if rows < total {
		return nil, fmt.Errorf("name.com price list ended after %d of %d rows", rows, total)
	}
	return acc.list()
}

// fetchErr wraps an HTTP failure of one page, saying which credentials to
// check when name.com refused them.
func (s *Source) fetchErr(page int, err error) error {
	var se *fetch.StatusError
	if errors.As(err, &se) && (se.Status == http.StatusUnauthorized || se.Status == http.StatusForbidden) {
		return fmt.Errorf("fetch namecom price list page %d: name.com refused the credentials (check the configured username and API token; sandbox usernames end in -test): %w",
			page, err)
	}
	return fmt.Errorf("fetch namecom price list page %d: %w", page, err)
}

// redact replaces the token and the encoded credentials in err's message,
// in case the server echoes them.
func (s *Source) redact(err error) error { return fetch.Redact(err, s.secrets...) }

// Parse reads a saved price list, for an import from a file: one page that is the whole
// list, or a JSON array of every page in order ([page1, page2, ...]). A
// list that stops at a page pointing to a next one, or holds fewer rows than
// totalCount, is refused: importing part of the list would withdraw the
// zones on the missing pages.
func Parse(body []byte, observed time.Time) (*ingest.List, error) {
	bodies, err := ingest.SavedPages(body, "name.com price list")
	if err != nil {
		return nil, err
	}
	var (
		acc         accumulator
		rows, total int
	)
	for i, b := range bodies {
		p, err := parsePage(b, observed)
		if err != nil {
			return nil, fmt.Errorf("name.com price list page %d: %w", i+1, err)
		}
		acc.add(p)
		rows += p.rows
		total = p.totalCount
		if i == len(bodies)-1 && p.nextPage != 0 {
			return nil, fmt.Errorf("name.com price list: the saved pages stop before page %d; save every page, as a JSON array of the pages", p.nextPage)
		}
	}
	if rows < total {
		return nil, fmt.Errorf("name.com price list: the saved pages hold %d of %d rows", rows, total)
	}
	return acc.list()
}

// response is one page; lastPage, from and to are not needed. Rows stay
// raw so that one odd row costs only its zone.
type response struct {
	NextPage   *int               `json:"nextPage"`
	TotalCount *int               `json:"totalCount"`
	Pricing    *[]json.RawMessage `json:"pricing"`
	Message    string             `json:"message"`
	Details    string             `json:"details"`
}

type entry struct {
	TLD      json.RawMessage `json:"tld"`
	Duration json.RawMessage `json:"duration"`

	RegistrationPrice         json.RawMessage `json:"registrationPrice"`
	RegistrationRetailPrice   json.RawMessage `json:"registrationRetailPrice"`
	RegistrationOriginalPrice json.RawMessage `json:"registrationOriginalPrice"`
	RenewalPrice              json.RawMessage `json:"renewalPrice"`
	RenewalRetailPrice        json.RawMessage `json:"renewalRetailPrice"`
	RenewalOriginalPrice      json.RawMessage `json:"renewalOriginalPrice"`
	TransferInPrice           json.RawMessage `json:"transferInPrice"`
	TransferInRetailPrice     json.RawMessage `json:"transferInRetailPrice"`
	TransferInOriginalPrice   json.RawMessage `json:"transferInOriginalPrice"`
}

// page is what one page body holds.
type page struct {
	prices     []contracts.PriceSet
	skipped    []string        // rows that could not be read
	leftOut    []string        // rows that are not a price published here
	keep       map[string]bool // subjects of skipped rows naming a zone
	rows       int
	nextPage   int
	totalCount int
}

// parsePage decodes one page; it fails only when the page as a whole
// cannot be read.
func parsePage(body []byte, observed time.Time) (*page, error) {
	var r response
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	if r.Pricing == nil {
		if r.Message != "" {
			msg := r.Message
			if r.Details != "" {
				msg += ": " + r.Details
			}
			return nil, fmt.Errorf("name.com answered %q", msg)
		}
		return nil, errors.New("page has no pricing")
	}
	p := &page{rows: len(*r.Pricing), keep: map[string]bool{}}
	if r.NextPage != nil {
		p.nextPage = *r.NextPage
	}
	if r.TotalCount != nil {
		p.totalCount = *r.TotalCount
	}
	for i, raw := range *r.Pricing {
		ps, err := parseEntry(raw, observed)
		switch {
		case errors.As(err, new(ingest.LeftOut)):
			p.leftOut = append(p.leftOut, fmt.Sprintf("row %d: %v", i+1, err))
		case err != nil:
			p.skipped = append(p.skipped, fmt.Sprintf("row %d: %v", i+1, err))
			if ps.Zone != "" {
				p.keep[ps.Subject()] = true
			}
		default:
			p.prices = append(p.prices, ps)
		}
	}
	return p, nil
}

// accumulator merges pages, keeping each zone's first listing.
type accumulator struct {
	prices  []contracts.PriceSet
	skipped []string
	leftOut []string
	keep    map[string]bool
	seen    map[string]bool
}

func (a *accumulator) add(p *page) {
	if a.seen == nil {
		a.seen, a.keep = map[string]bool{}, map[string]bool{}
	}
	a.skipped = append(a.skipped, p.skipped...)
	a.leftOut = append(a.leftOut, p.leftOut...)
	maps.Copy(a.keep, p.keep)
	for _, ps := range p.prices {
		if a.seen[ps.Zone] {
			a.skipped = append(a.skipped, fmt.Sprintf("%s: listed twice", ps.Zone))
			continue
		}
		a.seen[ps.Zone] = true
		a.prices = append(a.prices, ps)
	}
}

// list returns the merged list. Keep holds the zones of rows that could not
// be read, less those another row priced.
func (a *accumulator) list() (*ingest.List, error) {
	if len(a.prices) == 0 {
		all := slices.Concat(a.skipped, a.leftOut)
		return nil, fmt.Errorf("no usable zone in name.com price list: %d skipped: %s", len(all), ingest.SkipSummary(all))
	}
	prices := slices.Clone(a.prices)
	slices.SortFunc(prices, func(x, y contracts.PriceSet) int { return strings.Compare(x.Zone, y.Zone) })
	keep := maps.Clone(a.keep)
	for i := range prices {
		delete(keep, prices[i].Subject())
	}
	var kept []string
	if len(keep) > 0 {
		kept = slices.Sorted(maps.Keys(keep))
	}
	return &ingest.List{Prices: prices, Keep: kept, Skipped: len(a.skipped)}, nil
}

// parseEntry turns one row into a price set, or says why it cannot: a
// ingest.LeftOut for a row that is not a price published here, another error for
// one that cannot be read. With an error the set still names the zone when
// the tld is one, so that its last good price can be kept.
func parseEntry(raw json.RawMessage, observed time.Time) (contracts.PriceSet, error) {
	ps := contracts.PriceSet{
		V: contracts.SchemaVersion, Kind: contracts.KindPriceSet, Registrar: Name,
		ObservedAt: observed, Source: Name,
	}
	var e entry
	if err := json.Unmarshal(raw, &e); err != nil {
		return ps, fmt.Errorf("row does not decode: %w", err)
	}
	var tld string
	if err := json.Unmarshal(e.TLD, &tld); err != nil || isNull(e.TLD) {
		return ps, fmt.Errorf("tld %s is not a string", e.TLD)
	}
	z, zerr := contracts.NormalizeZone(strings.TrimSpace(tld))
	if zerr == nil {
		ps.Zone = z.ASCII
	}
	if d, err := decimalText(e.Duration); err == nil {
		if strings.TrimSpace(d) != "1" {
			return ps, ingest.LeftOut(fmt.Sprintf("%s: duration %s is not one year", tld, d))
		}
	} else if !errors.Is(err, money.ErrNoPrice) {
		return ps, fmt.Errorf("%s: duration: %w", tld, err)
	}
	if zerr != nil {
		return ps, zerr
	}
	for _, f := range []struct {
		name                      string
		account, retail, original json.RawMessage
		dst                       **contracts.OpPrice
		zeroIsFree                bool // false: a zero price is a missing one
	}{
		{"registration", e.RegistrationPrice, e.RegistrationRetailPrice, e.RegistrationOriginalPrice, &ps.Register, false},
		{"renewal", e.RenewalPrice, e.RenewalRetailPrice, e.RenewalOriginalPrice, &ps.Renew, false},
		{"transferIn", e.TransferInPrice, e.TransferInRetailPrice, e.TransferInOriginalPrice, &ps.Transfer, true},
	} {
		op, err := opPrice(f.account, f.retail, f.original, f.zeroIsFree)
		if err != nil {
			return ps, fmt.Errorf("%s: %s: %w", z.ASCII, f.name, err)
		}
		*f.dst = op
	}
	ops := ps.Ops()
	if !slices.ContainsFunc(ops[:], func(o *contracts.OpPrice) bool { return o != nil }) {
		return ps, ingest.LeftOut(z.ASCII + ": no operation offered")
	}
	if !slices.ContainsFunc(ops[:], func(o *contracts.OpPrice) bool { return o != nil && o.Regular.Amount > 0 }) {
		return ps, ingest.LeftOut(z.ASCII + ": nothing priced but a free transfer")
	}
	return ps, nil
}

// opPrice reads one operation's three prices; nil when it is not offered.
// Unless zeroIsFree, a zero price is read as a missing one.
func opPrice(accountRaw, retailRaw, originalRaw json.RawMessage, zeroIsFree bool) (*contracts.OpPrice, error) {
	account, err := price(accountRaw)
	if err != nil {
		return nil, fmt.Errorf("account-level price: %w", err)
	}
	if account == nil || (*account == 0 && !zeroIsFree) {
		return nil, nil
	}
	retail, err := price(retailRaw)
	if err != nil {
		return nil, fmt.Errorf("retail price: %w", err)
	}
	if retail != nil && *retail == 0 && !zeroIsFree {
		retail = nil
	}
	original, err := price(originalRaw)
	if err != nil {
		return nil, fmt.Errorf("original price: %w", err)
	}
	current := retail
	if current == nil {
		current = account
	}
	regular := current
	if original != nil && *original > 0 {
		regular = original
	}
	o := &contracts.OpPrice{Regular: contracts.Price{Amount: max(*regular, *current), Currency: currency}}
	if *current < o.Regular.Amount {
		o.Promo = &contracts.Promo{Price: contracts.Price{Amount: *current, Currency: currency}}
	}
	return o, nil
}

// price reads one price in cents; nil when it is null or absent.
func price(raw json.RawMessage) (*int64, error) {
	text, err := decimalText(raw)
	if errors.Is(err, money.ErrNoPrice) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	v, err := money.Parse(text, currency)
	if err != nil {
		return nil, err
	}
	return &v, nil
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

// decimalText returns the decimal a JSON number (or string) holds, as
// text, without going through a float. Absent and null give
// money.ErrNoPrice.
func decimalText(raw json.RawMessage) (string, error) {
	// The kit reads the literal in place; a json.Decoder per price was
	// most of this parser's time.
	text, err := kit.DecimalText(raw)
	switch {
	case errors.Is(err, money.ErrNoPrice):
		return "", err
	case err != nil:
		return "", fmt.Errorf("%s is neither a number nor a string", raw)
	case bytes.TrimSpace(raw)[0] == '"' && strings.TrimSpace(text) == "":
		return "", errors.New(`"" is not a price`)
	}
	return text, nil
}
