// Package api is the HTTP API: the Server answers every request from the
// current cache.Snapshot with a lookup and a write. routes.go is the whole
// surface: the read-only JSON API, the webhook registrations of a
// subscriber's key, and the routes of the pages (package pages) and of the
// email subscription (package subscribe) it mounts. Where the snapshot
// comes from is a Snapshots: in a pod, the replay of the state stream
// (package replay); in a handler test, a fixed one.
package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v5"
	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/singleflight"

	"github.com/zoneprice/zoneprice/cache"
	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/query/access"
	"github.com/zoneprice/zoneprice/query/pages"
	"github.com/zoneprice/zoneprice/query/subscribe"
	"github.com/zoneprice/zoneprice/query/webhooks"
)

// Config configures the HTTP server.
type Config struct {
	// Addr is the listen address of the API.
	Addr string
	// ReadHeaderTimeout, ReadTimeout, WriteTimeout and IdleTimeout bound
	// slow clients: ReadHeaderTimeout a request's head, ReadTimeout the whole
	// request, head and content, from its first byte (no route takes content,
	// but Go's server reads what a request declares; see httpServer), and
	// IdleTimeout the wait for the next request on a connection kept alive.
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	WriteTimeout      time.Duration
	IdleTimeout       time.Duration
	// MaxHeaderBytes bounds a request's head as sent: its request line and
	// header fields, line ends included. A longer head is answered 431,
	// except that on a connection kept alive Go's server lets through up to
	// 4 KiB more (see httpServer).
	MaxHeaderBytes int
	// DrainDelay is how long the server keeps serving after it starts
	// failing readiness, so a load balancer can take it out of rotation.
	DrainDelay time.Duration
	// ShutdownTimeout bounds how long in-flight requests may take to finish.
	ShutdownTimeout time.Duration
	// CacheMaxAge is how long clients and shared caches may reuse a
	// response without revalidating (Cache-Control max-age). Sources are
	// fetched hourly by default, so five minutes lags little behind; zero
	// asks every client to revalidate (no-cache).
	CacheMaxAge time.Duration
	// Responses bounds the derived-response cache.
	Responses cache.ResponsesConfig
	// Limits are the rate limits of the API routes and the client address
	// they are charged to.
	Limits access.Config
	// AccessLog logs every request at info level; otherwise requests are
	// logged at debug level only.
	AccessLog bool
	// MetricsOnAPI serves /metrics on the API port. It is the default: one
	// port to scrape, for the all-in-one and for pods. A public deployment
	// whose load balancer forwards every path moves metrics to an admin port
	// instead (a separate metrics server) so the public cannot read them.
	MetricsOnAPI bool
	// Deprecations are announced on the routes they name (Deprecation,
	// Sunset and Link headers); the default is contracts.Deprecations().
	Deprecations []contracts.Deprecation
	// Subscriptions serve the subscription form and its links; nil (a
	// server that sends no mail) answers them 503.
	Subscriptions *subscribe.Service
}

// DefaultConfig listens on :8080.
func DefaultConfig() Config {
	return Config{
		Addr:              ":8080",
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       5 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    16 << 10,
		DrainDelay:        0,
		ShutdownTimeout:   15 * time.Second,
		CacheMaxAge:       5 * time.Minute,
		Responses:         cache.DefaultResponsesConfig(),
		Limits:            access.DefaultConfig(),
		MetricsOnAPI:      true,
		Deprecations:      contracts.Deprecations(),
	}
}

// Validate reports a configuration that cannot work, naming the field
// (contracts.ValidationError).
func (c Config) Validate() error {
	if c.Addr == "" {
		return contracts.Invalid("Addr", "the listen address must not be empty")
	}
	for _, t := range []struct {
		field string
		d     time.Duration
	}{
		{"ReadHeaderTimeout", c.ReadHeaderTimeout}, {"ReadTimeout", c.ReadTimeout},
		{"WriteTimeout", c.WriteTimeout}, {"IdleTimeout", c.IdleTimeout}, {"ShutdownTimeout", c.ShutdownTimeout},
	} {
		if t.d <= 0 {
			return contracts.Invalid(t.field, "must be positive")
		}
	}
	if c.ReadTimeout < c.ReadHeaderTimeout {
		return contracts.Invalid("ReadTimeout", "must be at least ReadHeaderTimeout (%v): it bounds the head too", c.ReadHeaderTimeout)
	}
	if c.MaxHeaderBytes <= headerSlack {
		return contracts.Invalid("MaxHeaderBytes", "must be more than %d bytes, which Go's server reads of a head past the limit it is given", headerSlack)
	}
	if c.DrainDelay < 0 {
		return contracts.Invalid("DrainDelay", "must not be negative")
	}
	if c.CacheMaxAge < 0 || c.CacheMaxAge%time.Second != 0 {
		return contracts.Invalid("CacheMaxAge", "must be whole seconds, zero or more")
	}
	if err := c.Limits.Validate(); err != nil {
		return contracts.InField("Limits", err)
	}
	for _, d := range c.Deprecations {
		if err := d.Validate(); err != nil {
			return contracts.Invalid("Deprecations", "deprecation of %s: %v", d.Path, err)
		}
	}
	return contracts.InField("Responses", c.Responses.Validate())
}

