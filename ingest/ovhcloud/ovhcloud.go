// Package ovhcloud reads OVHcloud's public domain order catalog, one GET
// without a key:
//
//	https://eu.api.ovh.com/1.0/order/catalog/public/domain?ovhSubsidiary=FR
//
// It is large (about 30 MB) and shaped like every OVHcloud order catalog:
// "catalogId", "locale" {"currencyCode","subsidiary","taxRate"}, "plans",
// "products", "addons", "planFamilies". Each plan is one zone: its
// "planCode" is the zone without a dot ("com", "co.uk", "com.pl",
// "xn--6frz82g") and its "invoiceName" the dotted name (".com", or
// ".xn--6frz82g (.移动)" for an IDN). Its "pricings" list one entry per
// way to buy it, each with "capacities", "mode", "phase", "interval",
// "intervalUnit", "price", "tax" and "promotions".
//
// # What is known and what is assumed
//
// The catalog is an API OVHcloud documents (order.catalog.public in its
// API console); the decisions below read it as documented, and say where
// they assume. What public code shows of it, re-read for issue 22:
// github.com/y8/ovh-catalog-archive, hourly archives of OVHcloud's public
// order catalogs (eco/FR.json at commit 0226e36, a server catalog of the
// same schema), shows a running promotion in full: {"name",
// "description", "startDate", "endDate", "total":{"formattedValue","tax",
// "value"}, "context", "discount":{...}, "duration", "formattedValue",
// "globalQuantity", "isGlobalQuantityLimited", "minimumDuration",
// "quantity", "tags", "type":"percentage", "value"}, with dates in RFC
// 3339 and total and discount in the price's 10^-8 units, the shape this
// package reads. github.com/hellouy/domainhub adapters/ovhcloud.ts (commit
// 69342a6) reads this domain catalog's create-default (phase 0 and 1),
// transfer-default and restore-default prices and ignores promotions. The
// catalog gives the regular price and its promotions, with their ends, and
// one currency, the locale's; it has no field for an ICANN fee (whether the
// price includes one is not said: ASSUMED so, since nothing is added).
//
// How the catalog is read, decision by decision:
//
//   - Prices are integers in 10^-8 of the locale's currency ("price":
//     799000000 is 7.99), converted exactly with money.FromScaled, rounding
//     half up to the minor unit. They are BEFORE VAT: "tax" holds the VAT
//     and locale.taxRate its rate, which this package does not add. The
//     currency is the locale's (EUR for FR, GBP for GB, PLN for PL, ...); an
//     unknown currency fails the whole catalog.
//   - Registration is the "create-default" pricing whose capacities include
//     "installation" (["installation","renew"], phase 0: creation with its
//     first year). Renewal is the "create-default" pricing whose only
//     capacity is "renew" (phase 1). Transfer is the "transfer-default"
//     pricing whose capacities include "installation". Only a one-year
//     pricing counts: interval 12 with intervalUnit "month", or interval 1
//     with "year". Other modes ("create-premium", "transfer-premium",
//     "transfer-aftermarket1", "restore-default", ...) are premium,
//     aftermarket or restore prices that depend on the name or are not one
//     of the three operations: ignored. A missing pricing means the
//     operation is not offered (nil); when two matching pricings disagree
//     the operation is left out as ambiguous, and a plan whose every
//     priced operation is ambiguous is skipped.
//   - A price of 999,999 currency units or more (99999900000000) is
//     OVHcloud's placeholder for a price set per name (premium, dynamic):
//     left out, as if not offered. A transfer price of 0 is a real, free
//     operation (a .co.uk transfer costs nothing). A price that is not a
//     non-negative integer makes the plan unusable. (The domainhub client
//     above found plans priced 0 for every operation, br, gr.com and
//     net.cn among them, to be placeholders rather than free names, and
//     skips them. This package reads them as it reads any plan, and the
//     runner refuses their price sets, counted as invalid events: a
//     regular registration or renewal price of 0 is no price in the
//     contract.)
//   - A promotion on a chosen pricing becomes the operation's promotion
//     when it runs at the observation time (startDate not after it,
//     endDate after it or absent): its price is "total"."value" (or the
//     price less "discount"."value" when there is no total), its end the
//     endDate. A promotion that is no discount, has ended, has not started
//     or does not decode is ignored; of several, the cheapest wins.
//   - A plan is left out, as not a zone priced here, when its planCode is
//     not a zone (contracts.NormalizeZone fails), when a label ends in
//     "-premium" (a premium variant, not a zone), when its dotted
//     invoiceName names another zone than its planCode (a variant plan), or
//     when it has no default one-year pricing at all (a premium-only zone).
//     Its zone, if it had a price, is withdrawn like one that left the
//     catalog.
//   - A plan is skipped, as unreadable, when it does not decode, has no
//     planCode, has a price that cannot be read or only ambiguous prices,
//     or names a zone already listed (the first plan stands).
//   - A body that is not one complete JSON object (truncated, an error page)
//     or has no plans fails the fetch: never a partial list. An OVHcloud
//     API error ({"class":...,"message":...}) is named in the error.
//
// Skipped plans are counted in the list's Skipped
// (zoneprice_ingest_rows_skipped_total, and the runner logs them), and the
// zone of a skipped plan whose planCode is a zone keeps its last good price
// (Keep) rather than being withdrawn. The error names the plans left out
// and skipped only when nothing usable remains.
//
// # Fields
//
// The fields this package knows, read or deliberately ignored; any other
// is one it has never seen:
//
//   - the catalog: locale.currencyCode, plans (read); locale.subsidiary,
//     locale.taxRate, catalogId, products, addons, planFamilies (ignored);
//     class, message (an API error).
//   - a plan: planCode, invoiceName, pricings (read); product,
//     addonFamilies, configurations, consumptionConfiguration, family,
//     pricingType, blobs (ignored).
//   - a pricing: capacities, mode, interval, intervalUnit, price,
//     promotions (read); phase, tax, commitment, description,
//     engagementConfiguration, formattedPrice, mustBeCompleted, quantity,
//     repeat, strategy, type (ignored).
//   - a promotion: startDate, endDate, total.value, discount.value (read);
//     name, description, context, duration, minimumDuration, type, value,
//     formattedValue, globalQuantity, isGlobalQuantityLimited, quantity,
//     tags, and total's and discount's formattedValue and tax (ignored).
package ovhcloud

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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

