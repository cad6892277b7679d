package api

import (
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v5"
)

// headerSlack is how far past http.Server.MaxHeaderBytes Go's HTTP/1
// server reads a request's head before it answers 431 (net/http's
// initialReadLimitSize, "bufio slop"). Serve takes it off
// Config.MaxHeaderBytes so that the configured limit is the one enforced,
// to the byte for the first request on a connection. For a later one Go's
// server has already read up to 4 KiB (its read buffer) while waiting for
// it, before it starts counting, so a head may pass with that much more.
const headerSlack = 4096

// httpServer is the server Serve runs the API in, bounded against clients
// that are slow or send what the API does not take. net/http reads a
// request's content (its body) without any deadline of its own: after
// ReadHeaderTimeout it clears the connection's deadline for the rest of
// the request, and when a handler answers without having read the
// content, it reads up to 256 KiB of it before writing the answer so the
// connection can be reused, and again when the handler returns. Content
// declared and never sent would hold the connection, and its goroutine,
// forever. ReadTimeout ends that: a request, head and content, must arrive
// within it of its first byte. It also bounds the content Go's server reads
// with no handler involved (after its own 417 to an Expect it does not
// know). A handler can set a tighter deadline for itself through
// http.ResponseController, but no route takes content, so none needs to:
// refuseContent answers such requests at once and closes their connections.
//
// Go's general OPTIONS handler, which answers "OPTIONS *" before any
// handler sees it, is off: it reads up to 4 KiB of content and keeps the
// connection open even when the request was framed by both Content-Length
// and Transfer-Encoding. The API answers that request itself, as any other.
func (s *Server) httpServer() *http.Server {
	return &http.Server{
		Handler:                      s.echo,
		ReadHeaderTimeout:            s.cfg.ReadHeaderTimeout,
		ReadTimeout:                  s.cfg.ReadTimeout,
		WriteTimeout:                 s.cfg.WriteTimeout,
		IdleTimeout:                  s.cfg.IdleTimeout,
		MaxHeaderBytes:               s.cfg.MaxHeaderBytes - headerSlack,
		DisableGeneralOptionsHandler: true,
		ErrorLog:                     slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
}

// refuseContent refuses a request that has content, whatever its framing
// (a Content-Length other than 0, or Transfer-Encoding: chunked, which Go's
// server lets override a Content-Length sent with it), unless its route
// takes content (the webhook API's POST and PATCH, which bound it
// themselves), framed by Content-Length alone; such a route answers
// chunked content 411. Elsewhere content has no meaning: in a GET it has none
// (RFC 9110 §9.3.1), and a request framed both ways is the shape of
// request smuggling, after which the connection must be closed (RFC 9112
// §6.1). GET, HEAD and OPTIONS are answered 413 without reading the
// content; other methods get the 405 they would get anyway, or a 413 on
// a webhook route that takes no content. Either way the connection is
// closed after the answer, so the content, read or not, is never taken
// for a next request; Go's server reads what arrives of it within
// ReadTimeout so that closing does not reset the connection under a
// client still reading its answer.
func (s *Server) refuseContent(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		req := c.Request()
		if req.ContentLength == 0 {
			return next(c)
		}
		takes := s.takesContent[req.Method+" "+c.Path()]
		if takes && req.ContentLength > 0 && len(req.TransferEncoding) == 0 {
			return next(c)
		}
		c.Response().Header().Set(echo.HeaderConnection, "close")
		if takes {
			// Chunked content, perhaps sent with a Content-Length that Go's
			// server dropped: framed only by Content-Length, content
			// cannot be read two ways.
			return echo.NewHTTPError(http.StatusLengthRequired, "send the content with a Content-Length, not chunked")
		}
		switch req.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			return echo.NewHTTPError(http.StatusRequestEntityTooLarge,
				"this API takes no request content: send the request without a body")
		}
		if c.Path() != "" && c.RouteInfo().Method == req.Method {
			return echo.NewHTTPError(http.StatusRequestEntityTooLarge,
				"this request takes no content: send it without a body")
		}
		return next(c)
	}
}
