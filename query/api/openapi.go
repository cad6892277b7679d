package api

import (
	"time"

	"github.com/labstack/echo/v5"

	"github.com/zoneprice/zoneprice/cache"
	"github.com/zoneprice/zoneprice/contracts"
)

// handleOpenAPI serves the API's OpenAPI document with an ETag and gzip like
// every body. The document is part of the build, not of the data: its body
// is made once, when the routes are, and is served before the pod is ready.
// It has no Last-Modified: the build has no date that every pod agrees on
// beyond the document's own info.version.
func (s *Server) handleOpenAPI() echo.HandlerFunc {
	body := cache.NewBody(contracts.OpenAPI(), time.Time{})
	return func(c *echo.Context) error {
		return s.writeBody(c, body)
	}
}
