package openprovider_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/openprovider"
)

var observed = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// path is where the fake serves the list, as www.openprovider.com does.
const path = "/api/pricing-data?currency=USD"

// checkRequest says what is wrong with a request that is not a GET of the
// list in dollars.
func checkRequest(r *http.Request) error {
	if r.Method != http.MethodGet || r.URL.RequestURI() != path {
		return fmt.Errorf("%s %s", r.Method, r.URL.RequestURI())
	}
	return nil
}

// newAPI fakes the price list endpoint, answering with body; it returns the
// list's URL.
func newAPI(t *testing.T, body []byte) (*ingesttest.API, string) {
	t.Helper()
	api, srv := ingesttest.NewAPI(t, body, checkRequest)
	return api, srv.URL + path
}

func price(cur string, amount int64) *contracts.OpPrice { return ingesttest.Regular(amount, cur) }

var usd = ingesttest.USD

// fixtureZones is how many zones pricing.json prices: 22 rows less .pl,
// which offers nothing.
const fixtureZones = 21

func TestFetch(t *testing.T) {
	_, url := newAPI(t, ingesttest.Fixture(t, "pricing.json"))
	list, err := suite.Source(t, url, nil).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := suite.ByZone(t, list)
	if len(got) != fixtureZones {
		t.Errorf("got %d zones, want %d", len(got), fixtureZones)
	}
	if list.Skipped != 0 || list.Keep != nil {
		t.Errorf("skipped %d, keep %q; a zone offering nothing is left out, not skipped", list.Skipped, list.Keep)
	}
	tests := []struct {
		name, zone                string
		register, renew, transfer *contracts.OpPrice
	}{
		{"numbers", ".com", usd(1045), usd(1045), usd(1045)},
		{"numeric strings", ".net", usd(1230), usd(1230), usd(1230)},
		{"cheap first year", ".xyz", usd(150), usd(1410), usd(1410)},
		{"whole number", ".ch", usd(900), usd(900), nil},
		{"second-level zone is its own", ".co.uk", usd(540), usd(540), nil},
		{"second-level zone beside its parent", ".uk", usd(540), usd(540), nil},
		{"another second-level zone", ".com.au", usd(1150), usd(1150), usd(1150)},
		{"thousands separator", ".security", usd(206023), usd(206023), usd(206023)},
		{"large price without separator", ".sexy", usd(150000), usd(150000), usd(150000)},
		{"empty transfer is not offered", ".de", usd(395), usd(395), nil},
		{"n/a transfer is not offered", ".es", usd(650), usd(650), nil},
		{"dotted upper-case tld", ".nl", usd(450), usd(450), usd(450)},
		{"IDN as an A-label", ".xn--p1ai", usd(490), usd(490), usd(490)},
		{"IDN in Unicode", ".xn--q9jyb4c", usd(861), usd(2858), usd(2858)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok := got[tt.zone]
			if !ok {
				t.Fatalf("no price set for %s", tt.zone)
			}
			ingesttest.CheckOps(t, p, tt.register, tt.renew, tt.transfer)
			if p.Tax != contracts.TaxExcluded {
				t.Errorf("tax = %q, want %q", p.Tax, contracts.TaxExcluded)
			}
		})
	}
	if _, ok := got[".pl"]; ok {
		t.Error(".pl offers nothing; it should be left out")
	}
}

func TestMemberPrices(t *testing.T) {
	list, err := openprovider.Parse(ingesttest.Fixture(t, "pricing_members.json"), observed)
	if err != nil {
		t.Fatal(err)
	}
	got := suite.ByZone(t, list)
	if list.Skipped != 0 {
		t.Errorf("skipped %d, want 0: a member-only row is left out", list.Skipped)
	}
	ingesttest.CheckZone(t, got, ".com", suite.Set(".com", usd(1045), usd(1045), usd(1045)))
	ingesttest.CheckZone(t, got, ".net", suite.Set(".net", usd(1230), usd(1230), usd(1230)))
	ingesttest.CheckZone(t, got, ".eu", suite.Set(".eu", price("EUR", 399), price("EUR", 399), price("EUR", 399)))
	ingesttest.CheckZone(t, got, ".shop", nil)
}

