package vpsor_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/vpsor"
)

func op(fen int64) *contracts.OpPrice {
	return &contracts.OpPrice{Regular: contracts.Price{Amount: fen, Currency: "CNY"}}
}

// checkRequest says what is wrong with a request that is not a plain GET
// of the product list.
func checkRequest(r *http.Request) error {
	if r.Method != http.MethodGet || r.ContentLength > 0 || r.URL.RawQuery != "" {
		return fmt.Errorf("%s %s with %d bytes", r.Method, r.URL, r.ContentLength)
	}
	return nil
}

// TestFetch reads the fixture's 17 products: 15 zones; the Chinese names
// under .com and .ai, sold for two years at least, are left out.
func TestFetch(t *testing.T) {
	got := suite.Fetched(t, "product-search.json", 15, 0)
	ingesttest.CheckEach(t, got, []ingesttest.Ops{
		{Name: "one year of the tables, not the unit price", Zone: ".com", Register: op(4900), Renew: op(5300)},
		{Name: "second-level zone", Zone: ".com.cn", Register: op(2900), Renew: op(3400)},
		{Name: "first year below renewal", Zone: ".xyz", Register: op(600), Renew: op(8800)},
		{Name: "an empty renewal table is not offered", Zone: ".vip", Register: op(3500)},
		{Name: "a Chinese zone's cn row", Zone: ".xn--fiqs8s", Register: op(2900), Renew: op(2900)},
		{Name: "fen as strings", Zone: ".ltd", Register: op(1900), Renew: op(5500)},
		{Name: "twelve thousand yuan", Zone: ".shop", Register: op(1200000), Renew: op(1200000)},
	}, ".ai")
	if got[".com"].Register.Regular.Amount != 4900 {
		t.Errorf(".com is the en row's price, %v", got[".com"].Register)
	}
}

// TestParseQuirks covers the format's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	const net = `{"domainTld":".net","languageType":"en","regPriceInfo":"{\"1\":5900}","renewPriceInfo":"{\"1\":6500}"}`
	list := func(rows string) string {
		return `{"status":2000,"message":"success","data":[` + rows + `,` + net + `]}`
	}
	row := func(tld, lang, reg, renew string) string {
		return fmt.Sprintf(`{"domainTld":%q,"languageType":%q,"regPriceInfo":%s,"renewPriceInfo":%s}`, tld, lang, reg, renew)
	}
	suite.Quirks(t, []ingesttest.Quirk{
		{
			Name: "a price table as an object, not a string", Body: list(row(".com", "en", `{"1":4900}`, `{"1":5300}`)),
			Zone: ".com", Want: suite.Set(".com", op(4900), op(5300), nil),
		},
		{
			Name: "a cn row of an ASCII zone is left out", Body: list(row(".com", "cn", `"{\"1\":6900}"`, `"{\"1\":6900}"`)),
			Zone: ".com",
		},
		{
			Name: "another languageType skips the row", Body: list(row(".com", "jp", `"{\"1\":4900}"`, `"{\"1\":5300}"`)),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.vpsor.com"},
		},
		{
			Name: "fen with a decimal point skip the row", Body: list(row(".com", "en", `"{\"1\":49.5}"`, `"{\"1\":5300}"`)),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.vpsor.com"},
		},
		{
			Name: "a table that is no JSON skips the row", Body: list(row(".com", "en", `"{1:4900"`, `"{\"1\":5300}"`)),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.vpsor.com"},
		},
		{
			Name: "a zero first year is no price", Body: list(row(".com", "en", `"{\"1\":0}"`, `"{\"1\":5300}"`)),
			Zone: ".com", Want: suite.Set(".com", nil, op(5300), nil),
		},
		{Name: "an error status", Body: string(ingesttest.Fixture(t, "error.json")), WantErr: `status 5000: "系统繁忙`},
		{Name: "no status", Body: `{"data":[` + net + `]}`, WantErr: "status (absent)"},
		{Name: "no products", Body: `{"status":2000,"message":"success","data":[]}`, WantErr: "no zones"},
	})
}

// suite is the source, for the conformance suite and the tests above.
var suite = func() ingesttest.Suite {
	s := ingesttest.Declared(vpsor.Declaration()).Reads("product-search.json", "product-search_shrunk.json")
	s.Check, s.Errors, s.Spoil = checkRequest, []string{"error.json"}, "data[].regPriceInfo"
	s.Drift = ingesttest.DriftPaths{Row: "data[]", Field: "renewPriceInfo", Shape: "data"}
	return s
}()

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, vpsor.Declaration().Read, "*.json") }