// Name is the source's name and OVHcloud's registrar id.
const Name = "ovhcloud"

// DefaultSubsidiary is the OVHcloud subsidiary whose catalog is read when
// none is configured.
const DefaultSubsidiary = "FR"

// DefaultURL is the catalog of the default subsidiary.
const DefaultURL = "https://eu.api.ovh.com/1.0/order/catalog/public/domain?ovhSubsidiary=FR"

// priceScale is the power of ten OVHcloud scales catalog prices by.
const priceScale = 8

// placeholder is the smallest scaled price read as OVHcloud's stand-in for
// a price that depends on the name: 999,999 currency units.
const placeholder int64 = 999_999 * 100_000_000

// apiHost returns the API that serves a subsidiary's catalog: Europe,
// North America (which also serves Asia-Pacific and the rest of the world)
// or the United States.
func apiHost(subsidiary string) (string, bool) {
	switch subsidiary {
	case "CZ", "DE", "ES", "EU", "FI", "FR", "GB", "IE", "IT", "LT", "MA", "NL", "PL", "PT", "SN", "TN":
		return "eu.api.ovh.com", true
	case "ASIA", "AU", "CA", "IN", "QC", "SG", "WE", "WS":
		return "ca.api.ovh.com", true
	case "US":
		return "api.us.ovhcloud.com", true
	}
	return "", false
}

// Config configures a Source.
type Config struct {
	// URL is the catalog to read. Empty means the catalog of Subsidiary on
	// the API that serves it; when set, it is used as is and Subsidiary is
	// ignored.
	URL string
	// Subsidiary is the OVHcloud subsidiary whose prices to read ("FR",
	// "GB", "PL", "WE", ...); empty means DefaultSubsidiary. Prices are in
	// its currency.
	Subsidiary string
}

