package joker_test

import (
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/joker"
)

var (
	op  = ingesttest.USD
	eur = ingesttest.In("EUR")
)

// TestFetch reads the list: 18 zones, 20 entries less .pl (zero
// throughout) and "forever/" (a Handshake name), both left out, not
// skipped.
func TestFetch(t *testing.T) {
	got := suite.Fetched(t, "pricelist.json", 18, 0)
	ingesttest.CheckEach(t, got, []ingesttest.Ops{
		{Name: "plain", Zone: ".com", Register: op(1041), Renew: op(1041), Transfer: op(1041)},
		{Name: "prices as JSON numbers", Zone: ".app", Register: op(1439), Renew: op(1439), Transfer: op(1439)},
		{Name: "second-level zone is its own", Zone: ".co.uk", Register: op(760), Renew: op(760), Transfer: op(0)},
		{Name: "CentralNic second-level zone", Zone: ".uk.com", Register: op(3845), Renew: op(3845), Transfer: op(3845)},
		{Name: "free transfer", Zone: ".de", Register: op(456), Renew: op(456), Transfer: op(0)},
		{Name: "thousands separator", Zone: ".security", Register: op(206023), Renew: op(206023), Transfer: op(206023)},
		{Name: "n/a transfer is not offered", Zone: ".es", Register: op(907), Renew: op(907)},
		{Name: "empty transfer is not offered", Zone: ".online", Register: op(362), Renew: op(3481)},
		{Name: "absent transfer is not offered", Zone: ".io", Register: op(4972), Renew: op(4972)},
		{Name: "-1 renewal is not offered", Zone: ".xyz", Register: op(285), Transfer: op(1523)},
		{Name: "an operation beyond the three is ignored", Zone: ".shop", Register: op(241), Renew: op(3803), Transfer: op(3803)},
		{Name: "IDN as an A-label", Zone: ".xn--q9jyb4c", Register: op(898), Renew: op(2806), Transfer: op(2806)},
		{Name: "IDN in Unicode", Zone: ".xn--p1ai", Register: op(620), Renew: op(620)},
	}, ".pl", ".forever")
}

