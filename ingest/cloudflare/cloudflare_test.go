package cloudflare_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/cloudflare"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/kit"
)

var observed = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// checkRequest says what is wrong with a request that is not a plain GET
// of the file asking for JSON.
func checkRequest(r *http.Request) error {
	if r.Method != http.MethodGet || r.URL.RawQuery != "" || r.Header.Get("Accept") != "application/json" {
		return fmt.Errorf("%s %s Accept %q", r.Method, r.URL, r.Header.Get("Accept"))
	}
	if ua := r.Header.Get("User-Agent"); !strings.HasPrefix(ua, "zoneprice-ingest/") {
		return fmt.Errorf("User-Agent %q does not name the service", ua)
	}
	return nil
}

// newAPI fakes cfdomainpricing.com's file, answering with body.
func newAPI(t *testing.T, body []byte) (*ingesttest.API, *httptest.Server) {
	t.Helper()
	return ingesttest.NewAPI(t, body, checkRequest)
}

var op = ingesttest.USD

func TestFetch(t *testing.T) {
	f, srv := newAPI(t, ingesttest.Fixture(t, "prices.json"))
	list, err := suite.Source(t, srv.URL, nil).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := suite.ByZone(t, list)
	if len(got) != 20 {
		t.Errorf("got %d zones, want 20", len(got))
	}
	if list.Skipped != 0 || list.Keep != nil {
		t.Errorf("skipped %d, keep %q; want none", list.Skipped, list.Keep)
	}
	if got := f.Requests(); got != 1 {
		t.Errorf("server saw %d requests, want 1", got)
	}
	tests := []struct {
		name, zone                string
		register, renew, transfer *contracts.OpPrice
	}{
		{"at cost: transfer is the renewal", ".com", op(1046), op(1046), op(1046)},
		{"whole dollars", ".co", op(2600), op(2600), op(2600)},
		{"one decimal", ".dev", op(1220), op(1220), op(1220)},
		{"renewal above registration", ".pro", op(325), op(1950), op(1950)},
		{"large number", ".security", op(206023), op(206023), op(206023)},
		{"UK extension transfers free", ".uk", op(496), op(496), op(0)},
		{"UK second-level zone is its own and transfers free", ".co.uk", op(496), op(496), op(0)},
		{"another UK second-level zone", ".me.uk", op(496), op(496), op(0)},
		{"transfer follows the renewal, not the registration", ".me", op(1238), op(1838), op(1838)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok := got[tt.zone]
			if !ok {
				t.Fatalf("no price set for %s", tt.zone)
			}
			ingesttest.CheckOps(t, p, tt.register, tt.renew, tt.transfer)
			if p.Tax != contracts.TaxExcluded {
				t.Errorf("tax = %q, want %q", p.Tax, contracts.TaxExcluded)
			}
			if p.Registrar != "cloudflare" || p.Source != "cfdomainpricing" {
				t.Errorf("registrar %q source %q: the registrar is Cloudflare, the source the third party", p.Registrar, p.Source)
			}
		})
	}
}

// TestConditional shows the list is fetched as the static file it is: the
// second fetch carries the validators, and a 304 answers with the list.
func TestConditional(t *testing.T) {
	body := ingesttest.Fixture(t, "prices.json")
	f, srv := newAPI(t, body)
	f.SetHandler(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-Modified-Since") == "Thu, 19 Nov 2026 06:00:12 GMT" {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Last-Modified", "Thu, 19 Nov 2026 06:00:12 GMT")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
	src := suite.Source(t, srv.URL, nil)
	for i := range 2 {
		list, err := src.Fetch(context.Background())
		if err != nil {
			t.Fatalf("fetch %d: %v", i, err)
		}
		if len(list.Prices) != 20 {
			t.Errorf("fetch %d: %d zones, want 20", i, len(list.Prices))
		}
	}
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
			Zone: ".com", Want: &contracts.PriceSet{
				V: contracts.SchemaVersion, Kind: contracts.KindPriceSet, Registrar: cloudflare.Name, Zone: ".com",
				Register:   &contracts.OpPrice{Regular: contracts.Price{Amount: 965, Currency: "EUR"}},
				Renew:      &contracts.OpPrice{Regular: contracts.Price{Amount: 965, Currency: "EUR"}},
				Transfer:   &contracts.OpPrice{Regular: contracts.Price{Amount: 965, Currency: "EUR"}},
				ObservedAt: observed, Source: cloudflare.ListSource, Tax: contracts.TaxExcluded,
			},
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

// suite is the source, for the conformance suite and the tests below.
var suite = ingesttest.Suite{
	Name: cloudflare.ListSource, Registrar: cloudflare.Name, Parse: cloudflare.Declaration().Read,
	New: func(url string, client *fetch.Client, now func() time.Time) (ingest.Source, error) {
		return kit.New(cloudflare.Declaration(), kit.Config{URL: url}, client, now)
	},
	Validate: func(url string) error { return kit.Config{URL: url}.Validate() },
	Fixtures: []string{"prices.json"}, Shrunk: "prices_shrunk.json", Errors: []string{"error.json"},
	Check: checkRequest, Conditional: true, Spoil: "com.renewal",
	Drift:    ingesttest.DriftPaths{Row: "*", Field: "renewal", Shape: "*"},
	Observed: observed, Tax: contracts.TaxExcluded,
}

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, cloudflare.Declaration().Read, "*.json") }
