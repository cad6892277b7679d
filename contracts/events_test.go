package contracts

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata from the test's Go values")

var (
	observed  = time.Date(2026, 3, 2, 9, 15, 0, 0, time.UTC)
	promoEnds = time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
)

// goldenEvents are the example documents in testdata, one per kind, and the
// Go values they decode to.
var goldenEvents = []struct {
	file        string
	want        Event
	wantSubject string
}{
	{
		file: "price_set.json",
		want: &PriceSet{
			V: 1, Kind: KindPriceSet, Registrar: "porkbun", Zone: ".co.uk",
			Register: &OpPrice{
				Regular: Price{Amount: 968, Currency: "USD"},
				Promo:   &Promo{Price: Price{Amount: 499, Currency: "USD"}, EndsAt: &promoEnds},
			},
			Renew:      &OpPrice{Regular: Price{Amount: 968, Currency: "USD"}},
			Transfer:   &OpPrice{Regular: Price{Amount: 968, Currency: "USD"}},
			ObservedAt: observed,
			Source:     "porkbun-api",
		},
		wantSubject: "prices.v1.porkbun.co_uk",
	},
	{
		file: "price_set_jpy.json",
		want: &PriceSet{
			V: 1, Kind: KindPriceSet, Registrar: "gmo", Zone: ".jp",
			Register:   &OpPrice{Regular: Price{Amount: 3520, Currency: "JPY"}},
			Renew:      &OpPrice{Regular: Price{Amount: 4620, Currency: "JPY"}},
			ObservedAt: observed,
			Source:     "gmo-price-page",
			Tax:        TaxIncluded,
		},
		wantSubject: "prices.v1.gmo.jp",
	},
	{
		file: "withdrawal.json",
		want: &Withdrawal{
			V: 1, Kind: KindWithdrawal, Registrar: "porkbun", Zone: ".xn--p1ai",
			ObservedAt: observed,
			Source:     "porkbun-api",
		},
		wantSubject: "prices.v1.porkbun.xn--p1ai",
	},
	{
		file: "zone_meta.json",
		want: &ZoneMeta{
			V: 1, Kind: KindZoneMeta, Zone: ".xn--p1ai", Unicode: ".рф",
			Type:       TypeCountryCode,
			Categories: []string{"country", "europe", "idn"},
			ObservedAt: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC),
			Source:     "iana-root-db",
		},
		wantSubject: "zones.v1.xn--p1ai",
	},
	{
		file: "rates.json",
		want: &Rates{
			V: 1, Kind: KindRates, Base: "EUR", Date: "2026-03-02",
			Rates: map[string]string{
				"CHF": "0.9412",
				"GBP": "0.84530",
				"JPY": "157.30",
				"SEK": "11.2835",
				"USD": "1.0823",
			},
			ObservedAt: time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC),
			Source:     "ecb",
		},
		wantSubject: "rates.v1.EUR",
	},
	{
		file: "price_change.json",
		want: &PriceChange{
			V: 1, Kind: KindPriceChange, Change: ChangeChanged, Registrar: "porkbun", Zone: ".co.uk",
			Before: &Offer{
				Register: &OpPrice{
					Regular: Price{Amount: 968, Currency: "USD"},
					Promo:   &Promo{Price: Price{Amount: 499, Currency: "USD"}, EndsAt: &promoEnds},
				},
				Renew:    &OpPrice{Regular: Price{Amount: 968, Currency: "USD"}},
				Transfer: &OpPrice{Regular: Price{Amount: 968, Currency: "USD"}},
			},
			After: &Offer{
				Register: &OpPrice{Regular: Price{Amount: 968, Currency: "USD"}},
				Renew:    &OpPrice{Regular: Price{Amount: 1049, Currency: "USD"}},
				Transfer: &OpPrice{Regular: Price{Amount: 968, Currency: "USD"}},
			},
			ObservedAt: observed,
			Source:     "porkbun-api",
		},
		wantSubject: "changes.v1.porkbun.co_uk",
	},
	{
		file: "price_change_known.json",
		want: &PriceChange{
			V: 1, Kind: KindPriceChange, Change: ChangeKnown, Registrar: "gmo", Zone: ".jp",
			After: &Offer{
				Register: &OpPrice{Regular: Price{Amount: 3520, Currency: "JPY"}},
				Renew:    &OpPrice{Regular: Price{Amount: 4620, Currency: "JPY"}},
				Tax:      TaxIncluded,
			},
			ObservedAt: observed,
			Source:     "gmo-price-page",
		},
		wantSubject: "changes.v1.gmo.jp",
	},
}

