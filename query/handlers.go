package query

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/zoneprice/zoneprice/cache"
	"github.com/zoneprice/zoneprice/contracts"
)

// Header values shared by every response, set without the allocation and
// canonicalisation of Header.Set on the hot path. Nothing may modify them in
// place.
var (
	contentTypeJSON = []string{"application/json"}
	cacheControl    = []string{"no-cache"}
)

// writeBody writes a pre-rendered body with its ETag, or 304 when the
// client already has it.
func writeBody(c echo.Context, b *cache.Body) error {
	w := c.Response()
	h := w.Header()
	h["Content-Type"] = contentTypeJSON
	h["Cache-Control"] = cacheControl
	h["Etag"] = []string{b.ETag}
	if inm := c.Request().Header.Get("If-None-Match"); inm != "" && etagMatches(inm, b.ETag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	h["Content-Length"] = []string{strconv.Itoa(len(b.JSON))}
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(b.JSON)
	return err
}

// etagMatches implements If-None-Match's weak comparison over a list.
func etagMatches(header, etag string) bool {
	for part := range strings.SplitSeq(header, ",") {
		part = strings.TrimSpace(part)
		if part == "*" || strings.TrimPrefix(part, "W/") == etag {
			return true
		}
	}
	return false
}

// snapshot returns the current snapshot, or a 503 problem before the pod
// has caught up: no client ever sees a half-loaded catalog.
func (s *Server) snapshot() (*cache.Snapshot, error) {
	if !s.consumer.IsReady() {
		return nil, problem(http.StatusServiceUnavailable, contracts.CodeNotReady, "Not ready",
			"the service is still loading prices; retry shortly")
	}
	return s.consumer.Snapshot(), nil
}

// handleBody serves one of the snapshot's fixed bodies.
func (s *Server) handleBody(body func(*cache.Snapshot) *cache.Body) echo.HandlerFunc {
	return func(c echo.Context) error {
		snap, err := s.snapshot()
		if err != nil {
			return err
		}
		return writeBody(c, body(snap))
	}
}

// handleComparison answers for a zone in any form a person types. The
// canonical form is a map lookup; any other form is normalised once per data
// version and remembered in the response cache.
func (s *Server) handleComparison() echo.HandlerFunc {
	return func(c echo.Context) error {
		snap, err := s.snapshot()
		if err != nil {
			return err
		}
		raw := c.Param("zone")
		if b, ok := snap.Comparison(raw); ok {
			return writeBody(c, b)
		}
		// The cache is keyed by the decoded segment: the raw parameter
		// means different things with and without escapes in the path.
		name, err := zoneParam(c.Request(), raw)
		if err != nil {
			return err
		}
		if b, ok := s.responses.Get(snap.Version, name); ok {
			return writeBody(c, b)
		}
		zone, err := contracts.NormalizeZone(name)
		if err != nil {
			if errors.Is(err, contracts.ErrMalformedZone) {
				return paramProblem(http.StatusBadRequest, contracts.CodeMalformedZone, "Malformed zone",
					err.Error()+`; give a zone such as ".com", "co.uk" or ".рф"`)
			}
			return err
		}
		b, ok := snap.Comparison(zone.ASCII)
		if !ok {
			return paramProblem(http.StatusNotFound, contracts.CodeUnknownZone, "Unknown zone",
				"no registrar prices for "+zone.ASCII+" ("+zone.Unicode+"); /api/domains lists the zones that have them")
		}
		s.responses.Set(snap.Version, name, b)
		return writeBody(c, b)
	}
}

// zoneParam returns the zone path segment as the client meant it. A
// parameter holding a real slash comes from a trailing-slash or deeper path,
// which does not exist. The router matched on the escaped path only when the
// request had escapes; then the parameter is still escaped and is decoded
// exactly once here (an escaped slash then makes a malformed zone).
// Otherwise it is already decoded.
func zoneParam(r *http.Request, raw string) (string, error) {
	if strings.Contains(raw, "/") {
		return "", echo.ErrNotFound
	}
	if r.URL.RawPath == "" {
		return raw, nil
	}
	name, err := url.PathUnescape(raw)
	if err != nil {
		return "", paramProblem(http.StatusBadRequest, contracts.CodeMalformedZone, "Malformed zone",
			"invalid percent-encoding")
	}
	return name, nil
}

// paramProblem is a problem about the zone path parameter, named in it.
func paramProblem(status int, code, title, detail string) error {
	pe := problem(status, code, title, "zone: "+detail).(*problemError)
	pe.p.Param = "zone"
	return pe
}

var okBody = []byte(`{"status":"ok"}`)

func handleHealthz() echo.HandlerFunc {
	return func(c echo.Context) error {
		return c.JSONBlob(http.StatusOK, okBody)
	}
}

// handleReadyz is 200 once the pod has caught up with the stream and until
// it starts draining.
func (s *Server) handleReadyz() echo.HandlerFunc {
	return func(c echo.Context) error {
		switch {
		case s.draining.Load():
			return problem(http.StatusServiceUnavailable, contracts.CodeNotReady, "Draining", "the server is shutting down")
		case !s.consumer.IsReady():
			return problem(http.StatusServiceUnavailable, contracts.CodeNotReady, "Not ready", "catching up with the price stream")
		}
		return c.JSONBlob(http.StatusOK, okBody)
	}
}
