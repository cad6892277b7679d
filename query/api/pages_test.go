package api_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/eventtest"
	"github.com/zoneprice/zoneprice/query/pages"
)

// pageEvents are baseEvents and a zone with a promotion that makes a
// renewal trap: 1.99 the first year, 30.00 to renew.
func pageEvents() []contracts.Event {
	ends := epoch.AddDate(0, 2, 0)
	return append(baseEvents(),
		eventtest.PriceSet("alpha", ".shop", epoch, eventtest.Promo("USD", 2999, 199, &ends), eventtest.Regular("USD", 3000), eventtest.Regular("USD", 3000)),
		eventtest.Priced("bravo", ".shop", epoch, "USD", 2500, 2600, 2600),
		eventtest.ZoneMeta(".shop", "generic", epoch, "generic", "new-gtld", "shopping"),
	)
}

// pagePod is a pod serving pageEvents with historyEvents' history.
func pagePod(t *testing.T) *pod {
	t.Helper()
	f := serving(t, pageEvents()...)
	f.hist = historyOf(t, historyEvents()...)
	return startPod(t, nil, podConfig{snaps: f})
}

// noRedirects is a client that shows redirects instead of following them.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// page gets a page without following redirects; the body decompressed.
func page(t *testing.T, target string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, target, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", target, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// pagePolicy is the Content-Security-Policy of every page: the service's
// own assets only.
const pagePolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

func TestPagesAnswer(t *testing.T) {
	p := pagePod(t)
	for _, tt := range []struct {
		name, target string
		status       int
		location     string // for a redirect
		contains     string
	}{
		{name: "catalog", target: "/", status: 200, contains: "Domain prices by zone"},
		{name: "catalog with the form's empty fields", target: "/?q=&category=&currency=USD&years=3", status: 200, contains: ".com"},
		{name: "catalog, bad years", target: "/?years=11", status: 400, contains: "years: must be a whole number from 1 to 10"},
		{name: "catalog, unknown currency", target: "/?currency=XXX", status: 400, contains: "currency"},
		{name: "catalog, unknown category", target: "/?category=nope", status: 400, contains: "no category"},
		{name: "zone, canonical", target: "/zones/.com", status: 200, contains: "<h1>.com</h1>"},
		{name: "zone without dot", target: "/zones/com", status: 301, location: "/zones/.com"},
		{name: "zone in capitals", target: "/zones/COM", status: 301, location: "/zones/.com"},
		{name: "zone with its options", target: "/zones/COM?years=2&sort=renew", status: 301, location: "/zones/.com?years=2&sort=renew"},
		{name: "IDN in Unicode", target: "/zones/.%D1%80%D1%84", status: 301, location: "/zones/.xn--p1ai"},
		{name: "IDN in ASCII without dot", target: "/zones/xn--p1ai", status: 301, location: "/zones/.xn--p1ai"},
		{name: "IDN canonical", target: "/zones/.xn--p1ai", status: 200, contains: "<h1>.рф <span class=\"ascii\">.xn--p1ai</span></h1>"},
		{name: "second level", target: "/zones/co.uk", status: 301, location: "/zones/.co.uk"},
		{name: "unknown zone", target: "/zones/.zzz", status: 404, contains: "No registrar prices .zzz"},
		{name: "malformed zone", target: "/zones/exa_mple", status: 400, contains: "malformed zone"},
		{name: "zone, bad sort", target: "/zones/.com?sort=zone", status: 400, contains: "sort: must be one of"},
		{name: "registrars", target: "/registrars", status: 200, contains: "<h1>Registrars</h1>"},
		{name: "registrars with the form's empty fields", target: "/registrars?q=&kind=&stale=&sort=", status: 200, contains: "alpha"},
		{name: "registrars, bad sort", target: "/registrars?sort=zone", status: 400, contains: "sort: must be one of"},
		{name: "registrars, unknown kind", target: "/registrars?kind=rumour", status: 400, contains: "no kind of source"},
		{name: "docs", target: "/docs", status: 200, contains: "/api/comparison/{zone}"},
		{name: "the API's root", target: "/api", status: 302, location: "/docs"},
		{name: "the API's root with a slash", target: "/api/", status: 302, location: "/docs"},
		{name: "old asset", target: "/assets/site.00000000.css", status: 404, contains: "There is no such file"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := page(t, p.url+tt.target)
			if resp.StatusCode != tt.status {
				t.Fatalf("GET %s: status %d, want %d\n%s", tt.target, resp.StatusCode, tt.status, body)
			}
			if got := resp.Header.Get("Content-Security-Policy"); got != pagePolicy {
				t.Errorf("Content-Security-Policy %q, want %q", got, pagePolicy)
			}
			if tt.location != "" {
				if got := resp.Header.Get("Location"); got != tt.location {
					t.Errorf("Location %q, want %q", got, tt.location)
				}
				return
			}
			if got := resp.Header.Get("Content-Type"); got != "text/html; charset=utf-8" {
				t.Errorf("Content-Type %q, want HTML: pages answer HTML, errors included", got)
			}
			if !bytes.Contains(body, []byte(tt.contains)) {
				t.Errorf("GET %s does not say %q:\n%s", tt.target, tt.contains, body)
			}
			if tt.status >= 400 && resp.Header.Get("Cache-Control") != "no-store" {
				t.Errorf("error page Cache-Control %q, want no-store", resp.Header.Get("Cache-Control"))
			}
		})
	}
}

