package contracts

import (
	"errors"
	"fmt"
	"time"
)

// The bounds a document must keep to. Each is far beyond anything real, and
// each keeps a malformed or hostile document from becoming public nonsense:
// a price a JavaScript client reads as another number, a conversion that
// makes every price zero, a date that freezes the service's freshness, a
// comparison grown by orders of magnitude. See contracts/README.md.
const (
	// MaxAmount is the largest amount of money, in minor units, a
	// document may carry or a conversion may produce: ten thousand
	// million in a two-decimal currency, far above any registration fee,
	// and with its ten-year sums still below 2^53 (9,007,199,254,740,992),
	// past which JavaScript clients read JSON numbers inexactly.
	MaxAmount int64 = 1_000_000_000_000

	// MinRate and MaxRate bound a reference rate, in RateScale units:
	// 0.0000001 to 99,999,999.9999999999. Real rates against any base
	// lie within (the rial against the euro is about a million; the euro
	// against the rial about a millionth).
	MinRate int64 = RateScale / 10_000_000
	MaxRate int64 = 100_000_000*RateScale - 1

	// MaxRateJump is how far one currency's rate may move between two
	// publications of a source's rates for one base: a factor of 4 up or
	// down. Real devaluations move a rate by less in a day; a rate that
	// moved more is refused by the ingester, and the last good rates stay
	// until an operator looks.
	MaxRateJump = 4

	// MaxClockSkew is how far in the future of when a document was stored
	// (or, for an ingester, of now) its observed_at may lie: clocks of
	// machines that fetch prices drift a little, never by hours.
	MaxClockSkew = 10 * time.Minute

	// MaxRegistrarsPerZone bounds how many registrars' prices one zone
	// holds: the comparison services people use list at most a few
	// hundred registrars in all. A price of one more registrar for a full
	// zone is refused.
	MaxRegistrarsPerZone = 1000
	// MaxRegistrarsPerSource bounds how many registrars one source may
	// price in one zone: a source speaks for one registrar, a third
	// party's list or an operator's price sheet for a few, the sample
	// for sixteen and the benchmark's synthetic source for 150. Past it
	// a price of one more of the source's registrars is refused, so that
	// a flood of one source's registrars fills at most a fifth of a zone
	// and never locks the other registrars out of it.
	MaxRegistrarsPerSource = 200
)

// ErrFuture is an observed_at too far after the reference time.
var ErrFuture = errors.New("observed in the future")

// ObservedAt returns when an event was observed.
func ObservedAt(ev Event) time.Time {
	switch e := ev.(type) {
	case *PriceSet:
		return e.ObservedAt
	case *Withdrawal:
		return e.ObservedAt
	case *ZoneMeta:
		return e.ObservedAt
	case *Rates:
		return e.ObservedAt
	case *PriceChange:
		return e.ObservedAt
	case *RegistrarStatus:
		return e.ObservedAt
	}
	return time.Time{}
}

// CheckObserved refuses an event observed more than MaxClockSkew after
// ref: when the stream stored it, for a query pod (so that every pod
// judges a document alike, whenever it reads it), or now, for an ingester.
// A status's last_attempt is checked too: a round dated in the future
// would keep its registrar from ever looking stale.
func CheckObserved(ev Event, ref time.Time) error {
	if at := ObservedAt(ev); at.After(ref.Add(MaxClockSkew)) {
		return futureError("observed_at", at, ref)
	}
	if s, ok := ev.(*RegistrarStatus); ok && s.LastAttempt.After(ref.Add(MaxClockSkew)) {
		return futureError("last_attempt", s.LastAttempt, ref)
	}
	return nil
}

func futureError(field string, at, ref time.Time) error {
	return fmt.Errorf("%w: %s %s is %s after %s", ErrFuture, field, at.UTC().Format(time.RFC3339), at.Sub(ref).Round(time.Second), ref.UTC().Format(time.RFC3339))
}

// RateJump reports the first currency whose rate in next moved by more
// than MaxRateJump from prev, the rates of the same base before; "" when
// none did. Currencies in only one of the two are not compared.
func RateJump(prev, next *Rates) (code string, from, to string) {
	for c, s := range next.Rates {
		old, ok := prev.Rates[c]
		if !ok {
			continue
		}
		a, err1 := ParseRate(old)
		b, err2 := ParseRate(s)
		if err1 != nil || err2 != nil {
			continue
		}
		// a and b are below 10^18, so the products fit in int64.
		if b/MaxRateJump > a || a/MaxRateJump > b {
			return c, old, s
		}
	}
	return "", "", ""
}
