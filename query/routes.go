package query

import (
	"net/http"

	"github.com/labstack/echo/v5"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/zoneprice/zoneprice/cache"
)

// routes is the whole HTTP surface. Every route answers GET and HEAD, and
// the API routes OPTIONS for CORS preflight; anything else is a 405 problem
// with Allow, and unknown paths (trailing slash variants included) a 404
// problem, both from Server.handleError. No route takes content: a request
// with some is refused and its connection closed (refuseContent). Every
// response carries the headers of publicHeaders. The API routes (GET and
// HEAD, not preflights) check API keys and are rate limited by s.limit,
// wrapped around each handler here rather than as route middleware, which
// echo would wrap anew on every request.
func (s *Server) routes(e *echo.Echo) {
	read := []string{http.MethodGet, http.MethodHead}

	e.Match(read, "/api/domains", s.limit(s.handleDomains()))
	e.Match(read, "/api/domains/categories", s.limit(s.handleBody(func(s *cache.Snapshot) *cache.Body { return s.Categories })))
	e.Match(read, "/api/comparison/zones", s.limit(s.handleBody(func(s *cache.Snapshot) *cache.Body { return s.ComparisonZones })))
	e.Match(read, "/api/comparison/:zone", s.limit(s.handleComparison()))
	e.Match(read, "/api/comparison/:zone/history", s.limit(s.handleZoneHistory()))
	e.Match(read, "/api/changes", s.limit(s.handleChanges()))
	e.Match(read, "/api/openapi.json", s.limit(s.handleOpenAPI()))
	for _, path := range []string{"/api/domains", "/api/domains/categories", "/api/comparison/zones", "/api/comparison/:zone",
		"/api/comparison/:zone/history", "/api/changes", "/api/openapi.json"} {
		e.OPTIONS(path, handlePreflight()) // CORS preflight
	}

	e.Match(read, "/healthz", handleHealthz())
	e.Match(read, "/readyz", s.handleReadyz())
	if s.cfg.MetricsOnAPI {
		e.Match(read, "/metrics", echo.WrapHandler(promhttp.HandlerFor(s.gatherer, promhttp.HandlerOpts{EnableOpenMetrics: true})))
	}
}
