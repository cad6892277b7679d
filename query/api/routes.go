package api

import (
	"net/http"

	"github.com/labstack/echo/v5"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/zoneprice/zoneprice/cache"
	"github.com/zoneprice/zoneprice/query/pages"
)

// apiRoot are the API's root, which is no endpoint of the API (nor in its
// OpenAPI document): a person who types it is sent to the documentation.
var apiRoot = []string{"/api", "/api/"}

// routes is the whole HTTP surface. Every public route answers GET and
// HEAD, and OPTIONS for CORS preflight; the webhook API, a subscriber's
// own, answers the methods it names. Anything else is a 405 problem with
// Allow, and unknown paths (trailing slash variants included; the API's
// root, apiRoot, is sent to /docs) a 404 problem, both from
// Server.handleError. Only the routes registered with withContent take
// content: on any other a request with some is refused and its connection
// closed (refuseContent). Every response carries the headers of
// publicHeaders. The API routes (GET and
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
	e.Match(read, "/api/registrars", s.limit(s.handleRegistrars()))
	e.Match(read, "/api/openapi.json", s.limit(s.handleOpenAPI()))
	for _, path := range []string{"/api/domains", "/api/domains/categories", "/api/comparison/zones", "/api/comparison/:zone",
		"/api/comparison/:zone/history", "/api/changes", "/api/registrars", "/api/openapi.json"} {
		e.OPTIONS(path, handlePreflight()) // CORS preflight
	}

	// The webhook API: a subscriber's own endpoints, by its API key
	// (webhooks.go). No CORS preflight: these calls carry a secret key and
	// answer with signing secrets, for a subscriber's server, not a page.
	s.withContent(e, http.MethodPost, "/api/webhooks", s.limit(s.handleCreateWebhook()))
	e.GET("/api/webhooks", s.limit(s.handleListWebhooks()))
	e.GET("/api/webhooks/:id", s.limit(s.handleGetWebhook()))
	s.withContent(e, http.MethodPatch, "/api/webhooks/:id", s.limit(s.handlePatchWebhook()))
	e.DELETE("/api/webhooks/:id", s.limit(s.handleDeleteWebhook()))
	e.POST("/api/webhooks/:id/test", s.limit(s.handleTestWebhook()))
	e.POST("/api/webhooks/:id/rotate-secret", s.limit(s.handleRotateWebhookSecret()))
	e.GET("/api/webhooks/:id/deliveries", s.limit(s.handleWebhookDeliveries()))

	// The API's read routes as tools for agents, over the Model Context
	// Protocol (mcp.go): stateless Streamable HTTP, so POST only; keys
	// and limits as the API's, one charge per MCP request.
	s.withContent(e, http.MethodPost, mcpPath, s.limit(s.handleMCP()))

	// The pages people use (package pages): HTML made from the API's own
	// bodies, and their style and script.
	e.Match(read, "/", s.limit(s.pages.Catalog()))
	e.Match(read, "/zones/:zone", s.limit(s.pages.Zone()))
	e.Match(read, "/registrars", s.limit(s.pages.Registrars()))
	// The Atom feeds of price changes, for feed readers (pages/feeds.go).
	e.Match(read, "/changes.atom", s.limit(s.pages.ChangesFeed()))
	e.Match(read, "/drops.atom", s.limit(s.pages.DropsFeed()))
	e.Match(read, "/zones/:zone/changes.atom", s.limit(s.pages.ZoneFeed()))
	e.Match(read, "/docs", s.pages.Docs())
	for _, path := range apiRoot {
		e.Match(read, path, func(c *echo.Context) error {
			c.Response().Header().Set("Content-Security-Policy", pages.Policy)
			return c.Redirect(http.StatusFound, "/docs")
		})
	}
	e.Match(read, "/assets/:name", s.pages.Asset())

	// The subscription by email (package subscribe): forms that work
	// without JavaScript, and the links its mails carry. Without mail
	// (a nil service) every one answers 503.
	sub := s.cfg.Subscriptions
	e.Match(read, "/subscribe", s.limit(sub.Form()))
	s.withContent(e, http.MethodPost, "/subscribe", s.limit(sub.Subscribe()))
	e.Match(read, "/subscribe/confirm", s.limit(sub.Confirm()))
	e.Match(read, "/subscribe/manage", s.limit(sub.Manage()))
	s.withContent(e, http.MethodPost, "/subscribe/manage", s.limit(sub.Update()))
	e.Match(read, "/subscribe/unsubscribe", s.limit(sub.UnsubscribePage()))
	s.withContent(e, http.MethodPost, "/subscribe/unsubscribe", s.limit(sub.Unsubscribe()))

	e.Match(read, "/healthz", handleHealthz())
	e.Match(read, "/readyz", s.handleReadyz())
	if s.cfg.MetricsOnAPI {
		e.Match(read, "/metrics", echo.WrapHandler(promhttp.HandlerFor(s.gatherer, promhttp.HandlerOpts{EnableOpenMetrics: true})))
	}
}

// withContent registers a route that takes content, which refuseContent
// then lets through to it.
func (s *Server) withContent(e *echo.Echo, method, path string, h echo.HandlerFunc) {
	s.takesContent[method+" "+path] = true
	e.Add(method, path, h)
}
