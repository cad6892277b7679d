package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/zoneprice/zoneprice/contracts"
)

// TestBenchPathsHavePages keeps the pages people open among the measured
// endpoints: the catalog page and the first zone's page.
func TestBenchPathsHavePages(t *testing.T) {
	paths := benchPaths([]contracts.Zone{{ASCII: ".aaa", Unicode: ".aaa"}, {ASCII: ".abb", Unicode: ".abb"}})
	for _, want := range []string{"/api/domains", "/api/comparison/.aaa", "/", "/zones/.aaa"} {
		if !slices.Contains(paths, want) {
			t.Errorf("benchPaths %q lack %s", paths, want)
		}
	}
}

// TestBareMux captures responses from a stand-in for the real service and
// checks that the bare server answers each path with the same headers and
// bytes, and "/" at "/" alone.
func TestBareMux(t *testing.T) {
	bodies := map[string]string{
		"/":            "<!DOCTYPE html><title>catalog</title>",
		"/zones/.aaa":  "<!DOCTYPE html><title>.aaa</title>",
		"/api/domains": `{"zones":[]}`,
		"/api/changes": `{"changes":[]}`,
	}
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := bodies[r.URL.Path]
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
	paths := []string{"/", "/zones/.aaa", "/api/domains", "/api/changes"}
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
	resp, err := client.Get(bare.URL + "/nope")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("the bare server answers /nope %d: \"/\" must match itself alone", resp.StatusCode)
	}
}
