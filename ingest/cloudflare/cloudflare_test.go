package cloudflare_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/cloudflare"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

var (
	op  = ingesttest.USD
	eur = ingesttest.In("EUR")
)

// TestFetch reads the file: 20 zones, priced for Cloudflare by the third
// party's source.
func TestFetch(t *testing.T) {
	got := suite.Fetched(t, "prices.json", 20, 0)
	ingesttest.CheckEach(t, got, []ingesttest.Ops{
		{Name: "at cost: transfer is the renewal", Zone: ".com", Register: op(1046), Renew: op(1046), Transfer: op(1046)},
		{Name: "whole dollars", Zone: ".co", Register: op(2600), Renew: op(2600), Transfer: op(2600)},
		{Name: "one decimal", Zone: ".dev", Register: op(1220), Renew: op(1220), Transfer: op(1220)},
		{Name: "renewal above registration", Zone: ".pro", Register: op(325), Renew: op(1950), Transfer: op(1950)},
		{Name: "large number", Zone: ".security", Register: op(206023), Renew: op(206023), Transfer: op(206023)},
		{Name: "UK extension transfers free", Zone: ".uk", Register: op(496), Renew: op(496), Transfer: op(0)},
		{Name: "UK second-level zone is its own and transfers free", Zone: ".co.uk", Register: op(496), Renew: op(496), Transfer: op(0)},
		{Name: "another UK second-level zone", Zone: ".me.uk", Register: op(496), Renew: op(496), Transfer: op(0)},
		{Name: "transfer follows the renewal, not the registration", Zone: ".me", Register: op(1238), Renew: op(1838), Transfer: op(1838)},
	})
}

