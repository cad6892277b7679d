package joker_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/joker"
	"github.com/zoneprice/zoneprice/ingest/kit"
)

var observed = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

const listPath = "/api/v1/price/list"

// wantZones is how many zones the fixture prices: 20 entries less .pl
// (zero throughout) and "forever/" (a Handshake name).
const wantZones = 18

// checkRequest says what is wrong with a request that is not the plain GET
// Joker's pages send.
func checkRequest(r *http.Request) error {
	if r.Method != http.MethodGet || r.URL.Path != listPath || r.URL.RawQuery != "" {
		return errors.New(r.Method + " " + r.URL.String())
	}
	return nil
}

var op = ingesttest.USD

func eur(cents int64) *contracts.OpPrice {
	return &contracts.OpPrice{Regular: contracts.Price{Amount: cents, Currency: "EUR"}}
}

func TestFetch(t *testing.T) {
	_, srv := ingesttest.NewAPI(t, ingesttest.Fixture(t, "pricelist.json"), checkRequest)
	url := srv.URL + listPath
	list, err := suite.Source(t, url, nil).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := suite.ByZone(t, list)
	if len(got) != wantZones {
		t.Errorf("got %d zones, want %d", len(got), wantZones)
	}
	if list.Skipped != 0 || list.Keep != nil {
		t.Errorf("skipped %d, keep %q; a Handshake name and a zone priced at zero are left out, not skipped", list.Skipped, list.Keep)
	}
	tests := []struct {
		name, zone                string
		register, renew, transfer *contracts.OpPrice
	}{
		{"plain", ".com", op(1041), op(1041), op(1041)},
		{"prices as JSON numbers", ".app", op(1439), op(1439), op(1439)},
		{"second-level zone is its own", ".co.uk", op(760), op(760), op(0)},
		{"CentralNic second-level zone", ".uk.com", op(3845), op(3845), op(3845)},
		{"free transfer", ".de", op(456), op(456), op(0)},
		{"thousands separator", ".security", op(206023), op(206023), op(206023)},
		{"n/a transfer is not offered", ".es", op(907), op(907), nil},
		{"empty transfer is not offered", ".online", op(362), op(3481), nil},
		{"absent transfer is not offered", ".io", op(4972), op(4972), nil},
		{"-1 renewal is not offered", ".xyz", op(285), nil, op(1523)},
		{"an operation beyond the three is ignored", ".shop", op(241), op(3803), op(3803)},
		{"IDN as an A-label", ".xn--q9jyb4c", op(898), op(2806), op(2806)},
		{"IDN in Unicode", ".xn--p1ai", op(620), op(620), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok := got[tt.zone]
			if !ok {
				t.Fatalf("no price set for %s", tt.zone)
			}
			ingesttest.CheckOps(t, p, tt.register, tt.renew, tt.transfer)
			if p.Tax != contracts.TaxUnknown {
				t.Errorf("tax %q, want %q", p.Tax, contracts.TaxUnknown)
			}
		})
	}
	for _, zone := range []string{".pl", ".forever"} {
		if _, ok := got[zone]; ok {
			t.Errorf("%s is listed; it should be left out", zone)
		}
	}
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

// suite is the source, for the conformance suite and the tests below.
var suite = ingesttest.Suite{
	Name: joker.Name, Registrar: joker.Name, Parse: joker.Declaration().Read,
	New: func(url string, client *fetch.Client, now func() time.Time) (ingest.Source, error) {
		return kit.New(joker.Declaration(), kit.Config{URL: url}, client, now)
	},
	Validate: func(url string) error { return kit.Config{URL: url}.Validate() },
	Path:     listPath, Fixtures: []string{"pricelist.json"}, Shrunk: "pricelist_shrunk.json", Errors: []string{"error.json"},
	Check: checkRequest, Conditional: true, Spoil: "result.pricelist.domains.com.renewal.total.display_total",
	Drift:    ingesttest.DriftPaths{Row: "result.pricelist.domains.*", Field: "renewal", Shape: "result.pricelist.domains"},
	Observed: observed, Tax: contracts.TaxUnknown,
}

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, joker.Declaration().Read, "*.json") }
