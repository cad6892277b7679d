package dynadot_test

import (
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/dynadot"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

var (
	usd     = ingesttest.USD
	sale    = ingesttest.Promo
	usdSale = ingesttest.USDPromo
	cny     = ingesttest.In("CNY")
	eur     = ingesttest.In("EUR")
)

// TestFetch reads the list as served to a visitor it shows dollars: 19
// zones, 20 rows less .gg, which offers nothing (left out, not skipped).
func TestFetch(t *testing.T) {
	got := suite.Fetched(t, "current_list.json", 19, 0)
	ingesttest.CheckEach(t, got, []ingesttest.Ops{
		{Name: "no sale", Zone: ".com", Register: usd(1088), Renew: usd(1088), Transfer: usd(1088)},
		{Name: "registration on sale", Zone: ".org", Register: usdSale(1099, 899), Renew: usd(1099), Transfer: usd(1099)},
		{Name: "cheap first year on sale", Zone: ".xyz", Register: usdSale(1317, 199), Renew: usd(1317), Transfer: usd(1317)},
		{Name: "renewal on sale too", Zone: ".online", Register: usdSale(2999, 99), Renew: usdSale(2999, 2699), Transfer: usd(2999)},
		{Name: "original equal to the shown price is no sale", Zone: ".co", Register: usd(1099), Renew: usd(2299), Transfer: usd(2299)},
		{Name: "sale with google_data currency", Zone: ".shop", Register: usdSale(2999, 199), Renew: usd(2999), Transfer: usd(2999)},
		{Name: "dear renewal", Zone: ".watches", Register: usd(5369), Renew: usd(26772), Transfer: usd(26772)},
		{Name: "thousands separator", Zone: ".sexy", Register: usd(290000), Renew: usd(290000), Transfer: usd(290000)},
		{Name: "second-level zone is its own", Zone: ".co.uk", Register: usd(699), Renew: usd(699)},
		{Name: "second-level zone beside its parent, transfer -", Zone: ".uk", Register: usd(699), Renew: usd(699)},
		{Name: "another second-level zone", Zone: ".com.mx", Register: usd(1299), Renew: usd(2299), Transfer: usd(2299)},
		{Name: "IDN as an A-label", Zone: ".xn--mk1bu44c", Register: usd(1299), Renew: usd(1299), Transfer: usd(1299)},
		{Name: "IDN in Unicode", Zone: ".xn--q9jyb4c", Register: usd(899), Renew: usd(2899), Transfer: usd(2899)},
	}, ".gg")
}

// TestYuan reads the list as Dynadot serves it to a visitor it shows
// yuan: the prices are published in yuan, not taken for dollars.
func TestYuan(t *testing.T) {
	list, err := suite.Parse(ingesttest.Fixture(t, "current_list_cny.json"), suite.Observed)
	if err != nil {
		t.Fatal(err)
	}
	got := suite.ByZone(t, list)
	ingesttest.CheckZone(t, got, ".com", suite.Set(".com", sale(7970, 5120, "CNY"), cny(7970), cny(7970)))
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
			Zone: ".de", Want: suite.Set(".de", eur(549), eur(549), nil),
		},
		{
			Name: "euros",
			Body: rows(`{"name":"de","reg_price":"€5.49","original_reg_price":"-1","renew_price":"€5.49","tr_price":"€ 5.49"}`),
			Zone: ".de", Want: suite.Set(".de", eur(549), eur(549), eur(549)),
		},
		{
			Name: "pounds",
			Body: rows(`{"name":"uk","reg_price":"£5.49","renew_price":"£5.49"}`),
			Zone: ".uk", Want: suite.Set(".uk", ingesttest.Regular(549, "GBP"), ingesttest.Regular(549, "GBP"), nil),
		},
		{
			Name: "Canadian dollars are not US dollars",
			Body: rows(`{"name":"ca","reg_price":"C$14.50","renew_price":"C$14.50","tr_price":"CA$14.50"}`),
			Zone: ".ca", Want: suite.Set(".ca", ingesttest.Regular(1450, "CAD"), ingesttest.Regular(1450, "CAD"), ingesttest.Regular(1450, "CAD")),
		},
		{
			Name: "Mexican pesos",
			Body: rows(`{"name":"mx","reg_price":"MX$1,199.00","renew_price":"MX$1,199.00"}`),
			Zone: ".mx", Want: suite.Set(".mx", ingesttest.Regular(119900, "MXN"), ingesttest.Regular(119900, "MXN"), nil),
		},
		{
			Name: "reais",
			Body: rows(`{"name":"br","reg_price":"R$59.90","renew_price":"R$59.90"}`),
			Zone: ".br", Want: suite.Set(".br", ingesttest.Regular(5990, "BRL"), ingesttest.Regular(5990, "BRL"), nil),
		},
		{
			Name: "rupees",
			Body: rows(`{"name":"in","reg_price":"Rs.599.00","renew_price":"₹599.00","tr_price":"Rs 599"}`),
			Zone: ".in", Want: suite.Set(".in", ingesttest.Regular(59900, "INR"), ingesttest.Regular(59900, "INR"), ingesttest.Regular(59900, "INR")),
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

// suite is the source, for the conformance suite and the tests above.
var suite = ingesttest.Declared(dynadot.Declaration()).Reads("current_list.json", "current_list_shrunk.json").
	At("/dynadot-vue-api/dynadot-service/domain-search?command=get_current_list&lang=en").
	With(ingesttest.Suite{
		Errors: []string{"error.json"}, Spoil: "data.current_tlds.0.renew_price",
		Drift: ingesttest.DriftPaths{Row: "data.current_tlds[]", Field: "renew_price", Shape: "data.current_tlds"},
	})

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, dynadot.Declaration().Read, "*.json") }
