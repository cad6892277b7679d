package api_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v5"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
	"github.com/zoneprice/zoneprice/contracts/eventtest"
	"github.com/zoneprice/zoneprice/contracts/openapitest"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/sample"
	"github.com/zoneprice/zoneprice/query/access"
	"github.com/zoneprice/zoneprice/query/api"
	"github.com/zoneprice/zoneprice/query/pages"
	"github.com/zoneprice/zoneprice/query/subscribe"
)

// generous is a free tier no test reaches, so that every API response
// carries the RateLimit fields without any being refused.
var generous = access.Rate{Limit: 1_000_000, Window: time.Hour, Burst: 1_000_000}

// publishSample publishes the sample source's whole list, as the
// all-in-one does on a machine without registrar access, and one price for
// a zone without metadata, whose type is then null.
func publishSample(t *testing.T, js jetstream.JetStream) {
	t.Helper()
	r, err := ingest.NewRunner(sample.New(clock), bus.NewStreams(js), bus.NewPublisher(js), ingest.RunnerConfig{Timeout: time.Minute, MinKeepRatio: 0.5},
		slog.New(slog.DiscardHandler), prometheus.NewRegistry(), clock)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Once(context.Background()); err != nil {
		t.Fatalf("publish the sample: %v", err)
	}
	publish(t, js, eventtest.Priced("sample-zz", ".zz", epoch, "USD", 500, 1200, 0), sampleStatus())
	// The sample's first run records additions only; these changes show
	// the rest of what a change or a period says: a price known from
	// before history was kept, promotions on every operation, before and
	// after, and a withdrawal of a price in another currency.
	ends := epoch.AddDate(0, 1, 0)
	promoted := &contracts.Offer{Register: eventtest.Promo("USD", 600, 300, &ends), Renew: eventtest.Promo("USD", 1200, 900, &ends),
		Transfer: eventtest.Promo("USD", 600, 400, &ends)}
	publishHistory(t, js,
		change(contracts.ChangeKnown, "sample-zz", ".zz", daysAgo(3), nil, offer("USD", 600, 1200, 600)),
		change(contracts.ChangeChanged, "sample-zz", ".zz", daysAgo(2), offer("USD", 600, 1200, 600), promoted),
		change(contracts.ChangeChanged, "sample-zz", ".zz", daysAgo(1), promoted, offer("USD", 500, 1200, 600)),
		change(contracts.ChangeAdded, "sample-yy", ".zz", daysAgo(3), nil, offer("EUR", 700, 800, 800)),
		change(contracts.ChangeWithdrawn, "sample-yy", ".zz", daysAgo(1), offer("EUR", 700, 800, 800), nil),
	)
}

// sampleStatus is the status of a sample registrar whose last round
// failed, three hours after the last good one: stale at the pods' clock,
// with names the root-zone guard skipped, and a name with markup.
func sampleStatus() *contracts.RegistrarStatus {
	st := eventtest.Status("sample-zz", "Sample <ZZ> & Co", time.Hour, epoch, 1)
	lastGood := epoch.Add(-3 * time.Hour)
	st.LastSuccess, st.Failure, st.SourceKind = &lastGood, contracts.FailureFetch, contracts.SourceSample
	st.Skipped, st.SkippedNames = map[string]int{"not-in-root": 2}, []string{".0db", ".8888"}
	return st
}

// samplePod is a pod of the OpenAPI tests serving the sample, its
// history loaded.
func samplePod(t *testing.T) *pod {
	t.Helper()
	_, js := bustest.Provisioned(t)
	publishSample(t, js)
	p := startPod(t, js, podConfig{cfg: apiConfig()})
	p.waitHistory(t)
	return p
}

// apiConfig is the configuration of the OpenAPI tests' pods: the free
// tier generous, so that every answer carries the RateLimit fields.
func apiConfig() *api.Config {
	cfg := api.DefaultConfig()
	cfg.Limits.Anonymous = generous
	return &cfg
}

// apiCase is one request and the status it must get. The response is then
// validated against what the document says the operation (Path, a path
// template) answers with that status, or, for Named, against
// components/responses/Named.
type apiCase struct {
	name     string
	method   string
	target   string // path and query
	path     string // the documented path template
	header   []string
	status   int
	named    string
	revalid  string // "etag" or "date": first request target, then revalidate with its validator
	wantCode string // the problem code, for errors
}

// run makes the request and validates the response; it returns the
// exchange for further checks.
func (c apiCase) run(t *testing.T, d *openapitest.Doc, base string) exchange {
	t.Helper()
	method := c.method
	if method == "" {
		method = http.MethodGet
	}
	header := slices.Clone(c.header)
	switch c.revalid {
	case "etag":
		// The same method, so the same representation: a HEAD is not
		// offered gzip by the client, a GET is.
		first := send(t, method, base+c.target, header...)
		header = append(header, "If-None-Match", first.resp.Header.Get("ETag"))
	case "date":
		first := send(t, method, base+c.target, header...)
		lm := first.resp.Header.Get("Last-Modified")
		if lm == "" {
			t.Fatalf("%s: no Last-Modified to revalidate with", c.target)
		}
		header = append(header, "If-Modified-Since", lm)
	}
	x := send(t, method, base+c.target, header...)
	if x.resp.StatusCode != c.status {
		t.Fatalf("%s %s: got %d, want %d: %s", method, c.target, x.resp.StatusCode, c.status, x.body)
	}
	var r openapitest.Response
	var err error
	var ck openapitest.Check
	if c.named != "" {
		r, err = d.NamedResponse(c.named)
	} else {
		var op openapitest.Operation
		op, err = d.Operation(method, c.path)
		if err == nil {
			r, err = d.Response(method, c.path, c.status)
		}
		if err == nil && c.status == http.StatusOK {
			u, perr := url.Parse(c.target)
			if perr != nil {
				t.Fatal(perr)
			}
			ck.Schemas = d.WhenGiven(op, u.Query())
		}
	}
	if err != nil {
		t.Fatalf("%s %s: %v", method, c.target, err)
	}
	ck.Head = method == http.MethodHead
	for _, err := range d.Validate(r, x.resp, x.body, ck) {
		t.Errorf("%s %s (%d): %v", method, c.target, c.status, err)
	}
	if c.wantCode != "" {
		var p contracts.Problem
		decode(t, x.body, &p)
		if p.Code != c.wantCode {
			t.Errorf("%s %s: problem code %q, want %q", method, c.target, p.Code, c.wantCode)
		}
	}
	return x
}

