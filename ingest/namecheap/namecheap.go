// Package namecheap reads Namecheap's domain price list through its XML API:
// one call of the command namecheap.users.getPricing with
// ProductType=DOMAIN (and no ActionName, ProductCategory or ProductName, so
// that one response holds every action of every zone) to
// https://api.namecheap.com/xml.response. The answer looks like this (see
// namecheap.com/support/api/methods/users/get-pricing, and for the live
// attribute set the responses recorded by github.com/rqt/namecheap):
//
//	<ApiResponse Status="OK" xmlns="http://api.namecheap.com/xml.response">
//	  <Errors/><Warnings/>
//	  <RequestedCommand>namecheap.users.getPricing</RequestedCommand>
//	  <CommandResponse Type="namecheap.users.getPricing">
//	    <UserGetPricingResult>
//	      <ProductType Name="domains">
//	        <ProductCategory Name="register">
//	          <Product Name="com">
//	            <Price Duration="1" DurationType="YEAR" Price="10.28"
//	              PricingType="MULTIPLE" AdditionalCost="0.18"
//	              RegularPrice="13.98" RegularPriceType="MULTIPLE"
//	              RegularAdditionalCost="0.18" RegularAdditionalCostType="MULTIPLE"
//	              YourPrice="10.28" YourPriceType="MULTIPLE"
//	              YourAdditonalCost="0.18" YourAdditonalCostType="MULTIPLE"
//	              PromotionPrice="0.0" Currency="USD"/>
//	            <Price Duration="2" .../>
//
// The API needs four credentials on every call: ApiUser, ApiKey, UserName
// and ClientIp (the whitelisted IPv4 address the calls come from). They are
// sent as an application/x-www-form-urlencoded POST body, as Namecheap's own
// Go SDK (github.com/namecheap/go-namecheap-sdk) sends them, rather than in
// the query string the documentation's examples use: the fetch client logs
// and reports request URLs, and the API key must never appear in a log.
// Every error this package returns has the key replaced by "[REDACTED]" all
// the same, in case the server echoes it.
//
// How the format is read, decision by decision:
//
//   - Status other than "OK", or any <Error> under <Errors>, fails the whole
//     fetch with each error's Number and text (Namecheap answers
//     <Errors><Error Number="1011150">Invalid request IP: …</Error></Errors>
//     with HTTP 200). A body that is not one complete <ApiResponse> document
//     (truncated, HTML from a proxy) fails too: never a partial list.
//   - The documentation shows ProductType Name="DOMAIN" and category names
//     in upper case ("REGISTER"); the live API answers Name="domains" and
//     lower case ("register"). Both are read, in any case. Other product
//     types (SSL certificates, privacy) are ignored, and so are categories
//     other than register, renew and transfer ("reactivate", "restore"…).
//   - Each Product Name is a zone of its own: second-level zones such as
//     "co.uk" are priced as themselves. Names are normalised with
//     contracts.NormalizeZone; one that does not normalise is skipped.
//   - A product has one <Price> row per term. Only the row with Duration="1"
//     and DurationType="YEAR" is read: every price published is one year's.
//     A product with no such row (a zone registered for two years at least)
//     does not offer that operation for one year: nil. A product missing
//     from a category does not offer that operation either, and a zone
//     with no operation offered for one year is left out.
//   - RegularPrice is the regular price. Price is Namecheap's "final price
//     (it can be from regular, userprice, special price, promo price, tier
//     price)": when it is lower than RegularPrice it is a promotion (with no
//     end date: Namecheap gives none); when it is higher, the customer pays
//     it, so it becomes the regular price. YourPrice is the calling
//     account's own price (pricing tiers) and is not read; nor is
//     PromotionPrice, the price with the coupon given in PromotionCode, which
//     this package never sends, nor the old CouponPrice. The API account is
//     meant to be an ordinary retail account, for which Price is the public
//     price of the day.
//   - The ICANN fee is charged on top of the price: RegularAdditionalCost is
//     added to RegularPrice and AdditionalCost to Price, each falling back to
//     the other when absent (the fee does not depend on a sale). The
//     misspelled YourAdditonalCost belongs to YourPrice and is not read. An
//     absent or empty fee is zero.
//   - Namecheap writes "0.0" where it has no value (PromotionPrice="0.0"), so
//     a zero or empty RegularPrice is no price: Price stands alone as the
//     regular price; when Price is zero or empty too, the operation is not
//     offered (nil). A zero Price beside a real RegularPrice is no promotion.
//     Any other unreadable amount (letters, a negative number) makes the
//     whole zone unusable: it is skipped rather than published with an
//     operation silently missing.
//   - Each row names its Currency; a row without one is in US dollars, the
//     only currency the API bills in. A zone whose operations are priced in
//     different currencies is skipped.
//   - A product listed twice in one category keeps its first listing; two
//     names that normalise to one zone (a Unicode name and its A-label)
//     likewise keep the first. The later listing is skipped.
//
// What is left out by design (other product types and categories, terms
// other than one year, a zone with no one-year price) is not a price this
// package publishes: such a zone is withdrawn like one that left the list.
// What is skipped could not be read: a product name that is not a zone, a
// zone with an unreadable amount or currency or with mixed currencies, a
// second listing. Skipped listings and zones are counted in the list's
// Skipped (zoneprice_ingest_rows_skipped_total, and the runner logs them);
// a skipped zone whose name was read keeps its last good price (Keep)
// rather than being withdrawn. The error names them only when nothing
// usable remains.
package namecheap

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/money"
)

