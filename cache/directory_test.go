package cache

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/eventtest"
)

// directoryJSON is /api/registrars as a client reads it.
type directoryJSON struct {
	Count      int            `json:"count"`
	Registrars []registrarDir `json:"registrars"`
}

type registrarDir struct {
	Registrar       string     `json:"registrar"`
	Name            *string    `json:"name"`
	Website         *string    `json:"website"`
	Reported        bool       `json:"reported"`
	Source          string     `json:"source"`
	Kind            *string    `json:"kind"`
	Document        *string    `json:"document"`
	Currency        *string    `json:"currency"`
	Tax             string     `json:"tax"`
	IntervalSeconds *int64     `json:"interval_seconds"`
	LastAttempt     *time.Time `json:"last_attempt"`
	LastSuccess     *time.Time `json:"last_success"`
	Failure         *string    `json:"failure"`
	Zones           int        `json:"zones"`
	Skipped         *struct {
		Total   int            `json:"total"`
		Reasons map[string]int `json:"reasons"`
	} `json:"skipped"`
	Stale   *bool      `json:"stale"`
	StaleAt *time.Time `json:"stale_at"`
}

func directoryOf(t testing.TB, b *Body) directoryJSON {
	t.Helper()
	d := decode[directoryJSON](t, b.JSON)
	if d.Count != len(d.Registrars) {
		t.Errorf("count %d, %d registrars", d.Count, len(d.Registrars))
	}
	return d
}

func (d directoryJSON) ids() []string {
	var ids []string
	for _, r := range d.Registrars {
		ids = append(ids, r.Registrar)
	}
	return ids
}

func (d directoryJSON) get(t testing.TB, id string) registrarDir {
	t.Helper()
	for _, r := range d.Registrars {
		if r.Registrar == id {
			return r
		}
	}
	t.Fatalf("no %s in the directory %v", id, d.ids())
	return registrarDir{}
}

// TestDirectory lists every registrar with a status or a live price: a
// status says who it is and how its rounds went; without one (an older
// ingester), what its prices say.
func TestDirectory(t *testing.T) {
	f := newFeed(t, "USD")
	failed := eventtest.Status("porkbun", "Porkbun <b>", time.Hour, at(-time.Minute), 2)
	failed.Failure, failed.Website, failed.Document = contracts.FailureFetch, "", ""
	ok := at(-2 * time.Hour)
	failed.LastSuccess = &ok
	failed.Skipped = map[string]int{"not-in-root": 3, "malformed": 1}
	failed.SourceKind, failed.Currency = contracts.SourceList, ""
	f.apply(
		eventtest.Priced("porkbun", ".com", t0, "EUR", 900, 900, 900),
		eventtest.Priced("porkbun", ".net", t0, "EUR", 900, 900, 900),
		failed,
		// An older ingester's registrar: two sources, one of them most.
		eventtest.Priced("legacy", ".com", t0, "GBP", 800, 800, 800),
		eventtest.Priced("legacy", ".net", t0, "GBP", 800, 800, 800),
		eventtest.Priced("legacy", ".org", t0, "USD", 800, 800, 800),
		// A status of a registrar with no price (yet).
		eventtest.Status("new-one", "New One", 30*time.Minute, at(-time.Minute), 0),
	)
	d := directoryOf(t, f.x.Build(t0).Directory)
	if got, want := d.ids(), []string{"legacy", "new-one", "porkbun"}; !slices.Equal(got, want) {
		t.Fatalf("registrars %v, want %v", got, want)
	}
	p := d.get(t, "porkbun")
	if *p.Name != "Porkbun <b>" || p.Website != nil || p.Document != nil || !p.Reported || *p.Kind != "list" || p.Source != eventtest.Source ||
		*p.Currency != "EUR" || p.Tax != "excluded" || *p.IntervalSeconds != 3600 || *p.Failure != "fetch" || p.Zones != 2 ||
		p.Skipped.Total != 4 || p.Skipped.Reasons["not-in-root"] != 3 || !p.LastSuccess.Equal(ok) || !p.LastAttempt.Equal(at(-time.Minute)) {
		t.Errorf("porkbun = %+v", p)
	}
	if !*p.Stale || !p.StaleAt.Equal(t0) {
		t.Errorf("porkbun, last good two hours ago, hourly: stale %v at %v, want stale since %v", *p.Stale, p.StaleAt, t0)
	}
	l := d.get(t, "legacy")
	if l.Name != nil || l.Reported || l.Kind != nil || *l.Currency != "GBP" || l.Tax != "unknown" || l.Zones != 3 ||
		l.IntervalSeconds != nil || l.LastSuccess != nil || l.Skipped != nil || l.Stale != nil || l.StaleAt != nil {
		t.Errorf("legacy, known by its prices alone = %+v", l)
	}
	if n := d.get(t, "new-one"); n.Zones != 0 || *n.Stale || !n.StaleAt.Equal(at(59*time.Minute)) || *n.Currency != "USD" {
		t.Errorf("new-one = %+v, want fresh until %v", n, at(59*time.Minute))
	}

	// The mix is counted, not the last price read: legacy's GBP prices go,
	// and its USD ones are most.
	f.apply(eventtest.Withdrawal("legacy", ".com", t0), eventtest.Withdrawal("legacy", ".net", t0))
	if l := directoryOf(t, f.x.Build(t0).Directory).get(t, "legacy"); *l.Currency != "USD" || l.Zones != 1 {
		t.Errorf("legacy after its GBP prices went = %+v", l)
	}
	f.apply(eventtest.Withdrawal("legacy", ".org", t0))
	if got := directoryOf(t, f.x.Build(t0).Directory).ids(); slices.Contains(got, "legacy") {
		t.Errorf("legacy, with neither status nor price, is still listed: %v", got)
	}
}

