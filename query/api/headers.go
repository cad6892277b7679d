package api

import (
	"net/http"

	"github.com/labstack/echo/v5"
)

// The headers every response carries, errors included. The API is public
// and read-only, so any origin may read it from a browser
// (Access-Control-Allow-Origin: *, no credentials); its answers are JSON
// that must never be sniffed as something else, framed, or leak the
// page that asked for them. A browser client may read every response
// header the API documents: the validators, the next page and deprecation
// links, the key challenge, and the rate limit fields to pace itself
// (CORS exposes Last-Modified anyway; it is listed so that the list is
// the whole set). Built once; nothing may modify them in place.
var (
	allowOrigin   = []string{"*"}
	exposeHeaders = []string{"ETag, Last-Modified, Link, Deprecation, Sunset, WWW-Authenticate, X-Request-Id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy, Retry-After"}
	nosniff       = []string{"nosniff"}
	noReferrer    = []string{"no-referrer"}
	noContent     = []string{"default-src 'none'; frame-ancestors 'none'"}
	crossOrigin   = []string{"cross-origin"}
)

// publicHeaders adds the headers above to every response.
func publicHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		h := c.Response().Header()
		h["Access-Control-Allow-Origin"] = allowOrigin
		h["Access-Control-Expose-Headers"] = exposeHeaders
		h["X-Content-Type-Options"] = nosniff
		h["Referrer-Policy"] = noReferrer
		h["Content-Security-Policy"] = noContent
		h["Cross-Origin-Resource-Policy"] = crossOrigin
		return next(c)
	}
}

// handlePreflight answers a CORS preflight for an API route: the methods
// it takes, the request headers a client may send (conditional requests,
// and the API key headers subscribers will use), cached for a day.
func handlePreflight() echo.HandlerFunc {
	return func(c *echo.Context) error {
		h := c.Response().Header()
		h.Set("Allow", "GET, HEAD, OPTIONS")
		h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "If-None-Match, If-Modified-Since, Authorization, X-API-Key, X-Request-Id")
		h.Set("Access-Control-Max-Age", "86400")
		return c.NoContent(http.StatusNoContent)
	}
}
