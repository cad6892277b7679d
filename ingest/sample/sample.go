// Package sample is a SYNTHETIC SAMPLE source: made-up registrar prices that
// let the service run end to end before real registrar adapters exist. None
// of its prices are real. They are deterministic, spread like real price
// lists (markups, promotions, renewal traps, missing transfers, several
// currencies) and published through NATS like any other ingester's, but
// they must never be shown as real: every registrar id starts with
// "sample-" and every price set and the rates carry source "sample".
//
// The zones themselves are real: they are the builtin catalog of package
// iana (the ICANN section of the Public Suffix List bundled with
// github.com/weppos/publicsuffix-go), and their metadata is that catalog's,
// derived by documented rules from public facts, so it carries source
// "builtin" rather than "sample".
package sample

import (
	"context"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/iana"
)

// SourceName is the source of every price set and of the rates this package
// produces, and the name the runner knows it by.
const SourceName = contracts.SampleSource

// MetaSource is the source of the zone metadata: not sample data, but the
// iana package's builtin catalog, derived by rule from the Public Suffix
// List and IANA's published types.
const MetaSource = iana.BuiltinSource

// sampleRates are fixed sample exchange rates, not a market feed: one EUR
// buys this much of each currency on RatesDate. INR is left out on purpose
// even though sample-india prices in it, so that consumers meet a currency
// they have no rate for and must handle "no known rate".
func sampleRates() map[string]string {
	return map[string]string{"USD": "1.0830", "GBP": "0.8390", "JPY": "163.50"}
}

// RatesDate is the date the fixed sample rates claim to be from.
const RatesDate = "2026-11-20"

// inrPerEUR converts the sample's USD wholesale prices into rupees for
// sample-india. It is deliberately not published with the rates.
const inrPerEUR = "95.20"

// Source serves the sample list. It is stateless apart from its clock.
type Source struct {
	now func() time.Time
}

var _ ingest.Source = (*Source)(nil)

// New returns a Source that stamps events with now(). A nil now means
// time.Now.
func New(now func() time.Time) *Source {
	if now == nil {
		now = time.Now
	}
	return &Source{now: now}
}

// Name implements ingest.Source.
func (s *Source) Name() string { return SourceName }

// Fetch implements ingest.Source. It returns the same list on every call,
// except for ObservedAt: the sample registrars' prices for every zone they
// sell, metadata for every zone, and the fixed sample rates.
func (s *Source) Fetch(ctx context.Context) (*ingest.List, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cat, err := iana.Builtin()
	if err != nil {
		return nil, err
	}
	observed := s.now()
	p, err := newPricer(cat)
	if err != nil {
		return nil, err
	}
	zones := cat.Zones()
	regs := sampleRegistrars(len(named))
	var prices []contracts.PriceSet
	for i := range regs {
		for _, z := range zones {
			if !priced(z.ASCII) {
				continue
			}
			if !soldByAll(z.ASCII) && p.draw(&regs[i], z.ASCII, drawSells)%100 >= uint64(regs[i].coverage) {
				continue
			}
			prices = append(prices, p.priceSet(&regs[i], z.ASCII, observed))
		}
	}
	metas := cat.Metas(observed)
	rates := contracts.Rates{
		V: contracts.SchemaVersion, Kind: contracts.KindRates, Base: "EUR", Date: RatesDate,
		Rates: sampleRates(), ObservedAt: observed, Source: SourceName,
	}
	return &ingest.List{Prices: prices, Zones: metas, Rates: []contracts.Rates{rates}}, nil
}

// Generate builds a synthetic stream of exactly len(zones) × registrars price
// sets, for benchmarks and load tests: every registrar sells every zone given.
// The first registrars are the named sample registrars; the rest are
// "sample-r017", "sample-r018" and so on, pricing in USD.
func Generate(zones []contracts.Zone, registrars int, observed time.Time) ([]contracts.PriceSet, error) {
	cat, err := iana.Builtin()
	if err != nil {
		return nil, err
	}
	p, err := newPricer(cat)
	if err != nil {
		return nil, err
	}
	regs := sampleRegistrars(registrars)
	out := make([]contracts.PriceSet, 0, len(zones)*len(regs))
	for i := range regs {
		for _, z := range zones {
			out = append(out, p.priceSet(&regs[i], z.ASCII, observed))
		}
	}
	return out, nil
}
