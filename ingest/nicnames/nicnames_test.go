package nicnames_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/kit"
	"github.com/zoneprice/zoneprice/ingest/nicnames"
)

var observed = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// wantZones is how many zones the fixture prices: 21 rows of
// nicnames.com less .pl and .com.pl, which offer nothing.
const wantZones = 19

func newAPI(t *testing.T, body []byte) (*ingesttest.API, *httptest.Server) {
	t.Helper()
	return ingesttest.NewAPI(t, body, ingesttest.PlainGet)
}

// opIn is an operation's regular price in minor units of currency.
func opIn(amount int64, currency string) *contracts.OpPrice {
	return &contracts.OpPrice{Regular: contracts.Price{Amount: amount, Currency: currency}}
}

func op(cents int64) *contracts.OpPrice { return opIn(cents, "USD") }

func TestFetch(t *testing.T) {
	_, srv := newAPI(t, ingesttest.Fixture(t, "prices.json"))
	list, err := suite.Source(t, srv.URL, nil).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := suite.ByZone(t, list)
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
	suite.Quirks(t, []ingesttest.Quirk{
		{
			Name: "no ICANN fee: prices as listed",
			Body: doc(`"USD"`, "", com),
			Zone: ".com", Want: suite.Set(".com", op(1000), op(1000), op(1000)),
		},
		{
			Name: "zero ICANN fee",
			Body: doc(`"USD"`, `"0.00"`, com),
			Zone: ".com", Want: suite.Set(".com", op(1000), op(1000), op(1000)),
		},
		{
			Name: "null ICANN fee",
			Body: doc(`"USD"`, `null`, com),
			Zone: ".com", Want: suite.Set(".com", op(1000), op(1000), op(1000)),
		},
		{
			Name: "ICANN fee as a number",
			Body: doc(`"USD"`, `0.18`, com),
			Zone: ".com", Want: suite.Set(".com", op(1018), op(1018), op(1018)),
		},
		{
			Name: "ICANN fee added to a free gTLD transfer",
			Body: doc(`"USD"`, `"0.20"`, `["com","10.00","10.00","0.00"]`),
			Zone: ".com", Want: suite.Set(".com", op(1020), op(1020), op(20)),
		},
		{
			Name: "ICANN fee not added to a second-level zone under a gTLD",
			Body: doc(`"USD"`, `"0.20"`, `["us.com","20.00","20.00","20.00"]`),
			Zone: ".us.com", Want: suite.Set(".us.com", op(2000), op(2000), op(2000)),
		},
		{
			Name: "ICANN fee not added to a two-letter TLD the catalog does not know",
			Body: doc(`"USD"`, `"0.20"`, `["zz","20.00","20.00","20.00"]`),
			Zone: ".zz", Want: suite.Set(".zz", op(2000), op(2000), op(2000)),
		},
		{
			Name: "ICANN fee added to an ASCII TLD the catalog does not know",
			Body: doc(`"USD"`, `"0.20"`, `["zzzz","20.00","20.00","20.00"]`),
			Zone: ".zzzz", Want: suite.Set(".zzzz", op(2020), op(2020), op(2020)),
		},
		{
			Name: "IDN TLD the catalog does not know is skipped when a fee is due",
			Body: doc(`"USD"`, `"0.20"`, `["テスト","20.00","20.00","20.00"]`, com),
			Zone: ".xn--zckzah", Skipped: 1, Keep: []string{"prices.v1.nicnames.xn--zckzah"},
		},
		{
			Name: "IDN TLD the catalog does not know is priced when no fee is due",
			Body: doc(`"USD"`, `"0"`, `["テスト","20.00","20.00","20.00"]`),
			Zone: ".xn--zckzah", Want: suite.Set(".xn--zckzah", op(2000), op(2000), op(2000)),
		},
		{
			Name: "currency read from the document",
			Body: doc(`"eur"`, `"0.20"`, com),
			Zone: ".com", Want: suite.Set(".com", opIn(1020, "EUR"), opIn(1020, "EUR"), opIn(1020, "EUR")),
		},
		{
			Name: "currency without minor units",
			Body: doc(`"JPY"`, "", `["jp","1,500","1,500",""]`),
			Zone: ".jp", Want: suite.Set(".jp", opIn(1500, "JPY"), opIn(1500, "JPY"), nil),
		},
		{
			Name: "zero registration is not offered",
			Body: doc(`"USD"`, "", `["com","0.00","10.00","10.00"]`),
			Zone: ".com", Want: suite.Set(".com", nil, op(1000), op(1000)),
		},
		{
			Name: "nothing but a free transfer is left out",
			Body: doc(`"USD"`, "", `["pl","0","0","0"]`, com),
			Zone: ".pl",
		},
		{
			Name: "dash and null prices are not offered",
			Body: doc(`"USD"`, "", `["com","10.00","-",null]`),
			Zone: ".com", Want: suite.Set(".com", op(1000), nil, nil),
		},
		{
			Name: "unicode and A-label rows keep the first",
			Body: doc(`"USD"`, "", `["みんな","9.00","9.00","9.00"]`, `["xn--q9jyb4c","8.00","8.00","8.00"]`),
			Zone: ".xn--q9jyb4c", Want: suite.Set(".xn--q9jyb4c", op(900), op(900), op(900)), Skipped: 1,
		},
		{
			Name: "unreadable price skips the zone and keeps its last price",
			Body: doc(`"USD"`, "", `["net","TBD","10.00","10.00"]`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.nicnames.net"},
		},
		{
			Name: "negative price skips the zone",
			Body: doc(`"USD"`, "", `["net","-1","10.00","10.00"]`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.nicnames.net"},
		},
		{
			Name: "misplaced thousands separator skips the zone",
			Body: doc(`"USD"`, "", `["net","1,00.00","10.00","10.00"]`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.nicnames.net"},
		},
		{
			Name: "price over the ceiling skips the zone",
			Body: doc(`"USD"`, "", `["net","99999999999999","10.00","10.00"]`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.nicnames.net"},
		},
		{
			Name: "price that is an object skips the zone",
			Body: doc(`"USD"`, "", `["net",{"amount":"10.00"},"10.00","10.00"]`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.nicnames.net"},
		},
		{
			Name: "row that is not an array is skipped",
			Body: doc(`"USD"`, "", `{"tld":"net"}`, com),
			Zone: ".net", Skipped: 1,
		},
		{
			Name: "row without a price is skipped",
			Body: doc(`"USD"`, "", `["net"]`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.nicnames.net"},
		},
		{
			Name: "tld that is not a string is skipped",
			Body: doc(`"USD"`, "", `[42,"10.00","10.00","10.00"]`, com),
			Zone: ".com", Want: suite.Set(".com", op(1000), op(1000), op(1000)), Skipped: 1,
		},
		{
			Name: "tld that is not a zone is skipped",
			Body: doc(`"USD"`, "", `["foo bar","10.00","10.00","10.00"]`, com),
			Zone: ".foo bar", Skipped: 1,
		},
		{
			Name: "entry name in another case",
			Body: `{"registrars":[{"name":" NicNames.com ","currency":"USD","prices":[` + com + `]}]}`,
			Zone: ".com", Want: suite.Set(".com", op(1000), op(1000), op(1000)),
		},
		{
			Name: "other registrars' odd entries are not read",
			Body: `{"registrars":["x",{"name":7},{"name":"porkbun.com","currency":"XXX","ICANNfee":true,"prices":"none"},{"name":"nicnames.com","currency":"USD","prices":[` + com + `]}]}`,
			Zone: ".com", Want: suite.Set(".com", op(1000), op(1000), op(1000)),
		},
		{Name: "ICANN fee that is a boolean", Body: doc(`"USD"`, `true`, com), WantErr: "ICANNfee true is not an amount"},
		{Name: "ICANN fee that is a word", Body: doc(`"USD"`, `"included"`, com), WantErr: `ICANNfee "included" is not an amount`},
		{Name: "negative ICANN fee", Body: doc(`"USD"`, `"-0.20"`, com), WantErr: "ICANNfee"},
		{Name: "no currency", Body: doc("", "", com), WantErr: "names no currency"},
		{Name: "empty currency", Body: doc(`""`, "", com), WantErr: "names no currency"},
		{Name: "unknown currency", Body: doc(`"DOLLARS"`, "", com), WantErr: `currency "DOLLARS"`},
		{Name: "no nicnames.com entry", Body: `{"registrars":[{"name":"porkbun.com","currency":"USD","prices":[` + com + `]}]}`, WantErr: "no nicnames.com entry"},
		{Name: "two nicnames.com entries", Body: `{"registrars":[{"name":"nicnames.com","currency":"USD","prices":[` + com + `]},{"name":"nicnames.com","currency":"USD","prices":[]}]}`, WantErr: "2 nicnames.com entries"},
		{Name: "prices not a list", Body: `{"registrars":[{"name":"nicnames.com","currency":"USD","prices":{"com":"10.00"}}]}`, WantErr: "not a list of rows"},
		{Name: "no prices", Body: `{"registrars":[{"name":"nicnames.com","currency":"USD"}]}`, WantErr: "not a list of rows"},
		{Name: "empty prices", Body: doc(`"USD"`, ""), WantErr: "no zones"},
		{Name: "only zones not sold", Body: doc(`"USD"`, "", `["pl","0","0","0"]`), WantErr: "no usable zone"},
		{Name: "error envelope", Body: string(ingesttest.Fixture(t, "error.json")), WantErr: `nicnames answered "Service temporarily unavailable"`},
		{Name: "empty object", Body: `{}`, WantErr: "has no registrars"},
		{Name: "registrars not a list", Body: `{"registrars":{"nicnames.com":[]}}`, WantErr: "decode nicnames price list"},
		{Name: "html page", Body: `<!DOCTYPE html><html><body>Maintenance</body></html>`, WantErr: "decode nicnames price list"},
		{Name: "truncated", Body: string(ingesttest.Fixture(t, "prices.json")[:400]), WantErr: "decode nicnames price list"},
		{Name: "empty body", Body: ``, WantErr: "decode nicnames price list"},
	})
}

// suite is the source, for the conformance suite and the tests below.
var suite = ingesttest.Suite{
	Name: nicnames.Name, Registrar: nicnames.Name, Parse: nicnames.Declaration().Read,
	New: func(url string, client *fetch.Client, now func() time.Time) (ingest.Source, error) {
		return kit.New(nicnames.Declaration(), kit.Config{URL: url}, client, now)
	},
	Validate: func(url string) error { return kit.Config{URL: url}.Validate() },
	Fixtures: []string{"prices.json"}, Shrunk: "shrunk.json", Errors: []string{"error.json"},
	Check: ingesttest.PlainGet, Conditional: true, Spoil: "registrars.1.prices.0.2",
	Drift:    ingesttest.DriftPaths{Row: "registrars[]", Field: "currency", Shape: "registrars"},
	Observed: observed, Tax: contracts.TaxUnknown,
}

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, nicnames.Declaration().Read, "*.json") }
