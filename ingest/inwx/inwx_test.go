package inwx_test

import (
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/inwx"
)

var (
	usd = ingesttest.USD
	eur = ingesttest.In("EUR")
)

// TestFetch reads the list: 21 zones, 22 rows less .pl, which offers
// nothing (left out, not skipped).
func TestFetch(t *testing.T) {
	got := suite.Fetched(t, "all-prices.json", 21, 0)
	ingesttest.CheckEach(t, got, []ingesttest.Ops{
		{Name: "numbers", Zone: ".com", Register: usd(1190), Renew: usd(1190), Transfer: usd(1190)},
		{Name: "numeric strings", Zone: ".dev", Register: usd(1450), Renew: usd(1450), Transfer: usd(1450)},
		{Name: "cheap first year", Zone: ".xyz", Register: usd(290), Renew: usd(1590), Transfer: usd(1590)},
		{Name: "euro row among dollar rows", Zone: ".de", Register: eur(476), Renew: eur(476), Transfer: eur(476)},
		{Name: "another euro row", Zone: ".eu", Register: eur(595), Renew: eur(595), Transfer: eur(595)},
		{Name: "upper-case tld, lower-case currency", Zone: ".net", Register: usd(1350), Renew: usd(1350), Transfer: usd(1350)},
		{Name: "second-level zone is its own", Zone: ".co.uk", Register: usd(690), Renew: usd(690), Transfer: usd(690)},
		{Name: "second-level zone beside its parent", Zone: ".uk", Register: usd(690), Renew: usd(690)},
		{Name: "another second-level zone", Zone: ".com.au", Register: usd(1250), Renew: usd(1250), Transfer: usd(1250)},
		{Name: "thousands separator", Zone: ".security", Register: usd(219000), Renew: usd(219000), Transfer: usd(219000)},
		{Name: "zero transfer is not offered", Zone: ".ch", Register: usd(890), Renew: usd(890)},
		{Name: "null transfer is not offered", Zone: ".at", Register: usd(1090), Renew: usd(1090)},
		{Name: "n/a transfer is not offered", Zone: ".es", Register: usd(850), Renew: usd(850)},
		{Name: "IDN as an A-label", Zone: ".xn--p1ai", Register: usd(590), Renew: usd(590), Transfer: usd(590)},
		{Name: "IDN in Unicode with a dot", Zone: ".xn--q9jyb4c", Register: usd(990), Renew: usd(2990), Transfer: usd(2990)},
	}, ".pl")
}