// TestOpenAPIResponses requests every endpoint and every status the pod can
// be made to give, and validates each response (status, content type,
// headers, body) against contracts/openapi.json. The document's schemas
// require every field they describe, so a field the server stops sending
// fails here. It also checks the other way: every field the document
// describes for a response is seen in one, but for those the sample data
// cannot show.
func TestOpenAPIResponses(t *testing.T) {
	p := samplePod(t)
	d := openapitest.Load(t)

	ok200 := func(name, target, path string) apiCase {
		return apiCase{name: name, target: target, path: path, status: http.StatusOK}
	}
	head := func(c apiCase) apiCase {
		c.name, c.method = "HEAD "+c.name, http.MethodHead
		return c
	}
	tests := []apiCase{
		ok200("catalog", "/api/domains", "/api/domains"),
		ok200("categories", "/api/domains/categories", "/api/domains/categories"),
		ok200("comparison zones", "/api/comparison/zones", "/api/comparison/zones"),
		ok200("comparison", "/api/comparison/.com", "/api/comparison/{zone}"),
		ok200("comparison with native prices", "/api/comparison/.co.uk", "/api/comparison/{zone}"),
		ok200("comparison by unicode", "/api/comparison/.%D1%80%D1%84", "/api/comparison/{zone}"),
		ok200("comparison without metadata", "/api/comparison/zz", "/api/comparison/{zone}"),
		ok200("openapi", "/api/openapi.json", "/api/openapi.json"),
		ok200("registrars", "/api/registrars", "/api/registrars"),
		ok200("healthz", "/healthz", "/healthz"),
		ok200("readyz", "/readyz", "/readyz"),
		ok200("metrics", "/metrics", "/metrics"),
		{name: "openmetrics", target: "/metrics", path: "/metrics", status: 200,
			header: []string{"Accept", "application/openmetrics-text;version=1.0.0"}},
		{name: "catalog gzip", target: "/api/domains", path: "/api/domains", status: 200, header: []string{"Accept-Encoding", "gzip"}},
		{name: "comparison gzip", target: "/api/comparison/.com", path: "/api/comparison/{zone}", status: 200, header: []string{"Accept-Encoding", "gzip"}},
		{name: "openapi gzip", target: "/api/openapi.json", path: "/api/openapi.json", status: 200, header: []string{"Accept-Encoding", "gzip"}},
		{name: "registrars gzip", target: "/api/registrars", path: "/api/registrars", status: 200, header: []string{"Accept-Encoding", "gzip"}},
		{name: "registrars with a wrong key", target: "/api/registrars", path: "/api/registrars", status: 401,
			header: []string{"X-API-Key", "zp_not-a-key"}, wantCode: contracts.CodeInvalidAPIKey},
		{name: "catalog by key header is refused", target: "/api/domains", path: "/api/domains", status: 401,
			header: []string{"X-API-Key", "zp_not-a-key"}, wantCode: contracts.CodeInvalidAPIKey},
		{name: "comparison by bearer is refused", target: "/api/comparison/.com", path: "/api/comparison/{zone}", status: 401,
			header: []string{"Authorization", "Bearer zp_not-a-key"}, wantCode: contracts.CodeInvalidAPIKey},
		{name: "malformed bearer", target: "/api/domains/categories", path: "/api/domains/categories", status: 401,
			header: []string{"Authorization", "Basic dXNlcjpwYXNz"}, wantCode: contracts.CodeInvalidAPIKey},
		{name: "openapi with a wrong key", target: "/api/openapi.json", path: "/api/openapi.json", status: 401,
			header: []string{"X-API-Key", "zp_not-a-key"}, wantCode: contracts.CodeInvalidAPIKey},
		{name: "malformed zone", target: "/api/comparison/exa_mple", path: "/api/comparison/{zone}", status: 400,
			wantCode: contracts.CodeMalformedZone},
		{name: "unknown zone", target: "/api/comparison/.nope", path: "/api/comparison/{zone}", status: 404,
			wantCode: contracts.CodeUnknownZone},
		{name: "unknown path", target: "/api/nothing", status: 404, named: "NotFound", wantCode: contracts.CodeNotFound},
		{name: "trailing slash", target: "/api/domains/", status: 404, named: "NotFound", wantCode: contracts.CodeNotFound},
		{name: "POST", method: http.MethodPost, target: "/api/domains", status: 405, named: "MethodNotAllowed",
			wantCode: contracts.CodeMethodNotAllowed},
		{name: "DELETE", method: http.MethodDelete, target: "/api/comparison/.com", status: 405, named: "MethodNotAllowed",
			wantCode: contracts.CodeMethodNotAllowed},
		{name: "PUT openapi", method: http.MethodPut, target: "/api/openapi.json", status: 405, named: "MethodNotAllowed",
			wantCode: contracts.CodeMethodNotAllowed},
		{name: "PATCH healthz", method: http.MethodPatch, target: "/healthz", status: 405, named: "MethodNotAllowed",
			wantCode: contracts.CodeMethodNotAllowed},
	}
	for _, c := range slices.Clone(tests[:12]) {
		tests = append(tests, head(c))
	}
	for _, c := range []apiCase{
		ok200("zone history", "/api/comparison/.com/history", "/api/comparison/{zone}/history"),
		ok200("zone history with known, promoted and withdrawn prices", "/api/comparison/zz/history", "/api/comparison/{zone}/history"),
		ok200("zone history by unicode", "/api/comparison/.%D1%80%D1%84/history", "/api/comparison/{zone}/history"),
		ok200("changes", "/api/changes", "/api/changes"),
		ok200("changes, the only page", "/api/changes?zone=.zz", "/api/changes"),
	} {
		tests = append(tests, c, head(c))
	}
	tests = append(tests,
		apiCase{name: "zone history gzip", target: "/api/comparison/.com/history", path: "/api/comparison/{zone}/history", status: 200,
			header: []string{"Accept-Encoding", "gzip"}},
		apiCase{name: "changes gzip", target: "/api/changes", path: "/api/changes", status: 200, header: []string{"Accept-Encoding", "gzip"}},
		apiCase{name: "history of a malformed zone", target: "/api/comparison/exa_mple/history", path: "/api/comparison/{zone}/history",
			status: 400, wantCode: contracts.CodeMalformedZone},
		apiCase{name: "history of an unknown zone", target: "/api/comparison/.nope/history", path: "/api/comparison/{zone}/history",
			status: 404, wantCode: contracts.CodeUnknownZone},
		apiCase{name: "changes of an unknown kind", target: "/api/changes?kind=known", path: "/api/changes",
			status: 400, wantCode: contracts.CodeInvalidParameter},
		apiCase{name: "history by bearer is refused", target: "/api/comparison/.com/history", path: "/api/comparison/{zone}/history", status: 401,
			header: []string{"Authorization", "Bearer zp_not-a-key"}, wantCode: contracts.CodeInvalidAPIKey},
		apiCase{name: "changes with a wrong key", target: "/api/changes", path: "/api/changes", status: 401,
			header: []string{"X-API-Key", "zp_not-a-key"}, wantCode: contracts.CodeInvalidAPIKey},
		apiCase{name: "DELETE changes", method: http.MethodDelete, target: "/api/changes", status: 405, named: "MethodNotAllowed",
			wantCode: contracts.CodeMethodNotAllowed},
	)
	for _, target := range []struct{ target, path string }{
		{"/api/domains", "/api/domains"},
		{"/api/domains/categories", "/api/domains/categories"},
		{"/api/comparison/zones", "/api/comparison/zones"},
		{"/api/comparison/.com", "/api/comparison/{zone}"},
		{"/api/comparison/.com/history", "/api/comparison/{zone}/history"},
		{"/api/changes", "/api/changes"},
		{"/api/registrars", "/api/registrars"},
		{"/api/openapi.json", "/api/openapi.json"},
	} {
		tests = append(tests,
			apiCase{name: "revalidate " + target.target, target: target.target, path: target.path, status: 304, revalid: "etag"},
			apiCase{name: "revalidate gzip " + target.target, target: target.target, path: target.path, status: 304, revalid: "etag",
				header: []string{"Accept-Encoding", "gzip"}},
			head(apiCase{name: "revalidate " + target.target, target: target.target, path: target.path, status: 304, revalid: "etag"}),
			apiCase{name: "preflight " + target.target, method: http.MethodOptions, target: target.target, path: target.path, status: 204,
				header: []string{"Origin", "https://example.org", "Access-Control-Request-Method", "GET"}},
		)
		if target.path != "/api/openapi.json" { // a build, not data: it has no date
			tests = append(tests, apiCase{name: "revalidate by date " + target.target, target: target.target, path: target.path,
				status: 304, revalid: "date"})
		}
	}

	seen := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := tt.run(t, d, p.url)
			method := tt.method
			if ct := x.resp.Header.Get("Content-Type"); method == "" && tt.named == "" && strings.Contains(ct, "json") {
				noteFields(t, seen, "GET "+tt.path+" "+strconv.Itoa(tt.status)+" ", x.body)
			}
		})
	}

	// Every documented field of every response validated above was seen,
	// but these, which the sample cannot show or which need a query option.
	unseen := []string{
		"GET /api/domains 200 next_cursor",
		"GET /api/domains 200 zones[].cost",
		"GET /api/comparison/{zone} 200 prices[].cost",
		"GET /api/comparison/{zone} 200 prices[].promo.renew",    // the sample promotes registration only
		"GET /api/comparison/{zone} 200 prices[].promo.transfer", // the sample promotes registration only
		"GET /api/comparison/{zone} 401 param",
		"GET /api/domains 401 param",
		"GET /api/domains/categories 401 param",
		"GET /api/openapi.json 401 param",
		"GET /api/comparison/{zone}/history 401 param",
		"GET /api/changes 401 param",
		"GET /api/registrars 401 param",
	}
	wantAllSeen(t, d, seen, func(f string) bool {
		return slices.ContainsFunc(unseen, func(u string) bool { return f == u || strings.HasPrefix(f, u+".") })
	})
}

