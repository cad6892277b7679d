package tierra_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/tierra"
)

var (
	op    = ingesttest.USD
	promo = ingesttest.USDPromo
)

// TestFetch reads the list: 19 zones, 22 entries less .pl (nothing
// offered) and the Handshake names .c and .hns, all left out, not
// skipped.
func TestFetch(t *testing.T) {
	got := suite.Fetched(t, "pricingData.json", 19, 0)
	ingesttest.CheckEach(t, got, []ingesttest.Ops{
		{Name: "plain, no type", Zone: ".com", Register: op(1099), Renew: op(1099), Transfer: op(1099)},
		{Name: "gTLD type", Zone: ".net", Register: op(1399), Renew: op(1399), Transfer: op(1399)},
		{Name: "sale below the price is a promotion", Zone: ".xyz", Register: promo(1199, 199), Renew: op(1299), Transfer: op(1299)},
		{Name: "sale above the price is not read", Zone: ".club", Register: op(1599), Renew: op(1599), Transfer: op(1599)},
		{Name: "zero sale is no sale", Zone: ".online", Register: op(99), Renew: op(2999), Transfer: op(2999)},
		{Name: "unreadable sale is ignored", Zone: ".shop", Register: op(199), Renew: op(3499), Transfer: op(3499)},
		{Name: "ccTLD type", Zone: ".io", Register: op(4999), Renew: op(4999), Transfer: op(4999)},
		{Name: "second-level zone, free transfer", Zone: ".co.uk", Register: op(799), Renew: op(799), Transfer: op(0)},
		{Name: "empty transfer not offered", Zone: ".uk", Register: op(799), Renew: op(799)},
		{Name: "thousands separator", Zone: ".security", Register: op(229900), Renew: op(229900), Transfer: op(229900)},
		{Name: "IDN as A-label", Zone: ".xn--q9jyb4c", Register: op(999), Renew: op(2999), Transfer: op(2999)},
		{Name: "IDN in Unicode, n/a transfer", Zone: ".xn--p1ai", Register: op(599), Renew: op(999)},
		{Name: "upper-case second-level zone", Zone: ".com.au", Register: op(1499), Renew: op(1499)},
		{Name: "dollar signs, leading dot", Zone: ".app", Register: op(1499), Renew: op(1499), Transfer: op(1499)},
		{Name: "short array: no transfer", Zone: ".me", Register: op(399), Renew: op(1999)},
		{Name: "JSON numbers and null", Zone: ".es", Register: op(899), Renew: op(1099)},
		{Name: "values after the fifth are not read", Zone: ".tv", Register: op(2999), Renew: op(2999), Transfer: op(2999)},
		{Name: "zero transfer is free, dash sale is none", Zone: ".de", Register: op(699), Renew: op(699), Transfer: op(0)},
	}, ".pl", ".c", ".hns")
}

