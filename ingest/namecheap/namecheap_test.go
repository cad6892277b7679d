package namecheap_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/namecheap"
)

var observed = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// The credentials the tests configure; the key must never show in an error.
const (
	apiUser  = "zonepriceapi"
	apiKey   = "4f0c1d2e3b4a59687f6e5d4c3b2a1f0e"
	clientIP = "198.51.100.7"
)

// wantZones is how many usable zones pricing.xml holds: 24 domain products
// less .ai (two-year terms only), .club (unreadable price), "no_such" (not
// a zone name) and .eu (two currencies).
const wantZones = 20

// newAPI fakes Namecheap's XML API, answering with body.
func newAPI(t *testing.T, body []byte) (*ingesttest.API, *httptest.Server) {
	t.Helper()
	return ingesttest.NewAPI(t, body, checkRequest)
}

// checkRequest says what is wrong with a request that is not the
// getPricing call with the credentials in a form body. It parses the form,
// so that scripted answers can read it.
func checkRequest(r *http.Request) error {
	if r.Method != http.MethodPost {
		return errors.New("method " + r.Method)
	}
	if r.URL.Query().Has("ApiKey") {
		return errors.New("API key in the URL " + r.URL.String())
	}
	if err := r.ParseForm(); err != nil {
		return fmt.Errorf("form: %w", err)
	}
	want := map[string]string{
		"ApiUser": apiUser, "ApiKey": apiKey, "UserName": apiUser, "ClientIp": clientIP,
		"Command": "namecheap.users.getPricing", "ProductType": "DOMAIN",
	}
	for k, v := range want {
		if got := r.PostForm.Get(k); got != v {
			return fmt.Errorf("form %s = %q, want %q", k, got, v)
		}
	}
	return nil
}

func config(url string) namecheap.Config {
	return namecheap.Config{URL: url, APIUser: apiUser, APIKey: apiKey, ClientIP: clientIP}
}