// wantAllSeen fails for every field the document describes for a response
// that seen has fields of, which seen lacks, but those unseen allows.
func wantAllSeen(t *testing.T, d *openapitest.Doc, seen map[string]bool, unseen func(field string) bool) {
	t.Helper()
	fields, err := d.Fields()
	if err != nil {
		t.Fatal(err)
	}
	validated := map[string]bool{}
	for f := range seen {
		validated[strings.Join(strings.Fields(f)[:3], " ")] = true
	}
	for _, f := range fields {
		response := strings.Join(strings.Fields(f)[:3], " ")
		if !validated[response] || seen[f] || unseen(f) {
			continue
		}
		t.Errorf("documented, never seen in a response: %s", f)
	}
}

// noteFields records the path of every field in a JSON body, as
// openapitest.Doc.Fields names them.
func noteFields(t *testing.T, seen map[string]bool, prefix string, body []byte) {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%s: %v", prefix, err)
	}
	var walk func(v any, path string)
	walk = func(v any, path string) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				p := k
				if path != "" {
					p = path + "." + k
				}
				seen[prefix+p] = true
				walk(x, p)
			}
		case []any:
			for _, x := range v {
				walk(x, path+"[]")
			}
		}
	}
	walk(v, "")
}

// TestOpenAPINotReady validates what a pod answers before it has caught
// up: 503 for the data and readiness, while liveness and the document,
// which is part of the build, are served.
func TestOpenAPINotReady(t *testing.T) {
	p := startPod(t, nil, podConfig{cfg: apiConfig(), snaps: notReady()})
	d := openapitest.Load(t)
	tests := []apiCase{
		{name: "catalog", target: "/api/domains", path: "/api/domains", status: 503, wantCode: contracts.CodeNotReady},
		{name: "categories", target: "/api/domains/categories", path: "/api/domains/categories", status: 503, wantCode: contracts.CodeNotReady},
		{name: "comparison zones", target: "/api/comparison/zones", path: "/api/comparison/zones", status: 503, wantCode: contracts.CodeNotReady},
		{name: "comparison", target: "/api/comparison/.com", path: "/api/comparison/{zone}", status: 503, wantCode: contracts.CodeNotReady},
		{name: "HEAD comparison", method: http.MethodHead, target: "/api/comparison/.com", path: "/api/comparison/{zone}", status: 503},
		{name: "zone history", target: "/api/comparison/.com/history", path: "/api/comparison/{zone}/history", status: 503, wantCode: contracts.CodeNotReady},
		{name: "changes", target: "/api/changes", path: "/api/changes", status: 503, wantCode: contracts.CodeNotReady},
		{name: "registrars", target: "/api/registrars", path: "/api/registrars", status: 503, wantCode: contracts.CodeNotReady},
		{name: "readyz", target: "/readyz", path: "/readyz", status: 503, wantCode: contracts.CodeNotReady},
		{name: "healthz", target: "/healthz", path: "/healthz", status: 200},
		{name: "openapi", target: "/api/openapi.json", path: "/api/openapi.json", status: 200},
		{name: "openapi revalidated", target: "/api/openapi.json", path: "/api/openapi.json", status: 304, revalid: "etag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := tt.run(t, d, p.url)
			if tt.target == "/api/openapi.json" && tt.status == 200 && !bytes.Equal(x.body, contracts.OpenAPI()) {
				t.Error("the served document differs from contracts.OpenAPI()")
			}
		})
	}
}

// TestOpenAPIRateLimited validates the 429 of a client over its limit.
func TestOpenAPIRateLimited(t *testing.T) {
	_, js := bustest.Provisioned(t)
	publish(t, js, baseEvents()...)
	cfg := apiConfig()
	cfg.Limits.Anonymous = access.Rate{Limit: 1, Window: time.Hour, Burst: 1}
	p := startPod(t, js, podConfig{cfg: cfg})
	d := openapitest.Load(t)
	for _, tt := range []apiCase{
		{name: "first", target: "/api/comparison/.com", path: "/api/comparison/{zone}", status: 200},
		{name: "second", target: "/api/comparison/.com", path: "/api/comparison/{zone}", status: 429, wantCode: contracts.CodeRateLimited},
		{name: "HEAD", method: http.MethodHead, target: "/api/domains", path: "/api/domains", status: 429},
		{name: "zone history", target: "/api/comparison/.com/history", path: "/api/comparison/{zone}/history", status: 429,
			wantCode: contracts.CodeRateLimited},
		{name: "changes", target: "/api/changes", path: "/api/changes", status: 429, wantCode: contracts.CodeRateLimited},
	} {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, d, p.url) })
	}
}

