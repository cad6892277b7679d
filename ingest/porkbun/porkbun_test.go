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

func newSource(t testing.TB, url string, hc *http.Client) *porkbun.Source {
	t.Helper()
	src, err := porkbun.New(porkbun.Config{URL: url}, ingesttest.Client(hc), func() time.Time { return observed })
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func byZone(t testing.TB, list *ingest.List) map[string]contracts.PriceSet {
	t.Helper()
	return ingesttest.CheckList(t, list, porkbun.Name, porkbun.Name, observed)
}

func usd(cents int64) contracts.Price { return contracts.Price{Amount: cents, Currency: "USD"} }

func op(cents int64) *contracts.OpPrice { return &contracts.OpPrice{Regular: usd(cents)} }

func promo(cents, promoCents int64) *contracts.OpPrice {
	return &contracts.OpPrice{Regular: usd(cents), Promo: &contracts.Promo{Price: usd(promoCents)}}
}

func TestFetch(t *testing.T) {
	_, srv := newAPI(t, ingesttest.Fixture(t, "pricing.json"))
	list, err := newSource(t, srv.URL, nil).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := byZone(t, list)
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
	tests := []struct {
		name    string
		body    string
		zone    string
		want    *contracts.PriceSet // nil: the zone must be absent
		wantErr string              // non-empty: Parse fails with this in the message
		skipped int                 // entries that could not be read
		keep    []string            // zones whose last good price stays
	}{
		{
			name: "prices as JSON numbers",
			body: `{"status":"SUCCESS","pricing":{"com":{"registration":11.08,"renewal":11.08,"transfer":11.08,"coupons":[]}}}`,
			zone: ".com", want: set(".com", op(1108), op(1108), op(1108)),
		},
		{
			name: "missing operation",
			body: `{"status":"SUCCESS","pricing":{"com":{"registration":"11.08","renewal":"11.08"}}}`,
			zone: ".com", want: set(".com", op(1108), op(1108), nil),
		},
		{
			name: "zero registration is not offered",
			body: `{"status":"SUCCESS","pricing":{"com":{"registration":"0.00","renewal":"11.08","transfer":"11.08"},"net":{"registration":"1.00","renewal":"1.00","transfer":"1.00"}}}`,
			zone: ".com", want: set(".com", nil, op(1108), op(1108)),
		},
		{
			name: "zero renewal is not offered",
			body: `{"status":"SUCCESS","pricing":{"com":{"registration":"11.08","renewal":0,"transfer":"11.08"}}}`,
			zone: ".com", want: set(".com", op(1108), nil, op(1108)),
		},
		{
			name: "zero registration and renewal leave the transfer",
			body: `{"status":"SUCCESS","pricing":{"com":{"registration":"0.00","renewal":"0.00","transfer":"11.08"}}}`,
			zone: ".com", want: set(".com", nil, nil, op(1108)),
		},
		{
			name: "zero transfer is a free transfer",
			body: `{"status":"SUCCESS","pricing":{"uk":{"registration":"4.32","renewal":"5.66","transfer":"0.00"}}}`,
			zone: ".uk", want: set(".uk", op(432), op(566), op(0)),
		},
		{
			name: "zero registration and renewal with no transfer is left out, not skipped",
			body: `{"status":"SUCCESS","pricing":{"com":{"registration":"0.00","renewal":"0.00"},"net":{"registration":"12.52","renewal":"12.52","transfer":"12.52"}}}`,
			zone: ".com",
		},
		{
			name: "coupon on a zero registration is ignored",
			body: `{"status":"SUCCESS","pricing":{"com":{"registration":"0.00","renewal":"11.08","transfer":"11.08","coupons":{"registration":{"type":"amount","amount":1}}}}}`,
			zone: ".com", want: set(".com", nil, op(1108), op(1108)),
		},
		{
			name: "upper-case key",
			body: `{"status":"SUCCESS","pricing":{"COM":{"registration":"11.08","renewal":"11.08","transfer":"11.08"}}}`,
			zone: ".com", want: set(".com", op(1108), op(1108), op(1108)),
		},
		{
			name: "unicode key",
			body: `{"status":"SUCCESS","pricing":{"みんな":{"registration":"8.61","renewal":"28.58","transfer":"28.58"}}}`,
			zone: ".xn--q9jyb4c", want: set(".xn--q9jyb4c", op(861), op(2858), op(2858)),
		},
		{
			name: "unicode key and its A-label keep the first",
			body: `{"status":"SUCCESS","pricing":{"みんな":{"registration":"9.99","renewal":"9.99","transfer":"9.99"},"xn--q9jyb4c":{"registration":"8.61","renewal":"28.58","transfer":"28.58"}}}`,
			zone: ".xn--q9jyb4c", want: set(".xn--q9jyb4c", op(861), op(2858), op(2858)),
			skipped: 1,
		},
		{
			name: "unreadable A-label beside its readable unicode key",
			body: `{"status":"SUCCESS","pricing":{"みんな":{"registration":"8.61","renewal":"28.58","transfer":"28.58"},"xn--q9jyb4c":{"registration":"TBD"}}}`,
			zone: ".xn--q9jyb4c", want: set(".xn--q9jyb4c", op(861), op(2858), op(2858)),
			skipped: 1,
		},
		{
			name: "unreadable price skips the zone",
			body: `{"status":"SUCCESS","pricing":{"com":{"registration":"TBD","renewal":"11.08","transfer":"11.08"},"net":{"registration":"12.52","renewal":"12.52","transfer":"12.52"}}}`,
			zone: ".com", skipped: 1, keep: []string{"prices.v1.porkbun.com"},
		},
		{
			name: "unknown special type skips the zone",
			body: `{"status":"SUCCESS","pricing":{"com":{"registration":"1.00","renewal":"1.00","transfer":"1.00","specialType":{"kind":"x"}},"net":{"registration":"12.52","renewal":"12.52","transfer":"12.52"}}}`,
			zone: ".com", skipped: 1, keep: []string{"prices.v1.porkbun.com"},
		},
		{
			name: "entry that is not an object skips the zone",
			body: `{"status":"SUCCESS","pricing":{"com":"11.08","net":{"registration":"12.52","renewal":"12.52","transfer":"12.52"}}}`,
			zone: ".com", skipped: 1, keep: []string{"prices.v1.porkbun.com"},
		},
		{
			name: "key that is not a zone is skipped",
			body: `{"status":"SUCCESS","pricing":{"foo bar":{"registration":"1.00"},"net":{"registration":"12.52","renewal":"12.52","transfer":"12.52"}}}`,
			zone: ".foo bar", skipped: 1,
		},
		{
			name: "unreadable entries are counted and kept, zones not sold are not",
			body: `{"status":"SUCCESS","pricing":{` +
				`"0z":{"registration":"42.52","specialType":"handshake"},` +
				`"pl":{"registration":"0.00","renewal":"0.00","transfer":"0.00"},` +
				`"es":{"registration":"n/a","renewal":null},` +
				`"CO.UK":{"registration":"4,32,1","renewal":"5.66","transfer":"0.00"},` +
				`"io":{"registration":"28.12","renewal":"51.80","transfer":[]},` +
				`"com":{"registration":"11.08","renewal":"11.08","transfer":"11.08"}}}`,
			zone: ".com", want: set(".com", op(1108), op(1108), op(1108)),
			skipped: 2, keep: []string{"prices.v1.porkbun.co_uk", "prices.v1.porkbun.io"},
		},
		{
			name: "amount coupon as a string",
			body: `{"status":"SUCCESS","pricing":{"com":{"registration":"11.08","renewal":"11.08","transfer":"11.08","coupons":{"registration":{"code":"X","max_per_user":"1","first_year_only":"no","type":"amount","amount":"2.50"}}}}}`,
			zone: ".com", want: set(".com", promo(1108, 858), op(1108), op(1108)),
		},
		{
			name: "coupon that makes the name free",
			body: `{"status":"SUCCESS","pricing":{"com":{"registration":"1.00","renewal":"11.08","transfer":"11.08","coupons":{"registration":{"type":"amount","amount":1}}}}}`,
			zone: ".com", want: set(".com", promo(100, 0), op(1108), op(1108)),
		},
		{
			name: "transfer coupon",
			body: `{"status":"SUCCESS","pricing":{"com":{"registration":"11.08","renewal":"11.08","transfer":"11.08","coupons":{"transfer":{"type":"amount","amount":1}}}}}`,
			zone: ".com", want: set(".com", op(1108), op(1108), promo(1108, 1008)),
		},
		{
			name: "inexact percent coupon is left out",
			body: `{"status":"SUCCESS","pricing":{"com":{"registration":"11.08","renewal":"11.08","transfer":"11.08","coupons":{"registration":{"type":"percent","amount":15}}}}}`,
			zone: ".com", want: set(".com", op(1108), op(1108), op(1108)),
		},
		{
			name: "unknown coupon type is ignored",
			body: `{"status":"SUCCESS","pricing":{"com":{"registration":"11.08","renewal":"11.08","transfer":"11.08","coupons":{"registration":{"type":"bogo","amount":1}}}}}`,
			zone: ".com", want: set(".com", op(1108), op(1108), op(1108)),
		},
		{
			name: "coupon for an operation not offered is ignored",
			body: `{"status":"SUCCESS","pricing":{"com":{"registration":"11.08","renewal":"11.08","coupons":{"transfer":{"type":"amount","amount":1}}}}}`,
			zone: ".com", want: set(".com", op(1108), op(1108), nil),
		},
		{
			name: "populated coupon array is ignored",
			body: `{"status":"SUCCESS","pricing":{"com":{"registration":"11.08","renewal":"11.08","transfer":"11.08","coupons":[{"type":"amount","amount":1}]}}}`,
			zone: ".com", want: set(".com", op(1108), op(1108), op(1108)),
		},
		{
			name:    "error status names the message",
			body:    string(ingesttest.Fixture(t, "error.json")),
			wantErr: "Too many requests",
		},
		{
			name:    "only zones that cannot be used",
			body:    `{"status":"SUCCESS","pricing":{"0z":{"registration":"1.00","specialType":"handshake"},"pl":{"registration":"0.00","renewal":"0.00","transfer":"0.00"}}}`,
			wantErr: "no usable zone",
		},
		{name: "no pricing", body: `{"status":"SUCCESS"}`, wantErr: "no zones"},
		{name: "no status", body: `{"pricing":{"com":{"registration":"1.00"}}}`, wantErr: "no status"},
		{name: "html", body: `<html><body>502 Bad Gateway</body></html>`, wantErr: "decode porkbun price list"},
		{name: "truncated", body: string(ingesttest.Fixture(t, "pricing.json")[:300]), wantErr: "decode porkbun price list"},
		{name: "pricing is a list", body: `{"status":"SUCCESS","pricing":[]}`, wantErr: "decode porkbun price list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list, err := porkbun.Parse([]byte(tt.body), observed)
			if ingesttest.CheckOutcome(t, list, err, tt.wantErr, tt.skipped, tt.keep) {
				ingesttest.CheckZone(t, byZone(t, list), tt.zone, tt.want)
			}
		})
	}
}

func set(zone string, register, renew, transfer *contracts.OpPrice) *contracts.PriceSet {
	return &contracts.PriceSet{
		V: contracts.SchemaVersion, Kind: contracts.KindPriceSet, Registrar: porkbun.Name, Zone: zone,
		Register: register, Renew: renew, Transfer: transfer, ObservedAt: observed, Source: porkbun.Name,
	}
}

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) {
	ingesttest.Conform(t, ingesttest.Suite{
		Name: porkbun.Name, Registrar: porkbun.Name, Parse: porkbun.Parse,
		New: func(url string, client *fetch.Client) (ingest.Source, error) {
			return porkbun.New(porkbun.Config{URL: url}, client, nil)
		},
		Validate: func(url string) error { return porkbun.Config{URL: url}.Validate() },
		Fixtures: []string{"pricing.json"}, Shrunk: "pricing_shrunk.json", Errors: []string{"error.json"},
		Check: checkRequest, Spoil: "pricing.com.renewal",
		Drift: ingesttest.DriftPaths{Row: "pricing.*", Field: "renewal", Shape: "pricing"},
	})
}

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, porkbun.Parse, "*.json") }
