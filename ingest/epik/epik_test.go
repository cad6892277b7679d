package epik_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/epik"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/kit"
)

var observed = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

const listPath = "/api/load-200-plus-prices"

// wantZones is how many zones the fixture prices: 20 entries less .pl
// (zero throughout) and "bit/" (a Handshake name).
const wantZones = 18

// checkRequest says what is wrong with a request that is not the plain GET
// Epik's pages send.
func checkRequest(r *http.Request) error {
	if r.Method != http.MethodGet || r.URL.Path != listPath || r.URL.RawQuery != "" {
		return errors.New(r.Method + " " + r.URL.String())
	}
	return nil
}

var op = ingesttest.USD

var promo = ingesttest.USDPromo

func TestFetch(t *testing.T) {
	_, srv := ingesttest.NewAPI(t, ingesttest.Fixture(t, "prices.json"), checkRequest)
	url := srv.URL + listPath
	list, err := suite.Source(t, url, nil).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := suite.ByZone(t, list)
	if len(got) != wantZones {
		t.Errorf("got %d zones, want %d", len(got), wantZones)
	}
	if list.Skipped != 0 || list.Keep != nil {
		t.Errorf("skipped %d, keep %q; a Handshake name and a zone priced at zero are left out, not skipped", list.Skipped, list.Keep)
	}
	tests := []struct {
		name, zone                string
		register, renew, transfer *contracts.OpPrice
	}{
		{"plain", ".com", op(1049), op(1049), op(1049)},
		{"prices as JSON numbers, zero transfer is free", ".de", op(549), op(549), op(0)},
		{"prices as JSON numbers", ".net", op(1249), op(1249), op(1249)},
		{"registration below its standard price is a promotion", ".org", promo(1199, 749), op(1199), op(1199)},
		{"promotions on registration and transfer", ".xyz", promo(1299, 99), op(1299), promo(1299, 999)},
		{"price of the day above the standard one is paid", ".io", op(4999), op(5499), op(4999)},
		{"no standard prices", ".app", op(1499), op(1499), op(1499)},
		{"-1 standard prices", ".dev", op(1499), op(1499), op(1499)},
		{"second-level zone, free transfer", ".co.uk", op(699), op(699), op(0)},
		{"second-level zone, null transfer", ".com.au", op(1299), op(1299), nil},
		{"free transfer", ".uk", op(699), op(699), op(0)},
		{"thousands separator", ".security", op(206023), op(206023), op(206023)},
		{"n/a transfer is not offered", ".es", op(899), op(899), nil},
		{"empty transfer is not offered, registration promotion stays", ".online", promo(3499, 299), op(3499), nil},
		{"-1 transfer is not offered", ".club", op(1299), op(1499), nil},
		{"null renewal is not offered", ".shop", promo(3499, 199), nil, op(3499)},
		{"IDN as an A-label", ".xn--q9jyb4c", promo(2799, 899), op(2799), op(2799)},
		{"IDN in Unicode", ".xn--80asehdb", promo(2999, 2499), op(2999), op(2999)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok := got[tt.zone]
			if !ok {
				t.Fatalf("no price set for %s", tt.zone)
			}
			ingesttest.CheckOps(t, p, tt.register, tt.renew, tt.transfer)
			if p.Tax != contracts.TaxUnknown {
				t.Errorf("tax %q, want %q", p.Tax, contracts.TaxUnknown)
			}
		})
	}
	for _, zone := range []string{".pl", ".bit"} {
		if _, ok := got[zone]; ok {
			t.Errorf("%s is listed; it should be left out", zone)
		}
	}
}

