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

func newSource(t testing.TB, url string, hc *http.Client) *openprovider.Source {
	t.Helper()
	src, err := openprovider.New(openprovider.Config{URL: url}, ingesttest.Client(hc), func() time.Time { return observed })
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func byZone(t testing.TB, list *ingest.List) map[string]contracts.PriceSet {
	t.Helper()
	return ingesttest.CheckList(t, list, openprovider.Name, openprovider.Name, observed)
}

func price(cur string, amount int64) *contracts.OpPrice {
	return &contracts.OpPrice{Regular: contracts.Price{Amount: amount, Currency: cur}}
}

func usd(cents int64) *contracts.OpPrice { return price("USD", cents) }

func set(zone string, register, renew, transfer *contracts.OpPrice) *contracts.PriceSet {
	return &contracts.PriceSet{
		V: contracts.SchemaVersion, Kind: contracts.KindPriceSet, Registrar: openprovider.Name, Zone: zone,
		Register: register, Renew: renew, Transfer: transfer, ObservedAt: observed, Source: openprovider.Name,
		Tax: contracts.TaxExcluded,
	}
}

// fixtureZones is how many zones pricing.json prices: 22 rows less .pl,
// which offers nothing.
const fixtureZones = 21

func TestFetch(t *testing.T) {
	_, url := newAPI(t, ingesttest.Fixture(t, "pricing.json"))
	list, err := newSource(t, url, nil).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := byZone(t, list)
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
	got := byZone(t, list)
	if list.Skipped != 0 {
		t.Errorf("skipped %d, want 0: a member-only row is left out", list.Skipped)
	}
	ingesttest.CheckZone(t, got, ".com", set(".com", usd(1045), usd(1045), usd(1045)))
	ingesttest.CheckZone(t, got, ".net", set(".net", usd(1230), usd(1230), usd(1230)))
	ingesttest.CheckZone(t, got, ".eu", set(".eu", price("EUR", 399), price("EUR", 399), price("EUR", 399)))
	ingesttest.CheckZone(t, got, ".shop", nil)
}

// TestParseQuirks covers the format's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	const com = `{"tld":"com","registerFee":10.45,"renewalFee":10.45,"transferFee":10.45}`
	rows := func(r ...string) string { return `{"data":[` + strings.Join(r, ",") + `]}` }
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
			name: "restore fee is not read",
			body: rows(`{"tld":"com","registerFee":10.45,"renewalFee":10.45,"transferFee":10.45,"restoreFee":"TBD"}`),
			zone: ".com", want: set(".com", usd(1045), usd(1045), usd(1045)),
		},
		{
			name: "zero transfer is not offered",
			body: rows(`{"tld":"uk","registerFee":5.4,"renewalFee":5.4,"transferFee":"0.00"}`),
			zone: ".uk", want: set(".uk", usd(540), usd(540), nil),
		},
		{
			name: "zero registration is not offered",
			body: rows(`{"tld":"com","registerFee":0,"renewalFee":10.45,"transferFee":10.45}`),
			zone: ".com", want: set(".com", nil, usd(1045), usd(1045)),
		},
		{
			name: "row offering nothing is left out, not skipped",
			body: rows(`{"tld":"pl","registerFee":0,"renewalFee":"","transferFee":null}`, com),
			zone: ".pl",
		},
		{
			name: "exponent notation skips the row",
			body: rows(`{"tld":"net","registerFee":1.23E1}`, com),
			zone: ".net", skipped: 1, keep: []string{"prices.v1.openprovider.net"},
		},
		{
			name: "fractions of a cent",
			body: rows(`{"tld":"com","registerFee":10.455,"renewalFee":"10.4549","transferFee":10.45}`),
			zone: ".com", want: set(".com", usd(1046), usd(1045), usd(1045)),
		},
		{
			name: "row currency",
			body: rows(`{"tld":"eu","currency":"eur","registerFee":3.99,"renewalFee":3.99,"transferFee":3.99}`),
			zone: ".eu", want: set(".eu", price("EUR", 399), price("EUR", 399), price("EUR", 399)),
		},
		{
			name: "document currency",
			body: `{"currency":"EUR","data":[{"tld":"eu","registerFee":3.99,"renewalFee":3.99,"transferFee":3.99}]}`,
			zone: ".eu", want: set(".eu", price("EUR", 399), price("EUR", 399), price("EUR", 399)),
		},
		{
			name: "row currency over the document's",
			body: `{"currency":"EUR","data":[{"tld":"com","currency":"USD","registerFee":10.45}]}`,
			zone: ".com", want: set(".com", usd(1045), nil, nil),
		},
		{
			name: "yen have no minor unit",
			body: rows(`{"tld":"jp","currency":"JPY","registerFee":"1,500","renewalFee":1500,"transferFee":1500}`),
			zone: ".jp", want: set(".jp", price("JPY", 1500), price("JPY", 1500), price("JPY", 1500)),
		},
		{
			name: "unknown currency skips the row",
			body: rows(`{"tld":"eu","currency":"EURO","registerFee":3.99}`, com),
			zone: ".eu", skipped: 1, keep: []string{"prices.v1.openprovider.eu"},
		},
		{
			name: "non-member price over the flat one",
			body: rows(`{"tld":"com","registerFee":1,"nonMember":{"registerFee":10.45,"renewalFee":10.45},"member":{"registerFee":8}}`),
			zone: ".com", want: set(".com", usd(1045), usd(1045), nil),
		},
		{
			name: "member-only row is left out",
			body: rows(`{"tld":"shop","member":{"registerFee":1.2,"renewalFee":28.9}}`, com),
			zone: ".shop",
		},
		{
			name: "non-member price that is not an object skips the row, keeping its zone",
			body: rows(`{"tld":"net","nonMember":"12.30"}`, com),
			zone: ".net", skipped: 1, keep: []string{"prices.v1.openprovider.net"},
		},
		{
			name: "currency symbol skips the row",
			body: rows(`{"tld":"net","registerFee":"$12.30","renewalFee":12.3}`, com),
			zone: ".net", skipped: 1, keep: []string{"prices.v1.openprovider.net"},
		},
		{
			name: "negative price skips the row",
			body: rows(`{"tld":"net","registerFee":-1,"renewalFee":12.3}`, com),
			zone: ".net", skipped: 1, keep: []string{"prices.v1.openprovider.net"},
		},
		{
			name: "misplaced separator skips the row",
			body: rows(`{"tld":"net","registerFee":"1,23.00"}`, com),
			zone: ".net", skipped: 1, keep: []string{"prices.v1.openprovider.net"},
		},
		{
			name: "price above the ceiling skips the row",
			body: rows(`{"tld":"net","registerFee":"99999999999.99"}`, com),
			zone: ".net", skipped: 1, keep: []string{"prices.v1.openprovider.net"},
		},
		{
			name: "object price skips the row",
			body: rows(`{"tld":"net","registerFee":{"price":12.3}}`, com),
			zone: ".net", skipped: 1, keep: []string{"prices.v1.openprovider.net"},
		},
		{
			name: "tld that is not a zone is skipped",
			body: rows(`{"tld":"foo bar","registerFee":1}`, com),
			zone: ".foo bar", skipped: 1,
		},
		{
			name: "row that is not an object is skipped",
			body: rows(`"com"`, com),
			zone: ".com", want: set(".com", usd(1045), usd(1045), usd(1045)), skipped: 1,
		},
		{
			name: "unicode tld and its A-label keep the first",
			body: rows(`{"tld":"рф","registerFee":4.9}`, `{"tld":"XN--P1AI","registerFee":5.9}`),
			zone: ".xn--p1ai", want: set(".xn--p1ai", usd(490), nil, nil), skipped: 1,
		},
		{
			name: "unreadable A-label beside its readable unicode tld",
			body: rows(`{"tld":"рф","registerFee":4.9}`, `{"tld":"xn--p1ai","registerFee":"TBD"}`),
			zone: ".xn--p1ai", want: set(".xn--p1ai", usd(490), nil, nil), skipped: 1,
		},
		{name: "error envelope", body: string(ingesttest.Fixture(t, "error.json")), wantErr: "code 399: Too many requests"},
		{name: "error message", body: `{"message":"Service unavailable"}`, wantErr: "Service unavailable"},
		{name: "error object", body: `{"error":{"reason":"maintenance"}}`, wantErr: "maintenance"},
		{name: "no data", body: `{}`, wantErr: "has no data"},
		{name: "empty data", body: `{"data":[]}`, wantErr: "no zones"},
		{name: "data is an object", body: `{"data":{"com":{}}}`, wantErr: "decode openprovider price list"},
		{name: "only rows that cannot be used", body: rows(`{"tld":"pl","registerFee":0}`, `{"tld":"shop","member":{"registerFee":1}}`), wantErr: "no usable zone"},
		{name: "html", body: `<html><body>502 Bad Gateway</body></html>`, wantErr: "decode openprovider price list"},
		{name: "truncated", body: string(ingesttest.Fixture(t, "pricing.json")[:300]), wantErr: "decode openprovider price list"},
		{name: "trailing garbage", body: rows(com) + `<!-- cached -->`, wantErr: "decode openprovider price list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list, err := openprovider.Parse([]byte(tt.body), observed)
			if ingesttest.CheckOutcome(t, list, err, tt.wantErr, tt.skipped, tt.keep) {
				ingesttest.CheckZone(t, byZone(t, list), tt.zone, tt.want)
			}
		})
	}
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

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) {
	ingesttest.Conform(t, ingesttest.Suite{
		Name: openprovider.Name, Registrar: openprovider.Name, Parse: openprovider.Parse,
		New: func(url string, client *fetch.Client) (ingest.Source, error) {
			return openprovider.New(openprovider.Config{URL: url}, client, nil)
		},
		Validate: func(url string) error { return openprovider.Config{URL: url}.Validate() },
		Path:     path, Fixtures: []string{"pricing.json"}, Shrunk: "pricing_shrunk.json", Errors: []string{"error.json"},
		Check: checkRequest, Conditional: true, Spoil: "data.0.registerFee",
		Drift: ingesttest.DriftPaths{Row: "data[]", Field: "tld", Shape: "data"},
	})
}

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, openprovider.Parse, "*.json") }