func TestPagesNotReady(t *testing.T) {
	p := startPod(t, nil, podConfig{snaps: notReady()})
	for _, target := range []string{"/", "/zones/.com", "/registrars"} {
		resp, body := page(t, p.url+target)
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			t.Errorf("GET %s before ready: %d %s, want a 503 page\n%s", target, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	}
	if resp, _ := page(t, p.url+"/docs"); resp.StatusCode != http.StatusOK {
		t.Errorf("GET /docs before ready: %d, want 200: it is part of the build", resp.StatusCode)
	}
}

// TestPagesHeaders checks what every page carries: the security headers,
// a strong ETag that a revalidation answers 304, and gzip.
func TestPagesHeaders(t *testing.T) {
	p := pagePod(t)
	_, catalog := page(t, p.url+"/")
	assets := regexp.MustCompile(`(?:href|src)="(/assets/[^"]+)"`).FindAllSubmatch(catalog, -1)
	if len(assets) != 3 {
		t.Fatalf("the catalog links %d assets, want the stylesheet, the icon and the script", len(assets))
	}
	targets := []string{"/", "/?sort=-renew&years=2", "/zones/.com", "/zones/.xn--p1ai?currency=EUR", "/registrars", "/registrars?stale=false", "/docs"}
	for _, a := range assets {
		targets = append(targets, string(a[1]))
	}
	for _, target := range targets {
		t.Run(target, func(t *testing.T) {
			resp, body := page(t, p.url+target)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d", resp.StatusCode)
			}
			h := resp.Header
			for k, want := range map[string]string{
				"Content-Security-Policy": pagePolicy, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
				"Vary": "Accept-Encoding",
			} {
				if got := h.Get(k); got != want {
					t.Errorf("%s %q, want %q", k, got, want)
				}
			}
			wantCache := "public, max-age=300"
			if strings.HasPrefix(target, "/assets/") {
				wantCache = "public, max-age=31536000, immutable"
			}
			if got := h.Get("Cache-Control"); got != wantCache {
				t.Errorf("Cache-Control %q, want %q", got, wantCache)
			}
			etag := h.Get("ETag")
			if !strings.HasPrefix(etag, `"`) {
				t.Fatalf("ETag %q, want a strong one", etag)
			}
			if again, _ := page(t, p.url+target, "If-None-Match", etag); again.StatusCode != http.StatusNotModified {
				t.Errorf("revalidated with its ETag: %d, want 304", again.StatusCode)
			}
			gz, zipped := page(t, p.url+target, "Accept-Encoding", "gzip")
			if gz.Header.Get("Content-Encoding") != "gzip" || len(zipped) >= len(body) {
				t.Errorf("with gzip: Content-Encoding %q, %d bytes of %d", gz.Header.Get("Content-Encoding"), len(zipped), len(body))
			}
			if again, _ := page(t, p.url+target, "Accept-Encoding", "gzip", "If-None-Match", gz.Header.Get("ETag")); again.StatusCode != http.StatusNotModified {
				t.Errorf("gzip revalidated: %d, want 304", again.StatusCode)
			}
		})
	}
}

