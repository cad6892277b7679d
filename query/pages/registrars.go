package pages

import (
	"encoding/json"
	"net/url"
	"strconv"
	"time"

	"github.com/labstack/echo/v5"

	"github.com/zoneprice/zoneprice/cache"
	"github.com/zoneprice/zoneprice/contracts"
)

// registrarFields are the form fields the directory's page passes on to
// the API.
var registrarFields = []string{"q", "kind", "stale", "sort"}

// Registrars serves /registrars: the directory of registrars as
// /api/registrars gives it for the form's query, stale ones marked.
func (p *Pages) Registrars() echo.HandlerFunc {
	return func(c *echo.Context) error {
		snap, err := p.b.Snapshot()
		if err != nil {
			return p.fail(c, err)
		}
		q := pageQuery(c.QueryParams(), registrarFields)
		api, err := p.b.Registrars(snap, q)
		if err != nil {
			return p.fail(c, err)
		}
		body := p.b.Derived(snap.Version, "page /registrars?"+q.Encode(), func() *cache.Body {
			return p.renderRegistrars(snap, q, api)
		})
		if len(body.JSON) == 0 {
			return p.fail(c, errRender)
		}
		return p.write(c, body)
	}
}

// directoryJSON is /api/registrars as the pages read it.
type directoryJSON struct {
	Registrars []struct {
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
			Total int `json:"total"`
		} `json:"skipped"`
		Stale   *bool      `json:"stale"`
		StaleAt *time.Time `json:"stale_at"`
	} `json:"registrars"`
}

type registrarsPage struct {
	Head
	Count, Stale int
	Sample       bool
	// The form's values.
	Q, Sort   string
	Kinds     []option
	Staleness []option
	Columns   []column
	Rows      []registrarRow
	JSON      string
}

type registrarRow struct {
	registrarName
	ID                        string
	Kind, Source, Document    string
	Currency, Tax, Every      string
	LastSuccess, LastAttempt  string
	LastSuccessValue          string // Unix seconds, for sorting in place; "" without one
	Failure, StaleAt          string
	Zones                     int
	Skipped                   string
	Reported, IsStale, Sample bool
}

// kindNames say what each kind of source is, for people.
var kindNames = map[string]string{
	string(contracts.SourceAPI): "Registrar's API", string(contracts.SourceSite): "Registrar's site",
	string(contracts.SourceList): "Third-party list", string(contracts.SourceSheet): "Price sheet",
	string(contracts.SourceSample): "Invented sample",
}

// renderRegistrars renders the directory's page for the query q from api,
// the directory's body for it; an empty body when it fails, which it logs.
func (p *Pages) renderRegistrars(snap *cache.Snapshot, q url.Values, api *cache.Body) *cache.Body {
	var doc directoryJSON
	if err := json.Unmarshal(api.JSON, &doc); err != nil {
		p.log.Error("registrars page: read the directory", "err", err)
		return cache.NewBody(nil, time.Time{})
	}
	_, sample := snap.Sources[contracts.SampleSource]
	pg := registrarsPage{
		Head: Head{Title: "Registrars", Nav: "registrars",
			Description: "Every registrar whose prices zoneprice compares: where its prices come from and how fresh they are."},
		Count: len(doc.Registrars), Sample: sample, Q: q.Get("q"), Sort: q.Get("sort"),
		JSON: "/api/registrars",
	}
	if enc := q.Encode(); enc != "" {
		pg.JSON += "?" + enc
	}
	pg.Kinds = []option{{Value: "", Label: "All kinds", Selected: q.Get("kind") == ""}}
	for _, k := range contracts.SourceKinds() {
		pg.Kinds = append(pg.Kinds, option{Value: string(k), Label: kindNames[string(k)], Selected: q.Get("kind") == string(k)})
	}
	pg.Staleness = []option{
		{Value: "", Label: "Fresh and stale", Selected: q.Get("stale") == ""},
		{Value: "true", Label: "Stale only", Selected: q.Get("stale") == "true"},
		{Value: "false", Label: "Fresh only", Selected: q.Get("stale") == "false"},
	}
	pg.Columns = sortColumns("/registrars", q, cache.SortRegistrar, []column{
		{Label: "Registrar", Key: "name"}, {Label: "Freshness"},
		{Label: "Zones", Key: "zones", Numeric: true}, {Label: "Last success", Key: "last_success", Numeric: true},
		{Label: "Prices from"}, {Label: "Currency and tax"}, {Label: "Last round"},
	})
	pg.Rows = registrarRows(&doc)
	for _, r := range pg.Rows {
		if r.IsStale {
			pg.Stale++
		}
	}
	return p.renderBody("registrars.html", pg, api.Modified, "registrars page: render")
}

