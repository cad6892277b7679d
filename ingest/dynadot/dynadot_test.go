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
	"github.com/zoneprice/zoneprice/ingest/kit"
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

func price(cur string, amount int64) *contracts.OpPrice { return ingesttest.Regular(amount, cur) }

func sale(cur string, regular, promo int64) *contracts.OpPrice {
	o := price(cur, regular)
	o.Promo = &contracts.Promo{Price: contracts.Price{Amount: promo, Currency: cur}}
	return o
}

var usd = ingesttest.USD

func usdSale(regular, promo int64) *contracts.OpPrice { return sale("USD", regular, promo) }

// fixtureZones is how many zones current_list.json prices: 20 rows less
// .gg, which offers nothing.
const fixtureZones = 19

func TestFetch(t *testing.T) {
	_, url := newAPI(t, ingesttest.Fixture(t, "current_list.json"))
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
	list, err := dynadot.Declaration().Read(ingesttest.Fixture(t, "current_list_cny.json"), observed)
	if err != nil {
		t.Fatal(err)
	}
	got := suite.ByZone(t, list)
	cny := func(fen int64) *contracts.OpPrice { return price("CNY", fen) }
	ingesttest.CheckZone(t, got, ".com", suite.Set(".com", sale("CNY", 7970, 5120), cny(7970), cny(7970)))
	ingesttest.CheckZone(t, got, ".net", suite.Set(".net", cny(9510), cny(9510), cny(9510)))
	ingesttest.CheckZone(t, got, ".sexy", suite.Set(".sexy", cny(2124120), cny(2124120), cny(2124120)))
}

