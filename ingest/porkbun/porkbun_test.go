package porkbun_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/kit"
	"github.com/zoneprice/zoneprice/ingest/porkbun"
)

var observed = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// checkRequest says what is wrong with a request that is not the
// documented POST of "{}" as JSON.
func checkRequest(r *http.Request) error {
	got, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost || string(got) != "{}" || r.Header.Get("Content-Type") != "application/json" {
		return fmt.Errorf("%s %s %s", r.Method, got, r.Header.Get("Content-Type"))
	}
	return nil
}

// newAPI fakes Porkbun's pricing endpoint, answering with body.
func newAPI(t *testing.T, body []byte) (*ingesttest.API, *httptest.Server) {
	t.Helper()
	return ingesttest.NewAPI(t, body, checkRequest)
}

var op = ingesttest.USD

var promo = ingesttest.USDPromo

func TestFetch(t *testing.T) {
	_, srv := newAPI(t, ingesttest.Fixture(t, "pricing.json"))
	list, err := suite.Source(t, srv.URL, nil).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := suite.ByZone(t, list)
	if len(got) != 19 {
		t.Errorf("got %d zones, want 19 (23 entries less 2 Handshake names and 2 all-zero stand-ins)", len(got))
	}
	if list.Skipped != 0 || list.Keep != nil {
		t.Errorf("skipped %d, keep %q; Handshake names and stand-ins are left out, not skipped", list.Skipped, list.Keep)
	}
	tests := []struct {
		name, zone                string
		register, renew, transfer *contracts.OpPrice
	}{
		{"plain", ".com", op(1108), op(1108), op(1108)},
		{"cheap first year", ".org", op(798), op(1184), op(1184)},
		{"second-level zone is its own", ".co.uk", op(432), op(566), op(0)},
		{"second-level zone beside its parent", ".com.mx", op(2852), op(2852), op(2852)},
		{"free transfer", ".uk", op(432), op(566), op(0)},
		{"thousands separator", ".security", op(206023), op(206023), op(206023)},
		{"amount coupon", ".de", promo(555, 455), op(411), op(411)},
		{"coupon larger than the price is ignored", ".quest", op(110), op(2262), op(2262)},
		{"exact percent coupon", ".xyz", promo(1200, 960), op(1366), op(1366)},
		{"empty coupon object", ".shop", op(123), op(3117), op(3117)},
		{"n/a transfer is not offered", ".es", op(599), op(836), nil},
		{"empty transfer is not offered", ".online", op(126), op(2574), nil},
		{"IDN A-label", ".xn--q9jyb4c", op(861), op(2858), op(2858)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok := got[tt.zone]
			if !ok {
				t.Fatalf("no price set for %s", tt.zone)
			}
			ingesttest.CheckOps(t, p, tt.register, tt.renew, tt.transfer)
		})
	}
	for _, zone := range []string{".0z", ".doge", ".pl", ".com.pl", ".co"} {
		if _, ok := got[zone]; ok {
			t.Errorf("%s is listed; it should be skipped", zone)
		}
	}
}

