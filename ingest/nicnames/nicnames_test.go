package nicnames_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/nicnames"
)

var observed = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// wantZones is how many zones the fixture prices: 21 rows of
// nicnames.com less .pl and .com.pl, which offer nothing.
const wantZones = 19

// checkRequest says what is wrong with a request that is not a plain GET
// of the document.
func checkRequest(r *http.Request) error {
	if r.Method != http.MethodGet || r.ContentLength > 0 || r.URL.RawQuery != "" {
		return fmt.Errorf("%s %s with %d bytes", r.Method, r.URL, r.ContentLength)
	}
	return nil
}

func newAPI(t *testing.T, body []byte) (*ingesttest.API, *httptest.Server) {
	t.Helper()
	return ingesttest.NewAPI(t, body, checkRequest)
}

func newSource(t testing.TB, url string, hc *http.Client) *nicnames.Source {
	t.Helper()
	src, err := nicnames.New(nicnames.Config{URL: url}, ingesttest.Client(hc), func() time.Time { return observed })
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func byZone(t testing.TB, list *ingest.List) map[string]contracts.PriceSet {
	t.Helper()
	return ingesttest.CheckList(t, list, nicnames.Name, nicnames.Name, observed)
}

// opIn is an operation's regular price in minor units of currency.
func opIn(amount int64, currency string) *contracts.OpPrice {
	return &contracts.OpPrice{Regular: contracts.Price{Amount: amount, Currency: currency}}
}

func op(cents int64) *contracts.OpPrice { return opIn(cents, "USD") }

func TestFetch(t *testing.T) {
	_, srv := newAPI(t, ingesttest.Fixture(t, "prices.json"))
	list, err := newSource(t, srv.URL, nil).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := byZone(t, list)
	if len(got) != wantZones {
		t.Errorf("got %d zones, want %d", len(got), wantZones)
	}
	if list.Skipped != 0 || list.Keep != nil {
		t.Errorf("skipped %d, keep %q; zones not sold are left out, and other registrars' rows are not read", list.Skipped, list.Keep)
	}
	// The fixture's ICANNfee is 0.20: generic, sponsored and
	// generic-restricted top-level zones cost 20 cents more than listed.
	tests := []struct {
		name, zone                string
		register, renew, transfer *contracts.OpPrice
	}{
		{"gTLD with the ICANN fee added", ".com", op(1192), op(1192), op(1199)},
		{"cheaper first year", ".org", op(998), op(1218), op(1218)},
		{"ccTLD has no ICANN fee", ".io", op(3998), op(5498), op(5498)},
		{"second-level zone, empty transfer not offered, no fee", ".co.uk", op(549), op(549), nil},
		{"free transfer", ".uk", op(549), op(549), op(0)},
		{"thousands separator", ".security", op(206043), op(206043), op(206043)},
		{"IDN gTLD as A-label carries the fee", ".xn--q9jyb4c", op(919), op(2919), op(2919)},
		{"IDN ccTLD in Unicode, no fee", ".xn--p1ai", op(499), op(799), nil},
		{"sponsored TLD carries the fee", ".asia", op(1319), op(1519), op(1519)},
		{"generic-restricted TLD carries the fee", ".biz", op(1719), op(2019), op(2019)},
		{"n/a transfer not offered", ".es", op(699), op(899), nil},
		{"prices as JSON numbers", ".xyz", op(219), op(1318), op(1318)},
		{"three-value row has no transfer", ".me", op(398), op(1998), nil},
		{"upper-case second-level zone, zero transfer is free", ".com.au", op(1299), op(1299), op(0)},
		{"leading dot", ".app", op(1518), op(1518), op(1518)},
		{"values after the fourth are not read", ".club", op(218), op(1618), op(1618)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok := got[tt.zone]
			if !ok {
				t.Fatalf("no price set for %s", tt.zone)
			}
			ingesttest.CheckOps(t, p, tt.register, tt.renew, tt.transfer)
			if p.Tax != contracts.TaxUnknown {
				t.Errorf("%s tax = %q, want %q", tt.zone, p.Tax, contracts.TaxUnknown)
			}
		})
	}
	for _, zone := range []string{".pl", ".com.pl", ".bad"} {
		if _, ok := got[zone]; ok {
			t.Errorf("%s is listed; it should not be", zone)
		}
	}
}

