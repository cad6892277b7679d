package contracts

import (
	"errors"
	"math/big"
	"slices"
)

// RateScale is the fixed-point scale of a parsed rate: a rate of 1.0823 is
// held as 10_823_000_000. Ten decimals is more than any published reference
// rate carries.
const RateScale = 10_000_000_000

const rateDecimals = 10

// ParseRate reads a positive decimal rate ("1.0823", "157.3") exactly into
// fixed point with RateScale. It never goes through a float.
func ParseRate(s string) (int64, error) {
	if s == "" {
		return 0, errors.New("empty rate")
	}
	var whole, frac int64
	digits, fracDigits := 0, 0
	seenDot := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.' && !seenDot && i > 0 && i < len(s)-1:
			seenDot = true
		case c >= '0' && c <= '9':
			if seenDot {
				fracDigits++
				if fracDigits > rateDecimals {
					return 0, errors.New("rate has more than 10 decimals")
				}
				frac = frac*10 + int64(c-'0')
			} else {
				digits++
				if digits > 8 {
					return 0, errors.New("rate too large")
				}
				whole = whole*10 + int64(c-'0')
			}
		default:
			return 0, errors.New("rate is not a plain decimal number")
		}
	}
	for range rateDecimals - fracDigits {
		frac *= 10
	}
	r := whole*RateScale + frac
	if r == 0 {
		return 0, errors.New("rate must be positive")
	}
	return r, nil
}

// RateTable converts money between currencies with one set of reference
// rates. The zero RateTable converts only a currency to itself.
type RateTable struct {
	Base   string
	Date   string
	Source string
	rates  map[string]int64
}

// NewRateTable builds a table from a validated Rates event.
func NewRateTable(r *Rates) RateTable {
	t := RateTable{Base: r.Base, Date: r.Date, Source: r.Source, rates: make(map[string]int64, len(r.Rates)+1)}
	for code, s := range r.Rates {
		if v, err := ParseRate(s); err == nil {
			t.rates[code] = v
		}
	}
	t.rates[r.Base] = RateScale
	return t
}

// Has reports whether the table converts to and from code.
func (t RateTable) Has(code string) bool {
	_, ok := t.rates[code]
	return ok
}

// Currencies lists the codes the table converts, sorted.
func (t RateTable) Currencies() []string {
	codes := make([]string, 0, len(t.rates))
	for c := range t.rates {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	return codes
}

// Convert returns p in currency to, rounded half up to to's minor unit. It
// reports false when either currency has no rate in the table, when the
// result is above MaxAmount, or when a price above 0 would round to
// nothing (a rate near its lower bound): a price shown as 0.00 would be
// every zone's cheapest.
func (t RateTable) Convert(p Price, to string) (Price, bool) {
	if p.Currency == to {
		return p, true
	}
	from, ok1 := t.rates[p.Currency]
	dst, ok2 := t.rates[to]
	expFrom, ok3 := CurrencyExponent(p.Currency)
	expTo, ok4 := CurrencyExponent(to)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return Price{}, false
	}
	// amount / 10^expFrom / from * dst * 10^expTo, in integers.
	num := new(big.Int).Mul(big.NewInt(p.Amount), big.NewInt(dst))
	den := big.NewInt(from)
	if d := expTo - expFrom; d > 0 {
		num.Mul(num, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d)), nil))
	} else if d < 0 {
		den.Mul(den, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-d)), nil))
	}
	num.Mul(num, big.NewInt(2)).Add(num, den)
	den.Mul(den, big.NewInt(2))
	num.Quo(num, den)
	if !num.IsInt64() || num.Int64() > MaxAmount || num.Sign() == 0 && p.Amount > 0 {
		return Price{}, false
	}
	return Price{Amount: num.Int64(), Currency: to}, true
}
