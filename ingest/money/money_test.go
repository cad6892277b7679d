package money_test

import (
	"errors"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/money"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, in, currency string
		want               int64
		wantErr            error // nil: no error; errAny: some error
	}{
		{"plain", "9.68", "USD", 968, nil},
		{"thousands separator", "2,060.23", "USD", 206023, nil},
		{"millions", "1,234,567.8", "USD", 123456780, nil},
		{"no fraction", "1500", "JPY", 1500, nil},
		{"yen fraction rounds", "1500.5", "JPY", 1501, nil},
		{"trailing zeros exact", "10.8800", "USD", 1088, nil},
		{"half up", "8.875", "USD", 888, nil},
		{"below half down", "8.8749", "USD", 887, nil},
		{"spaces", " 12.00 ", "EUR", 1200, nil},
		{"zero", "0.00", "USD", 0, nil},
		{"three decimal currency", "1.5", "KWD", 1500, nil},
		{"empty", "", "USD", 0, money.ErrNoPrice},
		{"n/a", "n/a", "USD", 0, money.ErrNoPrice},
		{"N/A", "N/A", "USD", 0, money.ErrNoPrice},
		{"dash", "-", "USD", 0, money.ErrNoPrice},
		{"negative", "-1.00", "USD", 0, errAny},
		{"letters", "12a", "USD", 0, errAny},
		{"two dots", "1.2.3", "USD", 0, errAny},
		{"dot only", ".", "USD", 0, errAny},
		{"leading dot", ".5", "USD", 0, errAny},
		{"trailing dot", "5.", "USD", 0, errAny},
		{"bad group", "20,60.23", "USD", 0, errAny},
		{"leading comma", ",206.00", "USD", 0, errAny},
		{"comma decimal", "9,68", "EUR", 0, errAny},
		{"float syntax", "1e3", "USD", 0, errAny},
		{"huge", "99999999999999999999", "USD", 0, errAny},
		{"unknown currency", "1.00", "XYZ", 0, errAny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := money.Parse(tt.in, tt.currency)
			switch {
			case tt.wantErr == nil && err != nil:
				t.Fatalf("Parse(%q, %s): %v", tt.in, tt.currency, err)
			case tt.wantErr == errAny && err == nil:
				t.Fatalf("Parse(%q, %s) = %d, want an error", tt.in, tt.currency, got)
			case tt.wantErr != nil && tt.wantErr != errAny && !errors.Is(err, tt.wantErr):
				t.Fatalf("Parse(%q, %s) error = %v, want %v", tt.in, tt.currency, err, tt.wantErr)
			}
			if err == nil && got != tt.want {
				t.Errorf("Parse(%q, %s) = %d, want %d", tt.in, tt.currency, got, tt.want)
			}
		})
	}
}

var errAny = errors.New("any error")

func TestFromScaled(t *testing.T) {
	tests := []struct {
		name     string
		v        int64
		scale    int
		currency string
		want     int64
	}{
		{"ovh euro", 899000000, 8, "EUR", 899},
		{"ovh rounding", 1234567890, 8, "EUR", 1235},
		{"yen", 150000000000, 8, "JPY", 1500},
		{"scale below exponent", 5, 0, "USD", 500},
		{"zero", 0, 8, "EUR", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := money.FromScaled(tt.v, tt.scale, tt.currency)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("FromScaled(%d, %d, %s) = %d, want %d", tt.v, tt.scale, tt.currency, got, tt.want)
			}
		})
	}
	if _, err := money.FromScaled(5, 30, "EUR"); err == nil {
		t.Error("FromScaled with scale 30 gave no error")
	}
	if _, err := money.FromScaled(-1, 8, "EUR"); err == nil {
		t.Error("FromScaled(-1) gave no error")
	}
}

// FuzzParse checks that Parse never panics and that what it accepts
// round-trips: the amount printed back parses to itself.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"9.68", "2,060.23", "n/a", "", "0.00", "1,234,567.891", "-1", "1e9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := money.Parse(s, "USD")
		if err != nil {
			return
		}
		if got < 0 {
			t.Fatalf("Parse(%q) = %d, negative", s, got)
		}
		again, err := money.Parse(format(got), "USD")
		if err != nil || again != got {
			t.Fatalf("Parse(%q) = %d, but its printed form %q parses to %d, %v", s, got, format(got), again, err)
		}
	})
}

func format(cents int64) string {
	frac := cents % 100
	s := []byte{byte('0' + frac/10), byte('0' + frac%10)}
	whole := cents / 100
	var w []byte
	for {
		w = append([]byte{byte('0' + whole%10)}, w...)
		whole /= 10
		if whole == 0 {
			break
		}
	}
	return string(w) + "." + string(s)
}