func newSource(t testing.TB, url string, hc *http.Client) *namecheap.Source {
	t.Helper()
	src, err := namecheap.New(config(url), ingesttest.Client(hc), func() time.Time { return observed })
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func byZone(t testing.TB, list *ingest.List) map[string]contracts.PriceSet {
	t.Helper()
	return ingesttest.CheckList(t, list, namecheap.Name, namecheap.Name, observed)
}

func usd(cents int64) contracts.Price { return contracts.Price{Amount: cents, Currency: "USD"} }

func op(cents int64) *contracts.OpPrice { return &contracts.OpPrice{Regular: usd(cents)} }

func promo(cents, promoCents int64) *contracts.OpPrice {
	return &contracts.OpPrice{Regular: usd(cents), Promo: &contracts.Promo{Price: usd(promoCents)}}
}

func TestFetch(t *testing.T) {
	f, srv := newAPI(t, ingesttest.Fixture(t, "pricing.xml"))
	list, err := newSource(t, srv.URL, nil).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Requests(); got != 1 {
		t.Errorf("server saw %d requests, want 1", got)
	}
	got := byZone(t, list)
	if len(got) != wantZones {
		t.Errorf("got %d zones, want %d", len(got), wantZones)
	}
	// .club's price and .eu's currencies cannot be read, no_such is no
	// zone and .com is listed twice among renewals; .ai, with two-year
	// rows only, and the ssl product are left out.
	if want := []string{"prices.v1.namecheap.club", "prices.v1.namecheap.eu"}; list.Skipped != 4 || !slices.Equal(list.Keep, want) {
		t.Errorf("skipped %d, keep %q; want 4, %q", list.Skipped, list.Keep, want)
	}
	tests := []struct {
		name, zone                string
		register, renew, transfer *contracts.OpPrice
	}{
		{"sale price is a promotion, ICANN fee added", ".com", promo(1416, 1046), op(1606), op(1146)},
		{"no sale", ".net", op(1316), op(1616), op(1316)},
		{"second-level zone, no ICANN fee, zero transfer not offered", ".co.uk", op(698), op(898), nil},
		{"second-level zone missing from transfers", ".org.uk", op(698), op(898), nil},
		{"parent zone of a second-level zone", ".uk", op(698), op(898), nil},
		{"promotion without ICANN fee", ".io", promo(4498, 3498), op(5898), op(4498)},
		{"one-dollar promotion", ".xyz", promo(1316, 118), op(1516), op(1316)},
		{"final price above the regular price is paid", ".app", op(1516), op(1716), op(1516)},
		{"empty RegularPrice", ".me", op(598), op(1898), op(1898)},
		{"AdditionalCost alone is the fee of both prices", ".info", promo(1916, 316), op(2316), op(1816)},
		{"IDN A-label", ".xn--q9jyb4c", promo(2916, 416), op(2916), op(2916)},
		{"row without Currency is in dollars", ".co", promo(2798, 998), op(2798), op(2798)},
		{"promotion under a dollar", ".online", promo(3316, 116), op(3316), op(3316)},
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
	for _, zone := range []string{".ai", ".club", ".eu", ".positivessl"} {
		if _, ok := got[zone]; ok {
			t.Errorf("%s is listed; it should be skipped", zone)
		}
	}
}

// doc wraps domain product categories in a complete OK answer.
func doc(categories string) string {
	return `<?xml version="1.0" encoding="utf-8"?>
<ApiResponse Status="OK" xmlns="http://api.namecheap.com/xml.response"><Errors/><Warnings/>
<RequestedCommand>namecheap.users.getPricing</RequestedCommand>
<CommandResponse Type="namecheap.users.getPricing"><UserGetPricingResult>
<ProductType Name="domains">` + categories + `</ProductType>
</UserGetPricingResult></CommandResponse></ApiResponse>`
}

// row is a one-year price row with the attributes the live API sends.
func row(price, regular, fee string) string {
	return fmt.Sprintf(`<Price Duration="1" DurationType="YEAR" Price="%s" PricingType="MULTIPLE" AdditionalCost="%s" RegularPrice="%s" RegularPriceType="MULTIPLE" RegularAdditionalCost="%s" RegularAdditionalCostType="MULTIPLE" YourPrice="%s" YourPriceType="MULTIPLE" YourAdditonalCost="%s" YourAdditonalCostType="MULTIPLE" PromotionPrice="0.0" Currency="USD"/>`,
		price, fee, regular, fee, price, fee)
}

func set(zone string, register, renew, transfer *contracts.OpPrice) *contracts.PriceSet {
	return &contracts.PriceSet{
		V: contracts.SchemaVersion, Kind: contracts.KindPriceSet, Registrar: namecheap.Name, Zone: zone,
		Register: register, Renew: renew, Transfer: transfer, ObservedAt: observed, Source: namecheap.Name,
	}
}

// TestParseQuirks covers the format's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	netOK := `<ProductCategory Name="renew"><Product Name="net">` + row("15.98", "15.98", "0.18") + `</Product></ProductCategory>`
	tests := []struct {
		name    string
		body    string
		zone    string
		want    *contracts.PriceSet // nil: the zone must be absent
		wantErr string              // non-empty: Parse fails with this in the message
		skipped int                 // listings and zones that could not be read
		keep    []string            // zones whose last good price stays
	}{
		{
			name: "documented upper-case names",
			body: strings.ReplaceAll(doc(`<ProductCategory Name="REGISTER"><Product Name="COM">`+row("10.28", "13.98", "0.18")+`</Product></ProductCategory>`),
				`ProductType Name="domains"`, `ProductType Name="DOMAIN"`),
			zone: ".com", want: set(".com", promo(1416, 1046), nil, nil),
		},
		{
			name: "documented example without fees and with CouponPrice",
			body: doc(`<ProductCategory Name="REGISTER"><Product Name="biz"><Price Duration="1" DurationType="YEAR" Price="6.00" RegularPrice="6.00" YourPrice="6.00" CouponPrice="" Currency="USD" /><Price Duration="2" DurationType="YEAR" Price="8.87" RegularPrice="8.87" YourPrice="8.87" CouponPrice="" Currency="USD" /></Product></ProductCategory>`),
			zone: ".biz", want: set(".biz", op(600), nil, nil),
		},
		{
			name: "YourPrice and PromotionPrice are not read",
			body: doc(`<ProductCategory Name="register"><Product Name="com"><Price Duration="1" DurationType="YEAR" Price="13.98" AdditionalCost="0.18" RegularPrice="13.98" RegularAdditionalCost="0.18" YourPrice="9.00" YourAdditonalCost="0.18" PromotionPrice="5.00" Currency="USD"/></Product></ProductCategory>`),
			zone: ".com", want: set(".com", op(1416), nil, nil),
		},
		{
			name: "zero Price beside a RegularPrice is no promotion",
			body: doc(`<ProductCategory Name="register"><Product Name="com">` + row("0.0", "13.98", "0.18") + `</Product></ProductCategory>`),
			zone: ".com", want: set(".com", op(1416), nil, nil),
		},
		{
			name: "zero everywhere is not offered",
			body: doc(`<ProductCategory Name="register"><Product Name="com">` + row("0.0", "0.0", "0.18") + `</Product></ProductCategory>` +
				`<ProductCategory Name="renew"><Product Name="com">` + row("15.88", "15.88", "0.18") + `</Product></ProductCategory>`),
			zone: ".com", want: set(".com", nil, op(1606), nil),
		},
		{
			name: "only a two-year row",
			body: doc(`<ProductCategory Name="register"><Product Name="ai"><Price Duration="2" DurationType="YEAR" Price="139.96" RegularPrice="139.96" Currency="USD"/></Product></ProductCategory>` +
				`<ProductCategory Name="transfer"><Product Name="ai">` + row("79.98", "79.98", "0") + `</Product></ProductCategory>`),
			zone: ".ai", want: set(".ai", nil, nil, op(7998)),
		},
		{
			name: "a one-month row is not a year",
			body: doc(`<ProductCategory Name="register"><Product Name="com"><Price Duration="1" DurationType="MONTH" Price="1.00" RegularPrice="1.00" Currency="USD"/>` + row("10.28", "13.98", "0.18") + `</Product></ProductCategory>`),
			zone: ".com", want: set(".com", promo(1416, 1046), nil, nil),
		},
		{
			name: "reactivate and unknown categories are ignored",
			body: doc(`<ProductCategory Name="reactivate"><Product Name="com">` + row("1.00", "1.00", "0") + `</Product></ProductCategory>` +
				`<ProductCategory Name="restore"><Product Name="com">` + row("2.00", "2.00", "0") + `</Product></ProductCategory>` +
				`<ProductCategory Name="renew"><Product Name="com">` + row("15.88", "15.88", "0.18") + `</Product></ProductCategory>`),
			zone: ".com", want: set(".com", nil, op(1606), nil),
		},
		{
			name: "first listing in a category stands",
			body: doc(`<ProductCategory Name="renew"><Product Name="com">` + row("15.88", "15.88", "0.18") + `</Product><Product Name="com">` + row("99.00", "99.00", "0") + `</Product></ProductCategory>`),
			zone: ".com", want: set(".com", nil, op(1606), nil),
			skipped: 1,
		},
		{
			name: "first listing stands even when it has no one-year row",
			body: doc(`<ProductCategory Name="register"><Product Name="ai"><Price Duration="2" DurationType="YEAR" Price="139.96" RegularPrice="139.96" Currency="USD"/></Product><Product Name="ai">` + row("1.00", "1.00", "0") + `</Product></ProductCategory>` + netOK),
			zone: ".ai", skipped: 1,
		},
		{
			name: "unicode name",
			body: doc(`<ProductCategory Name="register"><Product Name="みんな">` + row("3.98", "28.98", "0.18") + `</Product></ProductCategory>`),
			zone: ".xn--q9jyb4c", want: set(".xn--q9jyb4c", promo(2916, 416), nil, nil),
		},
		{
			name: "unreadable price skips the zone",
			body: doc(`<ProductCategory Name="register"><Product Name="com">` + row("TBD", "13.98", "0.18") + `</Product></ProductCategory>` + netOK),
			zone: ".com", skipped: 1, keep: []string{"prices.v1.namecheap.com"},
		},
		{
			name: "unreadable fee skips the zone",
			body: doc(`<ProductCategory Name="register"><Product Name="com">` + row("10.28", "13.98", "zero") + `</Product></ProductCategory>` + netOK),
			zone: ".com", skipped: 1, keep: []string{"prices.v1.namecheap.com"},
		},
		{
			name: "negative price skips the zone",
			body: doc(`<ProductCategory Name="register"><Product Name="com">` + row("-1.00", "13.98", "0.18") + `</Product></ProductCategory>` + netOK),
			zone: ".com", skipped: 1, keep: []string{"prices.v1.namecheap.com"},
		},
		{
			name: "unknown currency skips the zone",
			body: doc(`<ProductCategory Name="register"><Product Name="com"><Price Duration="1" DurationType="YEAR" Price="9.00" RegularPrice="9.00" Currency="XYZ"/></Product></ProductCategory>` + netOK),
			zone: ".com", skipped: 1, keep: []string{"prices.v1.namecheap.com"},
		},
		{
			name: "unreadable zones are counted and kept, zones not sold for a year are not",
			body: doc(`<ProductCategory Name="register">` +
				`<Product Name="com">` + row("TBD", "13.98", "0.18") + `</Product>` +
				`<Product Name="ai"><Price Duration="2" DurationType="YEAR" Price="139.96" RegularPrice="139.96" Currency="USD"/></Product>` +
				`<Product Name="no_such">` + row("1.00", "1.00", "0") + `</Product>` +
				`<Product Name="EU"><Price Duration="1" DurationType="YEAR" Price="4.98" RegularPrice="4.98" Currency="EUR"/></Product>` +
				`</ProductCategory>` +
				`<ProductCategory Name="renew"><Product Name="eu">` + row("6.98", "6.98", "0") + `</Product></ProductCategory>` +
				`<ProductCategory Name="restore"><Product Name="org">` + row("x", "x", "x") + `</Product></ProductCategory>` +
				netOK),
			zone: ".net", want: set(".net", nil, op(1616), nil),
			skipped: 3, keep: []string{"prices.v1.namecheap.com", "prices.v1.namecheap.eu"},
		},
		{
			name: "euro zone",
			body: doc(`<ProductCategory Name="register"><Product Name="eu"><Price Duration="1" DurationType="YEAR" Price="4.98" RegularPrice="4.98" Currency="EUR"/></Product></ProductCategory>`),
			zone: ".eu", want: set(".eu", &contracts.OpPrice{Regular: contracts.Price{Amount: 498, Currency: "EUR"}}, nil, nil),
		},
		{
			name:    "error status names the number and message",
			body:    string(ingesttest.Fixture(t, "error.xml")),
			wantErr: "error 1011150: Invalid request IP",
		},
		{
			name:    "several errors",
			body:    `<ApiResponse Status="ERROR"><Errors><Error Number="1010102">Parameter APIKey is missing</Error><Error Number="1010105">Parameter ClientIP is missing</Error></Errors></ApiResponse>`,
			wantErr: "error 1010102: Parameter APIKey is missing; error 1010105: Parameter ClientIP is missing",
		},
		{
			name:    "OK with an error",
			body:    `<ApiResponse Status="OK"><Errors><Error Number="2011170">Validation error</Error></Errors></ApiResponse>`,
			wantErr: "error 2011170",
		},
		{name: "no status", body: `<ApiResponse><Errors/></ApiResponse>`, wantErr: "no status"},
		{
			name:    "another command's answer",
			body:    `<ApiResponse Status="OK"><Errors/><RequestedCommand>namecheap.domains.check</RequestedCommand></ApiResponse>`,
			wantErr: "namecheap.domains.check",
		},
		{name: "no result", body: `<ApiResponse Status="OK"><Errors/><CommandResponse/></ApiResponse>`, wantErr: "no UserGetPricingResult"},
		{
			name:    "no domain product type",
			body:    strings.ReplaceAll(doc(netOK), `ProductType Name="domains"`, `ProductType Name="ssl"`),
			wantErr: "no domain prices",
		},
		{
			name:    "only zones that cannot be used",
			body:    doc(`<ProductCategory Name="register"><Product Name="no_such">` + row("1.00", "1.00", "0") + `</Product><Product Name="club">` + row("x", "1.00", "0") + `</Product></ProductCategory>`),
			wantErr: "no usable zone",
		},
		{name: "html", body: `<html><body>502 Bad Gateway</body></html>`, wantErr: "decode namecheap price list"},
		{name: "json", body: `{"status":"ok"}`, wantErr: "decode namecheap price list"},
		{name: "empty", body: ``, wantErr: "decode namecheap price list"},
		{name: "truncated", body: string(ingesttest.Fixture(t, "pricing.xml")[:2000]), wantErr: "decode namecheap price list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list, err := namecheap.Parse([]byte(tt.body), observed)
			if ingesttest.CheckOutcome(t, list, err, tt.wantErr, tt.skipped, tt.keep) {
				ingesttest.CheckZone(t, byZone(t, list), tt.zone, tt.want)
			}
		})
	}
}