// Snapshots is what the server serves from.
type Snapshots interface {
	// Snapshot returns the current snapshot; it never blocks and never
	// returns nil.
	Snapshot() *cache.Snapshot
	// IsReady reports whether the snapshot is whole: before, the API
	// answers 503 rather than show a half-loaded catalog.
	IsReady() bool
	// History returns the current view of the price history and whether
	// it is loaded: before, the history endpoints answer 503.
	History() (*cache.HistoryView, bool)
}

// Server serves the API from snapshots.
type Server struct {
	cfg       Config
	snaps     Snapshots
	responses *cache.Responses
	log       *slog.Logger
	gatherer  prometheus.Gatherer
	echo      *echo.Echo
	draining  atomic.Bool
	m         *httpMetrics
	ids       *requestIDs
	limits    *limits
	pages     *pages.Pages
	hooks     *webhooks.Store
	// mcp answers /mcp: the API's read routes as tools (mcp.go).
	mcp http.Handler
	// takesContent are the routes (method and path) that read content;
	// refuseContent refuses it on every other.
	takesContent map[string]bool
	// accessLevel is the level requests are logged at.
	accessLevel slog.Level
	// cacheControl is the Cache-Control of every successful API response.
	cacheControl []string
	// flight renders each derived response once however many ask at once.
	flight singleflight.Group
}

// NewServer builds the server and its routes, serving from snaps. keys are
// the subscribers' API keys; nil accepts none. hooks are their webhooks;
// nil answers the webhook API 503. Metrics are registered on reg and
// /metrics serves gatherer.
func NewServer(cfg Config, snaps Snapshots, keys *access.Keys, hooks *webhooks.Store, log *slog.Logger, reg prometheus.Registerer, gatherer prometheus.Gatherer) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	responses, err := cache.NewResponses(cfg.Responses, reg)
	if err != nil {
		return nil, err
	}
	m, err := newHTTPMetrics(reg)
	if err != nil {
		responses.Close()
		return nil, err
	}
	limits, err := newLimits(cfg.Limits, keys, reg, time.Now)
	if err != nil {
		responses.Close()
		return nil, err
	}
	s := &Server{cfg: cfg, snaps: snaps, responses: responses, log: log, gatherer: gatherer, m: m,
		ids: newRequestIDs(), limits: limits, hooks: hooks, takesContent: map[string]bool{}, accessLevel: slog.LevelDebug, cacheControl: []string{cacheControlValue(cfg.CacheMaxAge)}}
	if cfg.AccessLog {
		s.accessLevel = slog.LevelInfo
	}
	if s.pages, err = pages.New(pageBackend{s}, log); err != nil {
		responses.Close()
		return nil, err
	}
	if s.mcp, err = s.newMCP(); err != nil {
		responses.Close()
		return nil, err
	}
	e := echo.NewWithConfig(echo.Config{
		Logger:           log,
		HTTPErrorHandler: s.handleError,
		IPExtractor:      ipExtractor(cfg.Limits.TrustedProxies),
	})
	e.Use(s.instrument, publicHeaders, deprecationHeaders(cfg.Deprecations), s.refuseContent)
	s.routes(e)
	if err := deprecatedRoutesExist(cfg.Deprecations, e.Router().Routes()); err != nil {
		responses.Close()
		return nil, err
	}
	s.echo = e
	return s, nil
}

// deprecatedRoutesExist refuses a deprecation of a path no route serves: its
// headers would never be sent, and the promised notice never given.
func deprecatedRoutesExist(deps []contracts.Deprecation, routes echo.Routes) error {
	for _, d := range deps {
		if !slices.ContainsFunc(routes, func(r echo.RouteInfo) bool { return r.Path == echoPath(d.Path) }) {
			return fmt.Errorf("deprecation of %s: no such route", d.Path)
		}
	}
	return nil
}

// cacheControlValue lets any cache keep a response for maxAge: the data is
// public and the same for every client.
func cacheControlValue(maxAge time.Duration) string {
	if maxAge == 0 {
		return "no-cache"
	}
	return "public, max-age=" + strconv.Itoa(int(maxAge/time.Second))
}

