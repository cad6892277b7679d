package hostpoint_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/hostpoint"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/kit"
)

// checkRequest wants the GET the public reader sends: the domain page as
// its Referer, HTML accepted.
func checkRequest(r *http.Request) error {
	if r.Method != http.MethodGet || r.ContentLength > 0 {
		return fmt.Errorf("%s %s with %d bytes", r.Method, r.URL, r.ContentLength)
	}
	if got := r.Header.Get("Referer"); got != "https://www.hostpoint.ch/en/domains/domains.html" {
		return fmt.Errorf("Referer %q", got)
	}
	if got := r.Header.Get("Accept"); got != "text/html" {
		return fmt.Errorf("Accept %q", got)
	}
	return nil
}

func op(rappen int64) *contracts.OpPrice {
	return &contracts.OpPrice{Regular: contracts.Price{Amount: rappen, Currency: "CHF"}}
}

// TestFetch reads the fragment's tiles: 9 zones in francs; the popular
// .ch and .com shown again alike are read once, .tk offers nothing.
func TestFetch(t *testing.T) {
	_, srv := ingesttest.NewAPI(t, ingesttest.Fixture(t, "domain-price-api.html"), checkRequest)
	list, err := suite.Source(t, srv.URL, nil).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := suite.ByZone(t, list)
	if len(got) != 9 || list.Skipped != 0 {
		t.Errorf("%d zones, %d skipped; want 9 and none skipped", len(got), list.Skipped)
	}
	if list.Drift == nil || !list.Drift.Empty() {
		t.Errorf("drift %+v, want none", list.Drift)
	}
	for _, tt := range []struct {
		name, zone                string
		register, renew, transfer *contracts.OpPrice
	}{
		{"free transfer, shown twice alike", ".ch", op(500), op(1500), op(0)},
		{"popular, shown twice alike", ".com", op(1590), op(1990), op(1990)},
		{"second-level zone", ".co.uk", op(1290), op(1290), op(1290)},
		{"no data-tra", ".berlin", op(4900), op(4900), nil},
		{"no data-ren: no renewal, not the registration's", ".io", op(5900), nil, op(2900)},
		{"no thousands separator", ".luxury", op(125000), op(125000), op(125000)},
	} {
		t.Run(tt.name, func(t *testing.T) { ingesttest.CheckOps(t, got[tt.zone], tt.register, tt.renew, tt.transfer) })
	}
	if _, ok := got[".tk"]; ok {
		t.Error(".tk is listed; it offers nothing")
	}
}

// tile is a tile of the fragment.
func tile(attrs, title, price string) string {
	return `<div class="domains7-tile"` + attrs + `><div class="title">` + title + `</div><div class="price">` + price + `</div></div>`
}

// TestParseQuirks covers the fragment's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	fragment := func(tiles string) string {
		return `<div class="domains7-tiles">` + tile(` data-ren="22.90" data-tra="22.90"`, ".net", "22.90") + tiles + `</div>`
	}
	suite.Quirks(t, []ingesttest.Quirk{
		{
			Name: "a Swiss thousands separator skips the row", Body: fragment(tile(` data-ren="1'250.00" data-tra="0.00"`, ".luxury", "1'250.00")),
			Zone: ".luxury", Skipped: 1, Keep: []string{"prices.v1.hostpoint.luxury"},
		},
		{
			Name: "another currency skips the row", Body: fragment(tile(` data-ren="EUR 15.00" data-tra="0.00"`, ".ch", "5.00")),
			Zone: ".ch", Skipped: 1, Keep: []string{"prices.v1.hostpoint.ch"},
		},
		{
			Name: "francs named", Body: fragment(tile(` data-ren="CHF 15.00" data-tra="0.00"`, ".ch", "CHF 5.00")),
			Zone: ".ch", Want: suite.Set(".ch", op(500), op(1500), op(0)),
		},
		{
			Name: "a repeat with other prices is skipped, the first stands",
			Body: fragment(tile(` data-ren="15.00"`, ".ch", "5.00") + tile(` data-ren="15.00"`, ".ch", "4.00")),
			Zone: ".ch", Want: suite.Set(".ch", op(500), op(1500), nil), Skipped: 1,
		},
		{
			Name: "a title without its dot is no zone's tile", Body: fragment(tile(` data-ren="15.00"`, "ch", "5.00")),
			Zone: ".ch",
		},
		{Name: "a fragment without tiles", Body: `<div class="domains7-tiles"></div>`, WantErr: `no elements match "div.domains7-tile"`},
		{Name: "a fragment cut inside a tile", Body: fragment(tile(` data-ren="15.00"`, ".ch", "5.00"))[:150], WantErr: "cut short"},
	})
}

// TestDrift reports a tile attribute the declaration neither reads nor
// ignores, and a tile's part it reads that no tile has.
func TestDrift(t *testing.T) {
	body := `<div>` + tile(` data-ren="15.00" data-promo="3.00"`, ".ch", "5.00") + `</div>`
	list, err := hostpoint.Declaration().Read([]byte(body), suite.Observed)
	if err != nil {
		t.Fatal(err)
	}
	if list.Drift == nil || !slices.Equal(list.Drift.Unknown, []string{"@data-promo"}) || !slices.Equal(list.Drift.Missing, []string{"@data-tra"}) {
		t.Errorf("drift %+v, want @data-promo unknown and @data-tra missing", list.Drift)
	}
}

// suite is the source, for the conformance suite and the tests above.
var suite = ingesttest.Suite{
	Name: hostpoint.Name, Registrar: hostpoint.Name, Parse: hostpoint.Declaration().Read,
	New: func(url string, client *fetch.Client, now func() time.Time) (ingest.Source, error) {
		return kit.New(hostpoint.Declaration(), kit.Config{URL: url}, client, now)
	},
	Validate: func(url string) error { return kit.Config{URL: url}.Validate() },
	Fixtures: []string{"domain-price-api.html"}, Shrunk: "domain-price-api_shrunk.html", Conditional: true, Golden: "*.html",
	Observed: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC), Tax: contracts.TaxUnknown,
}

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, hostpoint.Declaration().Read, "*.html") }
