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
	"github.com/zoneprice/zoneprice/query/access"
)

// Header values shared by every response, set without the allocation and
// canonicalisation of Header.Set on the hot path. Nothing may modify them in
// place.
var (
	contentTypeJSON = []string{"application/json"}
	varyEncoding    = []string{"Accept-Encoding"}
	gzipEncoding    = []string{"gzip"}
)

// writeBody writes a pre-rendered body, compressed when the client accepts
// gzip (compressed once per body, never per request), or 304 when the
// client's copy of that representation is current. If-None-Match decides
// when present; only without it does If-Modified-Since (RFC 9110, section
// 13.2.2).
func (s *Server) writeBody(c *echo.Context, b *cache.Body) error {
	return s.writeBodyAs(c, b, contentTypeJSON, s.cacheControl)
}

// writeBodyAs is writeBody for a body of another media type (the pages
// and their assets), with its own Cache-Control.
func (s *Server) writeBodyAs(c *echo.Context, b *cache.Body, contentType, cacheControl []string) error {
	w := c.Response()
	req := c.Request()
	h := w.Header()
	h["Content-Type"] = contentType
	h["Cache-Control"] = cacheControl
	if _, set := h["Vary"]; !set { // a negotiated route set its own
		h["Vary"] = varyEncoding
	}
	if lm := b.LastModifiedValues(); lm != nil && !b.Modified.After(time.Now()) {
		// A date ahead of this pod's clock (the stream's is ahead) would
		// be one HTTP forbids; it is sent once the clock gets there.
		h["Last-Modified"] = lm
	}
	gz := acceptsGzip(req.Header.Values("Accept-Encoding"))
	h["Etag"] = b.ETagValues(gz)
	if notModified(req, b, gz) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	data := b.JSON
	if gz {
		data = b.Gzip()
		h["Content-Encoding"] = gzipEncoding
	}
	h["Content-Length"] = []string{strconv.Itoa(len(data))}
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(data)
	return err
}

// notModified evaluates the request's preconditions against the
// representation of b that would be sent.
func notModified(req *http.Request, b *cache.Body, gz bool) bool {
	if inm := req.Header.Values("If-None-Match"); len(inm) > 0 {
		etag := b.ETag
		if gz {
			etag = b.GzipETag
		}
		return etagMatches(inm, etag)
	}
	ims := req.Header.Get("If-Modified-Since")
	if ims == "" || b.Modified.IsZero() {
		return false
	}
	t, err := http.ParseTime(ims)
	return err == nil && !b.Modified.After(t)
}

// etagMatches implements If-None-Match's weak comparison over its lists.
func etagMatches(lines []string, etag string) bool {
	for _, line := range lines {
		for part := range strings.SplitSeq(line, ",") {
			part = strings.TrimPrefix(strings.TrimSpace(part), "W/")
			if part == "*" || part == etag {
				return true
			}
		}
	}
	return false
}

// acceptsGzip reports whether the Accept-Encoding field lines admit gzip:
// named with a non-zero weight, or covered by "*" without gzip refused by
// name.
func acceptsGzip(lines []string) bool {
	star, named := false, false
	for _, line := range lines {
		for part := range strings.SplitSeq(line, ",") {
			coding, params, _ := strings.Cut(part, ";")
			coding = strings.TrimSpace(coding)
			switch {
			case strings.EqualFold(coding, "gzip") || strings.EqualFold(coding, "x-gzip"):
				if zeroWeight(params) {
					return false
				}
				named = true
			case coding == "*":
				star = !zeroWeight(params)
			}
		}
	}
	return named || star
}

// zeroWeight reports whether a coding's parameters give it q=0 ("q=0",
// "q=0.0", "q=0.000"), which means "not acceptable".
func zeroWeight(params string) bool {
	for p := range strings.SplitSeq(params, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		v = strings.TrimSpace(v)
		if v == "" || v[0] != '0' {
			return false
		}
		return strings.Trim(v[1:], ".0") == ""
	}
	return false
}