// doc is a document whose nicnames.com entry has the given currency and
// fee (JSON values, "" to leave the field out) and rows.
func doc(currency, fee string, rows ...string) string {
	var fields []string
	fields = append(fields, `"name":"nicnames.com"`)
	if currency != "" {
		fields = append(fields, `"currency":`+currency)
	}
	if fee != "" {
		fields = append(fields, `"ICANNfee":`+fee)
	}
	fields = append(fields, `"prices":[`+strings.Join(rows, ",")+`]`)
	return `{"registrars":[{` + strings.Join(fields, ",") + `}]}`
}

// TestParseQuirks covers the format's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	const com = `["com","10.00","10.00","10.00"]`
	tests := []struct {
		name    string
		body    string
		zone    string
		want    *contracts.PriceSet // nil: the zone must be absent
		wantErr string              // non-empty: Parse fails with this in the message
		skipped int                 // rows that could not be read
		keep    []string            // zones whose last good price stays
	}{
		{
			name: "no ICANN fee: prices as listed",
			body: doc(`"USD"`, "", com),
			zone: ".com", want: set(".com", op(1000), op(1000), op(1000)),
		},
		{
			name: "zero ICANN fee",
			body: doc(`"USD"`, `"0.00"`, com),
			zone: ".com", want: set(".com", op(1000), op(1000), op(1000)),
		},
		{
			name: "null ICANN fee",
			body: doc(`"USD"`, `null`, com),
			zone: ".com", want: set(".com", op(1000), op(1000), op(1000)),
		},
		{
			name: "ICANN fee as a number",
			body: doc(`"USD"`, `0.18`, com),
			zone: ".com", want: set(".com", op(1018), op(1018), op(1018)),
		},
		{
			name: "ICANN fee added to a free gTLD transfer",
			body: doc(`"USD"`, `"0.20"`, `["com","10.00","10.00","0.00"]`),
			zone: ".com", want: set(".com", op(1020), op(1020), op(20)),
		},
		{
			name: "ICANN fee not added to a second-level zone under a gTLD",
			body: doc(`"USD"`, `"0.20"`, `["us.com","20.00","20.00","20.00"]`),
			zone: ".us.com", want: set(".us.com", op(2000), op(2000), op(2000)),
		},
		{
			name: "ICANN fee not added to a two-letter TLD the catalog does not know",
			body: doc(`"USD"`, `"0.20"`, `["zz","20.00","20.00","20.00"]`),
			zone: ".zz", want: set(".zz", op(2000), op(2000), op(2000)),
		},
		{
			name: "ICANN fee added to an ASCII TLD the catalog does not know",
			body: doc(`"USD"`, `"0.20"`, `["zzzz","20.00","20.00","20.00"]`),
			zone: ".zzzz", want: set(".zzzz", op(2020), op(2020), op(2020)),
		},
		{
			name: "IDN TLD the catalog does not know is skipped when a fee is due",
			body: doc(`"USD"`, `"0.20"`, `["テスト","20.00","20.00","20.00"]`, com),
			zone: ".xn--zckzah", skipped: 1, keep: []string{"prices.v1.nicnames.xn--zckzah"},
		},
		{
			name: "IDN TLD the catalog does not know is priced when no fee is due",
			body: doc(`"USD"`, `"0"`, `["テスト","20.00","20.00","20.00"]`),
			zone: ".xn--zckzah", want: set(".xn--zckzah", op(2000), op(2000), op(2000)),
		},
		{
			name: "currency read from the document",
			body: doc(`"eur"`, `"0.20"`, com),
			zone: ".com", want: set(".com", opIn(1020, "EUR"), opIn(1020, "EUR"), opIn(1020, "EUR")),
		},
		{
			name: "currency without minor units",
			body: doc(`"JPY"`, "", `["jp","1,500","1,500",""]`),
			zone: ".jp", want: set(".jp", opIn(1500, "JPY"), opIn(1500, "JPY"), nil),
		},
		{
			name: "zero registration is not offered",
			body: doc(`"USD"`, "", `["com","0.00","10.00","10.00"]`),
			zone: ".com", want: set(".com", nil, op(1000), op(1000)),
		},
		{
			name: "nothing but a free transfer is left out",
			body: doc(`"USD"`, "", `["pl","0","0","0"]`, com),
			zone: ".pl",
		},
		{
			name: "dash and null prices are not offered",
			body: doc(`"USD"`, "", `["com","10.00","-",null]`),
			zone: ".com", want: set(".com", op(1000), nil, nil),
		},
		{
			name: "unicode and A-label rows keep the first",
			body: doc(`"USD"`, "", `["みんな","9.00","9.00","9.00"]`, `["xn--q9jyb4c","8.00","8.00","8.00"]`),
			zone: ".xn--q9jyb4c", want: set(".xn--q9jyb4c", op(900), op(900), op(900)), skipped: 1,
		},
		{
			name: "unreadable price skips the zone and keeps its last price",
			body: doc(`"USD"`, "", `["net","TBD","10.00","10.00"]`, com),
			zone: ".net", skipped: 1, keep: []string{"prices.v1.nicnames.net"},
		},
		{
			name: "negative price skips the zone",
			body: doc(`"USD"`, "", `["net","-1","10.00","10.00"]`, com),
			zone: ".net", skipped: 1, keep: []string{"prices.v1.nicnames.net"},
		},
		{
			name: "misplaced thousands separator skips the zone",
			body: doc(`"USD"`, "", `["net","1,00.00","10.00","10.00"]`, com),
			zone: ".net", skipped: 1, keep: []string{"prices.v1.nicnames.net"},
		},
		{
			name: "price over the ceiling skips the zone",
			body: doc(`"USD"`, "", `["net","99999999999999","10.00","10.00"]`, com),
			zone: ".net", skipped: 1, keep: []string{"prices.v1.nicnames.net"},
		},
		{
			name: "price that is an object skips the zone",
			body: doc(`"USD"`, "", `["net",{"amount":"10.00"},"10.00","10.00"]`, com),
			zone: ".net", skipped: 1, keep: []string{"prices.v1.nicnames.net"},
		},
		{
			name: "row that is not an array is skipped",
			body: doc(`"USD"`, "", `{"tld":"net"}`, com),
			zone: ".net", skipped: 1,
		},
		{
			name: "row without a price is skipped",
			body: doc(`"USD"`, "", `["net"]`, com),
			zone: ".net", skipped: 1, keep: []string{"prices.v1.nicnames.net"},
		},
		{
			name: "tld that is not a string is skipped",
			body: doc(`"USD"`, "", `[42,"10.00","10.00","10.00"]`, com),
			zone: ".com", want: set(".com", op(1000), op(1000), op(1000)), skipped: 1,
		},
		{
			name: "tld that is not a zone is skipped",
			body: doc(`"USD"`, "", `["foo bar","10.00","10.00","10.00"]`, com),
			zone: ".foo bar", skipped: 1,
		},
		{
			name: "entry name in another case",
			body: `{"registrars":[{"name":" NicNames.com ","currency":"USD","prices":[` + com + `]}]}`,
			zone: ".com", want: set(".com", op(1000), op(1000), op(1000)),
		},
		{
			name: "other registrars' odd entries are not read",
			body: `{"registrars":["x",{"name":7},{"name":"porkbun.com","currency":"XXX","ICANNfee":true,"prices":"none"},{"name":"nicnames.com","currency":"USD","prices":[` + com + `]}]}`,
			zone: ".com", want: set(".com", op(1000), op(1000), op(1000)),
		},
		{name: "ICANN fee that is a boolean", body: doc(`"USD"`, `true`, com), wantErr: "ICANNfee true is not an amount"},
		{name: "ICANN fee that is a word", body: doc(`"USD"`, `"included"`, com), wantErr: `ICANNfee "included" is not an amount`},
		{name: "negative ICANN fee", body: doc(`"USD"`, `"-0.20"`, com), wantErr: "ICANNfee"},
		{name: "no currency", body: doc("", "", com), wantErr: "names no currency"},
		{name: "empty currency", body: doc(`""`, "", com), wantErr: "names no currency"},
		{name: "unknown currency", body: doc(`"DOLLARS"`, "", com), wantErr: `currency "DOLLARS"`},
		{name: "no nicnames.com entry", body: `{"registrars":[{"name":"porkbun.com","currency":"USD","prices":[` + com + `]}]}`, wantErr: "no nicnames.com entry"},
		{name: "two nicnames.com entries", body: `{"registrars":[{"name":"nicnames.com","currency":"USD","prices":[` + com + `]},{"name":"nicnames.com","currency":"USD","prices":[]}]}`, wantErr: "2 nicnames.com entries"},
		{name: "prices not a list", body: `{"registrars":[{"name":"nicnames.com","currency":"USD","prices":{"com":"10.00"}}]}`, wantErr: "not a list of rows"},
		{name: "no prices", body: `{"registrars":[{"name":"nicnames.com","currency":"USD"}]}`, wantErr: "not a list of rows"},
		{name: "empty prices", body: doc(`"USD"`, ""), wantErr: "no zones"},
		{name: "only zones not sold", body: doc(`"USD"`, "", `["pl","0","0","0"]`), wantErr: "no usable zone"},
		{name: "error envelope", body: string(ingesttest.Fixture(t, "error.json")), wantErr: `nicnames answered "Service temporarily unavailable"`},
		{name: "empty object", body: `{}`, wantErr: "has no registrars"},
		{name: "registrars not a list", body: `{"registrars":{"nicnames.com":[]}}`, wantErr: "decode nicnames price list"},
		{name: "html page", body: `<!DOCTYPE html><html><body>Maintenance</body></html>`, wantErr: "decode nicnames price list"},
		{name: "truncated", body: string(ingesttest.Fixture(t, "prices.json")[:400]), wantErr: "decode nicnames price list"},
		{name: "empty body", body: ``, wantErr: "decode nicnames price list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list, err := nicnames.Parse([]byte(tt.body), observed)
			if ingesttest.CheckOutcome(t, list, err, tt.wantErr, tt.skipped, tt.keep) {
				ingesttest.CheckZone(t, byZone(t, list), tt.zone, tt.want)
			}
		})
	}
}

func set(zone string, register, renew, transfer *contracts.OpPrice) *contracts.PriceSet {
	return &contracts.PriceSet{
		V: contracts.SchemaVersion, Kind: contracts.KindPriceSet, Registrar: nicnames.Name, Zone: zone,
		Register: register, Renew: renew, Transfer: transfer, ObservedAt: observed, Source: nicnames.Name,
		Tax: contracts.TaxUnknown,
	}
}

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) {
	ingesttest.Conform(t, ingesttest.Suite{
		Name: nicnames.Name, Registrar: nicnames.Name, Parse: nicnames.Parse,
		New: func(url string, client *fetch.Client) (ingest.Source, error) {
			return nicnames.New(nicnames.Config{URL: url}, client, nil)
		},
		Validate: func(url string) error { return nicnames.Config{URL: url}.Validate() },
		Fixtures: []string{"prices.json"}, Shrunk: "shrunk.json", Errors: []string{"error.json"},
		Check: checkRequest, Conditional: true, Spoil: "registrars.1.prices.0.2",
		Drift: ingesttest.DriftPaths{Row: "registrars[]", Field: "currency", Shape: "registrars"},
	})
}

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, nicnames.Parse, "*.json") }