// TestPagesHTML parses every page and fails on what the policy would
// block or a person would miss: inline script or style, a style attribute,
// an event handler attribute, a control without a label, a duplicate id,
// an element left open; and checks the language, title, one h1, the skip
// link and the viewport.
func TestPagesHTML(t *testing.T) {
	p := pagePod(t)
	for _, target := range []string{"/", "/?q=com&sort=-cost&years=5&currency=EUR", "/zones/.com", "/zones/.shop?years=10", "/zones/.xn--p1ai",
		"/registrars", "/registrars?q=a&kind=api&stale=false&sort=-zones", "/docs", "/zones/.zzz", "/?years=0", "/subscribe"} {
		t.Run(target, func(t *testing.T) {
			_, body := page(t, p.url+target)
			checkPage(t, body)
		})
	}
}

// voidElements have no end tag.
var voidElements = []string{"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

// svgSelfClosing are the SVG elements the chart writes as <x/>.
var svgSelfClosing = []string{"line", "path", "rect"}

func checkPage(t *testing.T, body []byte) {
	t.Helper()
	z := html.NewTokenizer(bytes.NewReader(body))
	var open []string
	ids := map[string]bool{}
	labels := map[string]bool{}
	var controls []string
	counts := map[string]int{}
	lang, skip, viewport := "", false, false
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if z.Err() != io.EOF {
				t.Fatalf("tokenize: %v", z.Err())
			}
			break
		}
		tok := z.Token()
		attr := map[string]string{}
		for _, a := range tok.Attr {
			attr[a.Key] = a.Val
		}
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			name := tok.Data
			counts[name]++
			if _, ok := attr["style"]; ok {
				t.Errorf("<%s style=%q>: the page policy blocks style attributes", name, attr["style"])
			}
			for k := range attr {
				if strings.HasPrefix(k, "on") {
					t.Errorf("<%s %s>: an inline event handler, which the policy blocks", name, k)
				}
			}
			if id, ok := attr["id"]; ok {
				if ids[id] {
					t.Errorf("id %q twice", id)
				}
				ids[id] = true
			}
			switch name {
			case "script":
				if attr["src"] == "" {
					t.Error("a <script> without src: inline script, which the policy blocks")
				}
				if strings.Contains(attr["src"], "//") {
					t.Errorf("script from another origin: %s", attr["src"])
				}
			case "style":
				t.Error("a <style> element: inline style, which the policy blocks")
			case "link":
				if strings.Contains(attr["href"], "//") {
					t.Errorf("<link> to another origin: %s", attr["href"])
				}
			case "html":
				lang = attr["lang"]
			case "label":
				labels[attr["for"]] = true
			case "input", "select", "textarea":
				if attr["type"] != "hidden" && attr["type"] != "submit" {
					controls = append(controls, attr["id"])
				}
			case "a":
				if attr["href"] == "#main" && attr["class"] == "skip" {
					skip = true
				}
			case "meta":
				if attr["name"] == "viewport" {
					viewport = true
				}
			}
			if tt == html.StartTagToken && !slices.Contains(voidElements, name) {
				open = append(open, name)
			}
			if tt == html.SelfClosingTagToken && !slices.Contains(voidElements, name) && !slices.Contains(svgSelfClosing, name) {
				t.Errorf("<%s/>: self-closing outside the chart", name)
			}
		case html.EndTagToken:
			if len(open) == 0 || open[len(open)-1] != tok.Data {
				t.Fatalf("</%s> closes %v", tok.Data, open)
			}
			open = open[:len(open)-1]
		}
	}
	if len(open) > 0 {
		t.Errorf("left open: %v", open)
	}
	for _, id := range controls {
		if id == "" || !labels[id] {
			t.Errorf("control %q has no <label for>", id)
		}
	}
	if lang != "en" {
		t.Errorf("<html lang=%q>, want en", lang)
	}
	if counts["h1"] != 1 || counts["title"] < 1 || !skip || !viewport || counts["main"] != 1 {
		t.Errorf("h1 %d, title %d, main %d, skip link %v, viewport %v: want one h1 and main, a title, the skip link and the viewport",
			counts["h1"], counts["title"], counts["main"], skip, viewport)
	}
}

