package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zoneprice/zoneprice/contracts"
)

// TestBenchPathsHavePages keeps the pages people open among the measured
// endpoints: the catalog page and the first zone's page.
func TestBenchPathsHavePages(t *testing.T) {
	paths := benchPaths([]contracts.Zone{{ASCII: ".aaa", Unicode: ".aaa"}, {ASCII: ".abb", Unicode: ".abb"}})
	for _, want := range []string{"/api/domains", "/api/comparison/.aaa", "/", "/zones/.aaa",
		"/api/domains?format=csv", "/api/comparison/.aaa?format=csv", "/changes.atom", "/zones/.aaa/changes.atom"} {
		if !slices.Contains(paths, want) {
			t.Errorf("benchPaths %q lack %s", paths, want)
		}
	}
}

// TestBareMux captures responses from a stand-in for the real service and
// checks that the bare server answers each path, and each query of a path,
// with the same headers and bytes, and "/" at "/" alone.
func TestBareMux(t *testing.T) {
	bodies := map[string]string{
		"/":                       "<!DOCTYPE html><title>catalog</title>",
		"/zones/.aaa":             "<!DOCTYPE html><title>.aaa</title>",
		"/api/domains":            `{"zones":[]}`,
		"/api/domains?format=csv": "zone,unicode\r\n",
		"/api/changes":            `{"changes":[]}`,
	}
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := bodies[r.URL.RequestURI()]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", "default-src 'none'")
		w.Header().Set("Etag", `"`+r.URL.Path+`"`)
		_, _ = io.WriteString(w, body)
	}))
	defer origin.Close()
	paths := []string{"/", "/zones/.aaa", "/api/domains", "/api/domains?format=csv", "/api/changes"}
	mux, err := bareMux(context.Background(), origin.Client(), origin.URL, paths)
	if err != nil {
		t.Fatal(err)
	}
	bare := httptest.NewServer(mux)
	defer bare.Close()
	client := bare.Client()
	for _, p := range paths {
		n, err := sameResponses(context.Background(), client, origin.URL, bare.URL, p)
		if err != nil {
			t.Error(err)
		}
		if n != len(bodies[p]) {
			t.Errorf("%s: %d bytes, want %d", p, n, len(bodies[p]))
		}
	}
	for _, target := range []string{"/nope", "/api/domains?format=xml"} {
		resp, err := client.Get(bare.URL + target)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("the bare server answers %s %d: \"/\" must match itself alone, a path only its queries", target, resp.StatusCode)
		}
	}
}

// TestBareMCP serves a tool from a stand-in for the real service with the
// SDK, and checks that the bare MCP handler answers the same call with the
// same bytes, and another tool not at all.
func TestBareMCP(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "origin", Version: "1"}, nil)
	for _, name := range []string{"compare_zone", "find_zones"} {
		srv.AddTool(&sdk.Tool{Name: name, InputSchema: map[string]any{"type": "object"}},
			func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				body := `{"zone":".aaa","prices":[{"registrar":"r1","register":9.58}],"args":` + string(req.Params.Arguments) + `}`
				return &sdk.CallToolResult{StructuredContent: json.RawMessage(body), Content: []sdk.Content{&sdk.TextContent{Text: body}}}, nil
			})
	}
	mux := http.NewServeMux()
	mux.Handle("POST /mcp", sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv },
		&sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true}))
	origin := httptest.NewServer(mux)
	defer origin.Close()

	ctx := context.Background()
	call := mcpRequest(".aaa")
	h, err := bareMCP(ctx, origin.Client(), origin.URL, call)
	if err != nil {
		t.Fatal(err)
	}
	bareMux := http.NewServeMux()
	bareMux.Handle("POST /mcp", h)
	bare := httptest.NewServer(bareMux)
	defer bare.Close()
	n, err := sameMCP(ctx, bare.Client(), origin.URL, bare.URL, call)
	if err != nil || n < 100 {
		t.Errorf("same answers: %d bytes, %v", n, err)
	}
	other := strings.Replace(call, "compare_zone", "find_zones", 1)
	if _, err := sameMCP(ctx, bare.Client(), origin.URL, bare.URL, other); err == nil {
		t.Error("the bare handler answers a tool it does not have as the origin does")
	}
	failing := strings.Replace(call, "compare_zone", "no_such_tool", 1)
	if _, err := bareMCP(ctx, origin.Client(), origin.URL, failing); err == nil {
		t.Error("bareMCP copies a failed call")
	}
}
