package api

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"github.com/zoneprice/zoneprice/contracts"
)

// deprecationHeaders announces deprecations on the routes they name: every
// response of such a route, errors and 304s included, carries Deprecation
// (RFC 9745: "@" and Unix seconds), Sunset (RFC 8594) and a Link to each
// changelog entry with rel="deprecation". Several deprecations of one route
// announce the earliest dates and every link. With nothing deprecated the
// middleware adds nothing to the chain.
func deprecationHeaders(deps []contracts.Deprecation) echo.MiddlewareFunc {
	type announcement struct {
		deprecated, sunset time.Time
		links              []string
	}
	byRoute := map[string]*announcement{}
	for _, d := range deps {
		route := echoPath(d.Path)
		a := byRoute[route]
		if a == nil {
			a = &announcement{deprecated: d.Deprecated, sunset: d.Sunset}
			byRoute[route] = a
		}
		if d.Deprecated.Before(a.deprecated) {
			a.deprecated = d.Deprecated
		}
		if d.Sunset.Before(a.sunset) {
			a.sunset = d.Sunset
		}
		a.links = append(a.links, "<"+d.Link+`>; rel="deprecation"; type="text/html"`)
	}
	headers := make(map[string]http.Header, len(byRoute))
	for route, a := range byRoute {
		headers[route] = http.Header{
			"Deprecation": {"@" + strconv.FormatInt(a.deprecated.Unix(), 10)},
			"Sunset":      {a.sunset.UTC().Format(http.TimeFormat)},
			"Link":        a.links,
		}
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		if len(headers) == 0 {
			return next
		}
		return func(c *echo.Context) error {
			if add, ok := headers[c.Path()]; ok {
				res, err := echo.UnwrapResponse(c.Response())
				if err != nil {
					return err
				}
				// Added just before the status is written, so that a
				// handler's own Link (the next page) stays beside them.
				res.Before(func() {
					h := res.Header()
					for k, vs := range add {
						h[k] = append(h[k], vs...)
					}
				})
			}
			return next(c)
		}
	}
}

// echoPath turns an OpenAPI path template ("/api/comparison/{zone}") into
// the route echo matches ("/api/comparison/:zone").
func echoPath(path string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		if len(s) > 2 && s[0] == '{' && s[len(s)-1] == '}' {
			segs[i] = ":" + s[1:len(s)-1]
		}
	}
	return strings.Join(segs, "/")
}
