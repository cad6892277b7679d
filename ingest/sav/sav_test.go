package sav_test

import (
	"context"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/kit"
	"github.com/zoneprice/zoneprice/ingest/sav"
)

func op(cents int64) *contracts.OpPrice {
	return &contracts.OpPrice{Regular: contracts.Price{Amount: cents, Currency: "USD"}}
}

// TestFetch reads the price table in its column order, register, renew,
// transfer: 12 zones; .gg offers nothing but a free transfer, and the
// menu's row and the note's are no zones.
func TestFetch(t *testing.T) {
	_, srv := ingesttest.NewAPI(t, ingesttest.Fixture(t, "pricing.html"), nil)
	list, err := suite.Source(t, srv.URL, nil).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := suite.ByZone(t, list)
	if len(got) != 12 || list.Skipped != 0 {
		t.Errorf("%d zones, %d skipped; want 12 and none skipped", len(got), list.Skipped)
	}
	if list.Drift == nil || !list.Drift.Empty() {
		t.Errorf("drift %+v, want none", list.Drift)
	}
	for _, tt := range []struct {
		name, zone                string
		register, renew, transfer *contracts.OpPrice
	}{
		{"renewal before transfer", ".org", op(798), op(1198), op(998)},
		{"first-year price", ".xyz", op(198), op(1248), op(1248)},
		{"N/A transfer", ".de", op(698), op(698), nil},
		{"dash transfer", ".store", op(98), op(5498), nil},
		{"free transfer", ".co.uk", op(598), op(798), op(0)},
		{"thousands separator", ".cars", op(234898), op(234898), op(234898)},
		{"Unicode zone", ".xn--p1ai", op(798), op(798), op(798)},
		{"upper-case second-level zone", ".com.mx", op(1498), op(1498), op(1498)},
	} {
		t.Run(tt.name, func(t *testing.T) { ingesttest.CheckOps(t, got[tt.zone], tt.register, tt.renew, tt.transfer) })
	}
	if _, ok := got[".gg"]; ok {
		t.Error(".gg is listed; it offers nothing but a free transfer")
	}
}

// TestParseQuirks covers the page's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	page := func(rows string) string {
		return `<html><body><table><tr><th>Extension</th><th>Registration</th><th>Renewal</th><th>Transfer</th></tr>` +
			`<tr><td>.net</td><td>$11.98</td><td>$12.98</td><td>$11.98</td></tr>` + rows + `</table></body></html>`
	}
	suite.Quirks(t, []ingesttest.Quirk{
		{
			Name: "a promotion beside its regular price skips the row", Body: page(`<tr><td>.com</td><td>$5.98 <s>$9.98</s></td><td>$10.98</td><td>$9.98</td></tr>`),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.sav.com"},
		},
		{
			Name: "a badge beside the zone skips the row, naming no zone", Body: page(`<tr><td>.com <span>Sale</span></td><td>$9.98</td><td>$10.98</td><td>$9.98</td></tr>`),
			Zone: ".com", Skipped: 1,
		},
		{
			Name: "a price in another currency skips the row", Body: page(`<tr><td>.com</td><td>€9.98</td><td>$10.98</td><td>$9.98</td></tr>`),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.sav.com"},
		},
		{
			Name: "a zone without its dot is no zone's row", Body: page(`<tr><td>com</td><td>$9.98</td><td>$10.98</td><td>$9.98</td></tr>`),
			Zone: ".com",
		},
		{
			Name: "cells after the transfer are not read", Body: page(`<tr><td>.com</td><td>$9.98</td><td>$10.98</td><td>$9.98</td><td>Register</td></tr>`),
			Zone: ".com", Want: suite.Set(".com", op(998), op(1098), op(998)),
		},
		{Name: "a page without the table", Body: `<html><body><p>Maintenance</p></body></html>`, WantErr: "no table rows"},
		{Name: "a page cut short", Body: page("")[:120], WantErr: "does not end with </html>"},
	})
}

// suite is the source, for the conformance suite and the tests above.
var suite = ingesttest.Suite{
	Name: sav.Name, Registrar: sav.Name, Parse: sav.Declaration().Read,
	New: func(url string, client *fetch.Client, now func() time.Time) (ingest.Source, error) {
		return kit.New(sav.Declaration(), kit.Config{URL: url}, client, now)
	},
	Validate: func(url string) error { return kit.Config{URL: url}.Validate() },
	Fixtures: []string{"pricing.html"}, Shrunk: "pricing_shrunk.html", Conditional: true, Golden: "*.html",
	Observed: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC), Tax: contracts.TaxUnknown,
}

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, sav.Declaration().Read, "*.html") }
