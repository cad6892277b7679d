package dynadot_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/dynadot"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

var observed = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// path is where the fake serves the list, as www.dynadot.com does.
const path = "/dynadot-vue-api/dynadot-service/domain-search?command=get_current_list&lang=en"

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

func newSource(t testing.TB, url string, hc *http.Client) *dynadot.Source {
	t.Helper()
	src, err := dynadot.New(dynadot.Config{URL: url}, ingesttest.Client(hc), func() time.Time { return observed })
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func byZone(t testing.TB, list *ingest.List) map[string]contracts.PriceSet {
	t.Helper()
	return ingesttest.CheckList(t, list, dynadot.Name, dynadot.Name, observed)
}

func price(cur string, amount int64) *contracts.OpPrice {
	return &contracts.OpPrice{Regular: contracts.Price{Amount: amount, Currency: cur}}
}

func sale(cur string, regular, promo int64) *contracts.OpPrice {
	o := price(cur, regular)
	o.Promo = &contracts.Promo{Price: contracts.Price{Amount: promo, Currency: cur}}
	return o
}

func usd(cents int64) *contracts.OpPrice { return price("USD", cents) }

func usdSale(regular, promo int64) *contracts.OpPrice { return sale("USD", regular, promo) }

func set(zone string, register, renew, transfer *contracts.OpPrice) *contracts.PriceSet {
	return &contracts.PriceSet{
		V: contracts.SchemaVersion, Kind: contracts.KindPriceSet, Registrar: dynadot.Name, Zone: zone,
		Register: register, Renew: renew, Transfer: transfer, ObservedAt: observed, Source: dynadot.Name,
		Tax: contracts.TaxExcluded,
	}
}

// fixtureZones is how many zones current_list.json prices: 20 rows less
// .gg, which offers nothing.
const fixtureZones = 19

func TestFetch(t *testing.T) {
	_, url := newAPI(t, ingesttest.Fixture(t, "current_list.json"))
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
		{"no sale", ".com", usd(1088), usd(1088), usd(1088)},
		{"registration on sale", ".org", usdSale(1099, 899), usd(1099), usd(1099)},
		{"cheap first year on sale", ".xyz", usdSale(1317, 199), usd(1317), usd(1317)},
		{"renewal on sale too", ".online", usdSale(2999, 99), usdSale(2999, 2699), usd(2999)},
		{"original equal to the shown price is no sale", ".co", usd(1099), usd(2299), usd(2299)},
		{"sale with google_data currency", ".shop", usdSale(2999, 199), usd(2999), usd(2999)},
		{"dear renewal", ".watches", usd(5369), usd(26772), usd(26772)},
		{"thousands separator", ".sexy", usd(290000), usd(290000), usd(290000)},
		{"second-level zone is its own", ".co.uk", usd(699), usd(699), nil},
		{"second-level zone beside its parent, transfer -", ".uk", usd(699), usd(699), nil},
		{"another second-level zone", ".com.mx", usd(1299), usd(2299), usd(2299)},
		{"IDN as an A-label", ".xn--mk1bu44c", usd(1299), usd(1299), usd(1299)},
		{"IDN in Unicode", ".xn--q9jyb4c", usd(899), usd(2899), usd(2899)},
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
	if _, ok := got[".gg"]; ok {
		t.Error(".gg offers nothing; it should be left out")
	}
}

// TestYuan reads the list as Dynadot serves it to a visitor it shows
// yuan: the prices are published in yuan, not taken for dollars.
func TestYuan(t *testing.T) {
	list, err := dynadot.Parse(ingesttest.Fixture(t, "current_list_cny.json"), observed)
	if err != nil {
		t.Fatal(err)
	}
	got := byZone(t, list)
	cny := func(fen int64) *contracts.OpPrice { return price("CNY", fen) }
	ingesttest.CheckZone(t, got, ".com", set(".com", sale("CNY", 7970, 5120), cny(7970), cny(7970)))
	ingesttest.CheckZone(t, got, ".net", set(".net", cny(9510), cny(9510), cny(9510)))
	ingesttest.CheckZone(t, got, ".sexy", set(".sexy", cny(2124120), cny(2124120), cny(2124120)))
}

// TestParseQuirks covers the format's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	const com = `{"name":"com","reg_price":"$10.88","original_reg_price":"-1","renew_price":"$10.88","tr_price":"$10.88"}`
	rows := func(r ...string) string {
		return `{"code":200,"msg":"success","data":{"current_tlds":[` + strings.Join(r, ",") + `]}}`
	}
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
			body: rows(`{"name":"com","reg_price":"$10.88","renew_price":"$10.88","tr_price":"$10.88","restore":"call us"}`),
			zone: ".com", want: set(".com", usd(1088), usd(1088), usd(1088)),
		},
		{
			name: "transfer on sale",
			body: rows(`{"name":"com","reg_price":"$10.88","renew_price":"$10.88","tr_price":"$8.88","original_tr_price":"$10.88"}`),
			zone: ".com", want: set(".com", usd(1088), usd(1088), usdSale(1088, 888)),
		},
		{
			name: "original below the shown price is no sale",
			body: rows(`{"name":"com","reg_price":"$10.88","original_reg_price":"$9.99","renew_price":"$10.88"}`),
			zone: ".com", want: set(".com", usd(1088), usd(1088), nil),
		},
		{
			name: "sale of an operation not offered is ignored",
			body: rows(`{"name":"com","reg_price":"-1","original_reg_price":"$10.88","renew_price":"$10.88"}`),
			zone: ".com", want: set(".com", nil, usd(1088), nil),
		},
		{
			name: "zero price is not offered",
			body: rows(`{"name":"com","reg_price":"$0.00","original_reg_price":"$10.88","renew_price":"$10.88","tr_price":"$0.00"}`),
			zone: ".com", want: set(".com", nil, usd(1088), nil),
		},
		{
			name: "empty and null prices are not offered",
			body: rows(`{"name":"com","reg_price":"$10.88","original_reg_price":null,"renew_price":"","tr_price":null}`),
			zone: ".com", want: set(".com", usd(1088), nil, nil),
		},
		{
			name: "row offering nothing is left out, not skipped",
			body: rows(`{"name":"gg","reg_price":"-1","original_reg_price":"-1","renew_price":"N/A","tr_price":"-"}`, com),
			zone: ".gg",
		},
		{
			name: "JSON numbers with a currency from google_data",
			body: rows(`{"name":"com","reg_price":10.88,"original_reg_price":-1,"renew_price":10.88,"google_data":{"currency":"usd"}}`),
			zone: ".com", want: set(".com", usd(1088), usd(1088), nil),
		},
		{
			name: "ISO code before the price",
			body: rows(`{"name":"com","reg_price":"USD 10.88","renew_price":"USD10.88"}`),
			zone: ".com", want: set(".com", usd(1088), usd(1088), nil),
		},
		{
			name: "ISO code after the price",
			body: rows(`{"name":"de","reg_price":"5.49 EUR","renew_price":"5.49\u00a0EUR"}`),
			zone: ".de", want: set(".de", price("EUR", 549), price("EUR", 549), nil),
		},
		{
			name: "euros",
			body: rows(`{"name":"de","reg_price":"€5.49","original_reg_price":"-1","renew_price":"€5.49","tr_price":"€ 5.49"}`),
			zone: ".de", want: set(".de", price("EUR", 549), price("EUR", 549), price("EUR", 549)),
		},
		{
			name: "pounds",
			body: rows(`{"name":"uk","reg_price":"£5.49","renew_price":"£5.49"}`),
			zone: ".uk", want: set(".uk", price("GBP", 549), price("GBP", 549), nil),
		},
		{
			name: "Canadian dollars are not US dollars",
			body: rows(`{"name":"ca","reg_price":"C$14.50","renew_price":"C$14.50","tr_price":"CA$14.50"}`),
			zone: ".ca", want: set(".ca", price("CAD", 1450), price("CAD", 1450), price("CAD", 1450)),
		},
		{
			name: "Mexican pesos",
			body: rows(`{"name":"mx","reg_price":"MX$1,199.00","renew_price":"MX$1,199.00"}`),
			zone: ".mx", want: set(".mx", price("MXN", 119900), price("MXN", 119900), nil),
		},
		{
			name: "reais",
			body: rows(`{"name":"br","reg_price":"R$59.90","renew_price":"R$59.90"}`),
			zone: ".br", want: set(".br", price("BRL", 5990), price("BRL", 5990), nil),
		},
		{
			name: "rupees",
			body: rows(`{"name":"in","reg_price":"Rs.599.00","renew_price":"₹599.00","tr_price":"Rs 599"}`),
			zone: ".in", want: set(".in", price("INR", 59900), price("INR", 59900), price("INR", 59900)),
		},
		{
			name: "fractions of a cent round half up",
			body: rows(`{"name":"com","reg_price":"$10.885","renew_price":"$10.8849"}`),
			zone: ".com", want: set(".com", usd(1089), usd(1088), nil),
		},
		{
			name: "prices in two currencies skip the row",
			body: rows(`{"name":"net","reg_price":"$12.99","renew_price":"€12.99"}`, com),
			zone: ".net", skipped: 1, keep: []string{"prices.v1.dynadot.net"},
		},
		{
			name: "google_data currency disagreeing with the symbol skips the row",
			body: rows(`{"name":"net","reg_price":"$12.99","google_data":{"currency":"EUR"}}`, com),
			zone: ".net", skipped: 1, keep: []string{"prices.v1.dynadot.net"},
		},
		{
			name: "price without a currency skips the row",
			body: rows(`{"name":"net","reg_price":"12.99","renew_price":12.99}`, com),
			zone: ".net", skipped: 1, keep: []string{"prices.v1.dynadot.net"},
		},
		{
			name: "unknown symbol skips the row",
			body: rows(`{"name":"net","reg_price":"₩12,990","renew_price":"₩12,990"}`, com),
			zone: ".net", skipped: 1, keep: []string{"prices.v1.dynadot.net"},
		},
		{
			name: "decimal comma skips the row",
			body: rows(`{"name":"de","reg_price":"€5,49"}`, com),
			zone: ".de", skipped: 1, keep: []string{"prices.v1.dynadot.de"},
		},
		{
			name: "unreadable original price skips the row",
			body: rows(`{"name":"net","reg_price":"$9.99","original_reg_price":"was $12.99","renew_price":"$12.99"}`, com),
			zone: ".net", skipped: 1, keep: []string{"prices.v1.dynadot.net"},
		},
		{
			name: "negative price skips the row",
			body: rows(`{"name":"net","reg_price":"-$1.00","renew_price":"$12.99"}`, com),
			zone: ".net", skipped: 1, keep: []string{"prices.v1.dynadot.net"},
		},
		{
			name: "price above the ceiling skips the row",
			body: rows(`{"name":"net","reg_price":"$99,999,999,999.99"}`, com),
			zone: ".net", skipped: 1, keep: []string{"prices.v1.dynadot.net"},
		},
		{
			name: "object price skips the row",
			body: rows(`{"name":"net","reg_price":{"amount":"12.99"}}`, com),
			zone: ".net", skipped: 1, keep: []string{"prices.v1.dynadot.net"},
		},
		{
			name: "google_data that is not an object skips the row, keeping its zone",
			body: rows(`{"name":"net","reg_price":"$12.99","google_data":"USD"}`, com),
			zone: ".net", skipped: 1, keep: []string{"prices.v1.dynadot.net"},
		},
		{
			name: "name that is not a zone is skipped",
			body: rows(`{"name":"com (premium)","reg_price":"$99.00"}`, com),
			zone: ".com (premium)", want: nil, skipped: 1,
		},
		{
			name: "row that is not an object is skipped",
			body: rows(`["com"]`, com),
			zone: ".com", want: set(".com", usd(1088), usd(1088), usd(1088)), skipped: 1,
		},
		{
			name: "unicode name and its A-label keep the first",
			body: rows(`{"name":"닷컴","reg_price":"$12.99"}`, `{"name":".XN--MK1BU44C","reg_price":"$11.99"}`),
			zone: ".xn--mk1bu44c", want: set(".xn--mk1bu44c", usd(1299), nil, nil), skipped: 1,
		},
		{
			name: "unreadable A-label beside its readable unicode name",
			body: rows(`{"name":"닷컴","reg_price":"$12.99"}`, `{"name":"xn--mk1bu44c","reg_price":"TBD"}`),
			zone: ".xn--mk1bu44c", want: set(".xn--mk1bu44c", usd(1299), nil, nil), skipped: 1,
		},
		{name: "error code", body: string(ingesttest.Fixture(t, "error.json")), wantErr: "code 500: System busy"},
		{name: "error code as a string", body: `{"code":"403","msg":"Forbidden"}`, wantErr: "code 403: Forbidden"},
		{name: "no data", body: `{"code":200,"msg":"success"}`, wantErr: "no current_tlds (code 200: success)"},
		{name: "no current_tlds", body: `{"code":200,"data":{"hot_tlds":[]}}`, wantErr: "no data.current_tlds"},
		{name: "empty current_tlds", body: rows(), wantErr: "no zones"},
		{name: "current_tlds is an object", body: `{"code":200,"data":{"current_tlds":{"com":{}}}}`, wantErr: "decode dynadot price list"},
		{name: "only rows that cannot be used", body: rows(`{"name":"gg","reg_price":"-1"}`, `{"name":"net","reg_price":"12.99"}`), wantErr: "no usable zone"},
		{name: "html", body: `<html><body>502 Bad Gateway</body></html>`, wantErr: "decode dynadot price list"},
		{name: "truncated", body: string(ingesttest.Fixture(t, "current_list.json")[:400]), wantErr: "decode dynadot price list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list, err := dynadot.Parse([]byte(tt.body), observed)
			if ingesttest.CheckOutcome(t, list, err, tt.wantErr, tt.skipped, tt.keep) {
				ingesttest.CheckZone(t, byZone(t, list), tt.zone, tt.want)
			}
		})
	}
}

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) {
	ingesttest.Conform(t, ingesttest.Suite{
		Name: dynadot.Name, Registrar: dynadot.Name, Parse: dynadot.Parse,
		New: func(url string, client *fetch.Client) (ingest.Source, error) {
			return dynadot.New(dynadot.Config{URL: url}, client, nil)
		},
		Validate: func(url string) error { return dynadot.Config{URL: url}.Validate() },
		Path:     path, Fixtures: []string{"current_list.json"}, Shrunk: "current_list_shrunk.json", Errors: []string{"error.json"},
		Check: checkRequest, Conditional: true, Spoil: "data.current_tlds.0.renew_price",
		Drift: ingesttest.DriftPaths{Row: "data.current_tlds[]", Field: "renew_price", Shape: "data.current_tlds"},
	})
}

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, dynadot.Parse, "*.json") }
