package openprovider_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/openprovider"
)

var usd = ingesttest.USD

// TestFetch reads the dollar list: 21 zones, 22 rows less .pl, which
// offers nothing (left out, not skipped).
func TestFetch(t *testing.T) {
	got := suite.Fetched(t, "pricing.json", 21, 0)
	ingesttest.CheckEach(t, got, []ingesttest.Ops{
		{Name: "numbers", Zone: ".com", Register: usd(1045), Renew: usd(1045), Transfer: usd(1045)},
		{Name: "numeric strings", Zone: ".net", Register: usd(1230), Renew: usd(1230), Transfer: usd(1230)},
		{Name: "cheap first year", Zone: ".xyz", Register: usd(150), Renew: usd(1410), Transfer: usd(1410)},
		{Name: "whole number", Zone: ".ch", Register: usd(900), Renew: usd(900)},
		{Name: "second-level zone is its own", Zone: ".co.uk", Register: usd(540), Renew: usd(540)},
		{Name: "second-level zone beside its parent", Zone: ".uk", Register: usd(540), Renew: usd(540)},
		{Name: "another second-level zone", Zone: ".com.au", Register: usd(1150), Renew: usd(1150), Transfer: usd(1150)},
		{Name: "thousands separator", Zone: ".security", Register: usd(206023), Renew: usd(206023), Transfer: usd(206023)},
		{Name: "large price without separator", Zone: ".sexy", Register: usd(150000), Renew: usd(150000), Transfer: usd(150000)},
		{Name: "empty transfer is not offered", Zone: ".de", Register: usd(395), Renew: usd(395)},
		{Name: "n/a transfer is not offered", Zone: ".es", Register: usd(650), Renew: usd(650)},
		{Name: "dotted upper-case tld", Zone: ".nl", Register: usd(450), Renew: usd(450), Transfer: usd(450)},
		{Name: "IDN as an A-label", Zone: ".xn--p1ai", Register: usd(490), Renew: usd(490), Transfer: usd(490)},
		{Name: "IDN in Unicode", Zone: ".xn--q9jyb4c", Register: usd(861), Renew: usd(2858), Transfer: usd(2858)},
	}, ".pl")
}

func TestMemberPrices(t *testing.T) {
	list, err := suite.Parse(ingesttest.Fixture(t, "pricing_members.json"), suite.Observed)
	if err != nil {
		t.Fatal(err)
	}
	got := suite.ByZone(t, list)
	if list.Skipped != 0 {
		t.Errorf("skipped %d, want 0: a member-only row is left out", list.Skipped)
	}
	ingesttest.CheckZone(t, got, ".com", suite.Set(".com", usd(1045), usd(1045), usd(1045)))
	ingesttest.CheckZone(t, got, ".net", suite.Set(".net", usd(1230), usd(1230), usd(1230)))
	ingesttest.CheckZone(t, got, ".eu", suite.Set(".eu", ingesttest.Regular(399, "EUR"), ingesttest.Regular(399, "EUR"), ingesttest.Regular(399, "EUR")))
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
			Zone: ".eu", Want: suite.Set(".eu", ingesttest.Regular(399, "EUR"), ingesttest.Regular(399, "EUR"), ingesttest.Regular(399, "EUR")),
		},
		{
			Name: "document currency",
			Body: `{"currency":"EUR","data":[{"tld":"eu","registerFee":3.99,"renewalFee":3.99,"transferFee":3.99}]}`,
			Zone: ".eu", Want: suite.Set(".eu", ingesttest.Regular(399, "EUR"), ingesttest.Regular(399, "EUR"), ingesttest.Regular(399, "EUR")),
		},
		{
			Name: "row currency over the document's",
			Body: `{"currency":"EUR","data":[{"tld":"com","currency":"USD","registerFee":10.45}]}`,
			Zone: ".com", Want: suite.Set(".com", usd(1045), nil, nil),
		},
		{
			Name: "yen have no minor unit",
			Body: rows(`{"tld":"jp","currency":"JPY","registerFee":"1,500","renewalFee":1500,"transferFee":1500}`),
			Zone: ".jp", Want: suite.Set(".jp", ingesttest.Regular(1500, "JPY"), ingesttest.Regular(1500, "JPY"), ingesttest.Regular(1500, "JPY")),
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

// suite is the source, for the conformance suite and the tests above.
var suite = ingesttest.Suite{
	Name: openprovider.Name, Registrar: openprovider.Name, Parse: openprovider.Parse, Tax: contracts.TaxExcluded,
	New: func(url string, client *fetch.Client, now func() time.Time) (ingest.Source, error) {
		return openprovider.New(openprovider.Config{URL: url}, client, now)
	},
	Validate: func(url string) error { return openprovider.Config{URL: url}.Validate() },
	Errors:   []string{"error.json"}, Spoil: "data.0.registerFee",
	Drift: ingesttest.DriftPaths{Row: "data[]", Field: "tld", Shape: "data"},
}.Reads("pricing.json", "pricing_shrunk.json").At("/api/pricing-data?currency=USD")

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, openprovider.Parse, "*.json") }