// snapshot returns the current snapshot, or a 503 problem before the pod
// has caught up: no client ever sees a half-loaded catalog.
func (s *Server) snapshot() (*cache.Snapshot, error) {
	if !s.snaps.IsReady() {
		return nil, problem(http.StatusServiceUnavailable, contracts.CodeNotReady, "Not ready",
			"the service is still loading prices; retry shortly")
	}
	return s.snaps.Snapshot(), nil
}

// handleBody serves one of the snapshot's fixed bodies.
func (s *Server) handleBody(body func(*cache.Snapshot) *cache.Body) echo.HandlerFunc {
	return func(c *echo.Context) error {
		snap, err := s.snapshot()
		if err != nil {
			return err
		}
		return s.writeBody(c, body(snap))
	}
}

// handleDomains serves the catalog: the pre-rendered body, or with query
// options one rendered once per data version and options, then cached; as
// JSON, or as CSV (csv.go) made once from that body.
func (s *Server) handleDomains() echo.HandlerFunc {
	return func(c *echo.Context) error {
		snap, err := s.snapshot()
		if err != nil {
			return err
		}
		csv, err := wantsCSV(c)
		if err != nil {
			return err
		}
		if c.Request().URL.RawQuery == "" {
			return s.writeNegotiated(c, snap.Domains, csv, catalogCSVName, catalogTables[0])
		}
		b, p, err := s.catalog(snap, c.QueryParams())
		if err != nil {
			return err
		}
		if b.Next != "" {
			p.norm.Set("cursor", b.Next)
			if f := c.QueryParam("format"); f != "" {
				p.norm.Set("format", strings.ToLower(f))
			}
			c.Response().Header()["Link"] = []string{"</api/domains?" + p.norm.Encode() + `>; rel="next"`}
		}
		return s.writeNegotiated(c, b, csv, catalogCSVName, catalogTables[costTable(p.key())])
	}
}

// catalog is the /api/domains body for the query q: the pre-rendered one,
// or one rendered once per data version and options, then cached.
func (s *Server) catalog(snap *cache.Snapshot, q url.Values) (*cache.Body, *params, error) {
	o, p, err := catalogOptions(q, snap)
	if err != nil {
		return nil, nil, err
	}
	key := p.key()
	if key == "" {
		return snap.Domains, p, nil
	}
	return s.derived(snap.Version, "/api/domains?"+key, func() *cache.Body { return snap.RenderCatalog(o) }), p, nil
}

// handleRegistrars serves the directory of registrars: the pre-rendered
// body, or with query options one rendered once per data version and
// options, then cached.
func (s *Server) handleRegistrars() echo.HandlerFunc {
	return func(c *echo.Context) error {
		snap, err := s.snapshot()
		if err != nil {
			return err
		}
		if c.Request().URL.RawQuery == "" {
			return s.writeBody(c, snap.Directory)
		}
		b, err := s.registrars(snap, c.QueryParams())
		if err != nil {
			return err
		}
		return s.writeBody(c, b)
	}
}

// registrars is the /api/registrars body for the query q: the
// pre-rendered one, or one rendered once per data version and options,
// then cached.
func (s *Server) registrars(snap *cache.Snapshot, q url.Values) (*cache.Body, error) {
	o, key, err := directoryOptions(q)
	if err != nil {
		return nil, err
	}
	if key == "" {
		return snap.Directory, nil
	}
	return s.derived(snap.Version, "/api/registrars?"+key, func() *cache.Body { return snap.RenderDirectory(o) }), nil
}

// handleComparison answers for a zone in any form a person types. The
// canonical form is a map lookup; any other form is normalised once per data
// version and remembered in the response cache. Query options render once
// per data version, zone and options, then come from that cache too. A CSV
// (csv.go) is made once from the JSON body.
func (s *Server) handleComparison() echo.HandlerFunc {
	return func(c *echo.Context) error {
		snap, err := s.snapshot()
		if err != nil {
			return err
		}
		csv, err := wantsCSV(c)
		if err != nil {
			return err
		}
		raw := c.Param("zone")
		withOptions := c.Request().URL.RawQuery != ""
		// A CSV's name needs the zone's, which a remembered alias lacks.
		b, zone, err := s.comparison(c.Request(), snap, raw, !withOptions && !csv)
		if err != nil {
			return err
		}
		key := ""
		if withOptions {
			if b, key, err = s.comparisonWith(snap, zone, b, c.QueryParams()); err != nil {
				return err
			}
		}
		var disposition []string
		if csv {
			disposition = comparisonCSVName(zone)
		}
		return s.writeNegotiated(c, b, csv, disposition, comparisonTables[costTable(key)])
	}
}