// TestDirectorySample: the sample's registrars are labelled, and leave the
// directory with their prices once a real registrar's price is shown.
func TestDirectorySample(t *testing.T) {
	f := newFeed(t, "USD")
	f.apply(eventtest.Priced("sample-alpha", ".com", t0, "USD", 1000, 1200, 900))
	st := eventtest.Status("sample-bravo", "Bravo (sample)", time.Hour, t0, 1)
	st.SourceKind, st.Website = contracts.SourceSample, ""
	f.apply(st)
	d := directoryOf(t, f.x.Build(t0).Directory)
	if a, b := d.get(t, "sample-alpha"), d.get(t, "sample-bravo"); a.Kind == nil || *a.Kind != "sample" || b.Kind == nil || *b.Kind != "sample" {
		t.Errorf("sample registrars' kinds: %v, %v; want sample", a.Kind, b.Kind)
	}
	f.apply(eventtest.Priced("porkbun", ".com", t0, "USD", 968, 1082, 968))
	if got := directoryOf(t, f.x.Build(t0).Directory).ids(); !slices.Equal(got, []string{"porkbun"}) {
		t.Errorf("beside a real price the directory lists %v, want porkbun alone", got)
	}
}

// TestDirectoryTurnsStale judges staleness on the snapshot's clock: a
// registrar turns stale when its last success gets older than twice its
// interval, with no new data, at the moment NextExpiry names; the
// directory is rendered again then, and only then.
func TestDirectoryTurnsStale(t *testing.T) {
	f := newFeed(t, "USD")
	f.apply(
		eventtest.Status("hourly", "Hourly", time.Hour, t0, 10),            // stale from t0+2h
		eventtest.Status("daily", "Daily", 24*time.Hour, t0, 10),           // stale from t0+48h
		eventtest.Status("quick", "Quick", time.Minute, at(-time.Hour), 1), // stale already
	)
	clock := t0
	s := f.x.Build(clock)
	first := s.Directory
	if next := f.x.NextExpiry(); !next.Equal(at(2 * time.Hour)) {
		t.Fatalf("NextExpiry = %v, want hourly's deadline %v", next, at(2*time.Hour))
	}
	d := directoryOf(t, first)
	if *d.get(t, "hourly").Stale || !*d.get(t, "quick").Stale {
		t.Errorf("at t0: hourly stale %v, quick stale %v", *d.get(t, "hourly").Stale, *d.get(t, "quick").Stale)
	}

	clock = at(2*time.Hour - time.Second)
	f.x.Expire(clock)
	if f.x.Dirty() {
		t.Fatal("a second before hourly's deadline the index wants a new render")
	}
	clock = at(2 * time.Hour)
	f.x.Expire(clock)
	if !f.x.Dirty() {
		t.Fatal("at hourly's deadline the index wants no new render")
	}
	s = f.x.Build(clock)
	d = directoryOf(t, s.Directory)
	if !*d.get(t, "hourly").Stale || *d.get(t, "daily").Stale {
		t.Errorf("at t0+2h: hourly stale %v, daily stale %v; want true, false", *d.get(t, "hourly").Stale, *d.get(t, "daily").Stale)
	}
	if s.Directory.ETag == first.ETag || !s.Directory.Modified.Equal(at(2*time.Hour)) {
		t.Errorf("the staler body: ETag %s (was %s), Modified %v; want a new ETag, modified when hourly turned stale",
			s.Directory.ETag, first.ETag, s.Directory.Modified)
	}
	if next := f.x.NextExpiry(); !next.Equal(at(48 * time.Hour)) {
		t.Errorf("NextExpiry = %v, want daily's deadline", next)
	}

	// A new round of hourly makes it fresh, and its deadline the next.
	f.apply(eventtest.Status("hourly", "Hourly", time.Hour, at(2*time.Hour), 10))
	s = f.x.Build(at(2 * time.Hour))
	if d := directoryOf(t, s.Directory); *d.get(t, "hourly").Stale || !f.x.NextExpiry().Equal(at(4*time.Hour)) {
		t.Errorf("after a new round: hourly stale %v, NextExpiry %v", *d.get(t, "hourly").Stale, f.x.NextExpiry())
	}
}