// marshalGolden renders an event the way the golden files hold it: indented
// by two spaces and ending in a newline.
func marshalGolden(t *testing.T, ev Event) []byte {
	t.Helper()
	b, err := json.MarshalIndent(ev, "", "  ")
	if err != nil {
		t.Fatalf("marshal %T: %v", ev, err)
	}
	return append(b, '\n')
}

func TestDecodeGolden(t *testing.T) {
	for _, tt := range goldenEvents {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata", tt.file)
			if *update {
				if err := os.WriteFile(path, marshalGolden(t, tt.want), 0o644); err != nil {
					t.Fatalf("update golden file: %v", err)
				}
			}
			golden, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("read golden file: %v", err)
			}

			ev, err := Decode(golden)
			if err != nil {
				t.Fatalf("Decode(%s) error: %v", tt.file, err)
			}
			if !reflect.DeepEqual(ev, tt.want) {
				t.Errorf("Decode(%s) = %#v, want %#v", tt.file, ev, tt.want)
			}
			if got := ev.Subject(); got != tt.wantSubject {
				t.Errorf("Decode(%s).Subject() = %q, want %q", tt.file, got, tt.wantSubject)
			}
			if got := marshalGolden(t, ev); !bytes.Equal(got, golden) {
				t.Errorf("re-marshalled %s:\n%s\nwant (run go test -update to accept):\n%s", tt.file, got, golden)
			}
		})
	}
}

func TestDecodeIgnoresUnknownFields(t *testing.T) {
	doc := `{"v":1,"kind":"withdrawal","registrar":"porkbun","zone":".com",` +
		`"observed_at":"2026-03-02T09:15:00Z","source":"porkbun-api","reason":"added in a later release"}`
	ev, err := Decode([]byte(doc))
	if err != nil {
		t.Fatalf("Decode error: %v", err)
	}
	want := &Withdrawal{V: 1, Kind: KindWithdrawal, Registrar: "porkbun", Zone: ".com", ObservedAt: observed, Source: "porkbun-api"}
	if !reflect.DeepEqual(ev, want) {
		t.Errorf("Decode = %#v, want %#v", ev, want)
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want error
	}{
		{name: "truncated", doc: "{", want: ErrMalformedJSON},
		{name: "empty", doc: "", want: ErrMalformedJSON},
		{name: "array", doc: "[]", want: ErrMalformedJSON},
		{name: "string version", doc: `{"v":"1","kind":"rates"}`, want: ErrMalformedJSON},
		{name: "bad time", doc: `{"v":1,"kind":"rates","observed_at":"yesterday"}`, want: ErrMalformedJSON},
		{name: "trailing garbage", doc: `{"v":1,"kind":"rates"} x`, want: ErrMalformedJSON},
		{name: "unknown kind", doc: `{"v":1,"kind":"bogus"}`, want: ErrUnknownKind},
		{name: "no kind", doc: `{"v":1}`, want: ErrUnknownKind},
		{name: "null", doc: `null`, want: ErrUnknownKind},
		{name: "too large", doc: `{"v":1,"kind":"withdrawal","registrar":"porkbun","zone":".com","observed_at":"2026-03-02T09:15:00Z","source":"porkbun","pad":"` +
			strings.Repeat("x", MaxEventSize) + `"}`, want: ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := Decode([]byte(tt.doc))
			if !errors.Is(err, tt.want) {
				t.Errorf("Decode(%q) = %v, %v; want error %v", tt.doc, ev, err, tt.want)
			}
		})
	}
}

