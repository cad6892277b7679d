package contracts

import (
	"math"
	"testing"
)

func TestParseRate(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want int64
	}{
		{name: "one", in: "1", want: 1 * RateScale},
		{name: "one point zero", in: "1.0", want: 1 * RateScale},
		{name: "four decimals", in: "1.0823", want: 10_823_000_000},
		{name: "trailing zero", in: "157.30", want: 1_573_000_000_000},
		{name: "small", in: "0.0001", want: 1_000_000},
		{name: "ten decimals", in: "0.0000000001", want: 1},
		{name: "largest", in: "99999999.9999999999", want: 99_999_999*RateScale + 9_999_999_999},
		{name: "leading zero", in: "01.5", want: 15_000_000_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseRate(tt.in)
			if err != nil {
				t.Fatalf("ParseRate(%q) error: %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("ParseRate(%q) = %d, want %d", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseRateInvalid(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{name: "empty", in: ""},
		{name: "negative", in: "-1"},
		{name: "plus sign", in: "+1"},
		{name: "trailing dot", in: "1."},
		{name: "leading dot", in: ".5"},
		{name: "only a dot", in: "."},
		{name: "two dots", in: "1.2.3"},
		{name: "exponent", in: "1e3"},
		{name: "zero", in: "0"},
		{name: "zero point zero", in: "0.0"},
		{name: "decimal comma", in: "1,5"},
		{name: "space", in: " 1"},
		{name: "too large", in: "12345678901"},
		{name: "nine whole digits", in: "100000000"},
		{name: "eleven decimals", in: "1.12345678901"},
		{name: "below the scale", in: "0.00000000001"},
		{name: "not a number", in: "abc"},
		{name: "infinity", in: "Inf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseRate(tt.in)
			if err == nil {
				t.Errorf("ParseRate(%q) = %d, want an error", tt.in, got)
			}
		})
	}
}

func FuzzParseRate(f *testing.F) {
	for _, s := range []string{
		"1", "1.0823", "157.30", "0.0001", "99999999.9999999999",
		"", "-1", "1.", ".5", "1e3", "0", "0.0", "1,5", "12345678901", "1.12345678901",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseRate(s)
		if err != nil {
			return
		}
		if got <= 0 {
			t.Errorf("ParseRate(%q) = %d, want > 0", s, got)
		}
	})
}

// ecbRates is a table with EUR as its base, as the ECB publishes it.
func ecbRates(t *testing.T) RateTable {
	t.Helper()
	r := &Rates{
		V:    SchemaVersion,
		Kind: KindRates,
		Base: "EUR",
		Date: "2026-03-02",
		Rates: map[string]string{
			"USD": "1.0823",
			"GBP": "0.8453",
			"JPY": "157.30",
			"KWD": "0.3321",
			"XXX": "oops", // not parsed; Validate rejects such an event
		},
		Source: "ecb",
	}
	return NewRateTable(r)
}

func TestRateTableConvert(t *testing.T) {
	table := ecbRates(t)
	tests := []struct {
		name string
		in   Price
		to   string
		want Price
	}{
		// 10.00 EUR * 1.0823 = 10.823 USD.
		{name: "base to quote", in: Price{1000, "EUR"}, to: "USD", want: Price{1082, "USD"}},
		// 10.82 USD / 1.0823 = 9.99722 EUR.
		{name: "quote to base", in: Price{1082, "USD"}, to: "EUR", want: Price{1000, "EUR"}},
		// 10.00 GBP / 0.8453 * 1.0823 = 12.80374 USD.
		{name: "cross through the base", in: Price{1000, "GBP"}, to: "USD", want: Price{1280, "USD"}},
		// 10.00 EUR * 157.30 = 1573 JPY.
		{name: "to zero minor units", in: Price{1000, "EUR"}, to: "JPY", want: Price{1573, "JPY"}},
		// 1000 JPY / 157.30 = 6.35728 EUR.
		{name: "from zero minor units", in: Price{1000, "JPY"}, to: "EUR", want: Price{636, "EUR"}},
		// 1573 JPY / 157.30 = 10.00 EUR exactly.
		{name: "from zero minor units exact", in: Price{1573, "JPY"}, to: "EUR", want: Price{1000, "EUR"}},
		// 10.00 EUR * 0.3321 = 3.321 KWD, three minor digits.
		{name: "to three minor units", in: Price{1000, "EUR"}, to: "KWD", want: Price{3321, "KWD"}},
		// 0.50 EUR * 157.30 = 78.65 JPY: the half rounds up.
		{name: "half rounds up", in: Price{50, "EUR"}, to: "JPY", want: Price{79, "JPY"}},
		// 0.02 EUR * 157.30 = 3.146 JPY.
		{name: "below half rounds down", in: Price{2, "EUR"}, to: "JPY", want: Price{3, "JPY"}},
		// 0.01 EUR * 157.30 = 1.573 JPY.
		{name: "above half rounds up", in: Price{1, "EUR"}, to: "JPY", want: Price{2, "JPY"}},
		// 1 JPY / 157.30 = 0.00636 EUR, more than half a cent.
		{name: "fraction of a cent rounds up", in: Price{1, "JPY"}, to: "EUR", want: Price{1, "EUR"}},
		{name: "zero", in: Price{0, "GBP"}, to: "JPY", want: Price{0, "JPY"}},
		{name: "same currency", in: Price{968, "USD"}, to: "USD", want: Price{968, "USD"}},
		{name: "same currency not in table", in: Price{968, "CHF"}, to: "CHF", want: Price{968, "CHF"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := table.Convert(tt.in, tt.to)
			if !ok {
				t.Fatalf("Convert(%+v, %q) reported no rate", tt.in, tt.to)
			}
			if got != tt.want {
				t.Errorf("Convert(%+v, %q) = %+v, want %+v", tt.in, tt.to, got, tt.want)
			}
		})
	}
}