// Name is the source's name and Namecheap's registrar id.
const Name = "namecheap"

// DefaultURL is Namecheap's production API endpoint.
const DefaultURL = "https://api.namecheap.com/xml.response"

// SandboxURL is Namecheap's sandbox API endpoint, which needs a sandbox
// account and key of its own.
const SandboxURL = "https://api.sandbox.namecheap.com/xml.response"

// Command is the API command this package calls.
const Command = "namecheap.users.getPricing"

// defaultCurrency is the currency of a row that names none.
const defaultCurrency = "USD"

// Config configures a Source.
type Config struct {
	// URL is the API endpoint; empty means DefaultURL.
	URL string
	// APIUser is the account the API key belongs to (ApiUser).
	APIUser string
	// APIKey is the API key (ApiKey). It is a secret: it is sent in the
	// request body only and redacted from every error.
	APIKey string
	// UserName is the account the command runs for (UserName); empty means
	// APIUser, which is what it nearly always is.
	UserName string
	// ClientIP is the IPv4 address Namecheap has whitelisted for the API
	// key (ClientIp).
	ClientIP string
}

// Validate reports a configuration that cannot work, naming the field
// (contracts.ValidationError).
func (c Config) Validate() error {
	if err := fetch.CheckURL(c.URL); err != nil {
		return contracts.Invalid("URL", "namecheap URL %v", err)
	}
	switch {
	case strings.TrimSpace(c.APIUser) == "":
		return contracts.Invalid("APIUser", "is required: the namecheap API user")
	case strings.TrimSpace(c.APIKey) == "":
		return contracts.Invalid("APIKey", "is required: the namecheap API key")
	case strings.TrimSpace(c.ClientIP) == "":
		return contracts.Invalid("ClientIP", "is required: the IPv4 address namecheap has whitelisted for the API key")
	}
	if ip, err := netip.ParseAddr(strings.TrimSpace(c.ClientIP)); err != nil || !ip.Is4() {
		return contracts.Invalid("ClientIP", "%q is not an IPv4 address (namecheap accepts only IPv4)", c.ClientIP)
	}
	return nil
}

// Source fetches Namecheap's price list.
type Source struct {
	url    string
	form   url.Values
	key    string
	client *fetch.Client
	now    func() time.Time
}

var _ ingest.Source = (*Source)(nil)

var _ ingest.Describer = (*Source)(nil)

// Describe implements ingest.Describer.
func (s *Source) Describe() ingest.Description {
	return ingest.OneRegistrar(contracts.SourceAPI, s.url, defaultCurrency, contracts.TaxUnknown, Name, "Namecheap", "https://www.namecheap.com")
}