// Validate reports a configuration that cannot work, naming the field.
func (c Config) Validate() error {
	if c.URL != "" {
		if err := fetch.CheckURL(c.URL); err != nil {
			return fmt.Errorf("ovhcloud URL %w", err)
		}
		return nil
	}
	if _, ok := apiHost(c.subsidiary()); !ok {
		return fmt.Errorf("ovhcloud subsidiary %q is not one OVHcloud has", c.Subsidiary)
	}
	return nil
}

func (c Config) subsidiary() string {
	if c.Subsidiary == "" {
		return DefaultSubsidiary
	}
	return strings.ToUpper(strings.TrimSpace(c.Subsidiary))
}

// url is the catalog the configuration reads.
func (c Config) url() string {
	if c.URL != "" {
		return c.URL
	}
	sub := c.subsidiary()
	host, _ := apiHost(sub)
	return "https://" + host + "/1.0/order/catalog/public/domain?ovhSubsidiary=" + url.QueryEscape(sub)
}

// declaration is the source; its plans need code of their own (parse).
var declaration = kit.Declaration{
	Name: Name, Registrar: ingest.Registrar{ID: Name, Name: "OVHcloud", Website: "https://www.ovhcloud.com"},
	Kind: contracts.SourceAPI, URL: DefaultURL, What: "ovhcloud price list",
	// The public catalog's prices are before VAT, which OVHcloud adds at
	// checkout by the customer's country.
	Tax: contracts.TaxExcluded,
	Parse: func(_ *kit.Declaration, body []byte, observed time.Time) (*ingest.List, error) {
		return parse(body, observed)
	},
	Shape: format(),
}

// Source fetches OVHcloud's domain catalog, conditionally: its answer
// depends on the URL alone.
type Source = kit.Source

// New returns a Source that fetches with client and stamps what it observes
// with now() (time.Now when nil).
func New(cfg Config, client *fetch.Client, now func() time.Time) (*Source, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return kit.New(&declaration, kit.Config{URL: cfg.url()}, client, now)
}

// Parse reads one catalog body into a list of price sets observed at
// observed, with its drift from format.
func Parse(body []byte, observed time.Time) (*ingest.List, error) {
	return declaration.Read(body, observed)
}

// catalog is the part of the catalog this package reads. Plans stay raw so
// that one odd plan costs only its zone.
type catalog struct {
	Locale *struct {
		CurrencyCode string `json:"currencyCode"`
		Subsidiary   string `json:"subsidiary"`
	} `json:"locale"`
	Plans []json.RawMessage `json:"plans"`
	// An API error instead of a catalog.
	Class   string `json:"class"`
	Message string `json:"message"`
}

type plan struct {
	PlanCode    string    `json:"planCode"`
	InvoiceName string    `json:"invoiceName"`
	Pricings    []pricing `json:"pricings"`
}

type pricing struct {
	Capacities   []string        `json:"capacities"`
	Mode         string          `json:"mode"`
	Interval     json.Number     `json:"interval"`
	IntervalUnit string          `json:"intervalUnit"`
	Price        json.Number     `json:"price"`
	Promotions   json.RawMessage `json:"promotions"`
}

type promotion struct {
	StartDate string `json:"startDate"`
	EndDate   string `json:"endDate"`
	Total     *struct {
		Value json.Number `json:"value"`
	} `json:"total"`
	Discount *struct {
		Value json.Number `json:"value"`
	} `json:"discount"`
}