// comparisonWith is a canonical zone's comparison for the query q: b, the
// body without options, or one rendered once per data version, zone and
// options, then cached; and the options' key.
func (s *Server) comparisonWith(snap *cache.Snapshot, zone string, b *cache.Body, q url.Values) (*cache.Body, string, error) {
	o, key, err := comparisonOptions(q, snap)
	if err != nil || key == "" {
		return b, key, err
	}
	return s.derived(snap.Version, "/api/comparison/"+zone+"?"+key, func() *cache.Body {
		b, _ := snap.RenderComparison(zone, o)
		return b
	}), key, nil
}

// derived returns the body cached for key at a snapshot version, or renders
// it once: concurrent misses on one key wait for a single render (a new
// version otherwise starts every client's render at once).
func (s *Server) derived(version uint64, key string, render func() *cache.Body) *cache.Body {
	if b, ok := s.responses.Get(version, key); ok {
		return b
	}
	v, _, _ := s.flight.Do(strconv.FormatUint(version, 36)+" "+key, func() (any, error) {
		b := render()
		s.responses.Set(version, key, b)
		return b, nil
	})
	return v.(*cache.Body)
}

// comparison finds a zone's comparison body and canonical name from the
// path segment. With useAliases, a form seen before comes from the response
// cache, which remembers bodies, not names: the name is then "".
func (s *Server) comparison(req *http.Request, snap *cache.Snapshot, raw string, useAliases bool) (*cache.Body, string, error) {
	if b, ok := snap.Comparison(raw); ok {
		return b, raw, nil
	}
	// The cache is keyed by the decoded segment: the raw parameter
	// means different things with and without escapes in the path.
	name, err := zoneParam(req, raw)
	if err != nil {
		return nil, "", err
	}
	if useAliases {
		if b, ok := s.responses.Get(snap.Version, name); ok {
			return b, "", nil
		}
	}
	zone, err := normalizeZoneParam(name)
	if err != nil {
		return nil, "", err
	}
	b, ok := snap.Comparison(zone.ASCII)
	if !ok {
		return nil, "", paramProblem(http.StatusNotFound, contracts.CodeUnknownZone, "Unknown zone", "zone",
			"no registrar prices for "+zone.ASCII+" ("+zone.Unicode+"); /api/domains lists the zones that have them")
	}
	if useAliases {
		s.responses.Set(snap.Version, name, b)
	}
	return b, zone.ASCII, nil
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
		return "", paramProblem(http.StatusBadRequest, contracts.CodeMalformedZone, "Malformed zone", "zone",
			"invalid percent-encoding")
	}
	return name, nil
}

var okBody = []byte(`{"status":"ok"}`)

func handleHealthz() echo.HandlerFunc {
	return func(c *echo.Context) error {
		return c.JSONBlob(http.StatusOK, okBody)
	}
}

// handleReadyz is 200 once the pod has caught up with the stream and has
// loaded the API keys (or found that it cannot read them: clients without
// a key can still be served), and until it starts draining. Draining fails
// only readiness: the API routes serve on until the server shuts down.
func (s *Server) handleReadyz() echo.HandlerFunc {
	return func(c *echo.Context) error {
		switch {
		case s.draining.Load():
			return problem(http.StatusServiceUnavailable, contracts.CodeNotReady, "Draining", "the server is shutting down")
		case !s.snaps.IsReady():
			return problem(http.StatusServiceUnavailable, contracts.CodeNotReady, "Not ready", "catching up with the price stream")
		case s.limits.keysState() == access.Loading:
			return problem(http.StatusServiceUnavailable, contracts.CodeNotReady, "Not ready", "loading API keys")
		}
		return c.JSONBlob(http.StatusOK, okBody)
	}
}