// TestParseQuirks covers the format's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	body := func(entries string) string { return `{"result":{"pricelist":{"domains":{` + entries + `}}}}` }
	total := func(v, cur string) string { return `{"total":{"display_total":` + v + `,"currency":` + cur + `}}` }
	all := func(v string) string {
		o := total(v, `"usd"`)
		return `{"registration":` + o + `,"renewal":` + o + `,"transfer":` + o + `}`
	}
	net := `"net":` + all(`"12.60"`)
	suite.Quirks(t, []ingesttest.Quirk{
		{
			Name: "currency in upper case",
			Body: body(`"com":{"registration":` + total(`"10.41"`, `"USD"`) + `}`),
			Zone: ".com", Want: suite.Set(".com", op(1041), nil, nil),
		},
		{
			Name: "currency the document names",
			Body: body(`"eu":` + strings.ReplaceAll(all(`"5.95"`), `"usd"`, `"eur"`)),
			Zone: ".eu", Want: suite.Set(".eu", eur(595), eur(595), eur(595)),
		},
		{
			Name: "leading dot and upper case key",
			Body: body(`".COM":` + all(`"10.41"`)),
			Zone: ".com", Want: suite.Set(".com", op(1041), op(1041), op(1041)),
		},
		{
			Name: "trailing zeros are exact, a third decimal rounds half up",
			Body: body(`"com":{"registration":` + total(`"10.4100"`, `"usd"`) + `,"renewal":` + total(`"10.415"`, `"usd"`) + `}`),
			Zone: ".com", Want: suite.Set(".com", op(1041), op(1042), nil),
		},
		{
			Name: "null display_total is not offered",
			Body: body(`"com":{"registration":` + total(`"10.41"`, `"usd"`) + `,"renewal":` + total(`null`, `"usd"`) + `}`),
			Zone: ".com", Want: suite.Set(".com", op(1041), nil, nil),
		},
		{
			Name: "operation without a total is not offered",
			Body: body(`"com":{"registration":` + total(`"10.41"`, `"usd"`) + `,"renewal":{},"transfer":null}`),
			Zone: ".com", Want: suite.Set(".com", op(1041), nil, nil),
		},
		{
			Name: "-1.00 is not offered",
			Body: body(`"com":{"registration":` + total(`"10.41"`, `"usd"`) + `,"renewal":` + total(`-1.00`, `"usd"`) + `}`),
			Zone: ".com", Want: suite.Set(".com", op(1041), nil, nil),
		},
		{
			Name: "zero registration is not offered, zero transfer is free",
			Body: body(`"uk":{"registration":` + total(`"0.00"`, `"usd"`) + `,"renewal":` + total(`"7.60"`, `"usd"`) + `,"transfer":` + total(`"0"`, `"usd"`) + `}`),
			Zone: ".uk", Want: suite.Set(".uk", nil, op(760), op(0)),
		},
		{
			Name: "only a free transfer is left out, not skipped",
			Body: body(`"uk":{"transfer":` + total(`"0.00"`, `"usd"`) + `},` + net),
			Zone: ".uk",
		},
		{
			Name: "Handshake name is left out, not skipped",
			Body: body(`"forever/":` + all(`"3.00"`) + `,` + net),
			Zone: ".forever",
		},
		{
			Name: "unicode key and its A-label keep the first in key order",
			Body: body(`"みんな":` + all(`"9.99"`) + `,"xn--q9jyb4c":` + all(`"8.98"`)),
			Zone: ".xn--q9jyb4c", Want: suite.Set(".xn--q9jyb4c", op(898), op(898), op(898)),
			Skipped: 1,
		},
		{
			Name: "comma without a decimal point is ambiguous",
			Body: body(`"com":` + all(`"1,041"`) + `,` + net),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.joker.com"},
		},
		{
			Name: "decimal comma skips the zone",
			Body: body(`"com":` + all(`"10,41"`) + `,` + net),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.joker.com"},
		},
		{
			Name: "currency symbol skips the zone",
			Body: body(`"com":` + all(`"$10.41"`) + `,` + net),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.joker.com"},
		},
		{
			Name: "negative price skips the zone",
			Body: body(`"com":` + all(`"-5.00"`) + `,` + net),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.joker.com"},
		},
		{
			Name: "missing currency skips the zone",
			Body: body(`"com":{"registration":{"total":{"display_total":"10.41"}}},` + net),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.joker.com"},
		},
		{
			Name: "unknown currency skips the zone",
			Body: body(`"com":` + strings.ReplaceAll(all(`"10.41"`), `"usd"`, `"zzz"`) + `,` + net),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.joker.com"},
		},
		{
			Name: "operations in two currencies skip the zone",
			Body: body(`"com":{"registration":` + total(`"10.41"`, `"usd"`) + `,"renewal":` + total(`"9.50"`, `"eur"`) + `},` + net),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.joker.com"},
		},
		{
			Name: "entry that is not an object skips the zone",
			Body: body(`"com":"10.41",` + net),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.joker.com"},
		},
		{
			Name: "key that is not a zone is skipped",
			Body: body(`"foo bar":` + all(`"1.00"`) + `,` + net),
			Zone: ".net", Want: suite.Set(".net", op(1260), op(1260), op(1260)),
			Skipped: 1,
		},
		{
			Name:    "error envelope names the message",
			Body:    string(ingesttest.Fixture(t, "error.json")),
			WantErr: "Too many requests",
		},
		{Name: "message envelope", Body: `{"message":"maintenance"}`, WantErr: `joker answered "maintenance"`},
		{Name: "only zones that cannot be used", Body: body(`"pl":` + all(`"0.00"`)), WantErr: "no usable zone"},
		{Name: "no zones", Body: body(``), WantErr: "no zones"},
		{Name: "no result", Body: `{}`, WantErr: "no result.pricelist.domains"},
		{Name: "domains is a list", Body: `{"result":{"pricelist":{"domains":[]}}}`, WantErr: "decode joker price list"},
		{Name: "html", Body: `<!DOCTYPE html><html><body>502 Bad Gateway</body></html>`, WantErr: "decode joker price list"},
		{Name: "truncated", Body: string(ingesttest.Fixture(t, "pricelist.json")[:300]), WantErr: "decode joker price list"},
	})
}

// suite is the source, for the conformance suite and the tests above.
var suite = ingesttest.Declared(joker.Declaration()).Reads("pricelist.json", "pricelist_shrunk.json").
	At("/api/v1/price/list").With(ingesttest.Suite{
	Errors: []string{"error.json"}, Spoil: "result.pricelist.domains.com.renewal.total.display_total",
	Drift: ingesttest.DriftPaths{Row: "result.pricelist.domains.*", Field: "renewal", Shape: "result.pricelist.domains"},
})

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, joker.Declaration().Read, "*.json") }