func TestDecodeValidates(t *testing.T) {
	doc := `{"v":1,"kind":"price_set","registrar":"porkbun","zone":"COM",` +
		`"register":{"regular":{"amount":968,"currency":"USD"}},` +
		`"observed_at":"2026-03-02T09:15:00Z","source":"porkbun-api"}`
	ev, err := Decode([]byte(doc))
	var verr *ValidationError
	if !errors.As(err, &verr) {
		t.Fatalf("Decode = %v, %v; want a *ValidationError", ev, err)
	}
	if verr.Field != "zone" {
		t.Errorf("Decode error field = %q, want %q", verr.Field, "zone")
	}
	if ev != nil {
		t.Errorf("Decode returned %#v with an error, want nil", ev)
	}
}

func validPriceSet() *PriceSet {
	return &PriceSet{
		V: SchemaVersion, Kind: KindPriceSet, Registrar: "porkbun", Zone: ".com",
		Register: &OpPrice{
			Regular: Price{Amount: 1082, Currency: "USD"},
			Promo:   &Promo{Price: Price{Amount: 699, Currency: "USD"}},
		},
		Renew:      &OpPrice{Regular: Price{Amount: 1082, Currency: "USD"}},
		ObservedAt: observed,
		Source:     "porkbun-api",
	}
}

func validWithdrawal() *Withdrawal {
	return &Withdrawal{
		V: SchemaVersion, Kind: KindWithdrawal, Registrar: "porkbun", Zone: ".com",
		ObservedAt: observed, Source: "porkbun-api",
	}
}

func validZoneMeta() *ZoneMeta {
	return &ZoneMeta{
		V: SchemaVersion, Kind: KindZoneMeta, Zone: ".xn--p1ai", Unicode: ".рф",
		Type: TypeCountryCode, Categories: []string{"country"},
		ObservedAt: observed, Source: "iana-root-db",
	}
}

func validRates() *Rates {
	return &Rates{
		V: SchemaVersion, Kind: KindRates, Base: "EUR", Date: "2026-03-02",
		Rates:      map[string]string{"USD": "1.0823", "JPY": "157.30"},
		ObservedAt: observed, Source: "ecb",
	}
}

// with applies change to a fresh valid event, so each case states only what
// it breaks.
func with[E Event](ev E, change func(E)) E {
	change(ev)
	return ev
}

func TestValidateValid(t *testing.T) {
	tests := []struct {
		name string
		ev   Event
	}{
		{name: "price set", ev: validPriceSet()},
		{name: "price set with transfer only", ev: with(validPriceSet(), func(p *PriceSet) {
			p.Register, p.Renew = nil, nil
			p.Transfer = &OpPrice{Regular: Price{Amount: 0, Currency: "EUR"}}
		})},
		{name: "a free promotion", ev: with(validPriceSet(), func(p *PriceSet) { p.Register.Promo.Price.Amount = 0 })},
		{name: "withdrawal", ev: validWithdrawal()},
		{name: "zone meta", ev: validZoneMeta()},
		{name: "zone meta without categories", ev: with(validZoneMeta(), func(m *ZoneMeta) { m.Categories = nil })},
		{name: "rates", ev: validRates()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.ev.Validate(); err != nil {
				t.Errorf("Validate() = %v, want nil", err)
			}
		})
	}
}