// parse reads one catalog body into a list of price sets observed at
// observed. See the package comment for how each quirk is read.
func parse(body []byte, observed time.Time) (*ingest.List, error) {
	var c catalog
	if err := json.Unmarshal(body, &c); err != nil {
		return nil, fmt.Errorf("decode ovhcloud catalog: %w", err)
	}
	if c.Plans == nil && c.Message != "" {
		if c.Class != "" {
			return nil, fmt.Errorf("ovhcloud answered %s: %s", c.Class, c.Message)
		}
		return nil, fmt.Errorf("ovhcloud answered: %s", c.Message)
	}
	if c.Locale == nil {
		return nil, errors.New("ovhcloud catalog has no locale")
	}
	cur := c.Locale.CurrencyCode
	if _, ok := contracts.CurrencyExponent(cur); !ok {
		return nil, fmt.Errorf("ovhcloud catalog currency %q is unknown", cur)
	}
	if len(c.Plans) == 0 {
		return nil, errors.New("ovhcloud catalog has no plans")
	}
	var t ingest.Tally
	for i, raw := range c.Plans {
		ps, err := parsePlan(raw, cur, observed)
		t.Add("plan "+strconv.Itoa(i), ps, err)
	}
	return t.List("ovhcloud catalog")
}

// errAmbiguous is an operation with two one-year prices that disagree.
var errAmbiguous = errors.New("pricings disagree")

// parsePlan turns one plan into a price set, or says why it cannot: a
// ingest.LeftOut for a plan that is not a zone priced here, another error for one
// that cannot be read. With an error the set still names the zone when the
// plan names one, so that its last good price can be kept.
func parsePlan(raw json.RawMessage, cur string, observed time.Time) (contracts.PriceSet, error) {
	ps := contracts.PriceSet{
		V: contracts.SchemaVersion, Kind: contracts.KindPriceSet, Registrar: Name,
		ObservedAt: observed, Source: Name,
		// The public catalog's prices are before VAT, which OVHcloud adds
		// at checkout by the customer's country.
		Tax: contracts.TaxExcluded,
	}
	var p plan
	bad := json.Unmarshal(raw, &p)
	if bad != nil {
		// The pricings may be what is wrong: read what names the plan.
		var head struct {
			PlanCode    string `json:"planCode"`
			InvoiceName string `json:"invoiceName"`
		}
		if json.Unmarshal(raw, &head) != nil {
			return ps, fmt.Errorf("does not decode: %w", bad)
		}
		p = plan{PlanCode: head.PlanCode, InvoiceName: head.InvoiceName}
	}
	if strings.TrimSpace(p.PlanCode) == "" {
		return ps, errors.New("no plan code")
	}
	z, err := contracts.NormalizeZone(p.PlanCode)
	if err != nil {
		return ps, ingest.LeftOut(err.Error())
	}
	for _, label := range strings.Split(z.ASCII[1:], ".") {
		if strings.HasSuffix(label, "-premium") {
			return ps, ingest.LeftOut(fmt.Sprintf("plan code %q is a premium variant", p.PlanCode))
		}
	}
	if name, ok := strings.CutPrefix(p.InvoiceName, "."); ok {
		name, _, _ = strings.Cut(name, " ") // ".xn--6frz82g (.移动)"
		if inv, err := contracts.NormalizeZone(name); err != nil || inv.ASCII != z.ASCII {
			return ps, ingest.LeftOut(fmt.Sprintf("plan code %q is invoiced as %q, another zone", p.PlanCode, p.InvoiceName))
		}
	}
	ps.Zone = z.ASCII
	if bad != nil {
		return ps, fmt.Errorf("does not decode: %w", bad)
	}
	ambiguous := false
	for _, op := range []struct {
		name, mode string
		install    bool
		dst        **contracts.OpPrice
	}{
		{"register", "create-default", true, &ps.Register},
		{"renew", "create-default", false, &ps.Renew},
		{"transfer", "transfer-default", true, &ps.Transfer},
	} {
		o, err := opPrice(p.Pricings, op.mode, op.install, cur, observed)
		if errors.Is(err, errAmbiguous) {
			ambiguous, err = true, nil // the operation is left out
		}
		if err != nil {
			return ps, fmt.Errorf("%s: %w", op.name, err)
		}
		*op.dst = o
	}
	if ps.Register == nil && ps.Renew == nil && ps.Transfer == nil {
		if ambiguous {
			return ps, fmt.Errorf("plan %q has only one-year default prices that disagree", p.PlanCode)
		}
		return ps, ingest.LeftOut(fmt.Sprintf("plan %q has no one-year default price", p.PlanCode))
	}
	return ps, nil
}

