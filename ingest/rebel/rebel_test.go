package rebel_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/rebel"
)

var (
	op    = ingesttest.USD
	promo = ingesttest.USDPromo
)

// TestFetch reads the fixture's 21 entries: 19 zones, .pl offering
// nothing and com_it's alike repeat left out.
func TestFetch(t *testing.T) {
	got := suite.Fetched(t, "allTLDPrices.json", 19, 0)
	ingesttest.CheckEach(t, got, []ingesttest.Ops{
		{Name: "Price below Reg is a promotion", Zone: ".com", Register: promo(1799, 1399), Renew: op(1799)},
		{Name: "Price above Reg is ignored", Zone: ".org", Register: op(1999), Renew: op(1999)},
		{Name: "uk_co is co.uk", Zone: ".co.uk", Register: op(999), Renew: op(1299)},
		{Name: "au_com is com.au", Zone: ".com.au", Register: op(1499), Renew: op(1499)},
		{Name: "com_it is com.it, listed twice alike", Zone: ".com.it", Register: op(1699), Renew: op(1699)},
		{Name: "decimal strings", Zone: ".io", Register: promo(5999, 4999), Renew: op(5999)},
		{Name: "thousands separator", Zone: ".security", Register: op(299999), Renew: op(299999)},
		{Name: "upper case, no CAD", Zone: ".app", Register: op(1599), Renew: op(1599)},
		{Name: "null Price", Zone: ".de", Register: op(999), Renew: op(999)},
		{Name: "unreadable Price is ignored", Zone: ".tv", Register: op(3999), Renew: op(3999)},
		{Name: "zero renewal is none", Zone: ".shop", Register: promo(3999, 299)},
	}, ".pl")
}

// TestParseQuirks covers the format's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	const net = `{"name":"net","prices":{"USD":{"Price":19.99,"Reg":19.99,"Ren":19.99}}}`
	entry := func(name, reg string) string {
		return `{"name":"` + name + `","prices":{"USD":{"Price":` + reg + `,"Reg":` + reg + `,"Ren":` + reg + `}}}`
	}
	suite.Quirks(t, []ingesttest.Quirk{
		{
			Name: "each known multi-level name", Body: `{"prices":[` + entry("au_asn", "9.00") + `,` + net + `]}`,
			Zone: ".asn.au", Want: suite.Set(".asn.au", op(900), op(900), nil),
		},
		{
			Name: "a repeat with other prices is skipped, the first stands",
			Body: `{"prices":[` + entry("com_it", "16.99") + `,` + entry("com_it", "15.99") + `,` + net + `]}`,
			Zone: ".com.it", Want: suite.Set(".com.it", op(1699), op(1699), nil), Skipped: 1,
		},
		{
			Name: "an unknown underscored name is skipped",
			Body: `{"prices":[` + entry("uk_org", "9.00") + `,` + net + `]}`, Zone: ".org.uk", Skipped: 1,
		},
		{
			Name: "Canadian prices alone are not read",
			Body: `{"prices":[{"name":"ca","prices":{"CAD":{"Price":17.69,"Reg":17.69,"Ren":20.39}}},` + net + `]}`, Zone: ".ca",
		},
		{
			Name: "unreadable Reg skips the zone",
			Body: `{"prices":[{"name":"com","prices":{"USD":{"Price":9,"Reg":"TBD","Ren":9}}},` + net + `]}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.rebel.com"},
		},
		{Name: "error envelope", Body: `{"error":"service unavailable"}`, WantErr: `rebel answered "service unavailable"`},
		{Name: "empty list", Body: `{"prices":[]}`, WantErr: "no zones"},
		{Name: "prices not a list", Body: `{"prices":{}}`, WantErr: "not a list of rows"},
	})
}

// suite is the source, for the conformance suite and the tests above.
var suite = ingesttest.Declared(rebel.Declaration()).Reads("allTLDPrices.json", "allTLDPrices_shrunk.json").With(ingesttest.Suite{
	Check: ingesttest.PlainGet,
	Spoil: "prices[].prices.USD.Ren",
	Drift: ingesttest.DriftPaths{Row: "prices[].prices.USD", Field: "Ren", Shape: "prices"},
})

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, rebel.Declaration().Read, "*.json") }
