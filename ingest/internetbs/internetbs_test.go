package internetbs_test

import (
	"context"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/internetbs"
	"github.com/zoneprice/zoneprice/ingest/kit"
)

func op(cents int64) *contracts.OpPrice {
	return &contracts.OpPrice{Regular: contracts.Price{Amount: cents, Currency: "USD"}}
}

// TestFetch reads the price table in its column order, register,
// transfer, renew: 19 zones; .pl offers nothing, and the navigation's
// row and the note's are no zones.
func TestFetch(t *testing.T) {
	_, srv := ingesttest.NewAPI(t, ingesttest.Fixture(t, "pricelist.html"), nil)
	list, err := suite.Source(t, srv.URL, nil).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := suite.ByZone(t, list)
	if len(got) != 19 || list.Skipped != 0 {
		t.Errorf("%d zones, %d skipped; want 19 and none skipped", len(got), list.Skipped)
	}
	if list.Drift == nil || !list.Drift.Empty() {
		t.Errorf("drift %+v, want none", list.Drift)
	}
	for _, tt := range []struct {
		name, zone                string
		register, renew, transfer *contracts.OpPrice
	}{
		{"transfer before renewal", ".com", op(929), op(1049), op(929)},
		{"first-year price", ".info", op(349), op(1949), op(1499)},
		{"N/A transfer", ".bs", op(6900), op(6900), nil},
		{"free transfer", ".co.uk", op(699), op(699), op(0)},
		{"thousands separator", ".security", op(249900), op(249900), op(249900)},
		{"dash transfer", ".de", op(599), op(599), nil},
		{"Unicode zone", ".xn--p1ai", op(999), op(999), op(999)},
		{"upper-case second-level zone", ".com.au", op(1299), op(1299), op(1299)},
	} {
		t.Run(tt.name, func(t *testing.T) { ingesttest.CheckOps(t, got[tt.zone], tt.register, tt.renew, tt.transfer) })
	}
}

// TestParseQuirks covers the page's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	page := func(rows string) string {
		return `<html><body><table><tr><th>Domain</th><th>Registration</th><th>Transfer</th><th>Renewal</th></tr>` +
			`<tr><td>.net</td><td>$11.49</td><td>$11.49</td><td>$12.99</td></tr>` + rows + `</table></body></html>`
	}
	suite.Quirks(t, []ingesttest.Quirk{
		{
			Name: "a price in another currency skips the row", Body: page(`<tr><td>.com</td><td>€9.29</td><td>$9.29</td><td>$10.49</td></tr>`),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.internetbs.com"},
		},
		{
			Name: "a word for a price skips the row", Body: page(`<tr><td>.com</td><td>Call us</td><td>$9.29</td><td>$10.49</td></tr>`),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.internetbs.com"},
		},
		{
			Name: "a zone without its dot is no zone's row", Body: page(`<tr><td>com</td><td>$9.29</td><td>$9.29</td><td>$10.49</td></tr>`),
			Zone: ".com",
		},
		{
			Name: "cells after the renewal are not read", Body: page(`<tr><td>.com</td><td>$9.29</td><td>$9.29</td><td>$10.49</td><td>Buy</td></tr>`),
			Zone: ".com", Want: suite.Set(".com", op(929), op(1049), op(929)),
		},
		{Name: "a page without the table", Body: `<html><body><p>Maintenance</p></body></html>`, WantErr: "no table rows"},
		{Name: "a page cut short", Body: page("")[:120], WantErr: "does not end with </html>"},
	})
}

// suite is the source, for the conformance suite and the tests above.
var suite = ingesttest.Suite{
	Name: internetbs.Name, Registrar: internetbs.Name, Parse: internetbs.Declaration().Read,
	New: func(url string, client *fetch.Client, now func() time.Time) (ingest.Source, error) {
		return kit.New(internetbs.Declaration(), kit.Config{URL: url}, client, now)
	},
	Validate: func(url string) error { return kit.Config{URL: url}.Validate() },
	Fixtures: []string{"pricelist.html"}, Shrunk: "pricelist_shrunk.html", Conditional: true, Golden: "*.html",
	Observed: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC), Tax: contracts.TaxUnknown,
}

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, internetbs.Declaration().Read, "*.html") }