func TestValidateRejects(t *testing.T) {
	tests := []struct {
		name      string
		ev        Event
		wantField string
	}{
		{name: "unknown currency", wantField: "register.regular.currency",
			ev: with(validPriceSet(), func(p *PriceSet) { p.Register.Regular.Currency = "XYZ" })},
		{name: "empty currency", wantField: "register.regular.currency",
			ev: with(validPriceSet(), func(p *PriceSet) { p.Register.Regular.Currency = "" })},
		{name: "lower-case currency", wantField: "register.regular.currency",
			ev: with(validPriceSet(), func(p *PriceSet) { p.Register.Regular.Currency = "usd" })},
		{name: "negative amount", wantField: "renew.regular.amount",
			ev: with(validPriceSet(), func(p *PriceSet) { p.Renew.Regular.Amount = -1 })},
		{name: "registration for nothing", wantField: "register.regular.amount",
			ev: with(validPriceSet(), func(p *PriceSet) { p.Register.Regular.Amount = 0 })},
		{name: "renewal for nothing", wantField: "renew.regular.amount",
			ev: with(validPriceSet(), func(p *PriceSet) { p.Renew.Regular.Amount = 0 })},
		{name: "negative transfer amount", wantField: "transfer.regular.amount",
			ev: with(validPriceSet(), func(p *PriceSet) { p.Transfer = &OpPrice{Regular: Price{Amount: -1, Currency: "USD"}} })},
		{name: "negative promo amount", wantField: "register.promo.price.amount",
			ev: with(validPriceSet(), func(p *PriceSet) { p.Register.Promo.Price.Amount = -1 })},
		{name: "amount above the ceiling", wantField: "renew.regular.amount",
			ev: with(validPriceSet(), func(p *PriceSet) { p.Renew.Regular.Amount = MaxAmount + 1 })},
		{name: "amount past 2^53", wantField: "renew.regular.amount",
			ev: with(validPriceSet(), func(p *PriceSet) { p.Renew.Regular.Amount = 9_223_372_036_854_775_807 })},
		{name: "promo above the ceiling", wantField: "register.promo.price.amount",
			ev: with(validPriceSet(), func(p *PriceSet) { p.Register.Promo.Price.Amount = MaxAmount + 1 })},
		{name: "source with markup", wantField: "source",
			ev: with(validPriceSet(), func(p *PriceSet) { p.Source = "<script>alert(1)</script>" })},
		{name: "source with a control character", wantField: "source",
			ev: with(validWithdrawal(), func(w *Withdrawal) { w.Source = "porkbun\n" })},
		{name: "source too long", wantField: "source",
			ev: with(validWithdrawal(), func(w *Withdrawal) { w.Source = strings.Repeat("a", 33) })},
		{name: "upper-case source", wantField: "source",
			ev: with(validZoneMeta(), func(m *ZoneMeta) { m.Source = "IANA" })},
		{name: "rate too small", wantField: "rates.USD",
			ev: with(validRates(), func(r *Rates) { r.Rates = map[string]string{"USD": "0.0000000001"} })},
		{name: "unknown tax declaration", wantField: "tax",
			ev: with(validPriceSet(), func(p *PriceSet) { p.Tax = "maybe" })},
		{name: "empty registrar", wantField: "registrar",
			ev: with(validPriceSet(), func(p *PriceSet) { p.Registrar = "" })},
		{name: "upper-case registrar", wantField: "registrar",
			ev: with(validPriceSet(), func(p *PriceSet) { p.Registrar = "Porkbun" })},
		{name: "registrar with a dot", wantField: "registrar",
			ev: with(validPriceSet(), func(p *PriceSet) { p.Registrar = "pork.bun" })},
		{name: "registrar with a trailing hyphen", wantField: "registrar",
			ev: with(validWithdrawal(), func(w *Withdrawal) { w.Registrar = "porkbun-" })},
		{name: "malformed zone", wantField: "zone",
			ev: with(validPriceSet(), func(p *PriceSet) { p.Zone = "a..b" })},
		{name: "empty zone", wantField: "zone",
			ev: with(validPriceSet(), func(p *PriceSet) { p.Zone = "" })},
		{name: "upper-case zone", wantField: "zone",
			ev: with(validPriceSet(), func(p *PriceSet) { p.Zone = "COM" })},
		{name: "zone without a dot", wantField: "zone",
			ev: with(validPriceSet(), func(p *PriceSet) { p.Zone = "com" })},
		{name: "unicode zone", wantField: "zone",
			ev: with(validWithdrawal(), func(w *Withdrawal) { w.Zone = ".рф" })},
		{name: "no operations", wantField: "register",
			ev: with(validPriceSet(), func(p *PriceSet) { p.Register, p.Renew, p.Transfer = nil, nil, nil })},
		{name: "operations in two currencies", wantField: "renew.regular.currency",
			ev: with(validPriceSet(), func(p *PriceSet) {
				p.Renew = &OpPrice{Regular: Price{Amount: 100, Currency: "EUR"}}
				p.Register.Promo = nil
			})},
		{name: "promo currency differs", wantField: "register.promo.price.currency",
			ev: with(validPriceSet(), func(p *PriceSet) { p.Register.Promo.Price.Currency = "EUR" })},
		{name: "wrong version", wantField: "v",
			ev: with(validPriceSet(), func(p *PriceSet) { p.V = 2 })},
		{name: "missing version", wantField: "v",
			ev: with(validRates(), func(r *Rates) { r.V = 0 })},
		{name: "wrong kind", wantField: "kind",
			ev: with(validWithdrawal(), func(w *Withdrawal) { w.Kind = KindPriceSet })},
		{name: "zero observed_at", wantField: "observed_at",
			ev: with(validPriceSet(), func(p *PriceSet) { p.ObservedAt = time.Time{} })},
		{name: "withdrawal zero observed_at", wantField: "observed_at",
			ev: with(validWithdrawal(), func(w *Withdrawal) { w.ObservedAt = time.Time{} })},
		{name: "empty source", wantField: "source",
			ev: with(validPriceSet(), func(p *PriceSet) { p.Source = "" })},
		{name: "zone meta empty source", wantField: "source",
			ev: with(validZoneMeta(), func(m *ZoneMeta) { m.Source = "" })},
		{name: "zone meta malformed zone", wantField: "zone",
			ev: with(validZoneMeta(), func(m *ZoneMeta) { m.Zone = "-com" })},
		{name: "zone meta wrong unicode", wantField: "unicode",
			ev: with(validZoneMeta(), func(m *ZoneMeta) { m.Unicode = ".rf" })},
		{name: "zone meta unicode without dot", wantField: "unicode",
			ev: with(validZoneMeta(), func(m *ZoneMeta) { m.Unicode = "рф" })},
		{name: "unknown IANA type", wantField: "type",
			ev: with(validZoneMeta(), func(m *ZoneMeta) { m.Type = "brand" })},
		{name: "bad category", wantField: "categories[0]",
			ev: with(validZoneMeta(), func(m *ZoneMeta) { m.Categories = []string{"Tech!"} })},
		{name: "empty second category", wantField: "categories[1]",
			ev: with(validZoneMeta(), func(m *ZoneMeta) { m.Categories = []string{"tech", ""} })},
		{name: "rates unknown base", wantField: "base",
			ev: with(validRates(), func(r *Rates) { r.Base = "EURO" })},
		{name: "rates bad date", wantField: "date",
			ev: with(validRates(), func(r *Rates) { r.Date = "2026-13-45" })},
		{name: "rates date without padding", wantField: "date",
			ev: with(validRates(), func(r *Rates) { r.Date = "2026-3-2" })},
		{name: "rates date with time", wantField: "date",
			ev: with(validRates(), func(r *Rates) { r.Date = "2026-03-02T00:00:00Z" })},
		{name: "rates unknown code", wantField: "rates.XYZ",
			ev: with(validRates(), func(r *Rates) { r.Rates["XYZ"] = "1.5" })},
		{name: "rates not a number", wantField: "rates.USD",
			ev: with(validRates(), func(r *Rates) { r.Rates["USD"] = "abc" })},
		{name: "rates zero", wantField: "rates.JPY",
			ev: with(validRates(), func(r *Rates) { r.Rates["JPY"] = "0" })},
		{name: "rates empty", wantField: "rates",
			ev: with(validRates(), func(r *Rates) { r.Rates = map[string]string{} })},
		{name: "rates nil", wantField: "rates",
			ev: with(validRates(), func(r *Rates) { r.Rates = nil })},
		{name: "rates zero observed_at", wantField: "observed_at",
			ev: with(validRates(), func(r *Rates) { r.ObservedAt = time.Time{} })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.ev.Validate()
			var verr *ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("Validate() = %v, want a *ValidationError", err)
			}
			if verr.Field != tt.wantField {
				t.Errorf("Validate() field = %q (%v), want %q", verr.Field, err, tt.wantField)
			}
			if verr.Problem == "" {
				t.Errorf("Validate() problem is empty for field %q", verr.Field)
			}
		})
	}
}

