// Package money reads prices as registrars write them into integer minor
// units, exactly: decimal strings are read digit by digit and scaled
// integers are divided with integer arithmetic, never through float64.
package money

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/zoneprice/zoneprice/contracts"
)

// ErrNoPrice is returned for a field that says there is no price: an empty
// string, "n/a", "na", "-" or "none", in any case. Adapters decide what an
// absent price means for their format; usually the operation is not offered.
var ErrNoPrice = errors.New("no price given")

// NoPrice reports a text that says there is no price (ErrNoPrice's).
func NoPrice(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "n/a", "na", "-", "none":
		return true
	}
	return false
}

// Parse reads a non-negative decimal amount ("9.68", "2,060.23", "1500",
// " 10.8800 ") into minor units of currency. Commas are accepted only as
// thousands separators between groups of three digits before the decimal
// point. Digits beyond the currency's exponent are rounded half up to its
// minor unit: a registrar charges whole minor units, so "8.875" USD costs
// 888 cents; trailing zeros ("10.8800") are exact. A zero amount ("0.00") is
// returned as 0 without error: whether zero means free or not offered is
// the adapter's decision, documented with it.
func Parse(s, currency string) (int64, error) {
	exp, ok := contracts.CurrencyExponent(currency)
	if !ok {
		return 0, fmt.Errorf("unknown currency %q", currency)
	}
	t := strings.TrimSpace(s)
	if NoPrice(t) {
		return 0, ErrNoPrice
	}
	whole, frac, hasDot := strings.Cut(t, ".")
	if whole == "" || (hasDot && frac == "") {
		return 0, fmt.Errorf("price %q is not a decimal number", s)
	}
	digits, err := wholeDigits(whole)
	if err != nil {
		return 0, fmt.Errorf("price %q: %w", s, err)
	}
	for i := 0; i < len(frac); i++ {
		if frac[i] < '0' || frac[i] > '9' {
			return 0, fmt.Errorf("price %q is not a decimal number", s)
		}
	}
	// amount = whole digits and the first exp fraction digits, as one
	// integer; the next digit decides rounding.
	var amount uint64
	add := func(d byte) error {
		if amount > (math.MaxInt64-9)/10 {
			return fmt.Errorf("price %q is too large", s)
		}
		amount = amount*10 + uint64(d-'0')
		return nil
	}
	for i := 0; i < len(digits); i++ {
		if err := add(digits[i]); err != nil {
			return 0, err
		}
	}
	for i := range exp {
		d := byte('0')
		if i < len(frac) {
			d = frac[i]
		}
		if err := add(d); err != nil {
			return 0, err
		}
	}
	if len(frac) > exp && frac[exp] >= '5' {
		amount++
	}
	return int64(amount), nil
}

// wholeDigits returns the digits of the part before the decimal point,
// without thousands separators, or an error if the separators are not
// between groups of three.
func wholeDigits(whole string) (string, error) {
	if !strings.Contains(whole, ",") {
		for i := 0; i < len(whole); i++ {
			if whole[i] < '0' || whole[i] > '9' {
				if whole[i] == '-' {
					return "", errors.New("negative price")
				}
				return "", errors.New("not a decimal number")
			}
		}
		return whole, nil
	}
	groups := strings.Split(whole, ",")
	var b strings.Builder
	for i, g := range groups {
		if (i == 0 && (len(g) == 0 || len(g) > 3)) || (i > 0 && len(g) != 3) {
			return "", errors.New("misplaced thousands separator")
		}
		for j := 0; j < len(g); j++ {
			if g[j] < '0' || g[j] > '9' {
				return "", errors.New("not a decimal number")
			}
		}
		b.WriteString(g)
	}
	return b.String(), nil
}

// FromScaled converts an integer price scaled by 10^scaleDigits (OVHcloud
// writes 8.99 EUR as 899000000, scale 8) into minor units of currency,
// rounding half up as Parse does.
func FromScaled(v int64, scaleDigits int, currency string) (int64, error) {
	exp, ok := contracts.CurrencyExponent(currency)
	if !ok {
		return 0, fmt.Errorf("unknown currency %q", currency)
	}
	if v < 0 {
		return 0, fmt.Errorf("negative price %d", v)
	}
	if scaleDigits < exp {
		for range exp - scaleDigits {
			if v > math.MaxInt64/10 {
				return 0, fmt.Errorf("price %d is too large", v)
			}
			v *= 10
		}
		return v, nil
	}
	if scaleDigits-exp > 18 {
		return 0, fmt.Errorf("scale 10^%d is too large", scaleDigits)
	}
	div := int64(1)
	for range scaleDigits - exp {
		div *= 10
	}
	q, r := v/div, v%div
	if r*2 >= div {
		q++
	}
	return q, nil
}