// limitedOperations are the API routes s.limit guards, a request target
// and the path template of each.
var limitedOperations = []struct{ target, path string }{
	{"/api/domains", "/api/domains"},
	{"/api/domains/categories", "/api/domains/categories"},
	{"/api/comparison/zones", "/api/comparison/zones"},
	{"/api/comparison/.com", "/api/comparison/{zone}"},
	{"/api/comparison/.com/history", "/api/comparison/{zone}/history"},
	{"/api/changes", "/api/changes"},
	{"/api/registrars", "/api/registrars"},
	{"/api/openapi.json", "/api/openapi.json"},
}

// TestOpenAPIKeysNotLoaded validates what a pod that has caught up but not
// loaded the API keys answers a request with a key on every limited
// operation, the document included: 503, as documented, never 401. Without
// a key it serves.
func TestOpenAPIKeysNotLoaded(t *testing.T) {
	_, js := bustest.Provisioned(t)
	publish(t, js, baseEvents()...)
	publishHistory(t, js, historyEvents()...)
	cfg := apiConfig()
	// A real store, never run: its keys are never loaded.
	p := startPod(t, js, podConfig{cfg: cfg, keys: true})
	p.waitHistory(t)
	d := openapitest.Load(t)
	for _, op := range limitedOperations {
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			t.Run(method+" "+op.target, func(t *testing.T) {
				c := apiCase{method: method, target: op.target, path: op.path, status: http.StatusServiceUnavailable,
					header: []string{"X-API-Key", "zp_not-loaded-yet"}}
				if method == http.MethodGet {
					c.wantCode = contracts.CodeNotReady
				}
				x := c.run(t, d, p.url)
				if method == http.MethodGet && !strings.Contains(string(x.body), "API keys") {
					t.Errorf("503 does not say it is about the API keys: %s", x.body)
				}
				c = apiCase{method: method, target: op.target, path: op.path, status: http.StatusOK}
				c.run(t, d, p.url)
			})
		}
	}
	apiCase{target: "/readyz", path: "/readyz", status: http.StatusServiceUnavailable, wantCode: contracts.CodeNotReady}.run(t, d, p.url)
}

// TestOpenAPILimitsOff validates the answers of a pod whose free tier has
// no limit: they carry no RateLimit fields, which the document must allow.
func TestOpenAPILimitsOff(t *testing.T) {
	_, js := bustest.Provisioned(t)
	publish(t, js, baseEvents()...)
	cfg := apiConfig()
	cfg.Limits.Anonymous = access.Rate{}
	publishHistory(t, js, historyEvents()...)
	p := startPod(t, js, podConfig{cfg: cfg})
	p.waitHistory(t)
	d := openapitest.Load(t)
	tests := []apiCase{
		{name: "catalog", target: "/api/domains", path: "/api/domains", status: 200},
		{name: "HEAD catalog", method: http.MethodHead, target: "/api/domains", path: "/api/domains", status: 200},
		{name: "categories", target: "/api/domains/categories", path: "/api/domains/categories", status: 200},
		{name: "comparison zones", target: "/api/comparison/zones", path: "/api/comparison/zones", status: 200},
		{name: "comparison", target: "/api/comparison/.com", path: "/api/comparison/{zone}", status: 200},
		{name: "openapi", target: "/api/openapi.json", path: "/api/openapi.json", status: 200},
		{name: "zone history", target: "/api/comparison/.com/history", path: "/api/comparison/{zone}/history", status: 200},
		{name: "changes", target: "/api/changes?limit=2", path: "/api/changes", status: 200},
		{name: "registrars", target: "/api/registrars?sort=-zones", path: "/api/registrars", status: 200},
		{name: "revalidated", target: "/api/comparison/.com", path: "/api/comparison/{zone}", status: 304, revalid: "etag"},
		{name: "changes revalidated", target: "/api/changes", path: "/api/changes", status: 304, revalid: "etag"},
		{name: "bad parameter", target: "/api/domains?sort=price", path: "/api/domains", status: 400, wantCode: contracts.CodeInvalidParameter},
		{name: "unknown zone", target: "/api/comparison/.nope", path: "/api/comparison/{zone}", status: 404, wantCode: contracts.CodeUnknownZone},
		{name: "wrong key", target: "/api/domains", path: "/api/domains", status: 401, header: []string{"X-API-Key", "zp_wrong"},
			wantCode: contracts.CodeInvalidAPIKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := tt.run(t, d, p.url)
			for _, f := range rateLimitFields {
				if v := x.resp.Header.Get(f); v != "" {
					t.Errorf("%s %q without a limit", f, v)
				}
			}
		})
	}
}

// TestOpenAPIRoutes checks that the document and the router agree: every
// route is documented, and every documented operation is routed.
func TestOpenAPIRoutes(t *testing.T) {
	p := startPod(t, nil, podConfig{cfg: apiConfig(), snaps: notReady()})
	d := openapitest.Load(t)
	ops, err := d.Operations()
	if err != nil {
		t.Fatal(err)
	}
	var documented, routed []string
	for _, op := range ops {
		documented = append(documented, op.Method+" "+op.Path)
	}
	param := regexp.MustCompile(`:([^/]+)`)
	e, ok := p.handler.(*echo.Echo)
	if !ok {
		t.Fatalf("the server's handler is a %T, not echo", p.handler)
	}
	for _, r := range e.Router().Routes() {
		if slices.Contains(pages.Paths(), r.Path) || slices.Contains(subscribe.Paths(), r.Path) || slices.Contains(api.APIRoot, r.Path) {
			continue // for people, not the API
		}
		if r.Path == api.MCPPath {
			continue // for agents: MCP describes its tools itself (tools/list)
		}
		routed = append(routed, r.Method+" "+param.ReplaceAllString(r.Path, "{$1}"))
	}
	sort.Strings(documented)
	sort.Strings(routed)
	routed = slices.Compact(routed)
	for _, r := range routed {
		if !slices.Contains(documented, r) {
			t.Errorf("routed, not documented: %s", r)
		}
	}
	for _, o := range documented {
		if !slices.Contains(routed, o) {
			t.Errorf("documented, not routed: %s", o)
		}
	}
	if len(routed) < 20 {
		t.Errorf("echo lists %d routes: %v", len(routed), routed)
	}
}

