package onecom_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/onecom"
)

func op(cents int64) *contracts.OpPrice {
	return &contracts.OpPrice{Regular: contracts.Price{Amount: cents, Currency: "USD"}}
}

// TestFetch reads the page's flight data: 18 zones, the popular list's
// repeats left out, the navigation's tld object no price.
func TestFetch(t *testing.T) {
	got := suite.Fetched(t, "domain-prices.html", 18, 0)
	ingesttest.CheckEach(t, got, []ingesttest.Ops{
		{Name: "first year and renewal", Zone: ".com", Register: op(999), Renew: op(1999)},
		{Name: "a tld without its dot", Zone: ".xyz", Register: op(99), Renew: op(1999)},
		{Name: "second-level zone", Zone: ".co.uk", Register: op(299), Renew: op(1199)},
		{Name: "a zero first year is no price", Zone: ".shop", Renew: op(3999)},
		{Name: "a null renewal is not offered", Zone: ".app", Register: op(1499)},
		{Name: "above a thousand", Zone: ".security", Register: op(206023), Renew: op(206023)},
		{Name: "Unicode zone", Zone: ".xn--p1ai", Register: op(1199), Renew: op(1199)},
	})
}

// TestParseQuirks covers the flight stream's quirks one page at a time.
func TestParseQuirks(t *testing.T) {
	push := func(piece string) string { return `<script>self.__next_f.push([1,` + piece + `])</script>` }
	page := func(scripts ...string) string {
		out := `<!DOCTYPE html><html><body>`
		for _, s := range scripts {
			out += s
		}
		return out + `</body></html>`
	}
	net := `{\"tld\":\".net\",\"firstYearPrice\":14.99,\"renewalPrice\":22.99}`
	suite.Quirks(t, []ingesttest.Quirk{
		{
			Name: "a row cut across two pushes", Body: page(push(`"4:[{\"tld\":\".com\",\"firstYear"`), push(`"Price\":9.99,\"renewalPrice\":19.99},`+net+`]\n"`)),
			Zone: ".com", Want: suite.Set(".com", op(999), op(1999), nil),
		},
		{
			Name: "a text row holding JSON-like text is not read", Body: page(push(`"5:T32,{\"tld\":\".com\",\"firstYearPrice\":1,\"renewalPrice\":1}4:[` + net + `]\n"`)),
			Zone: ".com",
		},
		{
			Name: "a listing repeated with other prices is skipped", Body: page(push(`"4:[{\"tld\":\".com\",\"firstYearPrice\":9.99,\"renewalPrice\":19.99},{\"tld\":\".com\",\"firstYearPrice\":8.99,\"renewalPrice\":19.99},` + net + `]\n"`)),
			Zone: ".com", Want: suite.Set(".com", op(999), op(1999), nil), Skipped: 1,
		},
		{
			Name: "an object's own currency", Body: page(push(`"4:[{\"tld\":\".dk\",\"currency\":\"DKK\",\"firstYearPrice\":39,\"renewalPrice\":99},` + net + `]\n"`)),
			Zone: ".dk", Want: suite.Set(".dk", &contracts.OpPrice{Regular: contracts.Price{Amount: 3900, Currency: "DKK"}}, &contracts.OpPrice{Regular: contracts.Price{Amount: 9900, Currency: "DKK"}}, nil),
		},
		{
			Name: "a price as text skips the zone", Body: page(push(`"4:[{\"tld\":\".com\",\"firstYearPrice\":\"from $9.99\",\"renewalPrice\":19.99},` + net + `]\n"`)),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.onecom.com"},
		},
		{Name: "no flight data", Body: page(`<table><tr><td>.com</td><td>$9.99</td></tr></table>`), WantErr: "pushes no self.__next_f data"},
		{Name: "no price objects", Body: page(push(`"4:[\"$\",\"div\",null,{}]\n"`)), WantErr: "no object with a tld and a price"},
		{Name: "a row that does not end", Body: page(push(`"4:[` + net + `]"`)), WantErr: "cut short"},
		{Name: "a text row longer than the stream", Body: page(push(`"5:Tff,short"`)), WantErr: "cut short"},
		{Name: "a push that is no JSON", Body: page(`<script>self.__next_f.push([1,"4:[]\n")</script>`), WantErr: "not a JSON array"},
		{Name: "a page cut short", Body: page(push(`"4:[` + net + `]\n"`))[:60], WantErr: "does not end with </html>"},
	})
}

// suite is the source, for the conformance suite and the tests above.
var suite = ingesttest.Declared(onecom.Declaration()).Reads("domain-prices.html", "domain-prices_shrunk.html")

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, onecom.Declaration().Read, "*.html") }
