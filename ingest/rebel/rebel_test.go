package rebel_test

import (
	"context"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/kit"
	"github.com/zoneprice/zoneprice/ingest/rebel"
)

var observed = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

var op = ingesttest.USD

var promo = ingesttest.USDPromo

// TestFetch reads the fixture's 21 entries: 19 zones, .pl offering
// nothing and com_it's alike repeat left out.
func TestFetch(t *testing.T) {
	_, srv := ingesttest.NewAPI(t, ingesttest.Fixture(t, "allTLDPrices.json"), ingesttest.PlainGet)
	list, err := suite.Source(t, srv.URL, nil).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := suite.ByZone(t, list)
	if len(got) != 19 || list.Skipped != 0 || list.Keep != nil {
		t.Errorf("%d zones, %d skipped, keep %q; want 19 and none skipped", len(got), list.Skipped, list.Keep)
	}
	for _, tt := range []struct {
		name, zone      string
		register, renew *contracts.OpPrice
	}{
		{"Price below Reg is a promotion", ".com", promo(1799, 1399), op(1799)},
		{"Price above Reg is ignored", ".org", op(1999), op(1999)},
		{"uk_co is co.uk", ".co.uk", op(999), op(1299)},
		{"au_com is com.au", ".com.au", op(1499), op(1499)},
		{"com_it is com.it, listed twice alike", ".com.it", op(1699), op(1699)},
		{"decimal strings", ".io", promo(5999, 4999), op(5999)},
		{"thousands separator", ".security", op(299999), op(299999)},
		{"upper case, no CAD", ".app", op(1599), op(1599)},
		{"null Price", ".de", op(999), op(999)},
		{"unreadable Price is ignored", ".tv", op(3999), op(3999)},
		{"zero renewal is none", ".shop", promo(3999, 299), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ingesttest.CheckOps(t, got[tt.zone], tt.register, tt.renew, nil)
		})
	}
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
var suite = ingesttest.Suite{
	Name: rebel.Name, Registrar: rebel.Name, Parse: rebel.Declaration().Read,
	New: func(url string, client *fetch.Client, now func() time.Time) (ingest.Source, error) {
		return kit.New(rebel.Declaration(), kit.Config{URL: url}, client, now)
	},
	Validate: func(url string) error { return kit.Config{URL: url}.Validate() },
	Fixtures: []string{"allTLDPrices.json"}, Shrunk: "allTLDPrices_shrunk.json",
	Check: ingesttest.PlainGet, Conditional: true, Spoil: "prices[].prices.USD.Ren",
	Drift:    ingesttest.DriftPaths{Row: "prices[].prices.USD", Field: "Ren", Shape: "prices"},
	Observed: observed, Tax: contracts.TaxUnknown,
}

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, rebel.Declaration().Read, "*.json") }