// TestDirectoryRenderedWhenChanged: a build that changes no registrar
// keeps the directory's body (and its ETag); a zone more for a registrar,
// or a status, renders it again. A redelivered status changes nothing.
func TestDirectoryRenderedWhenChanged(t *testing.T) {
	f := newFeed(t, "USD")
	f.apply(eventtest.Priced("alpha", ".com", t0, "USD", 1000, 1200, 900), eventtest.Status("alpha", "Alpha", time.Hour, t0, 1))
	before := f.x.Build(t0).Directory
	f.apply(eventtest.Priced("alpha", ".com", t0, "USD", 1100, 1200, 900)) // a new price, the same zones
	if got := f.x.Build(t0).Directory; got != before {
		t.Error("a price change of a zone already priced rendered the directory again")
	}
	f.apply(eventtest.Priced("alpha", ".net", t0, "USD", 1100, 1200, 900))
	after := f.x.Build(t0).Directory
	if after == before || directoryOf(t, after).get(t, "alpha").Zones != 2 {
		t.Errorf("a zone more: %s", after.JSON)
	}
	renamed := eventtest.Status("alpha", "Alpha Renamed", time.Hour, t0, 2)
	if out := f.x.Apply(2, t0, renamed); out != Redelivered { // the first status's sequence
		t.Errorf("a status at a sequence already applied: %v, want Redelivered", out)
	}
	if out := f.apply(renamed); out != Applied {
		t.Errorf("a later status: %v, want Applied", out)
	}
	if r := directoryOf(t, f.x.Build(t0).Directory).get(t, "alpha"); *r.Name != "Alpha Renamed" {
		t.Errorf("after the later status: name %q", *r.Name)
	}
}

func TestRenderDirectoryOptions(t *testing.T) {
	f := newFeed(t, "USD")
	sheet := eventtest.Status("beta", "Zeta Sheet", time.Hour, at(-3*time.Hour), 1) // stale
	sheet.SourceKind = contracts.SourceSheet
	f.apply(
		eventtest.Status("alpha", "Alpha", time.Hour, t0, 3),
		eventtest.Priced("alpha", ".com", t0, "USD", 1000, 1200, 900),
		eventtest.Priced("alpha", ".net", t0, "USD", 1000, 1200, 900),
		sheet,
		eventtest.Priced("beta", ".com", t0, "USD", 1000, 1200, 900),
		eventtest.Status("gamma", "Gamma", time.Hour, at(-time.Minute), 0),
		eventtest.Priced("legacy", ".com", t0, "USD", 1000, 1200, 900),
		eventtest.Priced("legacy", ".org", t0, "USD", 1000, 1200, 900),
		eventtest.Priced("legacy", ".net", t0, "USD", 1000, 1200, 900),
	)
	s := f.x.Build(t0)
	for _, tt := range []struct {
		name string
		o    DirectoryOptions
		want []string
	}{
		{"none", DirectoryOptions{}, []string{"alpha", "beta", "gamma", "legacy"}},
		{"by id, descending", DirectoryOptions{Desc: true, Sort: SortRegistrar}, []string{"legacy", "gamma", "beta", "alpha"}},
		{"by name, the id without one", DirectoryOptions{Sort: SortName}, []string{"alpha", "gamma", "legacy", "beta"}},
		{"by zones, ties by id", DirectoryOptions{Sort: SortZones, Desc: true}, []string{"legacy", "alpha", "beta", "gamma"}},
		{"by last success, the unknown last", DirectoryOptions{Sort: SortLastSuccess}, []string{"beta", "gamma", "alpha", "legacy"}},
		{"by last success descending, the unknown still last", DirectoryOptions{Sort: SortLastSuccess, Desc: true}, []string{"alpha", "gamma", "beta", "legacy"}},
		{"a name's text", DirectoryOptions{Query: "sheet"}, []string{"beta"}},
		{"an id's text", DirectoryOptions{Query: "bet"}, []string{"beta"}},
		{"kinds", DirectoryOptions{Kinds: []contracts.SourceKind{contracts.SourceSheet, contracts.SourceSample}}, []string{"beta"}},
		{"stale", DirectoryOptions{Stale: StaleOnly}, []string{"beta"}},
		{"fresh", DirectoryOptions{Stale: FreshOnly}, []string{"alpha", "gamma"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := s.RenderDirectory(tt.o)
			if got := directoryOf(t, b).ids(); !slices.Equal(got, tt.want) {
				t.Errorf("registrars %v, want %v", got, tt.want)
			}
			if !b.Modified.Equal(s.Directory.Modified) {
				t.Errorf("Modified %v, want the directory's %v", b.Modified, s.Directory.Modified)
			}
		})
	}
	if got, want := s.RenderDirectory(DirectoryOptions{}).ETag, s.Directory.ETag; got != want {
		t.Errorf("without options: ETag %s, want the directory's %s", got, want)
	}
	if !json.Valid(s.Directory.JSON) {
		t.Errorf("not JSON: %s", s.Directory.JSON)
	}
}
