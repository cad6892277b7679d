package hostpoint_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/hostpoint"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
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

var op = ingesttest.In("CHF")

// TestFetch reads the fragment's tiles: 9 zones in francs; the popular
// .ch and .com shown again alike are read once, .tk offers nothing.
func TestFetch(t *testing.T) {
	got := suite.Fetched(t, "domain-price-api.html", 9, 0)
	ingesttest.CheckEach(t, got, []ingesttest.Ops{
		{Name: "free transfer, shown twice alike", Zone: ".ch", Register: op(500), Renew: op(1500), Transfer: op(0)},
		{Name: "popular, shown twice alike", Zone: ".com", Register: op(1590), Renew: op(1990), Transfer: op(1990)},
		{Name: "second-level zone", Zone: ".co.uk", Register: op(1290), Renew: op(1290), Transfer: op(1290)},
		{Name: "no data-tra", Zone: ".berlin", Register: op(4900), Renew: op(4900)},
		{Name: "no data-ren: no renewal, not the registration's", Zone: ".io", Register: op(5900), Transfer: op(2900)},
		{Name: "no thousands separator", Zone: ".luxury", Register: op(125000), Renew: op(125000), Transfer: op(125000)},
	}, ".tk")
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
var suite = func() ingesttest.Suite {
	s := ingesttest.Declared(hostpoint.Declaration()).Reads("domain-price-api.html", "domain-price-api_shrunk.html")
	s.Check = checkRequest
	return s
}()

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, hostpoint.Declaration().Read, "*.html") }