// rowZones are the zones of the catalog page's rows, in order.
var rowZones = regexp.MustCompile(`<tr><th scope="row"><a href="/zones/([^"]+)">`)

// TestCatalogForm submits the catalog's form as a browser without
// JavaScript does, and checks that the rows are the zones /api/domains
// answers for the same query, in its order, with its cost.
func TestCatalogForm(t *testing.T) {
	p := pagePod(t)
	for _, query := range []string{
		"q=com&category=&currency=USD&years=3",
		"q=&category=generic&currency=EUR&years=1&sort=-register",
		"q=&category=&currency=USD&years=10&sort=cost",
		"sort=-zone",
		"q=%D1%80%D1%84",
		"q=nothing",
	} {
		t.Run(query, func(t *testing.T) {
			resp, body := page(t, p.url+"/?"+query)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d:\n%s", resp.StatusCode, body)
			}
			var got []string
			for _, m := range rowZones.FindAllSubmatch(body, -1) {
				z, _ := url.PathUnescape(string(m[1]))
				got = append(got, z)
			}
			// The API takes no empty parameter and the page's years by
			// default.
			q, _ := url.ParseQuery(query)
			api := url.Values{}
			for k, v := range q {
				if v[0] != "" {
					api[k] = v
				}
			}
			if api.Get("years") == "" {
				api.Set("years", "3")
			}
			ex := send(t, http.MethodGet, p.url+"/api/domains?"+api.Encode())
			var doc struct {
				Zones []struct {
					Zone string `json:"zone"`
					Cost struct {
						Price json.Number `json:"price"`
					} `json:"cost"`
				} `json:"zones"`
			}
			decode(t, ex.body, &doc)
			want := []string{}
			for _, z := range doc.Zones {
				want = append(want, z.Zone)
				if z.Cost.Price != "" && !bytes.Contains(body, []byte(`data-v="`)) {
					t.Errorf("no cost cell for %s", z.Zone)
				}
			}
			if got == nil {
				got = []string{}
			}
			if !slices.Equal(got, want) {
				t.Errorf("rows %v, want /api/domains's %v", got, want)
			}
			if !bytes.Contains(body, []byte(`href="/api/domains?`+strings.ReplaceAll(api.Encode(), "&", "&amp;")+`"`)) {
				t.Errorf("no link to the JSON of the same view (/api/domains?%s)", api.Encode())
			}
		})
	}
}