// New returns a Source that fetches with client and stamps what it observes
// with now() (time.Now when nil).
func New(cfg Config, client *fetch.Client, now func() time.Time) (*Source, error) {
	now, err := fetch.Ready(Name, cfg, client, now)
	if err != nil {
		return nil, err
	}
	u := cfg.URL
	if u == "" {
		u = DefaultURL
	}
	user := strings.TrimSpace(cfg.UserName)
	if user == "" {
		user = strings.TrimSpace(cfg.APIUser)
	}
	form := url.Values{
		"ApiUser":     {strings.TrimSpace(cfg.APIUser)},
		"ApiKey":      {strings.TrimSpace(cfg.APIKey)},
		"UserName":    {user},
		"ClientIp":    {strings.TrimSpace(cfg.ClientIP)},
		"Command":     {Command},
		"ProductType": {"DOMAIN"},
	}
	return &Source{url: u, form: form, key: strings.TrimSpace(cfg.APIKey), client: client, now: now}, nil
}

// Name implements ingest.Source.
func (s *Source) Name() string { return Name }

// Fetch implements ingest.Source.
func (s *Source) Fetch(ctx context.Context) (*ingest.List, error) {
	resp, err := s.client.Do(ctx, fetch.Request{
		Method:  http.MethodPost,
		URL:     s.url,
		Header:  http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Accept": {"application/xml, text/xml"}},
		Body:    []byte(s.form.Encode()),
		Secrets: s.secrets(),
	})
	if err != nil {
		return nil, s.redact(fmt.Errorf("fetch namecheap price list: %w", err))
	}
	list, err := Parse(resp.Body, s.now())
	if err != nil {
		return nil, s.redact(err)
	}
	return list, nil
}

// redact replaces the API key, plain or URL-encoded, in err's message.
func (s *Source) redact(err error) error { return fetch.Redact(err, s.secrets()...) }

// secrets are the API key as a request or an error may spell it.
func (s *Source) secrets() []string {
	return []string{s.key, url.QueryEscape(s.key), url.PathEscape(s.key)}
}

// apiResponse is the envelope of every API answer. The element names match
// in any XML namespace.
type apiResponse struct {
	XMLName          xml.Name       `xml:"ApiResponse"`
	Status           string         `xml:"Status,attr"`
	Errors           []apiError     `xml:"Errors>Error"`
	RequestedCommand string         `xml:"RequestedCommand"`
	Result           *pricingResult `xml:"CommandResponse>UserGetPricingResult"`
}

type apiError struct {
	Number  string `xml:"Number,attr"`
	Message string `xml:",chardata"`
}

type pricingResult struct {
	ProductTypes []productType `xml:"ProductType"`
}

type productType struct {
	Name       string     `xml:"Name,attr"`
	Categories []category `xml:"ProductCategory"`
}

type category struct {
	Name     string    `xml:"Name,attr"`
	Products []product `xml:"Product"`
}

type product struct {
	Name   string     `xml:"Name,attr"`
	Prices []priceRow `xml:"Price"`
}

// priceRow holds the attributes of one <Price> row that this package reads;
// the rest (PricingType, YourPrice, YourAdditonalCost, PromotionPrice…) are
// described in the package comment and ignored.
type priceRow struct {
	Duration              string `xml:"Duration,attr"`
	DurationType          string `xml:"DurationType,attr"`
	Price                 string `xml:"Price,attr"`
	AdditionalCost        string `xml:"AdditionalCost,attr"`
	RegularPrice          string `xml:"RegularPrice,attr"`
	RegularAdditionalCost string `xml:"RegularAdditionalCost,attr"`
	Currency              string `xml:"Currency,attr"`
}

// zoneEntry gathers one zone's operations across categories.
type zoneEntry struct {
	ps   contracts.PriceSet
	seen [contracts.NumOps]bool // operations listed already
	bad  error                  // the first reason the zone cannot be used
}

// Parse reads one response body of namecheap.users.getPricing into a list
// of price sets observed at observed. See the package comment for how each
// quirk of the format is read.
func Parse(body []byte, observed time.Time) (*ingest.List, error) {
	res, err := decode(body)
	if err != nil {
		return nil, err
	}
	zs := &zoneSets{observed: observed, byZone: map[string]*zoneEntry{}}
	if !zs.readDomains(res) {
		return nil, errors.New("namecheap price list has no domain prices")
	}
	return zs.list()
}

