package inwx_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/inwx"
	"github.com/zoneprice/zoneprice/ingest/kit"
)

var observed = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// path is where the fake serves the list, as www.inwx.com does.
const path = "/api/v1/domain/all-prices"

// checkRequest says what is wrong with a request that is not a plain GET
// of the list.
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

func eur(cents int64) *contracts.OpPrice { return price("EUR", cents) }

// fixtureZones is how many zones all-prices.json prices: 22 rows less .pl,
// which offers nothing.
const fixtureZones = 21

func TestFetch(t *testing.T) {
	_, url := newAPI(t, ingesttest.Fixture(t, "all-prices.json"))
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
		{"numbers", ".com", usd(1190), usd(1190), usd(1190)},
		{"numeric strings", ".dev", usd(1450), usd(1450), usd(1450)},
		{"cheap first year", ".xyz", usd(290), usd(1590), usd(1590)},
		{"euro row among dollar rows", ".de", eur(476), eur(476), eur(476)},
		{"another euro row", ".eu", eur(595), eur(595), eur(595)},
		{"upper-case tld, lower-case currency", ".net", usd(1350), usd(1350), usd(1350)},
		{"second-level zone is its own", ".co.uk", usd(690), usd(690), usd(690)},
		{"second-level zone beside its parent", ".uk", usd(690), usd(690), nil},
		{"another second-level zone", ".com.au", usd(1250), usd(1250), usd(1250)},
		{"thousands separator", ".security", usd(219000), usd(219000), usd(219000)},
		{"zero transfer is not offered", ".ch", usd(890), usd(890), nil},
		{"null transfer is not offered", ".at", usd(1090), usd(1090), nil},
		{"n/a transfer is not offered", ".es", usd(850), usd(850), nil},
		{"IDN as an A-label", ".xn--p1ai", usd(590), usd(590), usd(590)},
		{"IDN in Unicode with a dot", ".xn--q9jyb4c", usd(990), usd(2990), usd(2990)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok := got[tt.zone]
			if !ok {
				t.Fatalf("no price set for %s", tt.zone)
			}
			ingesttest.CheckOps(t, p, tt.register, tt.renew, tt.transfer)
			if p.Tax != contracts.TaxUnknown {
				t.Errorf("tax = %q, want %q", p.Tax, contracts.TaxUnknown)
			}
		})
	}
	if _, ok := got[".pl"]; ok {
		t.Error(".pl offers nothing; it should be left out")
	}
}

