// Package pages is the web site people use: the catalog (/), a zone's
// comparison and price history (/zones/{zone}), the directory of registrars
// (/registrars) and the API's documentation (/docs), as HTML rendered with
// html/template from the same bodies the JSON API serves, with their style
// and script as embedded assets; the Atom feeds of price changes
// (feeds.go); and the catalog and comparisons as CSV tables for
// spreadsheets (csv.go), which the API serves.
//
// A page is filled from the API's own JSON for the same view (the
// Backend renders it, with the API's option parsing and response cache),
// decoded into the page's view model: the page shows what the API says,
// and nothing computes a price twice. Pages are rendered once per data
// version and options and kept in the response cache, like the API's
// derived views; the catalog without options once per data version.
//
// Pages work without JavaScript (forms and links do the job); the script,
// from the service's own origin, only sorts and filters in place. The
// Content-Security-Policy of a page allows nothing but the service's own
// assets: no inline script or style, nothing from another origin. The
// subscription's pages (package subscribe) are drawn in the same layout,
// which Layout lends them, under the same Policy.
package pages

import (
	"bytes"
	"embed"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v5"

	"github.com/zoneprice/zoneprice/cache"
	"github.com/zoneprice/zoneprice/contracts"
)

// Backend is what the pages need of the API server: the data, the API's
// bodies for a query (parsed, rendered and cached as the API does), the
// response cache, and its way of writing a body (ETag, 304, gzip).
type Backend interface {
	// Snapshot is the current snapshot, or an *Error (503) before the
	// pod has caught up.
	Snapshot() (*cache.Snapshot, error)
	// History is the current history view and whether it is loaded.
	History() (*cache.HistoryView, bool)
	// Zone reads the {zone} path parameter in any form a person types,
	// or is an *Error (400, 404).
	Zone(r *http.Request, raw string) (contracts.Zone, error)
	// Catalog, Comparison, ZoneHistory and Changes are the bodies of
	// /api/domains, /api/comparison/{zone}, its /history and /api/changes
	// for the query q (a canonical zone); an *Error for a parameter they
	// do not take (400), an unknown zone or a zone without history (404).
	Catalog(snap *cache.Snapshot, q url.Values) (*cache.Body, error)
	Comparison(snap *cache.Snapshot, zone string, q url.Values) (*cache.Body, error)
	ZoneHistory(snap *cache.Snapshot, v *cache.HistoryView, zone string, q url.Values) (*cache.Body, error)
	Changes(snap *cache.Snapshot, v *cache.HistoryView, q url.Values) (*cache.Body, error)
	// Registrars is the body of /api/registrars for the query q; an
	// *Error for a parameter it does not take (400).
	Registrars(snap *cache.Snapshot, q url.Values) (*cache.Body, error)
	// Derived returns the body cached for key at a snapshot version, or
	// renders it once.
	Derived(version uint64, key string, render func() *cache.Body) *cache.Body
	// WriteBody writes a body with its ETag, gzip form and 304, as the
	// API writes its own; nil cacheControl is the API's.
	WriteBody(c *echo.Context, b *cache.Body, contentType, cacheControl []string) error
}

// Error is a page that cannot be shown: its status and what to tell the
// person.
type Error struct {
	Status int
	Detail string
}

func (e *Error) Error() string { return strconv.Itoa(e.Status) + ": " + e.Detail }

// Paths are the routes of the pages as routes.go registers them, for
// tests that tell them from the API's.
func Paths() []string {
	return append([]string{"/", "/zones/:zone", "/registrars", "/docs", "/assets/:name"}, FeedPaths()...)
}

// Policy is the Content-Security-Policy of every page, other packages'
// in the site's layout included: it allows the service's own style,
// script and images, and forms that submit to it; nothing inline, nothing
// from elsewhere, no framing.
const Policy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// The headers of every page.
var (
	contentTypeHTML = []string{"text/html; charset=utf-8"}
	pagePolicy      = []string{Policy}
	noStore         = []string{"no-store"}
)

//go:embed templates/*.html
var templateFS embed.FS

// Pages renders and serves the pages.
type Pages struct {
	b      Backend
	log    *slog.Logger
	t      *template.Template
	assets *assets
	docs   docsPage

	// catalog is the catalog without options, for the data version it
	// was rendered for (the snapshot's and the history's).
	catalog atomic.Pointer[versioned]
	// zoneDefault is a zone page's query without options, and
	// zoneDefaultKey its encoding, made once: most zone pages are asked
	// for without a query, and their cache key need not be built anew.
	zoneDefault    url.Values
	zoneDefaultKey string
	// names are the directory's names of the registrars, for the rows
	// of the zone pages.
	names atomic.Pointer[directoryNames]
}