// TestCatalogPage checks what the catalog says beside the rows: the sort
// links keep the form's query, the latest drops come from the feed, and
// the sample is marked while it is served.
func TestCatalogPage(t *testing.T) {
	p := pagePod(t)
	_, body := page(t, p.url+"/?currency=EUR&years=2&sort=register")
	for _, want := range []string{
		// Sorted by register ascending: its link turns the order round,
		// and keeps the rest of the query.
		`<th scope="col" aria-sort="ascending" class="num"><a href="/?currency=EUR&amp;sort=-register&amp;years=2" data-sort="register" data-numeric>Register</a></th>`,
		`<a href="/?currency=EUR&amp;years=2" data-sort="zone">Zone</a>`,
		`<option value="EUR" selected>EUR</option>`,
		`<option value="2" selected>2 years</option>`,
		`<input type="hidden" name="sort" value="register">`,
		`2-year cost`,
		// alpha's .com register and renew (in EUR) and charlie's register
		// dropped; bravo's raise did not.
		`<a href="/zones/.com">.com</a> at alpha`,
		`at alpha, 10 Nov 2026: register 9.86 → 8.94, renew 10.50 → 9.58`,
		`<a href="/api/changes?currency=EUR&amp;kind=dropped&amp;limit=10">`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("the catalog does not say %s", want)
		}
	}
	if os.Getenv("PAGES_DUMP") != "" {
		_ = os.WriteFile(filepath.Join(os.Getenv("PAGES_DUMP"), "catalog.html"), body, 0o644)
	}
	if strings.Contains(string(body), "at bravo") {
		t.Error("bravo's raise is listed among the drops")
	}
	if strings.Contains(string(body), "Sample data") {
		t.Error("real prices marked as the sample")
	}

	var samples []contracts.Event
	for _, r := range []string{"sample-alpha", "sample-bravo"} {
		ps := eventtest.Priced(r, ".com", epoch, "USD", 900, 1000, 1000)
		ps.Source = contracts.SampleSource
		samples = append(samples, ps)
	}
	sample := startPod(t, nil, podConfig{snaps: serving(t, samples...)})
	for _, target := range []string{"/", "/zones/.com"} {
		_, body := page(t, sample.url+target)
		if !strings.Contains(string(body), "Sample data.") {
			t.Errorf("%s serving the sample does not say so", target)
		}
		if !strings.Contains(string(body), "The price history is still loading") {
			t.Errorf("%s before the history loaded does not say so", target)
		}
	}
}

// TestZonePage checks a zone's page: every registrar's row, the promotion
// and its end, the renewal trap, the N-year total, the chart and the links
// to the JSON of the same view.
func TestZonePage(t *testing.T) {
	p := pagePod(t)
	_, shop := page(t, p.url+"/zones/.shop?years=2")
	for _, want := range []string{
		`alpha <span class="badge trap"`,
		`1.99 <span class="badge best">cheapest</span><span class="promo">promotion, then 29.99 from 20 Jan 2027</span>`,
		// Two years at alpha: 1.99 and a 30.00 renewal.
		`data-v="3199">31.99</td>`,
		`2-year total`,
		`No price history has been recorded for this zone yet.`,
		`href="/api/comparison/.shop?years=2"`,
		`href="/api/comparison/.shop/history"`,
		`<a href="/subscribe?zone=.shop">Price-drop alerts for this zone</a>`,
	} {
		if !strings.Contains(string(shop), want) {
			t.Errorf(".shop's page does not say %s", want)
		}
	}
	if strings.Contains(string(shop), `bravo <span class="badge trap"`) {
		t.Error("bravo marked a renewal trap")
	}

	_, com := page(t, p.url+"/zones/.com?currency=EUR")
	registrars := regexp.MustCompile(`<tr><th scope="row">([a-z-]+)`).FindAllSubmatch(com, -1)
	var got []string
	for _, m := range registrars {
		got = append(got, string(m[1]))
	}
	// Cheapest registration first (alpha's 9.68 USD is 8.94 EUR, charlie's
	// 8.99 EUR), india's INR without a rate last.
	if want := []string{"alpha", "charlie", "bravo", "india"}; !slices.Equal(got, want) {
		t.Errorf(".com's rows %v, want %v", got, want)
	}
	for _, want := range []string{
		`india <span class="badge">no exchange rate</span>`,
		`<span class="native">INR register 500.00 renew 700.00 transfer 700.00</span>`,
		`<svg viewBox="0 0 720 300" role="img" aria-labelledby="chart-title chart-desc"`,
		`<title id="chart-title">Price history in EUR</title>`,
		`<g class="series s0"><path class="register" d="M`,
		`class="renew" d="M`,
		`href="/api/comparison/.com/history?currency=EUR"`,
	} {
		if !strings.Contains(string(com), want) {
			t.Errorf(".com's page does not say %s", want)
		}
	}
	// The chart draws alpha, bravo, charlie and delta (its one past
	// period), each a register and a renew line.
	if n := strings.Count(string(com), `<g class="series s`); n != 4 {
		t.Errorf("the chart draws %d registrars, want 4", n)
	}
	if os.Getenv("PAGES_DUMP") != "" {
		for name, b := range map[string][]byte{"shop.html": shop, "com.html": com} {
			_ = os.WriteFile(filepath.Join(os.Getenv("PAGES_DUMP"), name), b, 0o644)
		}
	}
}