// TestParseQuirks covers the format's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	const com = `{"tld":"com","createPrice":11.9,"renewalPrice":11.9,"transferPrice":11.9,"currency":"USD"}`
	rows := func(r ...string) string { return `{"tlds":[` + strings.Join(r, ",") + `]}` }
	suite.Quirks(t, []ingesttest.Quirk{
		{
			Name: "restore price is not read",
			Body: rows(`{"tld":"com","createPrice":11.9,"renewalPrice":11.9,"transferPrice":11.9,"restorePrice":"TBD","currency":"USD"}`),
			Zone: ".com", Want: suite.Set(".com", usd(1190), usd(1190), usd(1190)),
		},
		{
			Name: "zero registration is not offered",
			Body: rows(`{"tld":"com","createPrice":"0.00","renewalPrice":11.9,"transferPrice":11.9,"currency":"USD"}`),
			Zone: ".com", Want: suite.Set(".com", nil, usd(1190), usd(1190)),
		},
		{
			Name: "row offering nothing is left out, not skipped",
			Body: rows(`{"tld":"pl","createPrice":0,"renewalPrice":"","transferPrice":null,"currency":"USD"}`, com),
			Zone: ".pl",
		},
		{
			Name: "fractions of a cent round half up",
			Body: rows(`{"tld":"com","createPrice":11.895,"renewalPrice":"11.8949","currency":"USD"}`),
			Zone: ".com", Want: suite.Set(".com", usd(1190), usd(1189), nil),
		},
		{
			Name: "document currency",
			Body: `{"currency":"EUR","tlds":[{"tld":"de","createPrice":4.76}]}`,
			Zone: ".de", Want: suite.Set(".de", eur(476), nil, nil),
		},
		{
			Name: "row currency over the document's",
			Body: `{"currency":"EUR","tlds":[{"tld":"com","createPrice":11.9,"currency":"USD"}]}`,
			Zone: ".com", Want: suite.Set(".com", usd(1190), nil, nil),
		},
		{
			Name: "Swiss francs",
			Body: rows(`{"tld":"ch","createPrice":"7.90","renewalPrice":"7.90","currency":"CHF"}`),
			Zone: ".ch", Want: suite.Set(".ch", ingesttest.Regular(790, "CHF"), ingesttest.Regular(790, "CHF"), nil),
		},
		{
			Name: "row without a currency is skipped",
			Body: rows(`{"tld":"net","createPrice":13.5}`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.inwx.net"},
		},
		{
			Name: "currency symbol as the currency skips the row",
			Body: rows(`{"tld":"net","createPrice":13.5,"currency":"€"}`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.inwx.net"},
		},
		{
			Name: "currency symbol in the price skips the row",
			Body: rows(`{"tld":"net","createPrice":"$13.50","currency":"USD"}`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.inwx.net"},
		},
		{
			Name: "decimal comma skips the row",
			Body: rows(`{"tld":"de","createPrice":"4,76","currency":"EUR"}`, com),
			Zone: ".de", Skipped: 1, Keep: []string{"prices.v1.inwx.de"},
		},
		{
			Name: "negative price skips the row",
			Body: rows(`{"tld":"net","createPrice":-1,"currency":"USD"}`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.inwx.net"},
		},
		{
			Name: "exponent notation skips the row",
			Body: rows(`{"tld":"net","createPrice":1.35E1,"currency":"USD"}`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.inwx.net"},
		},
		{
			Name: "price above the ceiling skips the row",
			Body: rows(`{"tld":"net","createPrice":99999999999.99,"currency":"USD"}`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.inwx.net"},
		},
		{
			Name: "boolean price skips the row",
			Body: rows(`{"tld":"net","createPrice":true,"currency":"USD"}`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.inwx.net"},
		},
		{
			Name: "currency that is not a string skips the row, keeping its zone",
			Body: rows(`{"tld":"net","createPrice":13.5,"currency":840}`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.inwx.net"},
		},
		{
			Name: "tld that is not a zone is skipped",
			Body: rows(`{"tld":"foo_bar","createPrice":1,"currency":"USD"}`, com),
			Zone: ".foo_bar", Skipped: 1,
		},
		{
			Name: "numeric tld is outside the root, not skipped",
			Body: rows(`{"tld":"123","createPrice":1,"currency":"USD"}`, com),
			Zone: ".123",
		},
		{
			Name: "row whose tld is not a string is skipped",
			Body: rows(`{"tld":7,"createPrice":1,"currency":"USD"}`, com),
			Zone: ".com", Want: suite.Set(".com", usd(1190), usd(1190), usd(1190)), Skipped: 1,
		},
		{
			Name: "unicode tld and its A-label keep the first",
			Body: rows(`{"tld":"みんな","createPrice":9.9,"currency":"USD"}`, `{"tld":"xn--q9jyb4c","createPrice":8.9,"currency":"USD"}`),
			Zone: ".xn--q9jyb4c", Want: suite.Set(".xn--q9jyb4c", usd(990), nil, nil), Skipped: 1,
		},
		{
			Name: "unreadable A-label beside its readable unicode tld",
			Body: rows(`{"tld":"みんな","createPrice":9.9,"currency":"USD"}`, `{"tld":"xn--q9jyb4c","createPrice":"TBD","currency":"USD"}`),
			Zone: ".xn--q9jyb4c", Want: suite.Set(".xn--q9jyb4c", usd(990), nil, nil), Skipped: 1,
		},
		{Name: "error envelope", Body: string(ingesttest.Fixture(t, "error.json")), WantErr: "code 2400: Command failed: Too many requests"},
		{Name: "error message", Body: `{"message":"Service unavailable"}`, WantErr: "Service unavailable"},
		{Name: "no tlds", Body: `{}`, WantErr: "has no tlds"},
		{Name: "null tlds", Body: `{"tlds":null}`, WantErr: "has no tlds"},
		{Name: "empty tlds", Body: `{"tlds":[]}`, WantErr: "no zones"},
		{Name: "tlds is an object", Body: `{"tlds":{"com":{}}}`, WantErr: "decode inwx price list"},
		{Name: "only rows that cannot be used", Body: rows(`{"tld":"pl","createPrice":0,"currency":"USD"}`, `{"tld":"net","createPrice":1}`), WantErr: "no usable zone"},
		{Name: "html", Body: `<html><body>502 Bad Gateway</body></html>`, WantErr: "decode inwx price list"},
		{Name: "truncated", Body: string(ingesttest.Fixture(t, "all-prices.json")[:300]), WantErr: "decode inwx price list"},
	})
}

// suite is the source, for the conformance suite and the tests above.
var suite = ingesttest.Declared(inwx.Declaration()).Reads("all-prices.json", "all-prices_shrunk.json").
	At("/api/v1/domain/all-prices").With(ingesttest.Suite{
	Errors: []string{"error.json"}, Spoil: "tlds.0.renewalPrice",
	Drift: ingesttest.DriftPaths{Row: "tlds[]", Field: "renewalPrice", Shape: "tlds"},
})

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, inwx.Declaration().Read, "*.json") }