// versioned is a page rendered for one snapshot and history version.
type versioned struct {
	snap, hist uint64
	body       *cache.Body
}

// Head is what the layout's top reads of a page: the data of every page,
// other packages' included, embeds it.
type Head struct {
	Title, Description string
	// Nav is the current section: "catalog", "registrars", "docs",
	// "subscribe" or "".
	Nav string
	// NoIndex asks search engines to leave the page out: a page of one
	// person's subscription.
	NoIndex bool
	// Feeds are the Atom feeds of what the page shows, which a feed
	// reader finds in the page's head.
	Feeds []feedLink
}

// New parses the templates and the OpenAPI document, and hashes the assets.
func New(b Backend, log *slog.Logger) (*Pages, error) {
	a, err := loadAssets()
	if err != nil {
		return nil, err
	}
	p := &Pages{b: b, log: log, assets: a, zoneDefault: pageQuery(nil, zoneFields)}
	p.zoneDefaultKey = p.zoneDefault.Encode()
	if p.t, err = template.New("").Funcs(funcs(a)).ParseFS(templateFS, "templates/*.html"); err != nil {
		return nil, err
	}
	if p.docs, err = newDocsPage(p, contracts.OpenAPI()); err != nil {
		return nil, err
	}
	return p, nil
}

// Layout is the site's layout for the pages of other packages (the
// subscription's), so that every page has the same header, navigation,
// footer, stylesheet and script: the templates "top" and "bottom" that
// open and close a page around its content, with the functions of this
// package's templates (asset names an embedded file by its hashed
// address). The caller adds its pages with ParseFS; their data embeds
// Head. Each call returns a new set.
func Layout() (*template.Template, error) {
	a, err := loadAssets()
	if err != nil {
		return nil, err
	}
	return template.New("").Funcs(funcs(a)).ParseFS(templateFS, "templates/layout.html")
}

// funcs are the functions the templates call.
func funcs(a *assets) template.FuncMap {
	return template.FuncMap{
		"asset":   a.url,
		"zoneURL": zoneURL,
		"add":     func(a, b int) int { return a + b },
		"sub":     func(a, b int) int { return a - b },
	}
}

// zoneURL is the canonical address of a zone's page.
func zoneURL(ascii string) string { return "/zones/" + url.PathEscape(ascii) }

// render executes a template into a new body.
func (p *Pages) render(name string, data any) ([]byte, error) {
	var buf bytes.Buffer
	if err := p.t.ExecuteTemplate(&buf, name, data); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// renderBody renders a page into a body whose data last changed at
// modified; an empty body when the template fails, which it logs as msg
// with args.
func (p *Pages) renderBody(name string, data any, modified time.Time, msg string, args ...any) *cache.Body {
	b, err := p.render(name, data)
	if err != nil {
		p.log.Error(msg, append(args, "err", err)...)
		return cache.NewBody(nil, time.Time{})
	}
	return cache.NewBody(b, modified)
}

// later is the later of two times.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// write sends a rendered page with the page headers.
func (p *Pages) write(c *echo.Context, b *cache.Body) error {
	c.Response().Header()["Content-Security-Policy"] = pagePolicy
	return p.b.WriteBody(c, b, contentTypeHTML, nil)
}

// fail answers a page that cannot be shown with an HTML error page: the
// API's errors are problem JSON, a person's are pages.
func (p *Pages) fail(c *echo.Context, err error) error {
	var pe *Error
	if !errors.As(err, &pe) {
		p.log.Error("page failed", "path", c.Request().URL.Path, "err", err)
		pe = errRender
	}
	h := c.Response().Header()
	h["Content-Security-Policy"] = pagePolicy
	h["Cache-Control"] = noStore
	if pe.Status == http.StatusServiceUnavailable {
		h.Set("Retry-After", "1")
	}
	b, rerr := p.render("error.html", errorPage{Head: Head{Title: http.StatusText(pe.Status)}, Status: pe.Status, Detail: pe.Detail})
	if rerr != nil {
		return rerr
	}
	return c.Blob(pe.Status, contentTypeHTML[0], b)
}

type errorPage struct {
	Head
	Status int
	Detail string
}