// registrarRows are the directory's registrars as the page's table shows
// them.
func registrarRows(doc *directoryJSON) []registrarRow {
	const when = "2 Jan 2006 15:04 UTC"
	rows := make([]registrarRow, len(doc.Registrars))
	for i, r := range doc.Registrars {
		row := &rows[i]
		row.registrarName = nameOf(r.Registrar, r.Name, r.Website)
		row.ID, row.Source, row.Tax, row.Zones, row.Reported = r.Registrar, r.Source, r.Tax, r.Zones, r.Reported
		row.Kind = "Not reported"
		if r.Kind != nil {
			row.Kind, row.Sample = kindNames[*r.Kind], *r.Kind == string(contracts.SourceSample)
		}
		row.Document = deref(r.Document)
		row.Currency = deref(r.Currency)
		if r.IntervalSeconds != nil {
			row.Every = every(*r.IntervalSeconds)
		}
		if r.LastSuccess != nil {
			row.LastSuccess = r.LastSuccess.Format(when)
			row.LastSuccessValue = strconv.FormatInt(r.LastSuccess.Unix(), 10)
		}
		if r.LastAttempt != nil {
			row.LastAttempt = r.LastAttempt.Format(when)
		}
		row.Failure = deref(r.Failure)
		if r.Skipped != nil && r.Skipped.Total > 0 {
			row.Skipped = strconv.Itoa(r.Skipped.Total)
		}
		row.IsStale = r.Stale != nil && *r.Stale
		if r.StaleAt != nil {
			row.StaleAt = r.StaleAt.Format(when)
		}
	}
	return rows
}

// deref is *s, or "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// every says how often a source fetches, for people.
func every(seconds int64) string {
	d := time.Duration(seconds) * time.Second
	switch {
	case d%(24*time.Hour) == 0:
		return plural(int64(d/(24*time.Hour)), "day")
	case d%time.Hour == 0:
		return plural(int64(d/time.Hour), "hour")
	case d%time.Minute == 0:
		return plural(int64(d/time.Minute), "minute")
	}
	return plural(seconds, "second")
}

// plural is "every hour" for one, "every 6 hours" for more.
func plural(n int64, unit string) string {
	if n == 1 {
		return "every " + unit
	}
	return "every " + strconv.FormatInt(n, 10) + " " + unit + "s"
}

// registrarName is how a page shows a registrar: its name, linked to its
// website when it has one; its id where no status names it.
type registrarName struct {
	Name, Website string
}

func nameOf(id string, name, website *string) registrarName {
	n := registrarName{Name: id, Website: deref(website)}
	if name != nil {
		n.Name = *name
	}
	return n
}

// directoryNames are the directory's registrar names, decoded once per
// directory body, which snapshots keep while no registrar changes.
type directoryNames struct {
	body *cache.Body
	byID map[string]registrarName
}

// registrarNames are how the pages show each registrar of snap; a
// registrar the directory does not know is shown by its id.
func (p *Pages) registrarNames(snap *cache.Snapshot) map[string]registrarName {
	if n := p.names.Load(); n != nil && n.body == snap.Directory {
		return n.byID
	}
	var doc directoryJSON
	if err := json.Unmarshal(snap.Directory.JSON, &doc); err != nil {
		p.log.Error("read the directory for its names", "err", err)
	}
	byID := make(map[string]registrarName, len(doc.Registrars))
	for _, r := range doc.Registrars {
		byID[r.Registrar] = nameOf(r.Registrar, r.Name, r.Website)
	}
	p.names.Store(&directoryNames{body: snap.Directory, byID: byID})
	return byID
}