// TestParseQuirks covers the format's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	const net = `"net":{"registration":11.86,"renewal":11.86}`
	suite.Quirks(t, []ingesttest.Quirk{
		{
			Name: "prices as numbers",
			Body: `{"com":{"registration":10.46,"renewal":10.46}}`,
			Zone: ".com", Want: suite.Set(".com", op(1046), op(1046), op(1046)),
		},
		{
			Name: "prices as strings",
			Body: `{"com":{"registration":"10.46","renewal":"10.46"}}`,
			Zone: ".com", Want: suite.Set(".com", op(1046), op(1046), op(1046)),
		},
		{
			Name: "float noise rounds half up to the cent",
			Body: `{"com":{"registration":10.459999999999999,"renewal":10.455}}`,
			Zone: ".com", Want: suite.Set(".com", op(1046), op(1046), op(1046)),
		},
		{
			Name: "thousands separator in a string",
			Body: `{"security":{"registration":"2,060.23","renewal":"2,060.23"}}`,
			Zone: ".security", Want: suite.Set(".security", op(206023), op(206023), op(206023)),
		},
		{
			Name: "updatedAt is not read",
			Body: `{"com":{"registration":10.46,"renewal":10.46,"updatedAt":"not a date"}}`,
			Zone: ".com", Want: suite.Set(".com", op(1046), op(1046), op(1046)),
		},
		{
			Name: "missing renewal: no renewal, no transfer",
			Body: `{"com":{"registration":10.46}}`,
			Zone: ".com", Want: suite.Set(".com", op(1046), nil, nil),
		},
		{
			Name: "missing registration: renewal and transfer only",
			Body: `{"com":{"renewal":10.46}}`,
			Zone: ".com", Want: suite.Set(".com", nil, op(1046), op(1046)),
		},
		{
			Name: "zero registration is not offered",
			Body: `{"com":{"registration":0,"renewal":10.46}}`,
			Zone: ".com", Want: suite.Set(".com", nil, op(1046), op(1046)),
		},
		{
			Name: "n/a renewal is not offered",
			Body: `{"com":{"registration":10.46,"renewal":"n/a"}}`,
			Zone: ".com", Want: suite.Set(".com", op(1046), nil, nil),
		},
		{
			Name: "empty registration is not offered",
			Body: `{"com":{"registration":"","renewal":10.46}}`,
			Zone: ".com", Want: suite.Set(".com", nil, op(1046), op(1046)),
		},
		{
			Name: "UK extension without a renewal still transfers free",
			Body: `{"uk":{"registration":4.96}}`,
			Zone: ".uk", Want: suite.Set(".uk", op(496), nil, op(0)),
		},
		{
			Name: "a name ending in uk outside .uk pays for its transfer",
			Body: `{"duck":{"registration":30,"renewal":30}}`,
			Zone: ".duck", Want: suite.Set(".duck", op(3000), op(3000), op(3000)),
		},
		{
			Name: "nothing priced: left out",
			Body: `{"com":{"registration":null,"renewal":0},` + net + `}`,
			Zone: ".com",
		},
		{
			Name: "empty entry: left out",
			Body: `{"com":{},` + net + `}`,
			Zone: ".com",
		},
		{
			Name: "-1 skips the zone and keeps its last price",
			Body: `{"com":{"registration":-1,"renewal":10.46},` + net + `}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.cloudflare.com"},
		},
		{
			Name: `"-1" as a string skips the zone`,
			Body: `{"com":{"registration":10.46,"renewal":"-1"},` + net + `}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.cloudflare.com"},
		},
		{
			Name: "unreadable price skips the zone",
			Body: `{"com":{"registration":"TBD","renewal":10.46},` + net + `}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.cloudflare.com"},
		},
		{
			Name: "price that is neither string nor number skips the zone",
			Body: `{"com":{"registration":{"usd":10.46},"renewal":10.46},` + net + `}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.cloudflare.com"},
		},
		{
			Name: "currency in the entry is read",
			Body: `{"com":{"registration":9.65,"renewal":9.65,"currency":"eur"}}`,
			Zone: ".com", Want: suite.Set(".com", eur(965), eur(965), eur(965)),
		},
		{
			Name: "unknown currency skips the zone",
			Body: `{"com":{"registration":10.46,"renewal":10.46,"currency":"BTC"},` + net + `}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.cloudflare.com"},
		},
		{
			Name: "upper-case key",
			Body: `{"COM":{"registration":10.46,"renewal":10.46}}`,
			Zone: ".com", Want: suite.Set(".com", op(1046), op(1046), op(1046)),
		},
		{
			Name: "key with a leading dot",
			Body: `{".com":{"registration":10.46,"renewal":10.46}}`,
			Zone: ".com", Want: suite.Set(".com", op(1046), op(1046), op(1046)),
		},
		{
			Name: "IDN in Unicode",
			Body: `{"みんな":{"registration":25.4,"renewal":25.4}}`,
			Zone: ".xn--q9jyb4c", Want: suite.Set(".xn--q9jyb4c", op(2540), op(2540), op(2540)),
		},
		{
			Name: "IDN as an A-label",
			Body: `{"xn--q9jyb4c":{"registration":25.4,"renewal":25.4}}`,
			Zone: ".xn--q9jyb4c", Want: suite.Set(".xn--q9jyb4c", op(2540), op(2540), op(2540)),
		},
		{
			Name: "unicode and A-label of one zone keep the first key",
			Body: `{"みんな":{"registration":25.4,"renewal":25.4},"xn--q9jyb4c":{"registration":1,"renewal":1}}`,
			Zone: ".xn--q9jyb4c", Want: suite.Set(".xn--q9jyb4c", op(100), op(100), op(100)),
			Skipped: 1,
		},
		{
			Name: "key that is not a zone is skipped",
			Body: `{"foo bar":{"registration":1,"renewal":1},` + net + `}`,
			Zone: ".foo bar", Skipped: 1,
		},
		{
			Name: "entry that is not an object skips the zone",
			Body: `{"com":10.46,` + net + `}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.cloudflare.com"},
		},
		{
			Name: "entry that does not decode skips the zone",
			Body: `{"com":{"currency":7},` + net + `}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.cloudflare.com"},
		},
		{
			Name:    "only entries that cannot be used",
			Body:    `{"com":{},"net":{"registration":0,"renewal":null}}`,
			WantErr: "no usable zone",
		},
		{Name: "error envelope names what it says", Body: string(ingesttest.Fixture(t, "error.json")), WantErr: "rate limited"},
		{Name: "message alone", Body: `{"message":"Not Found"}`, WantErr: "Not Found"},
		{Name: "empty object", Body: `{}`, WantErr: "no zones"},
		{Name: "null", Body: `null`, WantErr: "decode cfdomainpricing list: null"},
		{Name: "array", Body: `[{"com":{"registration":10.46}}]`, WantErr: "decode cfdomainpricing list"},
		{Name: "html", Body: `<!DOCTYPE html><html><head><title>Just a moment...</title></head></html>`, WantErr: "decode cfdomainpricing list"},
		{Name: "truncated", Body: string(ingesttest.Fixture(t, "prices.json")[:300]), WantErr: "decode cfdomainpricing list"},
		{Name: "empty body", Body: ``, WantErr: "decode cfdomainpricing list"},
	})
}

// suite is the source, for the conformance suite and the tests above.
var suite = ingesttest.Declared(cloudflare.Declaration()).Reads("prices.json", "prices_shrunk.json").With(ingesttest.Suite{
	Check:  ingesttest.GetJSON,
	Errors: []string{"error.json"}, Spoil: "com.renewal",
	Drift: ingesttest.DriftPaths{Row: "*", Field: "renewal", Shape: "*"},
})

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, cloudflare.Declaration().Read, "*.json") }