// Handler is the server's http.Handler, for tests and embedding. Whoever
// uses it without Run or Serve calls Close when done, and gives the
// http.Server it runs in the bounds Serve's has (see httpServer).
func (s *Server) Handler() http.Handler { return s.echo }

// Close releases the response cache. Serve does it when it returns.
func (s *Server) Close() { s.responses.Close() }

// Run listens on the configured address until ctx ends, then fails
// readiness, waits DrainDelay, and shuts down gracefully.
func (s *Server) Run(ctx context.Context) error {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", s.cfg.Addr, err)
	}
	return s.Serve(ctx, ln)
}

// Serve is Run on an existing listener.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	defer s.Close()
	hs := s.httpServer()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(problemListener{Listener: ln, maxHeaderBytes: s.cfg.MaxHeaderBytes}) }()
	s.log.Info("api listening", "addr", ln.Addr().String())
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	s.draining.Store(true)
	if s.cfg.DrainDelay > 0 {
		s.log.Info("draining: readiness fails, still serving", "for", s.cfg.DrainDelay)
		time.Sleep(s.cfg.DrainDelay)
	}
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	err := hs.Shutdown(sctx)
	if err != nil {
		// In-flight requests outlived the timeout: cut them off.
		hs.Close()
	}
	<-errc
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	s.log.Info("api stopped")
	return nil
}

// problemError carries a Problem through echo's error path.
type problemError struct{ p contracts.Problem }

func (e *problemError) Error() string { return e.p.Code + ": " + e.p.Detail }

func problem(status int, code, title, detail string) error {
	return &problemError{contracts.NewProblem(status, code, title, detail)}
}

// paramProblem is a problem about one request parameter: named in Param,
// and first in the detail.
func paramProblem(status int, code, title, param, detail string) error {
	p := contracts.NewProblem(status, code, title, param+": "+detail)
	p.Param = param
	return &problemError{p}
}

// handleError is the one place errors become responses: a documented
// problem body for clients, and a log line for internal errors, whose text
// never reaches the client. Errors from echo itself (an unknown path, a
// method a route does not take) carry only a status, read with
// echo.StatusCode: in echo v5 they are not *echo.HTTPError values.
func (s *Server) handleError(c *echo.Context, err error) {
	if res, uerr := echo.UnwrapResponse(c.Response()); uerr == nil && res.Committed {
		return
	}
	req := c.Request()
	p := s.problemOf(err, req.Method, req.URL.Path, c.Get(requestIDKey))
	p.Instance = req.URL.RequestURI()
	h := c.Response().Header()
	if p.Status == http.StatusMethodNotAllowed && h.Get(echo.HeaderAllow) == "" {
		h.Set(echo.HeaderAllow, "GET, HEAD")
	}
	if p.Status == http.StatusServiceUnavailable && h.Get("Retry-After") == "" {
		h.Set("Retry-After", "1")
	}
	h.Set(echo.HeaderContentType, "application/problem+json")
	h.Set("Cache-Control", "no-store")
	if err := c.JSON(p.Status, p); err != nil {
		s.log.Warn("write error response", "err", err)
	}
}

// problemOf is the problem document err becomes, for a request of method
// on path: the error's own problem, or one for a status echo gives, or an
// internal error, which is logged with the request's id and never shown.
func (s *Server) problemOf(err error, method, path string, requestID any) contracts.Problem {
	var pe *problemError
	code := echo.StatusCode(err)
	switch {
	case errors.As(err, &pe):
		return pe.p
	case code == http.StatusNotFound:
		return contracts.NewProblem(code, contracts.CodeNotFound, "Not found",
			"no such endpoint; the paths that exist are in the API's documentation, /docs, and its OpenAPI document, /api/openapi.json")
	case code == http.StatusMethodNotAllowed:
		return contracts.NewProblem(code, contracts.CodeMethodNotAllowed, "Method not allowed",
			"this path does not take "+method+"; Allow lists the methods it takes")
	case code >= 400 && code < 500:
		detail := http.StatusText(code)
		var he *echo.HTTPError
		if errors.As(err, &he) && he.Message != "" {
			detail = he.Message
		}
		return contracts.NewProblem(code, "http-"+strconv.Itoa(code), http.StatusText(code), detail)
	}
	s.log.Error("internal error", "path", path, "request_id", requestID, "err", err)
	return contracts.NewProblem(http.StatusInternalServerError, contracts.CodeInternal, "Internal error",
		"the server failed to answer; it has been logged")
}