func TestOpPriceCurrent(t *testing.T) {
	regular := Price{Amount: 1082, Currency: "USD"}
	promo := Price{Amount: 699, Currency: "USD"}
	ends := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		op   OpPrice
		at   time.Time
		want Price
	}{
		{name: "promo running", op: OpPrice{Regular: regular, Promo: &Promo{Price: promo, EndsAt: &ends}},
			at: ends.Add(-time.Second), want: promo},
		{name: "promo expired", op: OpPrice{Regular: regular, Promo: &Promo{Price: promo, EndsAt: &ends}},
			at: ends.Add(time.Second), want: regular},
		{name: "promo ends at that instant", op: OpPrice{Regular: regular, Promo: &Promo{Price: promo, EndsAt: &ends}},
			at: ends, want: regular},
		{name: "promo without end", op: OpPrice{Regular: regular, Promo: &Promo{Price: promo}},
			at: ends.AddDate(10, 0, 0), want: promo},
		{name: "no promo", op: OpPrice{Regular: regular}, at: ends, want: regular},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.op.Current(tt.at); got != tt.want {
				t.Errorf("Current(%v) = %+v, want %+v", tt.at, got, tt.want)
			}
		})
	}
}

func TestValidationErrorMessage(t *testing.T) {
	err := &ValidationError{Field: "zone", Problem: "must not be empty"}
	if got, want := err.Error(), "zone: must not be empty"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func FuzzDecode(f *testing.F) {
	for _, g := range goldenEvents {
		b, err := os.ReadFile(filepath.Join("testdata", g.file))
		if err != nil {
			f.Fatalf("read seed: %v", err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		"{",
		"null",
		`{"v":1,"kind":"bogus"}`,
		`{"v":1,"kind":"price_set","registrar":"porkbun","zone":".com","observed_at":"2026-03-02T09:15:00Z","source":"x"}`,
		`{"v":1,"kind":"rates","base":"EUR","date":"2026-02-30","rates":{"USD":"1.0823"},"observed_at":"2026-03-02T09:15:00Z","source":"ecb"}`,
		`{"v":1,"kind":"withdrawal","registrar":"porkbun","zone":".com","observed_at":"2026-03-02T09:15:00+05:30","source":"x"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := Decode(data)
		if err != nil {
			if ev != nil {
				t.Errorf("Decode returned %#v with error %v, want nil", ev, err)
			}
			return
		}
		if err := ev.Validate(); err != nil {
			t.Fatalf("Decode returned %#v that does not validate: %v", ev, err)
		}
		first, err := json.Marshal(ev)
		if err != nil {
			t.Fatalf("marshal decoded %#v: %v", ev, err)
		}
		again, err := Decode(first)
		if err != nil {
			t.Fatalf("Decode(%s) of a re-marshalled event: %v", first, err)
		}
		if reflect.TypeOf(again) != reflect.TypeOf(ev) {
			t.Fatalf("Decode(%s) = %T, want %T", first, again, ev)
		}
		// Times decode with a location that differs in pointer, not in
		// meaning, so the events are compared through their documents.
		second, err := json.Marshal(again)
		if err != nil {
			t.Fatalf("marshal re-decoded %#v: %v", again, err)
		}
		if !bytes.Equal(second, first) {
			t.Errorf("round trip changed the document:\n got %s\nwant %s", second, first)
		}
		if again.Subject() != ev.Subject() {
			t.Errorf("round trip changed the subject: got %q, want %q", again.Subject(), ev.Subject())
		}
	})
}

func TestSourceOf(t *testing.T) {
	for _, tc := range []struct {
		ev   Event
		want string
	}{
		{&PriceSet{Source: "porkbun"}, "porkbun"},
		{&Withdrawal{Source: "joker"}, "joker"},
		{&ZoneMeta{Source: "iana"}, "iana"},
		{&Rates{Source: "ecb"}, "ecb"},
		{&RegistrarStatus{Source: "sheet"}, "sheet"},
		{&PriceChange{Source: "sample"}, "sample"},
		{nil, ""},
	} {
		if got := SourceOf(tc.ev); got != tc.want {
			t.Errorf("SourceOf(%T) = %q, want %q", tc.ev, got, tc.want)
		}
	}
}