// TestOpenAPIHeadersDeclared sends a request to every documented
// operation, each successful one (the webhook API's with a subscriber's
// key, on a webhook it registered), with rate limits on, plain and with
// gzip offered, and fails if the response carries a header its documented
// response does not declare. Other tests meet the other statuses: every
// response openapitest.Doc.Validate checks must declare every header it
// carries. The exceptions, openapitest.Undeclared, are HTTP's framing
// (Content-Length, Transfer-Encoding, Connection), Content-Type (the
// response's content says it) and Date.
func TestOpenAPIHeadersDeclared(t *testing.T) {
	_, js := bustest.Provisioned(t)
	publish(t, js, baseEvents()...)
	publishHistory(t, js, historyEvents()...)
	kv, err := js.KeyValue(context.Background(), contracts.KeysBucket)
	if err != nil {
		t.Fatal(err)
	}
	key := createKey(t, kv, contracts.ProTier)
	cfg := limitsConfig(t, "1000/m", "pro=1000/m", "")
	if cfg.Limits.WebhookEndpoints, err = access.ParseEndpoints("pro=10"); err != nil {
		t.Fatal(err)
	}
	p := startPod(t, js, podConfig{cfg: cfg, runKeys: true, webhooks: true})
	p.waitHistory(t)
	w := &webhookPod{pod: p, js: js, pro: key}
	hook := w.create(t, key, registration)
	d := openapitest.Load(t)
	ops, err := d.Operations()
	if err != nil {
		t.Fatal(err)
	}
	// Deleting the webhook last leaves it for the operations on it.
	slices.SortStableFunc(ops, func(a, b openapitest.Operation) int {
		return cmp.Compare(strings.Count(a.Method, http.MethodDelete), strings.Count(b.Method, http.MethodDelete))
	})
	content := map[string]string{"POST /api/webhooks": registration, "PATCH /api/webhooks/{id}": `{"paused":true}`}
	for _, op := range ops {
		target := strings.NewReplacer("{zone}", ".com", "{id}", hook.ID).Replace(op.Path)
		for _, encoding := range []string{"identity", "gzip"} {
			t.Run(op.Method+" "+op.Path+" "+encoding, func(t *testing.T) {
				header := []string{"Accept-Encoding", encoding}
				if strings.HasPrefix(op.Path, "/api/webhooks") {
					header = append(header, "Authorization", "Bearer "+key.key, "Content-Type", "application/json")
				}
				if op.Method == http.MethodOptions {
					header = append(header, "Origin", "https://example.org", "Access-Control-Request-Method", "GET")
				}
				body := content[op.Method+" "+op.Path]
				if op.Method == http.MethodDelete {
					target = "/api/webhooks/" + w.create(t, key, registration).ID
				}
				resp, got := call(t, op.Method, p.url+target, body, header...)
				if resp.StatusCode >= 300 {
					t.Fatalf("%s %s: got %d, want a success: %s", op.Method, target, resp.StatusCode, got)
				}
				if resp.Header.Get("RateLimit-Limit") == "" && strings.HasPrefix(op.Path, "/api/") && op.Method != http.MethodOptions {
					t.Errorf("%s %s: no RateLimit fields, so none were checked", op.Method, target)
				}
				r, err := d.Response(op.Method, op.Path, resp.StatusCode)
				if err != nil {
					t.Fatal(err)
				}
				if names := r.UndeclaredHeaders(resp.Header); len(names) > 0 {
					t.Errorf("%s %s (%d): sent %v, which %s does not declare", op.Method, target, resp.StatusCode, names, r.Ref)
				}
			})
		}
	}
}

// TestOpenAPIParametersAccepted gives every parameter the document declares
// its documented example, alone: each must be answered 200 with a body the
// document describes, never 400. A cursor is taken from a first page.
func TestOpenAPIParametersAccepted(t *testing.T) {
	p := samplePod(t)
	d := openapitest.Load(t)
	ops, err := d.Operations()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, op := range ops {
		if op.Method != http.MethodGet || strings.HasPrefix(op.Path, "/api/webhooks") {
			continue // the webhook API needs a key; TestOpenAPIWebhooks
		}
		base := op.Path
		for _, prm := range op.Parameters {
			if prm.In == "path" {
				base = strings.ReplaceAll(base, "{"+prm.Name+"}", url.PathEscape(exampleString(t, prm)))
			}
		}
		for _, prm := range op.Parameters {
			if prm.In == "path" {
				continue
			}
			n++
			t.Run(op.Path+" "+prm.Name, func(t *testing.T) {
				c := apiCase{target: base, path: op.Path, status: http.StatusOK}
				switch prm.In {
				case "header":
					c.header = []string{prm.Name, exampleString(t, prm)}
				case "query":
					q := url.Values{prm.Name: {exampleString(t, prm)}}
					if prm.Name == "cursor" {
						q = url.Values{"limit": {"5"}, "cursor": {firstCursor(t, p.url+base+"?limit=5")}}
					}
					c.target += "?" + q.Encode()
				default:
					t.Fatalf("parameter in %s", prm.In)
				}
				c.run(t, d, p.url)
			})
		}
	}
	if n < 15 {
		t.Errorf("tried %d parameters: did the walk break?", n)
	}
}

// exampleString is a parameter's example as it goes into a request: lists
// comma-separated (style form, explode false).
func exampleString(t *testing.T, p openapitest.Parameter) string {
	t.Helper()
	switch v := p.Object["example"].(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	case bool:
		return strconv.FormatBool(v)
	case []any:
		var items []string
		for _, x := range v {
			items = append(items, x.(string))
		}
		return strings.Join(items, ",")
	}
	t.Fatalf("parameter %s: no usable example (%T)", p.Name, p.Object["example"])
	return ""
}

// firstCursor returns the next_cursor of the page at url.
func firstCursor(t *testing.T, url string) string {
	t.Helper()
	x := send(t, http.MethodGet, url)
	var page struct {
		NextCursor *string `json:"next_cursor"`
	}
	decode(t, x.body, &page)
	if x.resp.StatusCode != http.StatusOK || page.NextCursor == nil {
		t.Fatalf("%s: got %d %.200s, want a page with a next_cursor", url, x.resp.StatusCode, x.body)
	}
	return *page.NextCursor
}

