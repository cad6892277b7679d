// Package eventtest builds the events of package contracts for tests:
// short builders for the shapes tests use, each filling in the schema
// version, the kind and Source, so that an event is valid whenever its
// arguments are. A test that needs another source, or a field made
// invalid, changes the field of the event it gets back.
package eventtest

import (
	"fmt"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
)

// Source is the source every builder's event names.
const Source = "test"

// Money is an amount in minor units of currency.
func Money(currency string, minor int64) contracts.Price {
	return contracts.Price{Amount: minor, Currency: currency}
}

// Regular is an operation's price without a promotion.
func Regular(currency string, minor int64) *contracts.OpPrice {
	return &contracts.OpPrice{Regular: Money(currency, minor)}
}

// Promo is an operation's price with a promotion that ends at endsAt, or
// never when it is nil.
func Promo(currency string, regular, promo int64, endsAt *time.Time) *contracts.OpPrice {
	return &contracts.OpPrice{
		Regular: Money(currency, regular),
		Promo:   &contracts.Promo{Price: Money(currency, promo), EndsAt: endsAt},
	}
}

// PriceSet is registrar's prices for zone as observed; an operation it
// does not offer is nil.
func PriceSet(registrar, zone string, observed time.Time, register, renew, transfer *contracts.OpPrice) *contracts.PriceSet {
	return &contracts.PriceSet{
		V: contracts.SchemaVersion, Kind: contracts.KindPriceSet,
		Registrar: registrar, Zone: zone,
		Register: register, Renew: renew, Transfer: transfer,
		ObservedAt: observed, Source: Source,
	}
}

// Priced is a price set offering all three operations at regular prices in
// one currency.
func Priced(registrar, zone string, observed time.Time, currency string, register, renew, transfer int64) *contracts.PriceSet {
	return PriceSet(registrar, zone, observed, Regular(currency, register), Regular(currency, renew), Regular(currency, transfer))
}

// RegisterOnly is a price set offering registration alone, at a regular
// price.
func RegisterOnly(registrar, zone string, observed time.Time, currency string, register int64) *contracts.PriceSet {
	return PriceSet(registrar, zone, observed, Regular(currency, register), nil, nil)
}

// Withdrawal says registrar no longer sells zone.
func Withdrawal(registrar, zone string, observed time.Time) *contracts.Withdrawal {
	return &contracts.Withdrawal{
		V: contracts.SchemaVersion, Kind: contracts.KindWithdrawal,
		Registrar: registrar, Zone: zone, ObservedAt: observed, Source: Source,
	}
}

// ZoneMeta describes zone, its Unicode form computed from it. A zone
// contracts.NormalizeZone refuses is a broken fixture: it panics.
func ZoneMeta(zone, typ string, observed time.Time, categories ...string) *contracts.ZoneMeta {
	z, err := contracts.NormalizeZone(zone)
	if err != nil {
		panic(fmt.Sprintf("eventtest.ZoneMeta(%q): %v", zone, err))
	}
	return &contracts.ZoneMeta{
		V: contracts.SchemaVersion, Kind: contracts.KindZoneMeta,
		Zone: zone, Unicode: z.Unicode, Type: typ, Categories: categories,
		ObservedAt: observed, Source: Source,
	}
}

// Rates are the exchange rates from base, dated the day they were
// observed.
func Rates(observed time.Time, base string, rates map[string]string) *contracts.Rates {
	return &contracts.Rates{
		V: contracts.SchemaVersion, Kind: contracts.KindRates,
		Base: base, Date: observed.Format(time.DateOnly), Rates: rates,
		ObservedAt: observed, Source: Source,
	}
}

// Status is what the ingester of registrar, named name, last knew of it:
// an API source fetching every interval in USD, before tax, whose last
// round at lastAttempt succeeded and priced zones; observed then. A
// status of a failed round sets Failure and moves LastSuccess back.
func Status(registrar, name string, interval time.Duration, lastAttempt time.Time, zones int) *contracts.RegistrarStatus {
	ok := lastAttempt
	return &contracts.RegistrarStatus{
		V: contracts.SchemaVersion, Kind: contracts.KindRegistrarStatus,
		Registrar: registrar, Name: name, Website: "https://" + registrar + ".example",
		Source: Source, SourceKind: contracts.SourceAPI, Document: "https://api." + registrar + ".example/prices",
		Currency: "USD", Tax: contracts.TaxExcluded, IntervalSeconds: int64(interval / time.Second),
		LastAttempt: lastAttempt, LastSuccess: &ok, Zones: zones, ObservedAt: lastAttempt,
	}
}
