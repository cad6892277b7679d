package tierra_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/kit"
	"github.com/zoneprice/zoneprice/ingest/tierra"
)

var observed = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// wantZones is how many zones the fixture prices: 22 entries less .pl
// (nothing offered) and the Handshake names .c and .hns.
const wantZones = 19

func newAPI(t *testing.T, body []byte) (*ingesttest.API, *httptest.Server) {
	t.Helper()
	return ingesttest.NewAPI(t, body, ingesttest.PlainGet)
}

var op = ingesttest.USD

var promo = ingesttest.USDPromo

func TestFetch(t *testing.T) {
	_, srv := newAPI(t, ingesttest.Fixture(t, "pricingData.json"))
	list, err := suite.Source(t, srv.URL, nil).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := suite.ByZone(t, list)
	if len(got) != wantZones {
		t.Errorf("got %d zones, want %d", len(got), wantZones)
	}
	if list.Skipped != 0 || list.Keep != nil {
		t.Errorf("skipped %d, keep %q; Handshake names and zones not sold are left out, not skipped", list.Skipped, list.Keep)
	}
	tests := []struct {
		name, zone                string
		register, renew, transfer *contracts.OpPrice
	}{
		{"plain, no type", ".com", op(1099), op(1099), op(1099)},
		{"gTLD type", ".net", op(1399), op(1399), op(1399)},
		{"sale below the price is a promotion", ".xyz", promo(1199, 199), op(1299), op(1299)},
		{"sale above the price is not read", ".club", op(1599), op(1599), op(1599)},
		{"zero sale is no sale", ".online", op(99), op(2999), op(2999)},
		{"unreadable sale is ignored", ".shop", op(199), op(3499), op(3499)},
		{"ccTLD type", ".io", op(4999), op(4999), op(4999)},
		{"second-level zone, free transfer", ".co.uk", op(799), op(799), op(0)},
		{"empty transfer not offered", ".uk", op(799), op(799), nil},
		{"thousands separator", ".security", op(229900), op(229900), op(229900)},
		{"IDN as A-label", ".xn--q9jyb4c", op(999), op(2999), op(2999)},
		{"IDN in Unicode, n/a transfer", ".xn--p1ai", op(599), op(999), nil},
		{"upper-case second-level zone", ".com.au", op(1499), op(1499), nil},
		{"dollar signs, leading dot", ".app", op(1499), op(1499), op(1499)},
		{"short array: no transfer", ".me", op(399), op(1999), nil},
		{"JSON numbers and null", ".es", op(899), op(1099), nil},
		{"values after the fifth are not read", ".tv", op(2999), op(2999), op(2999)},
		{"zero transfer is free, dash sale is none", ".de", op(699), op(699), op(0)},
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
	for _, zone := range []string{".pl", ".c", ".hns"} {
		if _, ok := got[zone]; ok {
			t.Errorf("%s is listed; it should be left out", zone)
		}
	}
}

// TestParseQuirks covers the format's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	const net = `"net":["12.00","12.00","12.00","",""]`
	suite.Quirks(t, []ingesttest.Quirk{
		{
			Name: "types in any case",
			Body: `{"com":["10.00","10.00","10.00","","GTLD"],"io":["40.00","40.00","40.00",""," ccTld "]}`,
			Zone: ".io", Want: suite.Set(".io", op(4000), op(4000), op(4000)),
		},
		{
			Name: "null type and sale",
			Body: `{"com":["10.00","10.00","10.00",null,null]}`,
			Zone: ".com", Want: suite.Set(".com", op(1000), op(1000), op(1000)),
		},
		{
			Name: "sale on a zone without registration is ignored",
			Body: `{"com":["","10.00","10.00","1.00",""]}`,
			Zone: ".com", Want: suite.Set(".com", nil, op(1000), op(1000)),
		},
		{
			Name: "sale equal to the price is no promotion",
			Body: `{"com":["10.00","10.00","10.00","10.00",""]}`,
			Zone: ".com", Want: suite.Set(".com", op(1000), op(1000), op(1000)),
		},
		{
			Name: "sale as a JSON number",
			Body: `{"com":["10.00","10.00","10.00",4.5,""]}`,
			Zone: ".com", Want: suite.Set(".com", promo(1000, 450), op(1000), op(1000)),
		},
		{
			Name: "zero registration is not offered",
			Body: `{"com":["0.00","10.00","10.00","",""]}`,
			Zone: ".com", Want: suite.Set(".com", nil, op(1000), op(1000)),
		},
		{
			Name: "web3 name left out",
			Body: `{"crypto":["5.00","5.00","","","web3"],` + net + `}`,
			Zone: ".crypto",
		},
		{
			Name: "non-DNS key left out without being read as a zone",
			Body: `{"foo bar":["5.00","5.00","","","handshake"],` + net + `}`,
			Zone: ".foo bar",
		},
		{
			Name: "unknown type skips the entry and keeps its last price",
			Body: `{"com":["10.00","10.00","10.00","","premium"],` + net + `}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.tierra.com"},
		},
		{
			Name: "type that is not a string skips the entry",
			Body: `{"com":["10.00","10.00","10.00","",1],` + net + `}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.tierra.com"},
		},
		{
			Name: "unreadable price skips the zone",
			Body: `{"com":["TBD","10.00","10.00","",""],` + net + `}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.tierra.com"},
		},
		{
			Name: "euro sign skips the zone",
			Body: `{"com":["€10.00","10.00","10.00","",""],` + net + `}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.tierra.com"},
		},
		{
			Name: "price over the ceiling skips the zone",
			Body: `{"com":["99999999999999","10.00","10.00","",""],` + net + `}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.tierra.com"},
		},
		{
			Name: "price that is a boolean skips the zone",
			Body: `{"com":[true,"10.00","10.00","",""],` + net + `}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.tierra.com"},
		},
		{
			Name: "entry that is not an array is skipped",
			Body: `{"com":{"register":"10.00"},` + net + `}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.tierra.com"},
		},
		{
			Name: "key that is not a zone is skipped",
			Body: `{"foo bar":["10.00","10.00","10.00","",""],` + net + `}`,
			Zone: ".foo bar", Skipped: 1,
		},
		{
			Name: "unicode key and its A-label keep the first in key order",
			Body: `{"xn--q9jyb4c":["8.00","8.00","8.00","",""],"みんな":["9.00","9.00","9.00","",""]}`,
			Zone: ".xn--q9jyb4c", Want: suite.Set(".xn--q9jyb4c", op(800), op(800), op(800)), Skipped: 1,
		},
		{
			Name: "empty array offers nothing",
			Body: `{"com":[],` + net + `}`,
			Zone: ".com",
		},
		{Name: "only names not sold", Body: `{"c":["1.00","1.00","","","handshake"],"pl":["0","0","0","",""]}`, WantErr: "no usable zone"},
		{Name: "error envelope", Body: `{"error":"pricing temporarily unavailable"}`, WantErr: `tierra answered error: "pricing temporarily unavailable"`},
		{Name: "message envelope", Body: `{"message":"Unauthorized"}`, WantErr: `tierra answered message: "Unauthorized"`},
		{Name: "empty object", Body: `{}`, WantErr: "no zones"},
		{Name: "null", Body: `null`, WantErr: "decode tierra price list"},
		{Name: "array", Body: `[["com","10.00"]]`, WantErr: "decode tierra price list"},
		{Name: "html page", Body: `<html><body><h1>502 Bad Gateway</h1></body></html>`, WantErr: "decode tierra price list"},
		{Name: "truncated", Body: string(ingesttest.Fixture(t, "pricingData.json")[:200]), WantErr: "decode tierra price list"},
	})
}

// suite is the source, for the conformance suite and the tests below.
var suite = ingesttest.Suite{
	Name: tierra.Name, Registrar: tierra.Name, Parse: tierra.Declaration().Read,
	New: func(url string, client *fetch.Client, now func() time.Time) (ingest.Source, error) {
		return kit.New(tierra.Declaration(), kit.Config{URL: url}, client, now)
	},
	Validate: func(url string) error { return kit.Config{URL: url}.Validate() },
	Fixtures: []string{"pricingData.json"}, Shrunk: "pricingData_shrunk.json",
	Check: ingesttest.PlainGet, Conditional: true, Spoil: "com.1",
	Drift:    ingesttest.DriftPaths{Shape: "*"},
	Observed: observed, Tax: contracts.TaxUnknown,
}

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, tierra.Declaration().Read, "*.json") }
