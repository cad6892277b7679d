package api

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/labstack/echo/v5"

	"github.com/zoneprice/zoneprice/cache"
	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/query/pages"
)

// pageBackend gives the pages (package pages) the API's own bodies for a
// query, parsed, rendered and cached exactly as the API does, so that a
// page and the JSON it links to say the same thing.
type pageBackend struct{ s *Server }

var _ pages.Backend = pageBackend{}

func (b pageBackend) Snapshot() (*cache.Snapshot, error) {
	snap, err := b.s.snapshot()
	return snap, pageError(err)
}

func (b pageBackend) History() (*cache.HistoryView, bool) { return b.s.snaps.History() }

func (b pageBackend) Zone(r *http.Request, raw string) (contracts.Zone, error) {
	name, err := zoneParam(r, raw)
	if err != nil {
		return contracts.Zone{}, pageError(err)
	}
	z, err := normalizeZoneParam(name)
	return z, pageError(err)
}

func (b pageBackend) Catalog(snap *cache.Snapshot, q url.Values) (*cache.Body, error) {
	body, _, err := b.s.catalog(snap, q)
	return body, pageError(err)
}

func (b pageBackend) Comparison(snap *cache.Snapshot, zone string, q url.Values) (*cache.Body, error) {
	body, ok := snap.Comparison(zone)
	if !ok {
		return nil, &pages.Error{Status: http.StatusNotFound, Detail: "No registrar prices " + zone + "."}
	}
	body, _, err := b.s.comparisonWith(snap, zone, body, q)
	return body, pageError(err)
}

func (b pageBackend) ZoneHistory(snap *cache.Snapshot, v *cache.HistoryView, zone string, q url.Values) (*cache.Body, error) {
	z, err := contracts.NormalizeZone(zone)
	if err != nil {
		return nil, err
	}
	body, err := b.s.zoneHistory(snap, v, z, q)
	return body, pageError(err)
}

func (b pageBackend) Changes(snap *cache.Snapshot, v *cache.HistoryView, q url.Values) (*cache.Body, error) {
	body, _, err := b.s.changes(snap, v, q)
	return body, pageError(err)
}

func (b pageBackend) Registrars(snap *cache.Snapshot, q url.Values) (*cache.Body, error) {
	body, err := b.s.registrars(snap, q)
	return body, pageError(err)
}

func (b pageBackend) Derived(version uint64, key string, render func() *cache.Body) *cache.Body {
	return b.s.derived(version, key, render)
}

func (b pageBackend) WriteBody(c *echo.Context, body *cache.Body, contentType, cacheControl []string) error {
	if cacheControl == nil {
		cacheControl = b.s.cacheControl
	}
	return b.s.writeBodyAs(c, body, contentType, cacheControl)
}

// pageError is an API error as a page tells it: its status and detail,
// without the problem's JSON.
func pageError(err error) error {
	var pe *problemError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &pe):
		return &pages.Error{Status: pe.p.Status, Detail: pe.p.Detail}
	case echo.StatusCode(err) != 0:
		code := echo.StatusCode(err)
		return &pages.Error{Status: code, Detail: http.StatusText(code)}
	}
	return err
}