// TestOpenAPIQueryOptions validates the query options' answers, good and
// bad, against the document.
func TestOpenAPIQueryOptions(t *testing.T) {
	p := samplePod(t)
	d := openapitest.Load(t)

	// options makes the cases of one operation, requested at target.
	options := func(target, path string) func(name, query string, status int) apiCase {
		return func(name, query string, status int) apiCase {
			c := apiCase{name: name, target: target + "?" + query, path: path, status: status}
			if status == http.StatusBadRequest {
				c.wantCode = contracts.CodeInvalidParameter
			}
			return c
		}
	}
	domains := options("/api/domains", "/api/domains")
	comparison := options("/api/comparison/.com", "/api/comparison/{zone}")
	history := options("/api/comparison/.com/history", "/api/comparison/{zone}/history")
	changes := options("/api/changes", "/api/changes")
	registrars := options("/api/registrars", "/api/registrars")
	tests := []struct {
		apiCase
		param string // the parameter a 400 names
		check func(t *testing.T, x exchange)
	}{
		{apiCase: domains("one category", "category=technology", 200)},
		{apiCase: domains("categories", "category=technology,finance", 200)},
		{apiCase: domains("repeated category", "category=technology&category=finance", 200)},
		{apiCase: domains("q", "q=shop", 200)},
		{apiCase: domains("q with a dot, upper case", "q=.SHOP", 200)},
		{apiCase: domains("q unicode", "q=%D1%80%D1%84", 200)},
		{apiCase: domains("sort", "sort=-renew", 200)},
		{apiCase: domains("sort by cost", "sort=cost&years=3", 200)},
		{apiCase: domains("years", "years=10", 200)},
		{apiCase: domains("currency", "currency=EUR", 200), check: wantField("currency", "EUR")},
		{apiCase: domains("limit", "limit=50", 200), check: wantNextLink},
		{apiCase: domains("limit beyond the end", "limit=1000&category=sports", 200), check: wantField("next_cursor", nil)},
		{apiCase: domains("everything", "category=generic&q=a&sort=-cost&years=2&currency=GBP&limit=10", 200), check: wantNextLink},
		{apiCase: domains("unknown category", "category=nope", 400), param: "category"},
		{apiCase: domains("empty q", "q=", 400), param: "q"},
		{apiCase: domains("long q", "q="+strings.Repeat("a", 254), 400), param: "q"},
		{apiCase: domains("longest q", "q="+strings.Repeat("a", 253), 200)},
		{apiCase: domains("long q with a dot", "q=."+strings.Repeat("a", 253), 400), param: "q"},
		{apiCase: domains("longest q with a dot", "q=."+strings.Repeat("a", 252), 200)},
		{apiCase: domains("unknown sort", "sort=price", 400), param: "sort"},
		{apiCase: domains("years zero", "years=0", 400), param: "years"},
		{apiCase: domains("years eleven", "years=11", 400), param: "years"},
		{apiCase: domains("unknown currency", "currency=XXX", 400), param: "currency"},
		{apiCase: domains("limit zero", "limit=0", 400), param: "limit"},
		{apiCase: domains("limit too big", "limit=1001", 400), param: "limit"},
		{apiCase: domains("forged cursor", "limit=5&cursor=forged", 400), param: "cursor"},
		{apiCase: comparison("sort", "sort=renew", 200)},
		{apiCase: comparison("sort by registrar descending", "sort=-registrar", 200)},
		{apiCase: comparison("years", "years=3", 200)},
		{apiCase: comparison("sort by cost", "sort=cost&years=5", 200)},
		{apiCase: comparison("currency", "currency=GBP", 200), check: wantField("currency", "GBP")},
		{apiCase: comparison("registrars", "registrars=sample-alpha,sample-bravo", 200)},
		{apiCase: comparison("exclude", "exclude=sample-india", 200)},
		{apiCase: comparison("everything", "sort=-cost&years=2&currency=EUR&exclude=sample-india", 200)},
		{apiCase: comparison("unknown sort", "sort=zone", 400), param: "sort"},
		{apiCase: comparison("years words", "years=two", 400), param: "years"},
		{apiCase: comparison("unknown currency", "currency=XXX", 400), param: "currency"},
		{apiCase: comparison("registrar id", "registrars=Bad_Id", 400), param: "registrars"},
		{apiCase: comparison("exclude id", "exclude=-x", 400), param: "exclude"},
		{apiCase: history("registrars", "registrars=sample-alpha,sample-bravo", 200)},
		{apiCase: history("exclude", "exclude=sample-india", 200)},
		{apiCase: history("since a date", "since=2026-11-01", 200)},
		{apiCase: history("since a time", "since=2026-11-20T13:00:00Z", 200)},
		{apiCase: history("currency", "currency=eur", 200), check: wantField("currency", "EUR")},
		{apiCase: history("everything", "registrars=sample-alpha,sample-echo&exclude=sample-echo&since=2026-11-20&currency=GBP", 200)},
		{apiCase: history("since words", "since=yesterday", 400), param: "since"},
		{apiCase: history("since twice", "since=2026-11-01&since=2026-11-02", 400), param: "since"},
		{apiCase: history("registrar id", "registrars=Bad_Id", 400), param: "registrars"},
		{apiCase: history("exclude id", "exclude=-x", 400), param: "exclude"},
		{apiCase: history("unknown currency", "currency=XXX", 400), param: "currency"},
		{apiCase: changes("limit", "limit=10", 200), check: wantNextLink},
		{apiCase: changes("largest limit", "limit=500", 200), check: wantNextLink},
		{apiCase: changes("zone", "zone=.zz", 200), check: wantField("next_cursor", nil)},
		{apiCase: changes("zone unicode", "zone=%D1%80%D1%84", 200)},
		{apiCase: changes("registrar", "registrar=sample-alpha,sample-bravo", 200)},
		{apiCase: changes("category", "category=generic", 200)},
		{apiCase: changes("drops", "kind=dropped", 200)},
		{apiCase: changes("kinds", "kind=added,withdrawn", 200)},
		{apiCase: changes("since", "since=2026-11-19", 200)},
		{apiCase: changes("currency", "currency=GBP", 200), check: wantField("currency", "GBP")},
		{apiCase: changes("everything", "limit=3&zone=zz&registrar=sample-yy,sample-zz&category=generic&kind=changed,withdrawn&since=2026-11-01&currency=EUR", 200)},
		{apiCase: changes("limit zero", "limit=0", 400), param: "limit"},
		{apiCase: changes("limit too big", "limit=501", 400), param: "limit"},
		{apiCase: changes("forged cursor", "cursor=forged", 400), param: "cursor"},
		{apiCase: changes("malformed zone", "zone=exa_mple", 400), param: "zone"},
		{apiCase: changes("registrar id", "registrar=Bad_Id", 400), param: "registrar"},
		{apiCase: changes("unknown category", "category=nope", 400), param: "category"},
		{apiCase: changes("known", "kind=known", 400), param: "kind"},
		{apiCase: changes("since words", "since=soon", 400), param: "since"},
		{apiCase: changes("unknown currency", "currency=XXX", 400), param: "currency"},
		{apiCase: registrars("q", "q=ZZ", 200), check: wantRegistrars("sample-zz")},
		{apiCase: registrars("q of a name", "q=%3Czz%3E", 200), check: wantRegistrars("sample-zz")},
		{apiCase: registrars("kind", "kind=api,list", 200), check: wantRegistrars()},
		{apiCase: registrars("stale", "stale=true", 200), check: wantRegistrars("sample-zz")},
		{apiCase: registrars("sort", "sort=-last_success", 200)},
		{apiCase: registrars("everything", "q=sample&kind=sample&stale=true&sort=name", 200), check: wantRegistrars("sample-zz")},
		{apiCase: registrars("empty q", "q=", 400), param: "q"},
		{apiCase: registrars("long q", "q="+strings.Repeat("a", 81), 400), param: "q"},
		{apiCase: registrars("unknown kind", "kind=rumour", 400), param: "kind"},
		{apiCase: registrars("stale yes", "stale=yes", 400), param: "stale"},
		{apiCase: registrars("stale twice", "stale=true&stale=false", 400), param: "stale"},
		{apiCase: registrars("unknown sort", "sort=zone", 400), param: "sort"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := tt.run(t, d, p.url)
			if tt.param != "" {
				var pr contracts.Problem
				decode(t, x.body, &pr)
				if pr.Param != tt.param {
					t.Errorf("problem param: got %q, want %q", pr.Param, tt.param)
				}
			}
			if tt.check != nil {
				tt.check(t, x)
			}
		})
	}

	t.Run("next page", func(t *testing.T) {
		cursor := firstCursor(t, p.url+"/api/domains?limit=5&sort=-register")
		c := domains("next page", "limit=5&sort=-register&cursor="+url.QueryEscape(cursor), 200)
		c.run(t, d, p.url)
	})
	t.Run("next page of changes", func(t *testing.T) {
		cursor := firstCursor(t, p.url+"/api/changes?limit=5&kind=added")
		changes("next page", "limit=5&kind=added&cursor="+url.QueryEscape(cursor), 200).run(t, d, p.url)
	})
	t.Run("count is the whole list's", func(t *testing.T) {
		var all, page struct {
			Count int               `json:"count"`
			Zones []json.RawMessage `json:"zones"`
		}
		decode(t, send(t, http.MethodGet, p.url+"/api/domains?category=generic").body, &all)
		decode(t, send(t, http.MethodGet, p.url+"/api/domains?category=generic&limit=3").body, &page)
		if all.Count != len(all.Zones) || page.Count != all.Count || len(page.Zones) != 3 {
			t.Errorf("count: got %d of %d zones, and %d on a page of %d; want the whole list's count on both",
				all.Count, len(all.Zones), page.Count, len(page.Zones))
		}
	})
}