// TestPagesAreNotTheAPI keeps the pages out of the API's document: they
// are HTML for people, listed in pages.Paths.
func TestPagesAreNotTheAPI(t *testing.T) {
	for _, path := range pages.Paths() {
		if strings.HasPrefix(path, "/api/") {
			t.Errorf("page %s under /api/", path)
		}
	}
}

// TestDocsFromTheDocument checks that /docs shows every operation of the
// OpenAPI document with every parameter and response field it names: the
// page is made from the document, so nothing on it can fall behind.
func TestDocsFromTheDocument(t *testing.T) {
	p := pagePod(t)
	_, body := page(t, p.url+"/docs")
	docs := html.UnescapeString(string(body))
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(contracts.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	for path, item := range doc.Paths {
		for _, method := range []string{"get", "post", "put", "patch", "delete"} {
			if _, ok := item[method]; !ok {
				continue
			}
			n++
			if want := "<code>" + strings.ToUpper(method) + " " + path + "</code>"; !strings.Contains(docs, want) {
				t.Errorf("/docs does not show %s", want)
			}
		}
	}
	if n < 10 {
		t.Errorf("the document has %d operations", n)
	}
	for _, want := range []string{
		"<code>zones[].min.register.price</code>", // a response field, nested
		"<code>prices[].promo</code>",
		"<code>registrars</code>", // a parameter
		"Example: <code>GET /api/comparison/.com",
		"<h3>Errors</h3>", // the introduction's Markdown
		"<code>malformed-zone</code>",
	} {
		if !strings.Contains(docs, want) {
			t.Errorf("/docs does not say %s", want)
		}
	}
}

// directoryEvents are pageEvents and the statuses of three of their
// registrars: alpha fresh, bravo stale after a failed round, charlie named
// with markup; india, an older ingester's, has none.
func directoryEvents() []contracts.Event {
	bravo := eventtest.Status("bravo", "Bravo & Sons", time.Hour, epoch, 3)
	lastGood := epoch.Add(-3 * time.Hour)
	bravo.LastSuccess, bravo.Failure, bravo.Skipped = &lastGood, contracts.FailureParse, map[string]int{"not-in-root": 4}
	charlie := eventtest.Status("charlie", `<b>Charlie</b> "EU"`, 24*time.Hour, epoch, 1)
	charlie.SourceKind, charlie.Currency, charlie.Website = contracts.SourceList, "EUR", ""
	return append(pageEvents(), eventtest.Status("alpha", "Alpha", time.Hour, epoch, 4), bravo, charlie)
}

// directoryPod is a pod serving directoryEvents with historyEvents'
// history.
func directoryPod(t *testing.T) *pod {
	t.Helper()
	f := serving(t, directoryEvents()...)
	f.hist = historyOf(t, historyEvents()...)
	return startPod(t, nil, podConfig{snaps: f})
}

// rowNames are the names the rows of a page's table show, unescaped.
var rowNames = regexp.MustCompile(`<tr(?: class="stale")?><th scope="row">(?:<a [^>]*>)?([^<]*)`)

// TestRegistrarsPage checks the directory's page: every registrar with
// what the API says of it, the stale one marked, names linked to their
// sites and their markup escaped; its rows are the API's for the form's
// query, in its order.
func TestRegistrarsPage(t *testing.T) {
	p := directoryPod(t)
	_, body := page(t, p.url+"/registrars")
	checkPage(t, body)
	for _, want := range []string{
		`<a href="/registrars" aria-current="page">Registrars</a>`,
		`<th scope="row"><a href="https://alpha.example" rel="external nofollow noopener">Alpha</a><span class="ascii">alpha</span></th>`,
		`<tr class="stale"><th scope="row"><a href="https://bravo.example" rel="external nofollow noopener">Bravo &amp; Sons</a>`,
		`<span class="badge trap">stale</span><span class="reg">since 20 Nov 2026 11:00 UTC</span></td>`,
		`<span class="badge trap">parse failed</span>`,
		`3<span class="reg">4 names skipped</span>`,
		`<th scope="row">&lt;b&gt;Charlie&lt;/b&gt; &#34;EU&#34;<span class="ascii">charlie</span></th><td>fresh<span class="reg">until 22 Nov 2026 12:00 UTC</span>`,
		`<td>Third-party list<span class="reg">test · <a href="https://api.charlie.example/prices"`,
		`<th scope="row">india</th><td>not reported</td>`,
		`<td>Not reported<span class="reg">test</span></td><td>INR<span class="reg">tax unknown</span></td>`,
		`4 registrars, 1 of them stale`,
		`<a href="/api/registrars">This list as JSON</a>`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/registrars does not say %s", want)
		}
	}
	if strings.Contains(string(body), "<b>Charlie") {
		t.Error("a registrar's name with markup reached the page as markup")
	}
	if os.Getenv("PAGES_DUMP") != "" {
		_ = os.WriteFile(filepath.Join(os.Getenv("PAGES_DUMP"), "registrars.html"), body, 0o644)
	}

	for _, query := range []string{"sort=-zones", "q=&kind=&stale=true&sort=", "q=ar&kind=api&stale=&sort=name", "sort=last_success"} {
		t.Run(query, func(t *testing.T) {
			resp, body := page(t, p.url+"/registrars?"+query)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d:\n%s", resp.StatusCode, body)
			}
			got := []string{}
			for _, m := range rowNames.FindAllSubmatch(body, -1) {
				got = append(got, html.UnescapeString(string(m[1])))
			}
			q, _ := url.ParseQuery(query)
			api := url.Values{}
			for k, v := range q {
				if v[0] != "" {
					api[k] = v
				}
			}
			var doc struct {
				Registrars []struct {
					Registrar string  `json:"registrar"`
					Name      *string `json:"name"`
				} `json:"registrars"`
			}
			decode(t, send(t, http.MethodGet, p.url+"/api/registrars?"+api.Encode()).body, &doc)
			want := []string{}
			for _, r := range doc.Registrars {
				if r.Name != nil {
					want = append(want, *r.Name)
				} else {
					want = append(want, r.Registrar)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("rows %q, want /api/registrars's %q", got, want)
			}
		})
	}
}