// decode reads a response body and returns its pricing result, or the
// error the API answered.
func decode(body []byte) (*pricingResult, error) {
	var r apiResponse
	if err := xml.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("decode namecheap price list: %w", err)
	}
	if !strings.EqualFold(r.Status, "OK") || len(r.Errors) > 0 {
		return nil, apiErr(r)
	}
	if c := strings.TrimSpace(r.RequestedCommand); c != "" && !strings.EqualFold(c, Command) {
		return nil, fmt.Errorf("namecheap answered command %q, not %s", c, Command)
	}
	if r.Result == nil {
		return nil, errors.New("namecheap price list has no UserGetPricingResult")
	}
	return r.Result, nil
}

// zoneSets gathers a price list's zones as its listings are read.
type zoneSets struct {
	observed time.Time
	order    []string // zones in order of first appearance
	byZone   map[string]*zoneEntry
	skipped  []string // listings and zones that could not be read
}

// readDomains reads every listing of the domain product types; false when
// the result has none.
func (zs *zoneSets) readDomains(res *pricingResult) bool {
	domains := false
	for _, pt := range res.ProductTypes {
		if t := strings.ToLower(strings.TrimSpace(pt.Name)); t != "domains" && t != "domain" {
			continue
		}
		domains = true
		for _, cat := range pt.Categories {
			// A category is named for the operation it prices.
			op, ok := contracts.ParseOp(strings.ToLower(strings.TrimSpace(cat.Name)))
			if !ok {
				continue
			}
			for _, p := range cat.Products {
				zs.add(cat.Name, op, p)
			}
		}
	}
	return domains
}

// add reads a product of category catName, its zone's price of op.
func (zs *zoneSets) add(catName string, op contracts.Op, p product) {
	z, err := contracts.NormalizeZone(strings.TrimSpace(p.Name))
	if err != nil {
		zs.skipped = append(zs.skipped, fmt.Sprintf("%q: %v", p.Name, err))
		return
	}
	e := zs.byZone[z.ASCII]
	if e == nil {
		e = &zoneEntry{ps: contracts.PriceSet{
			V: contracts.SchemaVersion, Kind: contracts.KindPriceSet, Registrar: Name, Zone: z.ASCII,
			ObservedAt: zs.observed, Source: Name,
		}}
		zs.byZone[z.ASCII] = e
		zs.order = append(zs.order, z.ASCII)
	}
	if e.bad != nil {
		return // counted once, with its zone
	}
	if e.seen[op] {
		zs.skipped = append(zs.skipped, fmt.Sprintf("%s %q: listed twice; the first listing stands", catName, p.Name))
		return
	}
	e.seen[op] = true
	o, err := opPrice(p.Prices)
	if err != nil {
		e.bad = fmt.Errorf("%s %s: %w", catName, p.Name, err)
		return
	}
	e.ps.SetOp(op, o)
}

// list is the zones read that can be published, by zone, or why none can.
func (zs *zoneSets) list() (*ingest.List, error) {
	var (
		prices  []contracts.PriceSet
		reasons []string // zones left out, for the error
		keep    []string // subjects of the zones skipped
	)
	for _, zone := range zs.order {
		e := zs.byZone[zone]
		err := e.bad
		if err == nil {
			err = checkSet(&e.ps)
		}
		switch {
		case errors.As(err, new(ingest.LeftOut)):
			reasons = append(reasons, fmt.Sprintf("%s: %v", zone, err))
		case err != nil:
			zs.skipped = append(zs.skipped, fmt.Sprintf("%s: %v", zone, err))
			keep = append(keep, e.ps.Subject())
		default:
			prices = append(prices, e.ps)
		}
	}
	if len(prices) == 0 {
		all := slices.Concat(zs.skipped, reasons)
		return nil, fmt.Errorf("no usable zone in namecheap price list: %d skipped: %s", len(all), ingest.SkipSummary(all))
	}
	slices.SortFunc(prices, func(a, b contracts.PriceSet) int { return strings.Compare(a.Zone, b.Zone) })
	slices.Sort(keep)
	return &ingest.List{Prices: prices, Keep: keep, Skipped: len(zs.skipped)}, nil
}