// opPrice finds the one-year pricing of mode for an operation: with
// installation among its capacities (register, transfer) or with renew as
// its only capacity (renew). nil means not offered; errAmbiguous, that two
// such pricings disagree.
func opPrice(pricings []pricing, mode string, install bool, cur string, observed time.Time) (*contracts.OpPrice, error) {
	var (
		found  *pricing
		scaled int64
	)
	for i := range pricings {
		pr := &pricings[i]
		if pr.Mode != mode || !oneYear(pr) {
			continue
		}
		if install != slices.Contains(pr.Capacities, "installation") ||
			(!install && !slices.Equal(pr.Capacities, []string{"renew"})) {
			continue
		}
		v, err := scaledInt(pr.Price)
		if err != nil {
			return nil, fmt.Errorf("price: %w", err)
		}
		if found != nil && v != scaled {
			return nil, errAmbiguous
		}
		found, scaled = pr, v
	}
	if found == nil || scaled >= placeholder {
		return nil, nil
	}
	regular, err := money.FromScaled(scaled, priceScale, cur)
	if err != nil {
		return nil, err
	}
	o := &contracts.OpPrice{Regular: contracts.Price{Amount: regular, Currency: cur}}
	o.Promo = bestPromotion(found.Promotions, scaled, cur, observed)
	if o.Promo != nil && o.Promo.Price.Amount >= regular {
		o.Promo = nil // a discount that rounds away is none
	}
	return o, nil
}

// oneYear reports whether a pricing is for a one-year term.
func oneYear(pr *pricing) bool {
	n, err := strconv.Atoi(pr.Interval.String())
	if err != nil {
		return false
	}
	return (n == 12 && pr.IntervalUnit == "month") || (n == 1 && pr.IntervalUnit == "year")
}

// scaledInt reads a catalog price: a non-negative JSON integer.
func scaledInt(n json.Number) (int64, error) {
	v, err := strconv.ParseInt(n.String(), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not an integer price", n)
	}
	if v < 0 {
		return 0, fmt.Errorf("negative price %d", v)
	}
	return v, nil
}

// bestPromotion returns the cheapest promotion of a pricing priced scaled
// that runs at observed, or nil.
func bestPromotion(raw json.RawMessage, scaled int64, cur string, observed time.Time) *contracts.Promo {
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '[' {
		return nil
	}
	var promos []json.RawMessage
	if err := json.Unmarshal(raw, &promos); err != nil {
		return nil
	}
	var best *contracts.Promo
	bestScaled := scaled
	for _, r := range promos {
		var p promotion
		if err := json.Unmarshal(r, &p); err != nil {
			continue
		}
		if p.StartDate != "" {
			start, err := time.Parse(time.RFC3339, p.StartDate)
			if err != nil || start.After(observed) {
				continue
			}
		}
		var ends *time.Time
		if p.EndDate != "" {
			end, err := time.Parse(time.RFC3339, p.EndDate)
			if err != nil || !observed.Before(end) {
				continue
			}
			end = end.UTC()
			ends = &end
		}
		var price int64
		switch {
		case p.Total != nil && p.Total.Value != "":
			v, err := scaledInt(p.Total.Value)
			if err != nil {
				continue
			}
			price = v
		case p.Discount != nil && p.Discount.Value != "":
			d, err := scaledInt(p.Discount.Value)
			if err != nil || d > scaled {
				continue
			}
			price = scaled - d
		default:
			continue
		}
		if price >= bestScaled {
			continue
		}
		amount, err := money.FromScaled(price, priceScale, cur)
		if err != nil {
			continue
		}
		bestScaled = price
		best = &contracts.Promo{Price: contracts.Price{Amount: amount, Currency: cur}, EndsAt: ends}
	}
	return best
}
