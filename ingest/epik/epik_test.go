package epik_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/epik"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

var (
	op    = ingesttest.USD
	promo = ingesttest.USDPromo
)

// TestFetch reads the list: 18 zones, 20 entries less .pl (zero
// throughout) and "bit/" (a Handshake name), both left out, not skipped.
func TestFetch(t *testing.T) {
	got := suite.Fetched(t, "prices.json", 18, 0)
	ingesttest.CheckEach(t, got, []ingesttest.Ops{
		{Name: "plain", Zone: ".com", Register: op(1049), Renew: op(1049), Transfer: op(1049)},
		{Name: "prices as JSON numbers, zero transfer is free", Zone: ".de", Register: op(549), Renew: op(549), Transfer: op(0)},
		{Name: "prices as JSON numbers", Zone: ".net", Register: op(1249), Renew: op(1249), Transfer: op(1249)},
		{Name: "registration below its standard price is a promotion", Zone: ".org", Register: promo(1199, 749), Renew: op(1199), Transfer: op(1199)},
		{Name: "promotions on registration and transfer", Zone: ".xyz", Register: promo(1299, 99), Renew: op(1299), Transfer: promo(1299, 999)},
		{Name: "price of the day above the standard one is paid", Zone: ".io", Register: op(4999), Renew: op(5499), Transfer: op(4999)},
		{Name: "no standard prices", Zone: ".app", Register: op(1499), Renew: op(1499), Transfer: op(1499)},
		{Name: "-1 standard prices", Zone: ".dev", Register: op(1499), Renew: op(1499), Transfer: op(1499)},
		{Name: "second-level zone, free transfer", Zone: ".co.uk", Register: op(699), Renew: op(699), Transfer: op(0)},
		{Name: "second-level zone, null transfer", Zone: ".com.au", Register: op(1299), Renew: op(1299)},
		{Name: "free transfer", Zone: ".uk", Register: op(699), Renew: op(699), Transfer: op(0)},
		{Name: "thousands separator", Zone: ".security", Register: op(206023), Renew: op(206023), Transfer: op(206023)},
		{Name: "n/a transfer is not offered", Zone: ".es", Register: op(899), Renew: op(899)},
		{Name: "empty transfer is not offered, registration promotion stays", Zone: ".online", Register: promo(3499, 299), Renew: op(3499)},
		{Name: "-1 transfer is not offered", Zone: ".club", Register: op(1299), Renew: op(1499)},
		{Name: "null renewal is not offered", Zone: ".shop", Register: promo(3499, 199), Transfer: op(3499)},
		{Name: "IDN as an A-label", Zone: ".xn--q9jyb4c", Register: promo(2799, 899), Renew: op(2799), Transfer: op(2799)},
		{Name: "IDN in Unicode", Zone: ".xn--80asehdb", Register: promo(2999, 2499), Renew: op(2999), Transfer: op(2999)},
	}, ".pl", ".bit")
}