// TestParseQuirks covers the format's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	all := func(v string) string {
		return `{"price":` + v + `,"renew":` + v + `,"transfer":` + v + `,"priceStandard":` + v + `,"renewStandard":` + v + `,"transferStandard":` + v + `}`
	}
	net := `"net":` + all(`"12.49"`)
	suite.Quirks(t, []ingesttest.Quirk{
		{
			Name: "missing price of the day is not offered, whatever the standard price",
			Body: `{"com":{"priceStandard":"10.49","renew":"10.49","renewStandard":"10.49"}}`,
			Zone: ".com", Want: suite.Set(".com", nil, op(1049), nil),
		},
		{
			Name: "zero registration is not offered even with a standard price",
			Body: `{"com":{"price":"0.00","priceStandard":"10.49","renew":"10.49"}}`,
			Zone: ".com", Want: suite.Set(".com", nil, op(1049), nil),
		},
		{
			Name: "free transfer promotion",
			Body: `{"com":{"price":"10.49","transfer":"0","transferStandard":"10.49"}}`,
			Zone: ".com", Want: suite.Set(".com", op(1049), nil, promo(1049, 0)),
		},
		{
			Name: "zero standard price leaves the price of the day",
			Body: `{"com":{"price":"10.49","priceStandard":0}}`,
			Zone: ".com", Want: suite.Set(".com", op(1049), nil, nil),
		},
		{
			Name: "three decimals round half up",
			Body: `{"com":{"price":"8.875","priceStandard":"10.4900"}}`,
			Zone: ".com", Want: suite.Set(".com", promo(1049, 888), nil, nil),
		},
		{
			Name: "currency named by the entry",
			Body: `{"eu":{"price":"4.99","priceStandard":"5.99","currency":"eur"}}`,
			Zone: ".eu", Want: &contracts.PriceSet{
				V: contracts.SchemaVersion, Kind: contracts.KindPriceSet, Registrar: epik.Name, Zone: ".eu",
				Register: &contracts.OpPrice{
					Regular: contracts.Price{Amount: 599, Currency: "EUR"},
					Promo:   &contracts.Promo{Price: contracts.Price{Amount: 499, Currency: "EUR"}},
				},
				ObservedAt: observed, Source: epik.Name, Tax: contracts.TaxUnknown,
			},
		},
		{
			Name: "leading dot and upper case key",
			Body: `{".COM":` + all(`"10.49"`) + `}`,
			Zone: ".com", Want: suite.Set(".com", op(1049), op(1049), op(1049)),
		},
		{
			Name: "only a free transfer is left out, not skipped",
			Body: `{"uk":{"price":"0.00","renew":"0.00","transfer":"0.00"},` + net + `}`,
			Zone: ".uk",
		},
		{
			Name: "Handshake name is left out, not skipped",
			Body: `{"forever/":` + all(`"5.00"`) + `,` + net + `}`,
			Zone: ".forever",
		},
		{
			Name: "unicode key and its A-label keep the first in key order",
			Body: `{"みんな":` + all(`"9.99"`) + `,"xn--q9jyb4c":` + all(`"8.99"`) + `}`,
			Zone: ".xn--q9jyb4c", Want: suite.Set(".xn--q9jyb4c", op(899), op(899), op(899)),
			Skipped: 1,
		},
		{
			Name: "unreadable price skips the zone",
			Body: `{"com":` + all(`"TBD"`) + `,` + net + `}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.epik.com"},
		},
		{
			Name: "unreadable standard price skips the zone",
			Body: `{"com":{"price":"10.49","priceStandard":"ten"},` + net + `}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.epik.com"},
		},
		{
			Name: "negative price skips the zone",
			Body: `{"com":{"price":"-10.49"},` + net + `}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.epik.com"},
		},
		{
			Name: "unknown currency skips the zone",
			Body: `{"com":{"price":"10.49","currency":"ZZZ"},` + net + `}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.epik.com"},
		},
		{
			Name: "top-level value that is not an object is skipped",
			Body: `{"com":true,` + net + `}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.epik.com"},
		},
		{
			Name: "key that is not a zone is skipped",
			Body: `{"foo bar":` + all(`"1.00"`) + `,` + net + `}`,
			Zone: ".net", Want: suite.Set(".net", op(1249), op(1249), op(1249)),
			Skipped: 1,
		},
		{Name: "error envelope names the message", Body: string(ingesttest.Fixture(t, "error.json")), WantErr: `epik answered message: "Too Many Attempts."`},
		{Name: "error key", Body: `{"error":"Unauthenticated."}`, WantErr: `epik answered error: "Unauthenticated."`},
		{Name: "only zones that cannot be used", Body: `{"pl":` + all(`"0.00"`) + `}`, WantErr: "no usable zone"},
		{Name: "no zones", Body: `{}`, WantErr: "no zones"},
		{Name: "null", Body: `null`, WantErr: "decode epik price list"},
		{Name: "a list", Body: `[]`, WantErr: "decode epik price list"},
		{Name: "html", Body: `<!DOCTYPE html><html><body>502 Bad Gateway</body></html>`, WantErr: "decode epik price list"},
		{Name: "truncated", Body: string(ingesttest.Fixture(t, "prices.json")[:300]), WantErr: "decode epik price list"},
	})
}

// suite is the source, for the conformance suite and the tests below.
var suite = ingesttest.Suite{
	Name: epik.Name, Registrar: epik.Name, Parse: epik.Declaration().Read, Path: listPath,
	New: func(url string, client *fetch.Client, now func() time.Time) (ingest.Source, error) {
		return kit.New(epik.Declaration(), kit.Config{URL: url}, client, now)
	},
	Validate: func(url string) error { return kit.Config{URL: url}.Validate() },
	Fixtures: []string{"prices.json"}, Shrunk: "prices_shrunk.json", Errors: []string{"error.json"},
	Check: checkRequest, Conditional: true, Spoil: "com.renew",
	Drift:    ingesttest.DriftPaths{Row: "*", Field: "renew", Shape: "*"},
	Observed: observed, Tax: contracts.TaxUnknown,
}

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, epik.Declaration().Read, "*.json") }
