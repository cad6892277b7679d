package namecheap_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
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

// The credentials the tests configure; the key must never show in an error.
const (
	apiUser  = "zonepriceapi"
	apiKey   = "4f0c1d2e3b4a59687f6e5d4c3b2a1f0e"
	clientIP = "198.51.100.7"
)

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

var (
	op    = ingesttest.USD
	promo = ingesttest.USDPromo
)

// TestFetch reads the answer: 20 zones of 24 domain products; .club's
// price and .eu's currencies cannot be read, no_such is no zone and .com
// is listed twice among renewals (4 skipped, .club and .eu kept, as the
// golden file says); .ai, with two-year rows only, and the ssl product
// are left out.
func TestFetch(t *testing.T) {
	got := suite.Fetched(t, "pricing.xml", 20, 4)
	ingesttest.CheckEach(t, got, []ingesttest.Ops{
		{Name: "sale price is a promotion, ICANN fee added", Zone: ".com", Register: promo(1416, 1046), Renew: op(1606), Transfer: op(1146)},
		{Name: "no sale", Zone: ".net", Register: op(1316), Renew: op(1616), Transfer: op(1316)},
		{Name: "second-level zone, no ICANN fee, zero transfer not offered", Zone: ".co.uk", Register: op(698), Renew: op(898)},
		{Name: "second-level zone missing from transfers", Zone: ".org.uk", Register: op(698), Renew: op(898)},
		{Name: "parent zone of a second-level zone", Zone: ".uk", Register: op(698), Renew: op(898)},
		{Name: "promotion without ICANN fee", Zone: ".io", Register: promo(4498, 3498), Renew: op(5898), Transfer: op(4498)},
		{Name: "one-dollar promotion", Zone: ".xyz", Register: promo(1316, 118), Renew: op(1516), Transfer: op(1316)},
		{Name: "final price above the regular price is paid", Zone: ".app", Register: op(1516), Renew: op(1716), Transfer: op(1516)},
		{Name: "empty RegularPrice", Zone: ".me", Register: op(598), Renew: op(1898), Transfer: op(1898)},
		{Name: "AdditionalCost alone is the fee of both prices", Zone: ".info", Register: promo(1916, 316), Renew: op(2316), Transfer: op(1816)},
		{Name: "IDN A-label", Zone: ".xn--q9jyb4c", Register: promo(2916, 416), Renew: op(2916), Transfer: op(2916)},
		{Name: "row without Currency is in dollars", Zone: ".co", Register: promo(2798, 998), Renew: op(2798), Transfer: op(2798)},
		{Name: "promotion under a dollar", Zone: ".online", Register: promo(3316, 116), Renew: op(3316), Transfer: op(3316)},
	}, ".ai", ".club", ".eu", ".positivessl")
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

// TestParseQuirks covers the format's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	netOK := `<ProductCategory Name="renew"><Product Name="net">` + row("15.98", "15.98", "0.18") + `</Product></ProductCategory>`
	suite.Quirks(t, []ingesttest.Quirk{
		{
			Name: "documented upper-case names",
			Body: strings.ReplaceAll(doc(`<ProductCategory Name="REGISTER"><Product Name="COM">`+row("10.28", "13.98", "0.18")+`</Product></ProductCategory>`),
				`ProductType Name="domains"`, `ProductType Name="DOMAIN"`),
			Zone: ".com", Want: suite.Set(".com", promo(1416, 1046), nil, nil),
		},
		{
			Name: "documented example without fees and with CouponPrice",
			Body: doc(`<ProductCategory Name="REGISTER"><Product Name="biz"><Price Duration="1" DurationType="YEAR" Price="6.00" RegularPrice="6.00" YourPrice="6.00" CouponPrice="" Currency="USD" /><Price Duration="2" DurationType="YEAR" Price="8.87" RegularPrice="8.87" YourPrice="8.87" CouponPrice="" Currency="USD" /></Product></ProductCategory>`),
			Zone: ".biz", Want: suite.Set(".biz", op(600), nil, nil),
		},
		{
			Name: "YourPrice and PromotionPrice are not read",
			Body: doc(`<ProductCategory Name="register"><Product Name="com"><Price Duration="1" DurationType="YEAR" Price="13.98" AdditionalCost="0.18" RegularPrice="13.98" RegularAdditionalCost="0.18" YourPrice="9.00" YourAdditonalCost="0.18" PromotionPrice="5.00" Currency="USD"/></Product></ProductCategory>`),
			Zone: ".com", Want: suite.Set(".com", op(1416), nil, nil),
		},
		{
			Name: "zero Price beside a RegularPrice is no promotion",
			Body: doc(`<ProductCategory Name="register"><Product Name="com">` + row("0.0", "13.98", "0.18") + `</Product></ProductCategory>`),
			Zone: ".com", Want: suite.Set(".com", op(1416), nil, nil),
		},
		{
			Name: "zero everywhere is not offered",
			Body: doc(`<ProductCategory Name="register"><Product Name="com">` + row("0.0", "0.0", "0.18") + `</Product></ProductCategory>` +
				`<ProductCategory Name="renew"><Product Name="com">` + row("15.88", "15.88", "0.18") + `</Product></ProductCategory>`),
			Zone: ".com", Want: suite.Set(".com", nil, op(1606), nil),
		},
		{
			Name: "only a two-year row",
			Body: doc(`<ProductCategory Name="register"><Product Name="ai"><Price Duration="2" DurationType="YEAR" Price="139.96" RegularPrice="139.96" Currency="USD"/></Product></ProductCategory>` +
				`<ProductCategory Name="transfer"><Product Name="ai">` + row("79.98", "79.98", "0") + `</Product></ProductCategory>`),
			Zone: ".ai", Want: suite.Set(".ai", nil, nil, op(7998)),
		},
		{
			Name: "a one-month row is not a year",
			Body: doc(`<ProductCategory Name="register"><Product Name="com"><Price Duration="1" DurationType="MONTH" Price="1.00" RegularPrice="1.00" Currency="USD"/>` + row("10.28", "13.98", "0.18") + `</Product></ProductCategory>`),
			Zone: ".com", Want: suite.Set(".com", promo(1416, 1046), nil, nil),
		},
		{
			Name: "reactivate and unknown categories are ignored",
			Body: doc(`<ProductCategory Name="reactivate"><Product Name="com">` + row("1.00", "1.00", "0") + `</Product></ProductCategory>` +
				`<ProductCategory Name="restore"><Product Name="com">` + row("2.00", "2.00", "0") + `</Product></ProductCategory>` +
				`<ProductCategory Name="renew"><Product Name="com">` + row("15.88", "15.88", "0.18") + `</Product></ProductCategory>`),
			Zone: ".com", Want: suite.Set(".com", nil, op(1606), nil),
		},
		{
			Name: "first listing in a category stands",
			Body: doc(`<ProductCategory Name="renew"><Product Name="com">` + row("15.88", "15.88", "0.18") + `</Product><Product Name="com">` + row("99.00", "99.00", "0") + `</Product></ProductCategory>`),
			Zone: ".com", Want: suite.Set(".com", nil, op(1606), nil),
			Skipped: 1,
		},
		{
			Name: "first listing stands even when it has no one-year row",
			Body: doc(`<ProductCategory Name="register"><Product Name="ai"><Price Duration="2" DurationType="YEAR" Price="139.96" RegularPrice="139.96" Currency="USD"/></Product><Product Name="ai">` + row("1.00", "1.00", "0") + `</Product></ProductCategory>` + netOK),
			Zone: ".ai", Skipped: 1,
		},
		{
			Name: "unicode name",
			Body: doc(`<ProductCategory Name="register"><Product Name="みんな">` + row("3.98", "28.98", "0.18") + `</Product></ProductCategory>`),
			Zone: ".xn--q9jyb4c", Want: suite.Set(".xn--q9jyb4c", promo(2916, 416), nil, nil),
		},
		{
			Name: "unreadable price skips the zone",
			Body: doc(`<ProductCategory Name="register"><Product Name="com">` + row("TBD", "13.98", "0.18") + `</Product></ProductCategory>` + netOK),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.namecheap.com"},
		},
		{
			Name: "unreadable fee skips the zone",
			Body: doc(`<ProductCategory Name="register"><Product Name="com">` + row("10.28", "13.98", "zero") + `</Product></ProductCategory>` + netOK),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.namecheap.com"},
		},
		{
			Name: "negative price skips the zone",
			Body: doc(`<ProductCategory Name="register"><Product Name="com">` + row("-1.00", "13.98", "0.18") + `</Product></ProductCategory>` + netOK),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.namecheap.com"},
		},
		{
			Name: "unknown currency skips the zone",
			Body: doc(`<ProductCategory Name="register"><Product Name="com"><Price Duration="1" DurationType="YEAR" Price="9.00" RegularPrice="9.00" Currency="XYZ"/></Product></ProductCategory>` + netOK),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.namecheap.com"},
		},
		{
			Name: "unreadable zones are counted and kept, zones not sold for a year are not",
			Body: doc(`<ProductCategory Name="register">` +
				`<Product Name="com">` + row("TBD", "13.98", "0.18") + `</Product>` +
				`<Product Name="ai"><Price Duration="2" DurationType="YEAR" Price="139.96" RegularPrice="139.96" Currency="USD"/></Product>` +
				`<Product Name="no_such">` + row("1.00", "1.00", "0") + `</Product>` +
				`<Product Name="EU"><Price Duration="1" DurationType="YEAR" Price="4.98" RegularPrice="4.98" Currency="EUR"/></Product>` +
				`</ProductCategory>` +
				`<ProductCategory Name="renew"><Product Name="eu">` + row("6.98", "6.98", "0") + `</Product></ProductCategory>` +
				`<ProductCategory Name="restore"><Product Name="org">` + row("x", "x", "x") + `</Product></ProductCategory>` +
				netOK),
			Zone: ".net", Want: suite.Set(".net", nil, op(1616), nil),
			Skipped: 3, Keep: []string{"prices.v1.namecheap.com", "prices.v1.namecheap.eu"},
		},
		{
			Name: "euro zone",
			Body: doc(`<ProductCategory Name="register"><Product Name="eu"><Price Duration="1" DurationType="YEAR" Price="4.98" RegularPrice="4.98" Currency="EUR"/></Product></ProductCategory>`),
			Zone: ".eu", Want: suite.Set(".eu", &contracts.OpPrice{Regular: contracts.Price{Amount: 498, Currency: "EUR"}}, nil, nil),
		},
		{
			Name:    "error status names the number and message",
			Body:    string(ingesttest.Fixture(t, "error.xml")),
			WantErr: "error 1011150: Invalid request IP",
		},
		{
			Name:    "several errors",
			Body:    `<ApiResponse Status="ERROR"><Errors><Error Number="1010102">Parameter APIKey is missing</Error><Error Number="1010105">Parameter ClientIP is missing</Error></Errors></ApiResponse>`,
			WantErr: "error 1010102: Parameter APIKey is missing; error 1010105: Parameter ClientIP is missing",
		},
		{
			Name:    "OK with an error",
			Body:    `<ApiResponse Status="OK"><Errors><Error Number="2011170">Validation error</Error></Errors></ApiResponse>`,
			WantErr: "error 2011170",
		},
		{Name: "no status", Body: `<ApiResponse><Errors/></ApiResponse>`, WantErr: "no status"},
		{
			Name:    "another command's answer",
			Body:    `<ApiResponse Status="OK"><Errors/><RequestedCommand>namecheap.domains.check</RequestedCommand></ApiResponse>`,
			WantErr: "namecheap.domains.check",
		},
		{Name: "no result", Body: `<ApiResponse Status="OK"><Errors/><CommandResponse/></ApiResponse>`, WantErr: "no UserGetPricingResult"},
		{
			Name:    "no domain product type",
			Body:    strings.ReplaceAll(doc(netOK), `ProductType Name="domains"`, `ProductType Name="ssl"`),
			WantErr: "no domain prices",
		},
		{
			Name:    "only zones that cannot be used",
			Body:    doc(`<ProductCategory Name="register"><Product Name="no_such">` + row("1.00", "1.00", "0") + `</Product><Product Name="club">` + row("x", "1.00", "0") + `</Product></ProductCategory>`),
			WantErr: "no usable zone",
		},
		{Name: "html", Body: `<html><body>502 Bad Gateway</body></html>`, WantErr: "decode namecheap price list"},
		{Name: "json", Body: `{"status":"ok"}`, WantErr: "decode namecheap price list"},
		{Name: "empty", Body: ``, WantErr: "decode namecheap price list"},
		{Name: "truncated", Body: string(ingesttest.Fixture(t, "pricing.xml")[:2000]), WantErr: "decode namecheap price list"},
	})
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
			f, srv := ingesttest.NewAPI(t, nil, checkRequest)
			f.Serve(tt.step)
			_, err := suite.Source(t, srv.URL, nil).Fetch(context.Background())
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
		f, srv := ingesttest.NewAPI(t, nil, checkRequest)
		f.Serve(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "no such key "+r.PostForm.Get("ApiKey"), http.StatusForbidden)
		})
		_, err := suite.Source(t, srv.URL, nil).Fetch(context.Background())
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

// suite is the source, for the conformance suite and the tests below.
var suite = ingesttest.Suite{
	Name: namecheap.Name, Registrar: namecheap.Name, Parse: namecheap.Parse,
	New: func(url string, client *fetch.Client, now func() time.Time) (ingest.Source, error) {
		return namecheap.New(config(url), client, now)
	},
	Validate: func(url string) error { return config(url).Validate() },
	Errors:   []string{"error.xml"}, Check: checkRequest,
}.Pages("pricing_shrunk.xml", "pricing.xml")

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, namecheap.Parse, "*.xml") }