// TestParseQuirks covers the format's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	suite.Quirks(t, []ingesttest.Quirk{
		{
			Name: "prices as JSON numbers",
			Body: `{"status":"SUCCESS","pricing":{"com":{"registration":11.08,"renewal":11.08,"transfer":11.08,"coupons":[]}}}`,
			Zone: ".com", Want: suite.Set(".com", op(1108), op(1108), op(1108)),
		},
		{
			Name: "missing operation",
			Body: `{"status":"SUCCESS","pricing":{"com":{"registration":"11.08","renewal":"11.08"}}}`,
			Zone: ".com", Want: suite.Set(".com", op(1108), op(1108), nil),
		},
		{
			Name: "zero registration is not offered",
			Body: `{"status":"SUCCESS","pricing":{"com":{"registration":"0.00","renewal":"11.08","transfer":"11.08"},"net":{"registration":"1.00","renewal":"1.00","transfer":"1.00"}}}`,
			Zone: ".com", Want: suite.Set(".com", nil, op(1108), op(1108)),
		},
		{
			Name: "zero renewal is not offered",
			Body: `{"status":"SUCCESS","pricing":{"com":{"registration":"11.08","renewal":0,"transfer":"11.08"}}}`,
			Zone: ".com", Want: suite.Set(".com", op(1108), nil, op(1108)),
		},
		{
			Name: "zero registration and renewal leave the transfer",
			Body: `{"status":"SUCCESS","pricing":{"com":{"registration":"0.00","renewal":"0.00","transfer":"11.08"}}}`,
			Zone: ".com", Want: suite.Set(".com", nil, nil, op(1108)),
		},
		{
			Name: "zero transfer is a free transfer",
			Body: `{"status":"SUCCESS","pricing":{"uk":{"registration":"4.32","renewal":"5.66","transfer":"0.00"}}}`,
			Zone: ".uk", Want: suite.Set(".uk", op(432), op(566), op(0)),
		},
		{
			Name: "zero registration and renewal with no transfer is left out, not skipped",
			Body: `{"status":"SUCCESS","pricing":{"com":{"registration":"0.00","renewal":"0.00"},"net":{"registration":"12.52","renewal":"12.52","transfer":"12.52"}}}`,
			Zone: ".com",
		},
		{
			Name: "coupon on a zero registration is ignored",
			Body: `{"status":"SUCCESS","pricing":{"com":{"registration":"0.00","renewal":"11.08","transfer":"11.08","coupons":{"registration":{"type":"amount","amount":1}}}}}`,
			Zone: ".com", Want: suite.Set(".com", nil, op(1108), op(1108)),
		},
		{
			Name: "upper-case key",
			Body: `{"status":"SUCCESS","pricing":{"COM":{"registration":"11.08","renewal":"11.08","transfer":"11.08"}}}`,
			Zone: ".com", Want: suite.Set(".com", op(1108), op(1108), op(1108)),
		},
		{
			Name: "unicode key",
			Body: `{"status":"SUCCESS","pricing":{"みんな":{"registration":"8.61","renewal":"28.58","transfer":"28.58"}}}`,
			Zone: ".xn--q9jyb4c", Want: suite.Set(".xn--q9jyb4c", op(861), op(2858), op(2858)),
		},
		{
			Name: "unicode key and its A-label keep the first",
			Body: `{"status":"SUCCESS","pricing":{"みんな":{"registration":"9.99","renewal":"9.99","transfer":"9.99"},"xn--q9jyb4c":{"registration":"8.61","renewal":"28.58","transfer":"28.58"}}}`,
			Zone: ".xn--q9jyb4c", Want: suite.Set(".xn--q9jyb4c", op(861), op(2858), op(2858)),
			Skipped: 1,
		},
		{
			Name: "unreadable A-label beside its readable unicode key",
			Body: `{"status":"SUCCESS","pricing":{"みんな":{"registration":"8.61","renewal":"28.58","transfer":"28.58"},"xn--q9jyb4c":{"registration":"TBD"}}}`,
			Zone: ".xn--q9jyb4c", Want: suite.Set(".xn--q9jyb4c", op(861), op(2858), op(2858)),
			Skipped: 1,
		},
		{
			Name: "unreadable price skips the zone",
			Body: `{"status":"SUCCESS","pricing":{"com":{"registration":"TBD","renewal":"11.08","transfer":"11.08"},"net":{"registration":"12.52","renewal":"12.52","transfer":"12.52"}}}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.porkbun.com"},
		},
		{
			Name: "unknown special type skips the zone",
			Body: `{"status":"SUCCESS","pricing":{"com":{"registration":"1.00","renewal":"1.00","transfer":"1.00","specialType":{"kind":"x"}},"net":{"registration":"12.52","renewal":"12.52","transfer":"12.52"}}}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.porkbun.com"},
		},
		{
			Name: "entry that is not an object skips the zone",
			Body: `{"status":"SUCCESS","pricing":{"com":"11.08","net":{"registration":"12.52","renewal":"12.52","transfer":"12.52"}}}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.porkbun.com"},
		},
		{
			Name: "key that is not a zone is skipped",
			Body: `{"status":"SUCCESS","pricing":{"foo bar":{"registration":"1.00"},"net":{"registration":"12.52","renewal":"12.52","transfer":"12.52"}}}`,
			Zone: ".foo bar", Skipped: 1,
		},
		{
			Name: "unreadable entries are counted and kept, zones not sold are not",
			Body: `{"status":"SUCCESS","pricing":{` +
				`"0z":{"registration":"42.52","specialType":"handshake"},` +
				`"pl":{"registration":"0.00","renewal":"0.00","transfer":"0.00"},` +
				`"es":{"registration":"n/a","renewal":null},` +
				`"CO.UK":{"registration":"4,32,1","renewal":"5.66","transfer":"0.00"},` +
				`"io":{"registration":"28.12","renewal":"51.80","transfer":[]},` +
				`"com":{"registration":"11.08","renewal":"11.08","transfer":"11.08"}}}`,
			Zone: ".com", Want: suite.Set(".com", op(1108), op(1108), op(1108)),
			Skipped: 2, Keep: []string{"prices.v1.porkbun.co_uk", "prices.v1.porkbun.io"},
		},
		{
			Name: "amount coupon as a string",
			Body: `{"status":"SUCCESS","pricing":{"com":{"registration":"11.08","renewal":"11.08","transfer":"11.08","coupons":{"registration":{"code":"X","max_per_user":"1","first_year_only":"no","type":"amount","amount":"2.50"}}}}}`,
			Zone: ".com", Want: suite.Set(".com", promo(1108, 858), op(1108), op(1108)),
		},
		{
			Name: "coupon that makes the name free",
			Body: `{"status":"SUCCESS","pricing":{"com":{"registration":"1.00","renewal":"11.08","transfer":"11.08","coupons":{"registration":{"type":"amount","amount":1}}}}}`,
			Zone: ".com", Want: suite.Set(".com", promo(100, 0), op(1108), op(1108)),
		},
		{
			Name: "transfer coupon",
			Body: `{"status":"SUCCESS","pricing":{"com":{"registration":"11.08","renewal":"11.08","transfer":"11.08","coupons":{"transfer":{"type":"amount","amount":1}}}}}`,
			Zone: ".com", Want: suite.Set(".com", op(1108), op(1108), promo(1108, 1008)),
		},
		{
			Name: "inexact percent coupon is left out",
			Body: `{"status":"SUCCESS","pricing":{"com":{"registration":"11.08","renewal":"11.08","transfer":"11.08","coupons":{"registration":{"type":"percent","amount":15}}}}}`,
			Zone: ".com", Want: suite.Set(".com", op(1108), op(1108), op(1108)),
		},
		{
			Name: "unknown coupon type is ignored",
			Body: `{"status":"SUCCESS","pricing":{"com":{"registration":"11.08","renewal":"11.08","transfer":"11.08","coupons":{"registration":{"type":"bogo","amount":1}}}}}`,
			Zone: ".com", Want: suite.Set(".com", op(1108), op(1108), op(1108)),
		},
		{
			Name: "coupon for an operation not offered is ignored",
			Body: `{"status":"SUCCESS","pricing":{"com":{"registration":"11.08","renewal":"11.08","coupons":{"transfer":{"type":"amount","amount":1}}}}}`,
			Zone: ".com", Want: suite.Set(".com", op(1108), op(1108), nil),
		},
		{
			Name: "populated coupon array is ignored",
			Body: `{"status":"SUCCESS","pricing":{"com":{"registration":"11.08","renewal":"11.08","transfer":"11.08","coupons":[{"type":"amount","amount":1}]}}}`,
			Zone: ".com", Want: suite.Set(".com", op(1108), op(1108), op(1108)),
		},
		{
			Name:    "error status names the message",
			Body:    string(ingesttest.Fixture(t, "error.json")),
			WantErr: "Too many requests",
		},
		{
			Name:    "only zones that cannot be used",
			Body:    `{"status":"SUCCESS","pricing":{"0z":{"registration":"1.00","specialType":"handshake"},"pl":{"registration":"0.00","renewal":"0.00","transfer":"0.00"}}}`,
			WantErr: "no usable zone",
		},
		{Name: "no pricing", Body: `{"status":"SUCCESS"}`, WantErr: "no zones"},
		{Name: "no status", Body: `{"pricing":{"com":{"registration":"1.00"}}}`, WantErr: "no status"},
		{Name: "html", Body: `<html><body>502 Bad Gateway</body></html>`, WantErr: "decode porkbun price list"},
		{Name: "truncated", Body: string(ingesttest.Fixture(t, "pricing.json")[:300]), WantErr: "decode porkbun price list"},
		{Name: "pricing is a list", Body: `{"status":"SUCCESS","pricing":[]}`, WantErr: "decode porkbun price list"},
	})
}

// suite is the source, for the conformance suite and the tests below.
var suite = ingesttest.Suite{
	Name: porkbun.Name, Registrar: porkbun.Name, Parse: porkbun.Declaration().Read,
	New: func(url string, client *fetch.Client, now func() time.Time) (ingest.Source, error) {
		return kit.New(porkbun.Declaration(), kit.Config{URL: url}, client, now)
	},
	Validate: func(url string) error { return kit.Config{URL: url}.Validate() },
	Fixtures: []string{"pricing.json"}, Shrunk: "pricing_shrunk.json", Errors: []string{"error.json"},
	Check: checkRequest, Spoil: "pricing.com.renewal",
	Drift:    ingesttest.DriftPaths{Row: "pricing.*", Field: "renewal", Shape: "pricing"},
	Observed: observed,
}

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, porkbun.Declaration().Read, "*.json") }