// TestParseQuirks covers the format's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	const net = `"net":["12.00","12.00","12.00","",""]`
	suite.Quirks(t, []ingesttest.Quirk{
		{
			Name: "types in any case",
			Body: `{"com":["10.00","10.00","10.00","","GTLD"],"io":["40.00","40.00","40.00",""," ccTld "]}`,
			Zone: ".io", Want: suite.Set(".io", op(4000), op(4000), op(4000)),
		},
		{
			Name: "null type and sale",
			Body: `{"com":["10.00","10.00","10.00",null,null]}`,
			Zone: ".com", Want: suite.Set(".com", op(1000), op(1000), op(1000)),
		},
		{
			Name: "sale on a zone without registration is ignored",
			Body: `{"com":["","10.00","10.00","1.00",""]}`,
			Zone: ".com", Want: suite.Set(".com", nil, op(1000), op(1000)),
		},
		{
			Name: "sale equal to the price is no promotion",
			Body: `{"com":["10.00","10.00","10.00","10.00",""]}`,
			Zone: ".com", Want: suite.Set(".com", op(1000), op(1000), op(1000)),
		},
		{
			Name: "sale as a JSON number",
			Body: `{"com":["10.00","10.00","10.00",4.5,""]}`,
			Zone: ".com", Want: suite.Set(".com", promo(1000, 450), op(1000), op(1000)),
		},
		{
			Name: "zero registration is not offered",
			Body: `{"com":["0.00","10.00","10.00","",""]}`,
			Zone: ".com", Want: suite.Set(".com", nil, op(1000), op(1000)),
		},
		{
			Name: "web3 name left out",
			Body: `{"crypto":["5.00","5.00","","","web3"],` + net + `}`,
			Zone: ".crypto",
		},
		{
			Name: "non-DNS key left out without being read as a zone",
			Body: `{"foo bar":["5.00","5.00","","","handshake"],` + net + `}`,
			Zone: ".foo bar",
		},
		{
			Name: "unknown type skips the entry and keeps its last price",
			Body: `{"com":["10.00","10.00","10.00","","premium"],` + net + `}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.tierra.com"},
		},
		{
			Name: "type that is not a string skips the entry",
			Body: `{"com":["10.00","10.00","10.00","",1],` + net + `}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.tierra.com"},
		},
		{
			Name: "unreadable price skips the zone",
			Body: `{"com":["TBD","10.00","10.00","",""],` + net + `}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.tierra.com"},
		},
		{
			Name: "euro sign skips the zone",
			Body: `{"com":["€10.00","10.00","10.00","",""],` + net + `}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.tierra.com"},
		},
		{
			Name: "price over the ceiling skips the zone",
			Body: `{"com":["99999999999999","10.00","10.00","",""],` + net + `}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.tierra.com"},
		},
		{
			Name: "price that is a boolean skips the zone",
			Body: `{"com":[true,"10.00","10.00","",""],` + net + `}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.tierra.com"},
		},
		{
			Name: "entry that is not an array is skipped",
			Body: `{"com":{"register":"10.00"},` + net + `}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.tierra.com"},
		},
		{
			Name: "key that is not a zone is skipped",
			Body: `{"foo bar":["10.00","10.00","10.00","",""],` + net + `}`,
			Zone: ".foo bar", Skipped: 1,
		},
		{
			Name: "unicode key and its A-label keep the first in key order",
			Body: `{"xn--q9jyb4c":["8.00","8.00","8.00","",""],"みんな":["9.00","9.00","9.00","",""]}`,
			Zone: ".xn--q9jyb4c", Want: suite.Set(".xn--q9jyb4c", op(800), op(800), op(800)), Skipped: 1,
		},
		{
			Name: "empty array offers nothing",
			Body: `{"com":[],` + net + `}`,
			Zone: ".com",
		},
		{Name: "only names not sold", Body: `{"c":["1.00","1.00","","","handshake"],"pl":["0","0","0","",""]}`, WantErr: "no usable zone"},
		{Name: "error envelope", Body: `{"error":"pricing temporarily unavailable"}`, WantErr: `tierra answered error: "pricing temporarily unavailable"`},
		{Name: "message envelope", Body: `{"message":"Unauthorized"}`, WantErr: `tierra answered message: "Unauthorized"`},
		{Name: "empty object", Body: `{}`, WantErr: "no zones"},
		{Name: "null", Body: `null`, WantErr: "decode tierra price list"},
		{Name: "array", Body: `[["com","10.00"]]`, WantErr: "decode tierra price list"},
		{Name: "html page", Body: `<html><body><h1>502 Bad Gateway</h1></body></html>`, WantErr: "decode tierra price list"},
		{Name: "truncated", Body: string(ingesttest.Fixture(t, "pricingData.json")[:200]), WantErr: "decode tierra price list"},
	})
}

// suite is the source, for the conformance suite and the tests above.
var suite = ingesttest.Declared(tierra.Declaration()).Reads("pricingData.json", "pricingData_shrunk.json").With(ingesttest.Suite{
	Check: ingesttest.PlainGet,
	Spoil: "com.1",
	Drift: ingesttest.DriftPaths{Shape: "*"},
})

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, tierra.Declaration().Read, "*.json") }