// TestKeyNeverInErrors makes the server echo the API key back in every way
// an error can carry it: the key must not reach the error's text.
func TestKeyNeverInErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		step http.HandlerFunc
	}{
		{"echoed in an HTTP error body", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "bad request for ApiKey="+r.PostForm.Get("ApiKey"), http.StatusBadRequest)
		}},
		{"echoed in an API error", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `<ApiResponse Status="ERROR"><Errors><Error Number="1011102">API Key %s is invalid</Error></Errors></ApiResponse>`, r.PostForm.Get("ApiKey"))
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, srv := newAPI(t, nil)
			f.Serve(tt.step)
			_, err := newSource(t, srv.URL, nil).Fetch(context.Background())
			if err == nil {
				t.Fatal("Fetch succeeded")
			}
			if strings.Contains(err.Error(), apiKey) {
				t.Errorf("error shows the API key: %v", err)
			}
			if !strings.Contains(err.Error(), "[REDACTED]") {
				t.Errorf("error %q does not say where the key was", err)
			}
		})
	}
	t.Run("redacted error stays inspectable", func(t *testing.T) {
		f, srv := newAPI(t, nil)
		f.Serve(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "no such key "+r.PostForm.Get("ApiKey"), http.StatusForbidden)
		})
		_, err := newSource(t, srv.URL, nil).Fetch(context.Background())
		var se *fetch.StatusError
		if !errors.As(err, &se) || se.Status != http.StatusForbidden {
			t.Fatalf("Fetch error = %v, want a wrapped HTTP 403", err)
		}
	})
}

// TestUserNameSent checks that an explicit user name is what the command
// runs for.
func TestUserNameSent(t *testing.T) {
	var sent atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		sent.Store(r.PostForm.Get("UserName"))
		_, _ = w.Write(ingesttest.Fixture(t, "pricing_shrunk.xml"))
	}))
	t.Cleanup(srv.Close)
	cfg := config(srv.URL)
	cfg.UserName = "customer1"
	src, err := namecheap.New(cfg, ingesttest.Client(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.Fetch(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, _ := sent.Load().(string); got != "customer1" {
		t.Errorf("UserName sent = %q, want customer1", got)
	}
}

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) {
	ingesttest.Conform(t, ingesttest.Suite{
		Name: namecheap.Name, Registrar: namecheap.Name, Parse: namecheap.Parse,
		New: func(url string, client *fetch.Client) (ingest.Source, error) {
			return namecheap.New(config(url), client, nil)
		},
		Validate: func(url string) error { return config(url).Validate() },
		Fixtures: []string{"pricing.xml"}, Shrunk: "pricing_shrunk.xml", Errors: []string{"error.xml"},
		Check: checkRequest, Golden: "*.xml",
	})
}

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, namecheap.Parse, "*.xml") }