// TestParseQuirks covers the format's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	all := func(v string) string {
		return `{"price":` + v + `,"renew":` + v + `,"transfer":` + v + `,"priceStandard":` + v + `,"renewStandard":` + v + `,"transferStandard":` + v + `}`
	}
	net := `"net":` + all(`"12.49"`)
	suite.Quirks(t, []ingesttest.Quirk{
		{
			Name: "missing price of the day is not offered, whatever the standard price",
			Body: `{"com":{"priceStandard":"10.49","renew":"10.49","renewStandard":"10.49"}}`,
			Zone: ".com", Want: suite.Set(".com", nil, op(1049), nil),
		},
		{
			Name: "zero registration is not offered even with a standard price",
			Body: `{"com":{"price":"0.00","priceStandard":"10.49","renew":"10.49"}}`,
			Zone: ".com", Want: suite.Set(".com", nil, op(1049), nil),
		},
		{
			Name: "free transfer promotion",
			Body: `{"com":{"price":"10.49","transfer":"0","transferStandard":"10.49"}}`,
			Zone: ".com", Want: suite.Set(".com", op(1049), nil, promo(1049, 0)),
		},
		{
			Name: "zero standard price leaves the price of the day",
			Body: `{"com":{"price":"10.49","priceStandard":0}}`,
			Zone: ".com", Want: suite.Set(".com", op(1049), nil, nil),
		},
		{
			Name: "three decimals round half up",
			Body: `{"com":{"price":"8.875","priceStandard":"10.4900"}}`,
			Zone: ".com", Want: suite.Set(".com", promo(1049, 888), nil, nil),
		},
		{
			Name: "currency named by the entry",
			Body: `{"eu":{"price":"4.99","priceStandard":"5.99","currency":"eur"}}`,
			Zone: ".eu", Want: suite.Set(".eu", ingesttest.Promo(599, 499, "EUR"), nil, nil),
		},
		{
			Name: "leading dot and upper case key",
			Body: `{".COM":` + all(`"10.49"`) + `}`,
			Zone: ".com", Want: suite.Set(".com", op(1049), op(1049), op(1049)),
		},
		{
			Name: "only a free transfer is left out, not skipped",
			Body: `{"uk":{"price":"0.00","renew":"0.00","transfer":"0.00"},` + net + `}`,
			Zone: ".uk",
		},
		{
			Name: "Handshake name is left out, not skipped",
			Body: `{"forever/":` + all(`"5.00"`) + `,` + net + `}`,
			Zone: ".forever",
		},
		{
			Name: "unicode key and its A-label keep the first in key order",
			Body: `{"みんな":` + all(`"9.99"`) + `,"xn--q9jyb4c":` + all(`"8.99"`) + `}`,
			Zone: ".xn--q9jyb4c", Want: suite.Set(".xn--q9jyb4c", op(899), op(899), op(899)),
			Skipped: 1,
		},
		{
			Name: "unreadable price skips the zone",
			Body: `{"com":` + all(`"TBD"`) + `,` + net + `}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.epik.com"},
		},
		{
			Name: "unreadable standard price skips the zone",
			Body: `{"com":{"price":"10.49","priceStandard":"ten"},` + net + `}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.epik.com"},
		},
		{
			Name: "negative price skips the zone",
			Body: `{"com":{"price":"-10.49"},` + net + `}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.epik.com"},
		},
		{
			Name: "unknown currency skips the zone",
			Body: `{"com":{"price":"10.49","currency":"ZZZ"},` + net + `}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.epik.com"},
		},
		{
			Name: "top-level value that is not an object is skipped",
			Body: `{"com":true,` + net + `}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.epik.com"},
		},
		{
			Name: "key that is not a zone is skipped",
			Body: `{"foo bar":` + all(`"1.00"`) + `,` + net + `}`,
			Zone: ".net", Want: suite.Set(".net", op(1249), op(1249), op(1249)),
			Skipped: 1,
		},
		{Name: "error envelope names the message", Body: string(ingesttest.Fixture(t, "error.json")), WantErr: `epik answered message: "Too Many Attempts."`},
		{Name: "error key", Body: `{"error":"Unauthenticated."}`, WantErr: `epik answered error: "Unauthenticated."`},
		{Name: "only zones that cannot be used", Body: `{"pl":` + all(`"0.00"`) + `}`, WantErr: "no usable zone"},
		{Name: "no zones", Body: `{}`, WantErr: "no zones"},
		{Name: "null", Body: `null`, WantErr: "decode epik price list"},
		{Name: "a list", Body: `[]`, WantErr: "decode epik price list"},
		{Name: "html", Body: `<!DOCTYPE html><html><body>502 Bad Gateway</body></html>`, WantErr: "decode epik price list"},
		{Name: "truncated", Body: string(ingesttest.Fixture(t, "prices.json")[:300]), WantErr: "decode epik price list"},
	})
}

// suite is the source, for the conformance suite and the tests above.
var suite = ingesttest.Declared(epik.Declaration()).Reads("prices.json", "prices_shrunk.json").
	At("/api/load-200-plus-prices").With(ingesttest.Suite{
	Errors: []string{"error.json"}, Spoil: "com.renew",
	Drift: ingesttest.DriftPaths{Row: "*", Field: "renew", Shape: "*"},
})

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, epik.Declaration().Read, "*.json") }
