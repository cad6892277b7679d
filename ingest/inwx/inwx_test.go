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

func newSource(t testing.TB, url string, hc *http.Client) *inwx.Source {
	t.Helper()
	src, err := inwx.New(inwx.Config{URL: url}, ingesttest.Client(hc), func() time.Time { return observed })
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func byZone(t testing.TB, list *ingest.List) map[string]contracts.PriceSet {
	t.Helper()
	return ingesttest.CheckList(t, list, inwx.Name, inwx.Name, observed)
}

func price(cur string, amount int64) *contracts.OpPrice {
	return &contracts.OpPrice{Regular: contracts.Price{Amount: amount, Currency: cur}}
}

func usd(cents int64) *contracts.OpPrice { return price("USD", cents) }

func eur(cents int64) *contracts.OpPrice { return price("EUR", cents) }

func set(zone string, register, renew, transfer *contracts.OpPrice) *contracts.PriceSet {
	return &contracts.PriceSet{
		V: contracts.SchemaVersion, Kind: contracts.KindPriceSet, Registrar: inwx.Name, Zone: zone,
		Register: register, Renew: renew, Transfer: transfer, ObservedAt: observed, Source: inwx.Name,
		Tax: contracts.TaxUnknown,
	}
}

// fixtureZones is how many zones all-prices.json prices: 22 rows less .pl,
// which offers nothing.
const fixtureZones = 21

func TestFetch(t *testing.T) {
	_, url := newAPI(t, ingesttest.Fixture(t, "all-prices.json"))
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
			name: "restore price is not read",
			body: rows(`{"tld":"com","createPrice":11.9,"renewalPrice":11.9,"transferPrice":11.9,"restorePrice":"TBD","currency":"USD"}`),
			zone: ".com", want: set(".com", usd(1190), usd(1190), usd(1190)),
		},
		{
			name: "zero registration is not offered",
			body: rows(`{"tld":"com","createPrice":"0.00","renewalPrice":11.9,"transferPrice":11.9,"currency":"USD"}`),
			zone: ".com", want: set(".com", nil, usd(1190), usd(1190)),
		},
		{
			name: "row offering nothing is left out, not skipped",
			body: rows(`{"tld":"pl","createPrice":0,"renewalPrice":"","transferPrice":null,"currency":"USD"}`, com),
			zone: ".pl",
		},
		{
			name: "fractions of a cent round half up",
			body: rows(`{"tld":"com","createPrice":11.895,"renewalPrice":"11.8949","currency":"USD"}`),
			zone: ".com", want: set(".com", usd(1190), usd(1189), nil),
		},
		{
			name: "document currency",
			body: `{"currency":"EUR","tlds":[{"tld":"de","createPrice":4.76}]}`,
			zone: ".de", want: set(".de", eur(476), nil, nil),
		},
		{
			name: "row currency over the document's",
			body: `{"currency":"EUR","tlds":[{"tld":"com","createPrice":11.9,"currency":"USD"}]}`,
			zone: ".com", want: set(".com", usd(1190), nil, nil),
		},
		{
			name: "Swiss francs",
			body: rows(`{"tld":"ch","createPrice":"7.90","renewalPrice":"7.90","currency":"CHF"}`),
			zone: ".ch", want: set(".ch", price("CHF", 790), price("CHF", 790), nil),
		},
		{
			name: "row without a currency is skipped",
			body: rows(`{"tld":"net","createPrice":13.5}`, com),
			zone: ".net", skipped: 1, keep: []string{"prices.v1.inwx.net"},
		},
		{
			name: "currency symbol as the currency skips the row",
			body: rows(`{"tld":"net","createPrice":13.5,"currency":"€"}`, com),
			zone: ".net", skipped: 1, keep: []string{"prices.v1.inwx.net"},
		},
		{
			name: "currency symbol in the price skips the row",
			body: rows(`{"tld":"net","createPrice":"$13.50","currency":"USD"}`, com),
			zone: ".net", skipped: 1, keep: []string{"prices.v1.inwx.net"},
		},
		{
			name: "decimal comma skips the row",
			body: rows(`{"tld":"de","createPrice":"4,76","currency":"EUR"}`, com),
			zone: ".de", skipped: 1, keep: []string{"prices.v1.inwx.de"},
		},
		{
			name: "negative price skips the row",
			body: rows(`{"tld":"net","createPrice":-1,"currency":"USD"}`, com),
			zone: ".net", skipped: 1, keep: []string{"prices.v1.inwx.net"},
		},
		{
			name: "exponent notation skips the row",
			body: rows(`{"tld":"net","createPrice":1.35E1,"currency":"USD"}`, com),
			zone: ".net", skipped: 1, keep: []string{"prices.v1.inwx.net"},
		},
		{
			name: "price above the ceiling skips the row",
			body: rows(`{"tld":"net","createPrice":99999999999.99,"currency":"USD"}`, com),
			zone: ".net", skipped: 1, keep: []string{"prices.v1.inwx.net"},
		},
		{
			name: "boolean price skips the row",
			body: rows(`{"tld":"net","createPrice":true,"currency":"USD"}`, com),
			zone: ".net", skipped: 1, keep: []string{"prices.v1.inwx.net"},
		},
		{
			name: "currency that is not a string skips the row, keeping its zone",
			body: rows(`{"tld":"net","createPrice":13.5,"currency":840}`, com),
			zone: ".net", skipped: 1, keep: []string{"prices.v1.inwx.net"},
		},
		{
			name: "tld that is not a zone is skipped",
			body: rows(`{"tld":"foo_bar","createPrice":1,"currency":"USD"}`, com),
			zone: ".foo_bar", skipped: 1,
		},
		{
			name: "numeric tld is outside the root, not skipped",
			body: rows(`{"tld":"123","createPrice":1,"currency":"USD"}`, com),
			zone: ".123",
		},
		{
			name: "row whose tld is not a string is skipped",
			body: rows(`{"tld":7,"createPrice":1,"currency":"USD"}`, com),
			zone: ".com", want: set(".com", usd(1190), usd(1190), usd(1190)), skipped: 1,
		},
		{
			name: "unicode tld and its A-label keep the first",
			body: rows(`{"tld":"みんな","createPrice":9.9,"currency":"USD"}`, `{"tld":"xn--q9jyb4c","createPrice":8.9,"currency":"USD"}`),
			zone: ".xn--q9jyb4c", want: set(".xn--q9jyb4c", usd(990), nil, nil), skipped: 1,
		},
		{
			name: "unreadable A-label beside its readable unicode tld",
			body: rows(`{"tld":"みんな","createPrice":9.9,"currency":"USD"}`, `{"tld":"xn--q9jyb4c","createPrice":"TBD","currency":"USD"}`),
			zone: ".xn--q9jyb4c", want: set(".xn--q9jyb4c", usd(990), nil, nil), skipped: 1,
		},
		{name: "error envelope", body: string(ingesttest.Fixture(t, "error.json")), wantErr: "code 2400: Command failed: Too many requests"},
		{name: "error message", body: `{"message":"Service unavailable"}`, wantErr: "Service unavailable"},
		{name: "no tlds", body: `{}`, wantErr: "has no tlds"},
		{name: "null tlds", body: `{"tlds":null}`, wantErr: "has no tlds"},
		{name: "empty tlds", body: `{"tlds":[]}`, wantErr: "no zones"},
		{name: "tlds is an object", body: `{"tlds":{"com":{}}}`, wantErr: "decode inwx price list"},
		{name: "only rows that cannot be used", body: rows(`{"tld":"pl","createPrice":0,"currency":"USD"}`, `{"tld":"net","createPrice":1}`), wantErr: "no usable zone"},
		{name: "html", body: `<html><body>502 Bad Gateway</body></html>`, wantErr: "decode inwx price list"},
		{name: "truncated", body: string(ingesttest.Fixture(t, "all-prices.json")[:300]), wantErr: "decode inwx price list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list, err := inwx.Parse([]byte(tt.body), observed)
			if ingesttest.CheckOutcome(t, list, err, tt.wantErr, tt.skipped, tt.keep) {
				ingesttest.CheckZone(t, byZone(t, list), tt.zone, tt.want)
			}
		})
	}
}

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) {
	ingesttest.Conform(t, ingesttest.Suite{
		Name: inwx.Name, Registrar: inwx.Name, Parse: inwx.Parse,
		New: func(url string, client *fetch.Client) (ingest.Source, error) {
			return inwx.New(inwx.Config{URL: url}, client, nil)
		},
		Validate: func(url string) error { return inwx.Config{URL: url}.Validate() },
		Path:     path, Fixtures: []string{"all-prices.json"}, Shrunk: "all-prices_shrunk.json", Errors: []string{"error.json"},
		Check: checkRequest, Conditional: true, Spoil: "tlds.0.renewalPrice",
		Drift: ingesttest.DriftPaths{Row: "tlds[]", Field: "renewalPrice", Shape: "tlds"},
	})
}

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, inwx.Parse, "*.json") }