// TestParseQuirks covers the format's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	const com = `{"tld":"com","registerFee":10.45,"renewalFee":10.45,"transferFee":10.45}`
	rows := func(r ...string) string { return `{"data":[` + strings.Join(r, ",") + `]}` }
	suite.Quirks(t, []ingesttest.Quirk{
		{
			Name: "restore fee is not read",
			Body: rows(`{"tld":"com","registerFee":10.45,"renewalFee":10.45,"transferFee":10.45,"restoreFee":"TBD"}`),
			Zone: ".com", Want: suite.Set(".com", usd(1045), usd(1045), usd(1045)),
		},
		{
			Name: "zero transfer is not offered",
			Body: rows(`{"tld":"uk","registerFee":5.4,"renewalFee":5.4,"transferFee":"0.00"}`),
			Zone: ".uk", Want: suite.Set(".uk", usd(540), usd(540), nil),
		},
		{
			Name: "zero registration is not offered",
			Body: rows(`{"tld":"com","registerFee":0,"renewalFee":10.45,"transferFee":10.45}`),
			Zone: ".com", Want: suite.Set(".com", nil, usd(1045), usd(1045)),
		},
		{
			Name: "row offering nothing is left out, not skipped",
			Body: rows(`{"tld":"pl","registerFee":0,"renewalFee":"","transferFee":null}`, com),
			Zone: ".pl",
		},
		{
			Name: "exponent notation skips the row",
			Body: rows(`{"tld":"net","registerFee":1.23E1}`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.openprovider.net"},
		},
		{
			Name: "fractions of a cent",
			Body: rows(`{"tld":"com","registerFee":10.455,"renewalFee":"10.4549","transferFee":10.45}`),
			Zone: ".com", Want: suite.Set(".com", usd(1046), usd(1045), usd(1045)),
		},
		{
			Name: "row currency",
			Body: rows(`{"tld":"eu","currency":"eur","registerFee":3.99,"renewalFee":3.99,"transferFee":3.99}`),
			Zone: ".eu", Want: suite.Set(".eu", price("EUR", 399), price("EUR", 399), price("EUR", 399)),
		},
		{
			Name: "document currency",
			Body: `{"currency":"EUR","data":[{"tld":"eu","registerFee":3.99,"renewalFee":3.99,"transferFee":3.99}]}`,
			Zone: ".eu", Want: suite.Set(".eu", price("EUR", 399), price("EUR", 399), price("EUR", 399)),
		},
		{
			Name: "row currency over the document's",
			Body: `{"currency":"EUR","data":[{"tld":"com","currency":"USD","registerFee":10.45}]}`,
			Zone: ".com", Want: suite.Set(".com", usd(1045), nil, nil),
		},
		{
			Name: "yen have no minor unit",
			Body: rows(`{"tld":"jp","currency":"JPY","registerFee":"1,500","renewalFee":1500,"transferFee":1500}`),
			Zone: ".jp", Want: suite.Set(".jp", price("JPY", 1500), price("JPY", 1500), price("JPY", 1500)),
		},
		{
			Name: "unknown currency skips the row",
			Body: rows(`{"tld":"eu","currency":"EURO","registerFee":3.99}`, com),
			Zone: ".eu", Skipped: 1, Keep: []string{"prices.v1.openprovider.eu"},
		},
		{
			Name: "non-member price over the flat one",
			Body: rows(`{"tld":"com","registerFee":1,"nonMember":{"registerFee":10.45,"renewalFee":10.45},"member":{"registerFee":8}}`),
			Zone: ".com", Want: suite.Set(".com", usd(1045), usd(1045), nil),
		},
		{
			Name: "member-only row is left out",
			Body: rows(`{"tld":"shop","member":{"registerFee":1.2,"renewalFee":28.9}}`, com),
			Zone: ".shop",
		},
		{
			Name: "non-member price that is not an object skips the row, keeping its zone",
			Body: rows(`{"tld":"net","nonMember":"12.30"}`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.openprovider.net"},
		},
		{
			Name: "currency symbol skips the row",
			Body: rows(`{"tld":"net","registerFee":"$12.30","renewalFee":12.3}`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.openprovider.net"},
		},
		{
			Name: "negative price skips the row",
			Body: rows(`{"tld":"net","registerFee":-1,"renewalFee":12.3}`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.openprovider.net"},
		},
		{
			Name: "misplaced separator skips the row",
			Body: rows(`{"tld":"net","registerFee":"1,23.00"}`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.openprovider.net"},
		},
		{
			Name: "price above the ceiling skips the row",
			Body: rows(`{"tld":"net","registerFee":"99999999999.99"}`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.openprovider.net"},
		},
		{
			Name: "object price skips the row",
			Body: rows(`{"tld":"net","registerFee":{"price":12.3}}`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.openprovider.net"},
		},
		{
			Name: "tld that is not a zone is skipped",
			Body: rows(`{"tld":"foo bar","registerFee":1}`, com),
			Zone: ".foo bar", Skipped: 1,
		},
		{
			Name: "row that is not an object is skipped",
			Body: rows(`"com"`, com),
			Zone: ".com", Want: suite.Set(".com", usd(1045), usd(1045), usd(1045)), Skipped: 1,
		},
		{
			Name: "unicode tld and its A-label keep the first",
			Body: rows(`{"tld":"рф","registerFee":4.9}`, `{"tld":"XN--P1AI","registerFee":5.9}`),
			Zone: ".xn--p1ai", Want: suite.Set(".xn--p1ai", usd(490), nil, nil), Skipped: 1,
		},
		{
			Name: "unreadable A-label beside its readable unicode tld",
			Body: rows(`{"tld":"рф","registerFee":4.9}`, `{"tld":"xn--p1ai","registerFee":"TBD"}`),
			Zone: ".xn--p1ai", Want: suite.Set(".xn--p1ai", usd(490), nil, nil), Skipped: 1,
		},
		{Name: "error envelope", Body: string(ingesttest.Fixture(t, "error.json")), WantErr: "code 399: Too many requests"},
		{Name: "error message", Body: `{"message":"Service unavailable"}`, WantErr: "Service unavailable"},
		{Name: "error object", Body: `{"error":{"reason":"maintenance"}}`, WantErr: "maintenance"},
		{Name: "no data", Body: `{}`, WantErr: "has no data"},
		{Name: "empty data", Body: `{"data":[]}`, WantErr: "no zones"},
		{Name: "data is an object", Body: `{"data":{"com":{}}}`, WantErr: "decode openprovider price list"},
		{Name: "only rows that cannot be used", Body: rows(`{"tld":"pl","registerFee":0}`, `{"tld":"shop","member":{"registerFee":1}}`), WantErr: "no usable zone"},
		{Name: "html", Body: `<html><body>502 Bad Gateway</body></html>`, WantErr: "decode openprovider price list"},
		{Name: "truncated", Body: string(ingesttest.Fixture(t, "pricing.json")[:300]), WantErr: "decode openprovider price list"},
		{Name: "trailing garbage", Body: rows(com) + `<!-- cached -->`, WantErr: "decode openprovider price list"},
	})
}

// TestConfig checks the currency a URL asks for; Conform checks the rest.
func TestConfigCurrency(t *testing.T) {
	tests := []struct {
		name    string
		cfg     openprovider.Config
		wantErr bool
	}{
		{"default", openprovider.Config{}, false},
		{"https", openprovider.Config{URL: openprovider.DefaultURL}, false},
		{"a mirror without a currency", openprovider.Config{URL: "http://mirror.example/pricing.json"}, false},
		{"lower-case usd", openprovider.Config{URL: "https://www.openprovider.com/api/pricing-data?currency=usd"}, false},
		{"another currency", openprovider.Config{URL: "https://www.openprovider.com/api/pricing-data?currency=EUR"}, true},
		{"relative", openprovider.Config{URL: "/api/pricing-data"}, true},
		{"ftp", openprovider.Config{URL: "ftp://www.openprovider.com/"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if (err != nil) != tt.wantErr {
				t.Fatalf("Validate() = %v, want error %v", err, tt.wantErr)
			}
			var ve *contracts.ValidationError
			if err != nil && (!errors.As(err, &ve) || ve.Field != "URL") {
				t.Errorf("error %v does not name the field URL", err)
			}
		})
	}
}

// suite is the source, for the conformance suite and the tests below.
var suite = ingesttest.Suite{
	Name: openprovider.Name, Registrar: openprovider.Name, Parse: openprovider.Parse,
	New: func(url string, client *fetch.Client, now func() time.Time) (ingest.Source, error) {
		return openprovider.New(openprovider.Config{URL: url}, client, now)
	},
	Validate: func(url string) error { return openprovider.Config{URL: url}.Validate() },
	Path:     path, Fixtures: []string{"pricing.json"}, Shrunk: "pricing_shrunk.json", Errors: []string{"error.json"},
	Check: checkRequest, Conditional: true, Spoil: "data.0.registerFee",
	Drift:    ingesttest.DriftPaths{Row: "data[]", Field: "tld", Shape: "data"},
	Observed: observed, Tax: contracts.TaxExcluded,
}

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, openprovider.Parse, "*.json") }
