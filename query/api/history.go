package api

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"github.com/zoneprice/zoneprice/cache"
	"github.com/zoneprice/zoneprice/contracts"
)

// The feed's page sizes.
const (
	defaultChangesLimit = 50
	maxChangesLimit     = 500
)

// historyRetryAfter is the Retry-After of the 503 while history loads: a
// pod loads three years of changes in seconds, not in one.
const historyRetryAfter = "5"

// history returns the current snapshot and history view, or a 503 problem
// while either is loading.
func (s *Server) history(c *echo.Context) (*cache.Snapshot, *cache.HistoryView, error) {
	snap, err := s.snapshot()
	if err != nil {
		return nil, nil, err
	}
	v, loaded := s.snaps.History()
	if !loaded {
		c.Response().Header().Set("Retry-After", historyRetryAfter)
		return nil, nil, problem(http.StatusServiceUnavailable, contracts.CodeNotReady, "History loading",
			"the price history is still loading (the prices are served); retry shortly")
	}
	return snap, v, nil
}

// historyKey is the response cache key of a history body: the history
// view's version beside the snapshot's (rates, metadata and the sample
// rule come from the snapshot).
func historyKey(v *cache.HistoryView, path, query string) string {
	return path + "?" + query + "#" + strconv.FormatUint(v.Version, 36)
}

// handleZoneHistory serves /api/comparison/{zone}/history.
func (s *Server) handleZoneHistory() echo.HandlerFunc {
	return func(c *echo.Context) error {
		snap, v, err := s.history(c)
		if err != nil {
			return err
		}
		name, err := zoneParam(c.Request(), c.Param("zone"))
		if err != nil {
			return err
		}
		zone, err := normalizeZoneParam(name)
		if err != nil {
			return err
		}
		b, err := s.zoneHistory(snap, v, zone, c.QueryParams())
		if err != nil {
			return err
		}
		return s.writeBody(c, b)
	}
}

// zoneHistory is a zone's history body for the query q, rendered once per
// data version and options, then cached; a 404 problem for a zone without
// history.
func (s *Server) zoneHistory(snap *cache.Snapshot, v *cache.HistoryView, zone contracts.Zone, q url.Values) (*cache.Body, error) {
	o, key, err := historyOptions(q, snap)
	if err != nil {
		return nil, err
	}
	unknown := paramProblem(http.StatusNotFound, contracts.CodeUnknownZone, "Unknown zone", "zone",
		"no price history for "+zone.ASCII+" ("+zone.Unicode+"); /api/comparison/zones lists the zones with prices")
	if !v.HasZone(zone.ASCII) {
		return nil, unknown
	}
	// An empty body stands for a zone whose changes are all the
	// sample's, hidden beside real prices: the response cache holds
	// no nil.
	b := s.derived(snap.Version, historyKey(v, "/api/comparison/"+zone.ASCII+"/history", key), func() *cache.Body {
		if b, ok := snap.RenderZoneHistory(v, zone.ASCII, o); ok {
			return b
		}
		return cache.NewBody(nil, time.Time{})
	})
	if len(b.JSON) == 0 {
		return nil, unknown
	}
	return b, nil
}

// handleChanges serves /api/changes, the feed of changes across zones.
func (s *Server) handleChanges() echo.HandlerFunc {
	return func(c *echo.Context) error {
		snap, v, err := s.history(c)
		if err != nil {
			return err
		}
		b, p, err := s.changes(snap, v, c.QueryParams())
		if err != nil {
			return err
		}
		if b.Next != "" {
			p.norm.Set("cursor", b.Next)
			c.Response().Header()["Link"] = []string{"</api/changes?" + p.norm.Encode() + `>; rel="next"`}
		}
		return s.writeBody(c, b)
	}
}

// changes is the page of /api/changes for the query q, rendered once per
// data version and options, then cached.
func (s *Server) changes(snap *cache.Snapshot, v *cache.HistoryView, q url.Values) (*cache.Body, *params, error) {
	o, p, err := changesOptions(q, snap)
	if err != nil {
		return nil, nil, err
	}
	return s.derived(snap.Version, historyKey(v, "/api/changes", p.key()), func() *cache.Body {
		return snap.RenderChanges(v, o)
	}), p, nil
}