// TestOpenAPISince checks that the since parameter's schema, one string
// pattern with the date or date-time format checked on top, takes exactly
// what the server takes, a day that does not exist included.
func TestOpenAPISince(t *testing.T) {
	_, js := bustest.Provisioned(t)
	publish(t, js, baseEvents()...)
	publishHistory(t, js, historyEvents()...)
	p := startPod(t, js, podConfig{cfg: apiConfig()})
	p.waitHistory(t)
	schema, err := openapitest.Load(t).Schema("#/components/parameters/since/schema")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		since string
		takes bool
	}{
		{"2026-11-01", true},
		{"2026-11-01T12:00:00Z", true},
		{"2026-11-01T12:00:00.123+05:30", true},
		{"2000-01-01", true},
		{"2200-12-31T23:59:59-23:59", true},
		{"1999-12-31", false},
		{"2201-01-01", false},
		{"2026-02-30", false},
		{"2026-02-30T12:00:00Z", false},
		{"2026-13-01", false},
		{"2026-11-01t12:00:00z", false},
		{"2026-11-01T24:00:00Z", false},
		{"2026-11-01T12:00:60Z", false},
		{"2026-11-01T12:00Z", false},
		{"2026-11-01T12:00:00", false},
		{"20261101", false},
		{"yesterday", false},
	} {
		t.Run(tt.since, func(t *testing.T) {
			resp, body := get(t, p.url+"/api/changes?"+url.Values{"since": {tt.since}}.Encode())
			if got := resp.StatusCode == http.StatusOK; got != tt.takes {
				t.Errorf("the server: got %d, want it taken: %v: %s", resp.StatusCode, tt.takes, body)
			}
			if err := schema.Validate(tt.since); (err == nil) != tt.takes {
				t.Errorf("the schema: got %v, want it taken: %v", err, tt.takes)
			}
		})
	}
}

// TestOpenAPIListLimits checks that every list parameter documents how
// many items it takes, and that the server takes exactly that many: the
// documented number of distinct items is never refused for being too
// many, and one more is.
func TestOpenAPIListLimits(t *testing.T) {
	p := samplePod(t)
	d := openapitest.Load(t)
	ops, err := d.Operations()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, op := range ops {
		if op.Method != http.MethodGet {
			continue
		}
		base := strings.ReplaceAll(op.Path, "{zone}", ".com")
		for _, prm := range op.Parameters {
			schema, _ := prm.Object["schema"].(map[string]any)
			if prm.In != "query" || schema["type"] != "array" {
				continue
			}
			n++
			t.Run(op.Path+" "+prm.Name, func(t *testing.T) {
				documented, ok := schema["maxItems"].(json.Number)
				if !ok {
					t.Fatalf("no maxItems documented")
				}
				limit, err := strconv.Atoi(documented.String())
				if err != nil {
					t.Fatal(err)
				}
				items := func(n int) string {
					ids := make([]string, n)
					for i := range ids {
						ids[i] = "x" + strconv.Itoa(i)
					}
					return url.Values{prm.Name: {strings.Join(ids, ",")}}.Encode()
				}
				x := send(t, http.MethodGet, p.url+base+"?"+items(limit))
				if x.resp.StatusCode != http.StatusOK && strings.Contains(string(x.body), "more than") {
					t.Errorf("%d items, the documented most: refused as too many: %s", limit, x.body)
				}
				c := apiCase{target: base + "?" + items(limit+1), path: op.Path, status: http.StatusBadRequest, wantCode: contracts.CodeInvalidParameter}
				x = c.run(t, d, p.url)
				var pr contracts.Problem
				decode(t, x.body, &pr)
				if pr.Param != prm.Name || !strings.Contains(pr.Detail, "more than "+documented.String()) {
					t.Errorf("%d items: got %+v, want a 400 naming %s and its limit", limit+1, pr, prm.Name)
				}
			})
		}
	}
	if n < 3 {
		t.Errorf("checked %d list parameters, want category, registrars and exclude at least", n)
	}
}

// wantField checks a top-level field of the body.
func wantField(name string, want any) func(t *testing.T, x exchange) {
	return func(t *testing.T, x exchange) {
		t.Helper()
		var body map[string]any
		decode(t, x.body, &body)
		got, ok := body[name]
		if !ok || got != want {
			t.Errorf("%s: got %v (present %v), want %v", name, got, ok, want)
		}
	}
}

// wantRegistrars checks the directory's registrars, in order.
func wantRegistrars(ids ...string) func(t *testing.T, x exchange) {
	return func(t *testing.T, x exchange) {
		t.Helper()
		var body struct {
			Registrars []struct {
				Registrar string `json:"registrar"`
			} `json:"registrars"`
		}
		decode(t, x.body, &body)
		var got []string
		for _, r := range body.Registrars {
			got = append(got, r.Registrar)
		}
		if !slices.Equal(got, ids) {
			t.Errorf("registrars %v, want %v", got, ids)
		}
	}
}

// wantNextLink checks that a page with a next_cursor links to the next page.
func wantNextLink(t *testing.T, x exchange) {
	t.Helper()
	var body struct {
		NextCursor *string `json:"next_cursor"`
	}
	decode(t, x.body, &body)
	link := strings.Join(x.resp.Header.Values("Link"), ", ")
	if body.NextCursor == nil || !strings.Contains(link, `rel="next"`) || !strings.Contains(link, url.QueryEscape(*body.NextCursor)) {
		t.Errorf("got next_cursor %v and Link %q, want a cursor and a rel=\"next\" link carrying it", body.NextCursor, link)
	}
}

