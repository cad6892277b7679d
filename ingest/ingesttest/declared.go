package ingesttest

import (
	"context"
	"path"
	"reflect"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
)

// observed is when a suite's sources observe their lists unless it says.
var observed = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

// Reads is s reading one document with a conditional GET, whose good
// answer is the testdata file fixture and shrunken one shrunk (Pages).
func (s Suite) Reads(fixture, shrunk string) Suite {
	s = s.Pages(shrunk, fixture)
	s.Conditional = true
	return s
}

// Pages is s reading a list whose good answer is the testdata files
// fixtures, its pages in order, and shrunken one shrunk; the golden files
// of the fixtures of their format are checked, and its lists are observed
// on 2026-11-28 at noon unless s says when.
func (s Suite) Pages(shrunk string, fixtures ...string) Suite {
	s.Fixtures, s.Shrunk, s.Golden = fixtures, shrunk, "*"+path.Ext(shrunk)
	if s.Observed.IsZero() {
		s.Observed = observed
	}
	return s
}

// At is s asking for path (with its query) below the fake's address, a
// plain GET of it and nothing else (GetOf).
func (s Suite) At(path string) Suite {
	s.Path, s.Check = path, GetOf(path)
	return s
}

// Fetched serves the testdata file fixture as the registrar would
// (requests checked by Check, at Path) and fetches it through the source:
// its price sets by zone. The fetch must succeed with zones zones, skipped
// rows skipped (keeping no more zones than that), and no drift.
func (s Suite) Fetched(t *testing.T, fixture string, zones, skipped int) map[string]contracts.PriceSet {
	t.Helper()
	_, srv := NewAPI(t, Fixture(t, fixture), s.Check)
	return s.fetched(t, srv.URL+s.Path, zones, skipped)
}

// FetchedPages is Fetched of a paged source's Fixtures, served by the
// page each request asks for (Page), as Conform serves them.
func (s Suite) FetchedPages(t *testing.T, zones, skipped int) map[string]contracts.PriceSet {
	t.Helper()
	api, srv := NewAPI(t, nil, s.Check)
	api.SetHandler(s.serve(s.pages(t)))
	return s.fetched(t, srv.URL+s.Path, zones, skipped)
}

// fetched fetches url through the source and checks the list (Fetched):
// it reports no drift, and a source whose drift is tested (Drift) must
// report that.
func (s Suite) fetched(t *testing.T, url string, zones, skipped int) map[string]contracts.PriceSet {
	t.Helper()
	list, err := s.Source(t, url, nil).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := s.ByZone(t, list)
	if len(got) != zones || list.Skipped != skipped || len(list.Keep) > skipped {
		t.Errorf("%d zones, %d skipped, keep %q; want %d and %d skipped", len(got), list.Skipped, list.Keep, zones, skipped)
	}
	if list.Drift != nil && !list.Drift.Empty() || list.Drift == nil && s.Drift != (DriftPaths{}) {
		t.Errorf("drift %+v, want none", list.Drift)
	}
	return got
}

// Ops is a zone's prices as a test expects them, in a case named Name.
type Ops struct {
	Name, Zone                string
	Register, Renew, Transfer *contracts.OpPrice
}

// CheckEach checks each case's zone in got (CheckOps), one subtest a
// case, and that every zone of absent is not listed.
func CheckEach(t *testing.T, got map[string]contracts.PriceSet, cases []Ops, absent ...string) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) { CheckOps(t, got[c.Zone], c.Register, c.Renew, c.Transfer) })
	}
	for _, zone := range absent {
		CheckZone(t, got, zone, nil)
	}
}

// With is s with every field o sets, for what a source's format adds to
// Declared and Reads: its error envelopes, drift paths, spoilt price.
func (s Suite) With(o Suite) Suite {
	sv, ov := reflect.ValueOf(&s).Elem(), reflect.ValueOf(o)
	for i := range ov.NumField() {
		if f := ov.Field(i); !f.IsZero() {
			sv.Field(i).Set(f)
		}
	}
	return s
}
