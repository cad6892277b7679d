package contracts

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestMaxAmountBelowJavaScriptIntegers(t *testing.T) {
	// Ten years of the dearest price, and its conversion, stay exact in
	// a JSON number that JavaScript reads as a float64.
	if 10*MaxAmount >= 1<<53 {
		t.Errorf("10 × MaxAmount = %d reaches 2^53", 10*MaxAmount)
	}
	if err := validPriceSet().Validate(); err != nil {
		t.Fatal(err)
	}
	at := with(validPriceSet(), func(p *PriceSet) { p.Renew.Regular.Amount = MaxAmount })
	if err := at.Validate(); err != nil {
		t.Errorf("an amount of exactly MaxAmount is refused: %v", err)
	}
}

func TestConvertStaysBelowMaxAmount(t *testing.T) {
	table := NewRateTable(&Rates{Base: "EUR", Rates: map[string]string{"IRR": "1000000", "USD": "1.08"}})
	if _, ok := table.Convert(Price{Amount: MaxAmount, Currency: "USD"}, "IRR"); ok {
		t.Error("a conversion past MaxAmount succeeded")
	}
	if got, ok := table.Convert(Price{Amount: 1000, Currency: "USD"}, "IRR"); !ok || got.Amount <= 0 {
		t.Errorf("Convert(10 USD → IRR) = %v, %v", got, ok)
	}
}

// TestConvertNeverToNothing: a rate near its lower bound turns a price
// into less than a minor unit, which is no conversion (it would show as
// 0.00, every zone's cheapest), while a price of nothing stays nothing.
func TestConvertNeverToNothing(t *testing.T) {
	table := NewRateTable(&Rates{Base: "EUR", Rates: map[string]string{"JPY": "99999999", "USD": "0.0000001"}})
	if got, ok := table.Convert(Price{Amount: 1_000_000_000_000, Currency: "JPY"}, "USD"); ok {
		t.Errorf("Convert(10^12 JPY → USD) = %v, want no conversion", got)
	}
	if got, ok := table.Convert(Price{Amount: 0, Currency: "JPY"}, "USD"); !ok || got.Amount != 0 {
		t.Errorf("Convert(0 JPY → USD) = %v, %v; want 0 USD", got, ok)
	}
}

func TestCheckObserved(t *testing.T) {
	stored := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name     string
		observed time.Time
		future   bool
	}{
		{name: "before", observed: stored.Add(-time.Hour)},
		{name: "within the skew", observed: stored.Add(MaxClockSkew)},
		{name: "past the skew", observed: stored.Add(MaxClockSkew + time.Second), future: true},
		{name: "in 2199", observed: time.Date(2199, 1, 1, 0, 0, 0, 0, time.UTC), future: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := with(validPriceSet(), func(p *PriceSet) { p.ObservedAt = tt.observed })
			err := CheckObserved(ev, stored)
			if got := errors.Is(err, ErrFuture); got != tt.future {
				t.Errorf("CheckObserved = %v, want future %v", err, tt.future)
			}
			st := validStatus()
			st.ObservedAt, st.LastAttempt, st.LastSuccess = tt.observed, stored.Add(-time.Hour), nil
			if got := errors.Is(CheckObserved(st, stored), ErrFuture); got != tt.future {
				t.Errorf("CheckObserved(a status observed then) future %v, want %v", got, tt.future)
			}
			st.ObservedAt, st.LastAttempt = stored.Add(-time.Hour), tt.observed
			if err := CheckObserved(st, stored); errors.Is(err, ErrFuture) != tt.future || (tt.future && !strings.Contains(err.Error(), "last_attempt")) {
				t.Errorf("CheckObserved(a status whose last attempt is then) = %v, want future %v, naming last_attempt", err, tt.future)
			}
		})
	}
}

func TestRateJump(t *testing.T) {
	prev := &Rates{Rates: map[string]string{"USD": "1.0830", "JPY": "163.50", "GBP": "0.8390"}}
	tests := []struct {
		name string
		next map[string]string
		want string
	}{
		{name: "a normal day", next: map[string]string{"USD": "1.0912", "JPY": "161.02", "GBP": "0.8412"}},
		{name: "a devaluation by half", next: map[string]string{"USD": "1.0830", "JPY": "327.00"}},
		{name: "a new currency", next: map[string]string{"USD": "1.0830", "INR": "90.1"}},
		{name: "a currency that vanished", next: map[string]string{"JPY": "163.50"}},
		{name: "five times dearer", next: map[string]string{"USD": "1.0830", "JPY": "817.51"}, want: "JPY"},
		{name: "a ten-millionth", next: map[string]string{"USD": "0.0000001"}, want: "USD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, _ := RateJump(prev, &Rates{Rates: tt.next})
			if got != tt.want {
				t.Errorf("RateJump = %q, want %q", got, tt.want)
			}
		})
	}
}