// TestDeprecationHeaders announces a test-only deprecation of one route:
// its every answer carries Deprecation, Sunset and the changelog Link,
// beside its own headers, and the other routes carry none.
func TestDeprecationHeaders(t *testing.T) {
	_, js := bustest.Provisioned(t)
	publish(t, js, baseEvents()...)
	deprecated := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	cfg := apiConfig()
	cfg.Deprecations = []contracts.Deprecation{
		{Path: "/api/comparison/{zone}", What: "the native field", Deprecated: deprecated.AddDate(0, 1, 0),
			Sunset: deprecated.AddDate(1, 0, 0), Link: contracts.ChangelogURL + "#native"},
		{Path: "/api/comparison/{zone}", What: "the promo field", Deprecated: deprecated,
			Sunset: deprecated.AddDate(0, 6, 0), Link: contracts.ChangelogURL + "#promo"},
	}
	p := startPod(t, js, podConfig{cfg: cfg})
	d := openapitest.Load(t)
	wantLinks := []string{
		"<" + contracts.ChangelogURL + `#native>; rel="deprecation"; type="text/html"`,
		"<" + contracts.ChangelogURL + `#promo>; rel="deprecation"; type="text/html"`,
	}
	tests := []struct {
		apiCase
		deprecated bool
	}{
		{apiCase{name: "comparison", target: "/api/comparison/.com", path: "/api/comparison/{zone}", status: 200}, true},
		{apiCase{name: "HEAD", method: http.MethodHead, target: "/api/comparison/.com", path: "/api/comparison/{zone}", status: 200}, true},
		{apiCase{name: "revalidated", target: "/api/comparison/.com", path: "/api/comparison/{zone}", status: 304, revalid: "etag"}, true},
		{apiCase{name: "unknown zone", target: "/api/comparison/.nope", path: "/api/comparison/{zone}", status: 404}, true},
		{apiCase{name: "malformed zone", target: "/api/comparison/exa_mple", path: "/api/comparison/{zone}", status: 400}, true},
		{apiCase{name: "wrong key", target: "/api/comparison/.com", path: "/api/comparison/{zone}", status: 401,
			header: []string{"X-API-Key", "zp_wrong"}}, true},
		{apiCase{name: "preflight", method: http.MethodOptions, target: "/api/comparison/.com", path: "/api/comparison/{zone}", status: 204,
			header: []string{"Origin", "https://example.org", "Access-Control-Request-Method", "GET"}}, true},
		{apiCase{name: "method not allowed", method: http.MethodDelete, target: "/api/comparison/.com", status: 405, named: "MethodNotAllowed"}, true},
		{apiCase{name: "other route", target: "/api/domains", path: "/api/domains", status: 200}, false},
		{apiCase{name: "unrouted", target: "/api/nothing", status: 404, named: "NotFound"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := tt.run(t, d, p.url)
			// The response the request was validated against documents
			// the headers the route's every response carries.
			var r openapitest.Response
			var err error
			if tt.named != "" {
				r, err = d.NamedResponse(tt.named)
			} else {
				r, err = d.Response(cmp.Or(tt.method, http.MethodGet), tt.path, tt.status)
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"Deprecation", "Sunset", "Link"} {
				if _, ok := r.Headers[name]; !ok {
					t.Errorf("%s does not document %s, which a deprecated route's answers carry", r.Ref, name)
				}
			}
			h := x.resp.Header
			if !tt.deprecated {
				if h.Get("Deprecation") != "" || h.Get("Sunset") != "" || len(h.Values("Link")) != 0 {
					t.Errorf("not deprecated, but got Deprecation %q Sunset %q Link %q", h.Get("Deprecation"), h.Get("Sunset"), h.Values("Link"))
				}
				return
			}
			if got, want := h.Values("Deprecation"), []string{"@" + strconv.FormatInt(deprecated.Unix(), 10)}; !slices.Equal(got, want) {
				t.Errorf("Deprecation: got %q, want the earliest, %q", got, want)
			}
			if got, want := h.Values("Sunset"), []string{"Thu, 01 Jul 2027 00:00:00 GMT"}; !slices.Equal(got, want) {
				t.Errorf("Sunset: got %q, want the earliest, %q", got, want)
			}
			if got := h.Values("Link"); !slices.Equal(got, wantLinks) {
				t.Errorf("Link: got %q, want %q", got, wantLinks)
			}
		})
	}
}

// TestDeprecationsRefused checks that a server refuses a deprecation that
// breaks the promise (contracts.Deprecation.Validate) or that names a path
// no route serves, whose notice would never be given.
func TestDeprecationsRefused(t *testing.T) {
	at := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		edit    func(*api.Config, *contracts.Deprecation)
		wantErr string // "" is accepted
	}{
		{"valid", func(*api.Config, *contracts.Deprecation) {}, ""},
		{"an operations route", func(_ *api.Config, d *contracts.Deprecation) { d.Path = "/readyz" }, ""},
		{"short notice", func(_ *api.Config, d *contracts.Deprecation) { d.Sunset = at.AddDate(0, 5, 0) }, "sunset"},
		{"no link", func(_ *api.Config, d *contracts.Deprecation) { d.Link = "" }, "link"},
		{"a path no route serves", func(_ *api.Config, d *contracts.Deprecation) { d.Path = "/api/nothing" }, "no such route"},
		{"a trailing slash", func(_ *api.Config, d *contracts.Deprecation) { d.Path = "/api/domains/" }, "no such route"},
		{"metrics off the API port", func(c *api.Config, d *contracts.Deprecation) {
			c.MetricsOnAPI = false
			d.Path = "/metrics"
		}, "no such route"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := apiConfig()
			d := contracts.Deprecation{Path: "/api/comparison/{zone}", What: "the native field", Deprecated: at,
				Sunset: at.AddDate(0, 6, 0), Link: contracts.ChangelogURL + "#native"}
			tt.edit(cfg, &d)
			cfg.Deprecations = []contracts.Deprecation{d}
			// NewServer itself is under test, not a pod: it is built
			// by hand, on data it never serves.
			reg := prometheus.NewRegistry()
			srv, err := api.NewServer(*cfg, notReady(), nil, nil, slog.New(slog.DiscardHandler), reg, reg)
			if err == nil {
				srv.Close()
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("got %v, want the deprecation accepted", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), d.Path)):
				t.Errorf("got %v, want an error about %s naming %s", err, tt.wantErr, d.Path)
			}
		})
	}
}

// TestDeprecationsDefault checks that a server announces contracts'
// deprecations unless told otherwise.
func TestDeprecationsDefault(t *testing.T) {
	got, want := api.DefaultConfig().Deprecations, contracts.Deprecations()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("default deprecations: got %v, want contracts.Deprecations() %v", got, want)
	}
}