func TestRateTableConvertHalfUp(t *testing.T) {
	// A rate of exactly 1.5 makes the half exact: 0.03 EUR is 0.045 USD,
	// which rounds half up to 0.05 (banker's rounding would give 0.04).
	table := NewRateTable(&Rates{Base: "EUR", Rates: map[string]string{"USD": "1.5"}})
	tests := []struct {
		name string
		in   Price
		want Price
	}{
		{name: "one and a half", in: Price{1, "EUR"}, want: Price{2, "USD"}},
		{name: "four and a half", in: Price{3, "EUR"}, want: Price{5, "USD"}},
		{name: "whole", in: Price{2, "EUR"}, want: Price{3, "USD"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := table.Convert(tt.in, "USD")
			if !ok {
				t.Fatalf("Convert(%+v, USD) reported no rate", tt.in)
			}
			if got != tt.want {
				t.Errorf("Convert(%+v, USD) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestRateTableConvertUnknown(t *testing.T) {
	table := ecbRates(t)
	tests := []struct {
		name string
		in   Price
		to   string
	}{
		{name: "source not in table", in: Price{1000, "CHF"}, to: "USD"},
		{name: "target not in table", in: Price{1000, "USD"}, to: "CHF"},
		{name: "unparseable rate", in: Price{1000, "EUR"}, to: "XXX"},
		{name: "not a currency", in: Price{1000, "EUR"}, to: "ABC"},
		{name: "empty target", in: Price{1000, "EUR"}, to: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := table.Convert(tt.in, tt.to)
			if ok {
				t.Errorf("Convert(%+v, %q) = %+v, true; want false", tt.in, tt.to, got)
			}
		})
	}
}

func TestZeroRateTableConvert(t *testing.T) {
	var table RateTable
	if got, ok := table.Convert(Price{968, "USD"}, "USD"); !ok || got != (Price{968, "USD"}) {
		t.Errorf("zero RateTable Convert(968 USD, USD) = %+v, %v; want 968 USD, true", got, ok)
	}
	if got, ok := table.Convert(Price{968, "USD"}, "EUR"); ok {
		t.Errorf("zero RateTable Convert(968 USD, EUR) = %+v, true; want false", got)
	}
}

func TestNewRateTable(t *testing.T) {
	table := ecbRates(t)
	if table.Base != "EUR" || table.Date != "2026-03-02" || table.Source != "ecb" {
		t.Errorf("NewRateTable header = %q %q %q, want EUR 2026-03-02 ecb", table.Base, table.Date, table.Source)
	}
	if got, ok := table.Convert(Price{1, "EUR"}, "EUR"); !ok || got != (Price{1, "EUR"}) {
		t.Errorf("Convert(1 EUR, EUR) = %+v, %v; want 1 EUR, true", got, ok)
	}
}

func TestAppendAmount(t *testing.T) {
	tests := []struct {
		name  string
		minor int64
		exp   int
		want  string
	}{
		{name: "cents", minor: 968, exp: 2, want: "9.68"},
		{name: "leading zero decimals", minor: 5, exp: 2, want: "0.05"},
		{name: "zero", minor: 0, exp: 2, want: "0.00"},
		{name: "no minor units", minor: 1500, exp: 0, want: "1500"},
		{name: "zero without minor units", minor: 0, exp: 0, want: "0"},
		{name: "three minor units", minor: 1234, exp: 3, want: "1.234"},
		{name: "negative", minor: -5, exp: 2, want: "-0.05"},
		{name: "negative whole", minor: -1500, exp: 0, want: "-1500"},
		{name: "largest", minor: math.MaxInt64, exp: 2, want: "92233720368547758.07"},
		{name: "smallest", minor: math.MinInt64, exp: 2, want: "-92233720368547758.08"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(AppendAmount(nil, tt.minor, tt.exp)); got != tt.want {
				t.Errorf("AppendAmount(nil, %d, %d) = %q, want %q", tt.minor, tt.exp, got, tt.want)
			}
		})
	}
}

func TestAppendAmountAppends(t *testing.T) {
	got := string(AppendAmount([]byte("EUR "), 968, 2))
	if want := "EUR 9.68"; got != want {
		t.Errorf("AppendAmount(\"EUR \", 968, 2) = %q, want %q", got, want)
	}
}

func TestCurrencyExponent(t *testing.T) {
	tests := []struct {
		code   string
		want   int
		wantOK bool
	}{
		{code: "EUR", want: 2, wantOK: true},
		{code: "JPY", want: 0, wantOK: true},
		{code: "KWD", want: 3, wantOK: true},
		{code: "XYZ", wantOK: false},
		{code: "eur", wantOK: false},
		{code: "XAU", wantOK: false},
		{code: "", wantOK: false},
		{code: "EU", wantOK: false},
		{code: "EURO", wantOK: false},
		{code: "E1R", wantOK: false},
		{code: "@UR", wantOK: false},
		{code: "EU[", wantOK: false},
	}
	// The table holds every code of the list, with its exponent, and no
	// other.
	known := 0
	for _, e := range exponentTable {
		if e != 0 {
			known++
		}
	}
	if known != len(exponents) {
		t.Errorf("%d codes in the table, %d in the list", known, len(exponents))
	}
	for code, exp := range exponents {
		if got, ok := CurrencyExponent(code); !ok || got != exp {
			t.Errorf("CurrencyExponent(%q) = %d, %v; want %d, true", code, got, ok, exp)
		}
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			got, ok := CurrencyExponent(tt.code)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("CurrencyExponent(%q) = %d, %v; want %d, %v", tt.code, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}