// TestZonePageNamesRegistrars: a comparison's rows on a zone's page show
// the directory's names, linked to the registrars' sites, escaped, beside
// the ids; a registrar the directory cannot name by its id.
func TestZonePageNamesRegistrars(t *testing.T) {
	p := directoryPod(t)
	_, com := page(t, p.url+"/zones/.com")
	for _, want := range []string{
		`<tr><th scope="row"><a href="https://alpha.example" rel="external nofollow noopener">Alpha</a><span class="ascii">alpha</span></th>`,
		`<tr><th scope="row">&lt;b&gt;Charlie&lt;/b&gt; &#34;EU&#34;<span class="ascii">charlie</span></th>`,
		`<tr><th scope="row">india <span class="badge">no exchange rate</span>`,
	} {
		if !strings.Contains(string(com), want) {
			t.Errorf(".com's page does not say %s", want)
		}
	}
	if strings.Contains(string(com), "<b>Charlie") {
		t.Error("a registrar's name with markup reached the zone page as markup")
	}
	var api struct {
		Prices []struct {
			Registrar string `json:"registrar"`
		} `json:"prices"`
	}
	decode(t, send(t, http.MethodGet, p.url+"/api/comparison/.com").body, &api)
	if len(api.Prices) == 0 || api.Prices[0].Registrar != "alpha" {
		t.Errorf("the API's rows %+v: they keep their ids", api.Prices)
	}
}