// normalizeZoneParam reads a zone in any form a person types, or is the
// 400 naming the parameter.
func normalizeZoneParam(name string) (contracts.Zone, error) {
	zone, err := contracts.NormalizeZone(name)
	if err != nil {
		return zone, paramProblem(http.StatusBadRequest, contracts.CodeMalformedZone, "Malformed zone", "zone",
			err.Error()+`; give a zone such as ".com", "co.uk" or ".рф"`)
	}
	return zone, nil
}

// since returns the since parameter: an RFC 3339 time, or a date
// (midnight UTC).
func (p *params) since() (time.Time, error) {
	v, err := p.one("since")
	if err != nil || v == "" {
		return time.Time{}, err
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		t, err = time.Parse(time.DateOnly, v)
	}
	if err != nil {
		return time.Time{}, invalidParam("since", "must be a date (2026-01-31) or an RFC 3339 time (2026-01-31T12:00:00Z), not "+strconv.Quote(v))
	}
	if t.Year() < 2000 || t.Year() > 2200 {
		return time.Time{}, invalidParam("since", "must be in the years 2000 to 2200, not "+strconv.Quote(v))
	}
	t = t.UTC().Truncate(time.Second)
	p.norm.Set("since", t.Format(time.RFC3339))
	return t, nil
}

// historyOptions reads /api/comparison/{zone}/history's options.
func historyOptions(q url.Values, snap *cache.Snapshot) (cache.HistoryOptions, string, error) {
	p := newParams(q)
	var o cache.HistoryOptions
	var err error
	if o.Currency, err = p.currency(snap); err != nil {
		return o, "", err
	}
	if o.Registrars, err = p.registrars("registrars"); err != nil {
		return o, "", err
	}
	if o.Exclude, err = p.registrars("exclude"); err != nil {
		return o, "", err
	}
	if o.Since, err = p.since(); err != nil {
		return o, "", err
	}
	return o, p.key(), nil
}

// changesOptions reads /api/changes's options.
func changesOptions(q url.Values, snap *cache.Snapshot) (cache.ChangesOptions, *params, error) {
	p := newParams(q)
	o := cache.ChangesOptions{Limit: defaultChangesLimit}
	var err error
	if o.Currency, err = p.currency(snap); err != nil {
		return o, nil, err
	}
	limit, err := p.number("limit", 1, maxChangesLimit)
	if err != nil {
		return o, nil, err
	}
	if limit > 0 {
		o.Limit = limit
	}
	p.norm.Set("limit", strconv.Itoa(o.Limit))
	zone, err := p.one("zone")
	if err != nil {
		return o, nil, err
	}
	if zone != "" {
		z, err := contracts.NormalizeZone(zone)
		if err != nil {
			return o, nil, invalidParam("zone", err.Error()+`; give a zone such as ".com", "co.uk" or ".рф"`)
		}
		o.Zone = z.ASCII
		p.norm.Set("zone", z.ASCII)
	}
	if o.Registrars, err = p.registrars("registrar"); err != nil {
		return o, nil, err
	}
	if o.Category, err = p.one("category"); err != nil {
		return o, nil, err
	}
	if o.Category != "" {
		o.Category = strings.ToLower(o.Category)
		if _, ok := contracts.CategoryByID(o.Category); !ok {
			return o, nil, invalidParam("category", "no category "+strconv.Quote(o.Category)+"; one of "+categoryIDs())
		}
		p.norm.Set("category", o.Category)
	}
	kinds, err := p.list("kind", 4)
	if err != nil {
		return o, nil, err
	}
	for _, k := range kinds {
		bit, ok := cache.ParseKind(k)
		if !ok {
			return o, nil, invalidParam("kind", "must be added, changed, withdrawn or dropped (comma-separated), not "+strconv.Quote(k))
		}
		o.Kinds |= bit
	}
	if o.Since, err = p.since(); err != nil {
		return o, nil, err
	}
	cursor, err := p.one("cursor")
	if err != nil || cursor == "" {
		return o, p, err
	}
	if o.Before, err = cache.ParseChangesCursor(cursor); err != nil {
		return o, nil, invalidParam("cursor", err.Error()+"; take next_cursor from the previous page, or leave it out to start again")
	}
	p.norm.Set("cursor", cursor)
	return o, p, nil
}