// TestParseQuirks covers the format's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	const com = `{"tld":"com","createPrice":11.9,"renewalPrice":11.9,"transferPrice":11.9,"currency":"USD"}`
	rows := func(r ...string) string { return `{"tlds":[` + strings.Join(r, ",") + `]}` }
	suite.Quirks(t, []ingesttest.Quirk{
		{
			Name: "restore price is not read",
			Body: rows(`{"tld":"com","createPrice":11.9,"renewalPrice":11.9,"transferPrice":11.9,"restorePrice":"TBD","currency":"USD"}`),
			Zone: ".com", Want: suite.Set(".com", usd(1190), usd(1190), usd(1190)),
		},
		{
			Name: "zero registration is not offered",
			Body: rows(`{"tld":"com","createPrice":"0.00","renewalPrice":11.9,"transferPrice":11.9,"currency":"USD"}`),
			Zone: ".com", Want: suite.Set(".com", nil, usd(1190), usd(1190)),
		},
		{
			Name: "row offering nothing is left out, not skipped",
			Body: rows(`{"tld":"pl","createPrice":0,"renewalPrice":"","transferPrice":null,"currency":"USD"}`, com),
			Zone: ".pl",
		},
		{
			Name: "fractions of a cent round half up",
			Body: rows(`{"tld":"com","createPrice":11.895,"renewalPrice":"11.8949","currency":"USD"}`),
			Zone: ".com", Want: suite.Set(".com", usd(1190), usd(1189), nil),
		},
		{
			Name: "document currency",
			Body: `{"currency":"EUR","tlds":[{"tld":"de","createPrice":4.76}]}`,
			Zone: ".de", Want: suite.Set(".de", eur(476), nil, nil),
		},
		{
			Name: "row currency over the document's",
			Body: `{"currency":"EUR","tlds":[{"tld":"com","createPrice":11.9,"currency":"USD"}]}`,
			Zone: ".com", Want: suite.Set(".com", usd(1190), nil, nil),
		},
		{
			Name: "Swiss francs",
			Body: rows(`{"tld":"ch","createPrice":"7.90","renewalPrice":"7.90","currency":"CHF"}`),
			Zone: ".ch", Want: suite.Set(".ch", price("CHF", 790), price("CHF", 790), nil),
		},
		{
			Name: "row without a currency is skipped",
			Body: rows(`{"tld":"net","createPrice":13.5}`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.inwx.net"},
		},
		{
			Name: "currency symbol as the currency skips the row",
			Body: rows(`{"tld":"net","createPrice":13.5,"currency":"€"}`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.inwx.net"},
		},
		{
			Name: "currency symbol in the price skips the row",
			Body: rows(`{"tld":"net","createPrice":"$13.50","currency":"USD"}`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.inwx.net"},
		},
		{
			Name: "decimal comma skips the row",
			Body: rows(`{"tld":"de","createPrice":"4,76","currency":"EUR"}`, com),
			Zone: ".de", Skipped: 1, Keep: []string{"prices.v1.inwx.de"},
		},
		{
			Name: "negative price skips the row",
			Body: rows(`{"tld":"net","createPrice":-1,"currency":"USD"}`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.inwx.net"},
		},
		{
			Name: "exponent notation skips the row",
			Body: rows(`{"tld":"net","createPrice":1.35E1,"currency":"USD"}`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.inwx.net"},
		},
		{
			Name: "price above the ceiling skips the row",
			Body: rows(`{"tld":"net","createPrice":99999999999.99,"currency":"USD"}`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.inwx.net"},
		},
		{
			Name: "boolean price skips the row",
			Body: rows(`{"tld":"net","createPrice":true,"currency":"USD"}`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.inwx.net"},
		},
		{
			Name: "currency that is not a string skips the row, keeping its zone",
			Body: rows(`{"tld":"net","createPrice":13.5,"currency":840}`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.inwx.net"},
		},
		{
			Name: "tld that is not a zone is skipped",
			Body: rows(`{"tld":"foo_bar","createPrice":1,"currency":"USD"}`, com),
			Zone: ".foo_bar", Skipped: 1,
		},
		{
			Name: "numeric tld is outside the root, not skipped",
			Body: rows(`{"tld":"123","createPrice":1,"currency":"USD"}`, com),
			Zone: ".123",
		},
		{
			Name: "row whose tld is not a string is skipped",
			Body: rows(`{"tld":7,"createPrice":1,"currency":"USD"}`, com),
			Zone: ".com", Want: suite.Set(".com", usd(1190), usd(1190), usd(1190)), Skipped: 1,
		},
		{
			Name: "unicode tld and its A-label keep the first",
			Body: rows(`{"tld":"みんな","createPrice":9.9,"currency":"USD"}`, `{"tld":"xn--q9jyb4c","createPrice":8.9,"currency":"USD"}`),
			Zone: ".xn--q9jyb4c", Want: suite.Set(".xn--q9jyb4c", usd(990), nil, nil), Skipped: 1,
		},
		{
			Name: "unreadable A-label beside its readable unicode tld",
			Body: rows(`{"tld":"みんな","createPrice":9.9,"currency":"USD"}`, `{"tld":"xn--q9jyb4c","createPrice":"TBD","currency":"USD"}`),
			Zone: ".xn--q9jyb4c", Want: suite.Set(".xn--q9jyb4c", usd(990), nil, nil), Skipped: 1,
		},
		{Name: "error envelope", Body: string(ingesttest.Fixture(t, "error.json")), WantErr: "code 2400: Command failed: Too many requests"},
		{Name: "error message", Body: `{"message":"Service unavailable"}`, WantErr: "Service unavailable"},
		{Name: "no tlds", Body: `{}`, WantErr: "has no tlds"},
		{Name: "null tlds", Body: `{"tlds":null}`, WantErr: "has no tlds"},
		{Name: "empty tlds", Body: `{"tlds":[]}`, WantErr: "no zones"},
		{Name: "tlds is an object", Body: `{"tlds":{"com":{}}}`, WantErr: "decode inwx price list"},
		{Name: "only rows that cannot be used", Body: rows(`{"tld":"pl","createPrice":0,"currency":"USD"}`, `{"tld":"net","createPrice":1}`), WantErr: "no usable zone"},
		{Name: "html", Body: `<html><body>502 Bad Gateway</body></html>`, WantErr: "decode inwx price list"},
		{Name: "truncated", Body: string(ingesttest.Fixture(t, "all-prices.json")[:300]), WantErr: "decode inwx price list"},
	})
}

// suite is the source, for the conformance suite and the tests below.
var suite = ingesttest.Suite{
	Name: inwx.Name, Registrar: inwx.Name, Parse: inwx.Declaration().Read,
	New: func(url string, client *fetch.Client, now func() time.Time) (ingest.Source, error) {
		return kit.New(inwx.Declaration(), kit.Config{URL: url}, client, now)
	},
	Validate: func(url string) error { return kit.Config{URL: url}.Validate() },
	Path:     path, Fixtures: []string{"all-prices.json"}, Shrunk: "all-prices_shrunk.json", Errors: []string{"error.json"},
	Check: checkRequest, Conditional: true, Spoil: "tlds.0.renewalPrice",
	Drift:    ingesttest.DriftPaths{Row: "tlds[]", Field: "renewalPrice", Shape: "tlds"},
	Observed: observed, Tax: contracts.TaxUnknown,
}

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, inwx.Declaration().Read, "*.json") }