// apiErr translates an answer whose Status is not OK.
func apiErr(r apiResponse) error {
	var msgs []string
	for _, e := range r.Errors {
		msg := strings.Join(strings.Fields(e.Message), " ")
		if n := strings.TrimSpace(e.Number); n != "" {
			msg = "error " + n + ": " + msg
		}
		msgs = append(msgs, msg)
	}
	if len(msgs) == 0 {
		if r.Status == "" {
			return errors.New("namecheap answer has no status")
		}
		return fmt.Errorf("namecheap answered status %q without an error message", r.Status)
	}
	return fmt.Errorf("namecheap answered status %q: %s", r.Status, strings.Join(msgs, "; "))
}

// checkSet reports a zone that cannot be published as it stands: a
// ingest.LeftOut when it offers nothing for one year.
func checkSet(ps *contracts.PriceSet) error {
	var cur string
	priced := false
	for _, o := range ps.Ops() {
		if o == nil {
			continue
		}
		priced = true
		if cur == "" {
			cur = o.Regular.Currency
		} else if o.Regular.Currency != cur {
			return fmt.Errorf("operations priced in both %s and %s", cur, o.Regular.Currency)
		}
	}
	if !priced {
		return ingest.LeftOut("no operation priced for one year")
	}
	return nil
}

// opPrice reads one product's one-year price; nil when it has none.
func opPrice(rows []priceRow) (*contracts.OpPrice, error) {
	var row *priceRow
	for i := range rows {
		if strings.TrimSpace(rows[i].Duration) == "1" && strings.EqualFold(strings.TrimSpace(rows[i].DurationType), "YEAR") {
			row = &rows[i]
			break
		}
	}
	if row == nil {
		return nil, nil
	}
	cur := strings.ToUpper(strings.TrimSpace(row.Currency))
	if cur == "" {
		cur = defaultCurrency
	}
	if _, ok := contracts.CurrencyExponent(cur); !ok {
		return nil, fmt.Errorf("unknown currency %q", row.Currency)
	}
	regular, err := amount(row.RegularPrice, cur)
	if err != nil {
		return nil, fmt.Errorf("attribute RegularPrice: %w", err)
	}
	final, err := amount(row.Price, cur)
	if err != nil {
		return nil, fmt.Errorf("attribute Price: %w", err)
	}
	regularFee, err := fee(row.RegularAdditionalCost, row.AdditionalCost, cur)
	if err != nil {
		return nil, fmt.Errorf("attribute RegularAdditionalCost: %w", err)
	}
	finalFee, err := fee(row.AdditionalCost, row.RegularAdditionalCost, cur)
	if err != nil {
		return nil, fmt.Errorf("attribute AdditionalCost: %w", err)
	}
	switch {
	case regular == 0 && final == 0:
		return nil, nil
	case regular == 0:
		return &contracts.OpPrice{Regular: contracts.Price{Amount: final + finalFee, Currency: cur}}, nil
	case final == 0:
		return &contracts.OpPrice{Regular: contracts.Price{Amount: regular + regularFee, Currency: cur}}, nil
	}
	reg, now := regular+regularFee, final+finalFee
	switch {
	case now < reg:
		return &contracts.OpPrice{
			Regular: contracts.Price{Amount: reg, Currency: cur},
			Promo:   &contracts.Promo{Price: contracts.Price{Amount: now, Currency: cur}},
		}, nil
	case now > reg:
		return &contracts.OpPrice{Regular: contracts.Price{Amount: now, Currency: cur}}, nil
	}
	return &contracts.OpPrice{Regular: contracts.Price{Amount: reg, Currency: cur}}, nil
}

// maxAmount bounds every amount read, so that a price plus its fee cannot
// overflow: no domain costs a trillion.
const maxAmount = 1 << 52

// amount reads a price attribute in minor units; empty is zero.
func amount(s, cur string) (int64, error) {
	v, err := money.Parse(s, cur)
	if errors.Is(err, money.ErrNoPrice) && strings.TrimSpace(s) == "" {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if v > maxAmount {
		return 0, fmt.Errorf("price %q is implausibly large", s)
	}
	return v, nil
}

// fee reads a fee attribute, falling back to another when it is absent.
func fee(s, fallback, cur string) (int64, error) {
	if strings.TrimSpace(s) == "" {
		s = fallback
	}
	return amount(s, cur)
}