// TestParseQuirks covers the format's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	const com = `{"name":"com","reg_price":"$10.88","original_reg_price":"-1","renew_price":"$10.88","tr_price":"$10.88"}`
	rows := func(r ...string) string {
		return `{"code":200,"msg":"success","data":{"current_tlds":[` + strings.Join(r, ",") + `]}}`
	}
	suite.Quirks(t, []ingesttest.Quirk{
		{
			Name: "restore price is not read",
			Body: rows(`{"name":"com","reg_price":"$10.88","renew_price":"$10.88","tr_price":"$10.88","restore":"call us"}`),
			Zone: ".com", Want: suite.Set(".com", usd(1088), usd(1088), usd(1088)),
		},
		{
			Name: "transfer on sale",
			Body: rows(`{"name":"com","reg_price":"$10.88","renew_price":"$10.88","tr_price":"$8.88","original_tr_price":"$10.88"}`),
			Zone: ".com", Want: suite.Set(".com", usd(1088), usd(1088), usdSale(1088, 888)),
		},
		{
			Name: "original below the shown price is no sale",
			Body: rows(`{"name":"com","reg_price":"$10.88","original_reg_price":"$9.99","renew_price":"$10.88"}`),
			Zone: ".com", Want: suite.Set(".com", usd(1088), usd(1088), nil),
		},
		{
			Name: "sale of an operation not offered is ignored",
			Body: rows(`{"name":"com","reg_price":"-1","original_reg_price":"$10.88","renew_price":"$10.88"}`),
			Zone: ".com", Want: suite.Set(".com", nil, usd(1088), nil),
		},
		{
			Name: "zero price is not offered",
			Body: rows(`{"name":"com","reg_price":"$0.00","original_reg_price":"$10.88","renew_price":"$10.88","tr_price":"$0.00"}`),
			Zone: ".com", Want: suite.Set(".com", nil, usd(1088), nil),
		},
		{
			Name: "empty and null prices are not offered",
			Body: rows(`{"name":"com","reg_price":"$10.88","original_reg_price":null,"renew_price":"","tr_price":null}`),
			Zone: ".com", Want: suite.Set(".com", usd(1088), nil, nil),
		},
		{
			Name: "row offering nothing is left out, not skipped",
			Body: rows(`{"name":"gg","reg_price":"-1","original_reg_price":"-1","renew_price":"N/A","tr_price":"-"}`, com),
			Zone: ".gg",
		},
		{
			Name: "JSON numbers with a currency from google_data",
			Body: rows(`{"name":"com","reg_price":10.88,"original_reg_price":-1,"renew_price":10.88,"google_data":{"currency":"usd"}}`),
			Zone: ".com", Want: suite.Set(".com", usd(1088), usd(1088), nil),
		},
		{
			Name: "ISO code before the price",
			Body: rows(`{"name":"com","reg_price":"USD 10.88","renew_price":"USD10.88"}`),
			Zone: ".com", Want: suite.Set(".com", usd(1088), usd(1088), nil),
		},
		{
			Name: "ISO code after the price",
			Body: rows(`{"name":"de","reg_price":"5.49 EUR","renew_price":"5.49\u00a0EUR"}`),
			Zone: ".de", Want: suite.Set(".de", price("EUR", 549), price("EUR", 549), nil),
		},
		{
			Name: "euros",
			Body: rows(`{"name":"de","reg_price":"€5.49","original_reg_price":"-1","renew_price":"€5.49","tr_price":"€ 5.49"}`),
			Zone: ".de", Want: suite.Set(".de", price("EUR", 549), price("EUR", 549), price("EUR", 549)),
		},
		{
			Name: "pounds",
			Body: rows(`{"name":"uk","reg_price":"£5.49","renew_price":"£5.49"}`),
			Zone: ".uk", Want: suite.Set(".uk", price("GBP", 549), price("GBP", 549), nil),
		},
		{
			Name: "Canadian dollars are not US dollars",
			Body: rows(`{"name":"ca","reg_price":"C$14.50","renew_price":"C$14.50","tr_price":"CA$14.50"}`),
			Zone: ".ca", Want: suite.Set(".ca", price("CAD", 1450), price("CAD", 1450), price("CAD", 1450)),
		},
		{
			Name: "Mexican pesos",
			Body: rows(`{"name":"mx","reg_price":"MX$1,199.00","renew_price":"MX$1,199.00"}`),
			Zone: ".mx", Want: suite.Set(".mx", price("MXN", 119900), price("MXN", 119900), nil),
		},
		{
			Name: "reais",
			Body: rows(`{"name":"br","reg_price":"R$59.90","renew_price":"R$59.90"}`),
			Zone: ".br", Want: suite.Set(".br", price("BRL", 5990), price("BRL", 5990), nil),
		},
		{
			Name: "rupees",
			Body: rows(`{"name":"in","reg_price":"Rs.599.00","renew_price":"₹599.00","tr_price":"Rs 599"}`),
			Zone: ".in", Want: suite.Set(".in", price("INR", 59900), price("INR", 59900), price("INR", 59900)),
		},
		{
			Name: "fractions of a cent round half up",
			Body: rows(`{"name":"com","reg_price":"$10.885","renew_price":"$10.8849"}`),
			Zone: ".com", Want: suite.Set(".com", usd(1089), usd(1088), nil),
		},
		{
			Name: "prices in two currencies skip the row",
			Body: rows(`{"name":"net","reg_price":"$12.99","renew_price":"€12.99"}`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.dynadot.net"},
		},
		{
			Name: "google_data currency disagreeing with the symbol skips the row",
			Body: rows(`{"name":"net","reg_price":"$12.99","google_data":{"currency":"EUR"}}`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.dynadot.net"},
		},
		{
			Name: "price without a currency skips the row",
			Body: rows(`{"name":"net","reg_price":"12.99","renew_price":12.99}`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.dynadot.net"},
		},
		{
			Name: "unknown symbol skips the row",
			Body: rows(`{"name":"net","reg_price":"₩12,990","renew_price":"₩12,990"}`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.dynadot.net"},
		},
		{
			Name: "decimal comma skips the row",
			Body: rows(`{"name":"de","reg_price":"€5,49"}`, com),
			Zone: ".de", Skipped: 1, Keep: []string{"prices.v1.dynadot.de"},
		},
		{
			Name: "unreadable original price skips the row",
			Body: rows(`{"name":"net","reg_price":"$9.99","original_reg_price":"was $12.99","renew_price":"$12.99"}`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.dynadot.net"},
		},
		{
			Name: "negative price skips the row",
			Body: rows(`{"name":"net","reg_price":"-$1.00","renew_price":"$12.99"}`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.dynadot.net"},
		},
		{
			Name: "price above the ceiling skips the row",
			Body: rows(`{"name":"net","reg_price":"$99,999,999,999.99"}`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.dynadot.net"},
		},
		{
			Name: "object price skips the row",
			Body: rows(`{"name":"net","reg_price":{"amount":"12.99"}}`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.dynadot.net"},
		},
		{
			Name: "google_data that is not an object skips the row, keeping its zone",
			Body: rows(`{"name":"net","reg_price":"$12.99","google_data":"USD"}`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.dynadot.net"},
		},
		{
			Name: "name that is not a zone is skipped",
			Body: rows(`{"name":"com (premium)","reg_price":"$99.00"}`, com),
			Zone: ".com (premium)", Want: nil, Skipped: 1,
		},
		{
			Name: "row that is not an object is skipped",
			Body: rows(`["com"]`, com),
			Zone: ".com", Want: suite.Set(".com", usd(1088), usd(1088), usd(1088)), Skipped: 1,
		},
		{
			Name: "unicode name and its A-label keep the first",
			Body: rows(`{"name":"닷컴","reg_price":"$12.99"}`, `{"name":".XN--MK1BU44C","reg_price":"$11.99"}`),
			Zone: ".xn--mk1bu44c", Want: suite.Set(".xn--mk1bu44c", usd(1299), nil, nil), Skipped: 1,
		},
		{
			Name: "unreadable A-label beside its readable unicode name",
			Body: rows(`{"name":"닷컴","reg_price":"$12.99"}`, `{"name":"xn--mk1bu44c","reg_price":"TBD"}`),
			Zone: ".xn--mk1bu44c", Want: suite.Set(".xn--mk1bu44c", usd(1299), nil, nil), Skipped: 1,
		},
		{Name: "error code", Body: string(ingesttest.Fixture(t, "error.json")), WantErr: "code 500: System busy"},
		{Name: "error code as a string", Body: `{"code":"403","msg":"Forbidden"}`, WantErr: "code 403: Forbidden"},
		{Name: "no data", Body: `{"code":200,"msg":"success"}`, WantErr: "no current_tlds (code 200: success)"},
		{Name: "no current_tlds", Body: `{"code":200,"data":{"hot_tlds":[]}}`, WantErr: "no data.current_tlds"},
		{Name: "empty current_tlds", Body: rows(), WantErr: "no zones"},
		{Name: "current_tlds is an object", Body: `{"code":200,"data":{"current_tlds":{"com":{}}}}`, WantErr: "decode dynadot price list"},
		{Name: "only rows that cannot be used", Body: rows(`{"name":"gg","reg_price":"-1"}`, `{"name":"net","reg_price":"12.99"}`), WantErr: "no usable zone"},
		{Name: "html", Body: `<html><body>502 Bad Gateway</body></html>`, WantErr: "decode dynadot price list"},
		{Name: "truncated", Body: string(ingesttest.Fixture(t, "current_list.json")[:400]), WantErr: "decode dynadot price list"},
	})
}

// suite is the source, for the conformance suite and the tests below.
var suite = ingesttest.Suite{
	Name: dynadot.Name, Registrar: dynadot.Name, Parse: dynadot.Declaration().Read,
	New: func(url string, client *fetch.Client, now func() time.Time) (ingest.Source, error) {
		return kit.New(dynadot.Declaration(), kit.Config{URL: url}, client, now)
	},
	Validate: func(url string) error { return kit.Config{URL: url}.Validate() },
	Path:     path, Fixtures: []string{"current_list.json"}, Shrunk: "current_list_shrunk.json", Errors: []string{"error.json"},
	Check: checkRequest, Conditional: true, Spoil: "data.current_tlds.0.renew_price",
	Drift:    ingesttest.DriftPaths{Row: "data.current_tlds[]", Field: "renew_price", Shape: "data.current_tlds"},
	Observed: observed, Tax: contracts.TaxExcluded,
}

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, dynadot.Declaration().Read, "*.json") }
