package api_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/query/querytest"
)

// TestQueryOptionErrors checks that every bad value is a 400 naming the
// parameter and what it takes.
func TestQueryOptionErrors(t *testing.T) {
	p := startPod(t, nil, podConfig{snaps: servingHistory(t)})
	tests := []struct {
		name, path, param, mention string
	}{
		{"unknown category", "/api/domains?category=finance,nope", "category", "technology"},
		{"empty category item", "/api/domains?category=finance,,idn", "category", "empty item"},
		{"empty q", "/api/domains?q=", "q", "empty"},
		{"long q", "/api/domains?q=" + strings.Repeat("a", 254), "q", "253"},
		{"catalog sort", "/api/domains?sort=registrar", "sort", "zone, register, renew, transfer, cost"},
		{"comparison sort", "/api/comparison/.com?sort=zone", "sort", "register, renew, transfer, cost, registrar"},
		{"years zero", "/api/domains?years=0", "years", "1 to 10"},
		{"years words", "/api/comparison/.com?years=two", "years", "1 to 10"},
		{"twice", "/api/domains?sort=zone&sort=renew", "sort", "more than once"},
		{"unknown currency", "/api/domains?currency=XYZ", "currency", "one of EUR, USD"},
		{"currency without rate", "/api/comparison/.com?currency=JPY", "currency", "no exchange rate"},
		{"limit", "/api/domains?limit=1001", "limit", "1 to 1000"},
		{"cursor without limit", "/api/domains?cursor=abc", "cursor", "limit"},
		{"forged cursor", "/api/domains?limit=1&cursor=abc", "cursor", "previous page"},
		{"registrar id", "/api/comparison/.com?registrars=Alpha_1", "registrars", "registrar id"},
		{"exclude id", "/api/comparison/.com?exclude=-x", "exclude", "registrar id"},
		{"comparison tax", "/api/comparison/.com?tax=maybe", "tax", "excluded, included or unknown"},
		{"catalog tax", "/api/domains?tax=", "tax", "empty"},
		{"history currency", "/api/comparison/.com/history?currency=XYZ", "currency", "one of EUR, USD"},
		{"history currency without rate", "/api/comparison/.com/history?currency=JPY", "currency", "no exchange rate"},
		{"history registrars", "/api/comparison/com/history?registrars=Alpha_1", "registrars", "registrar id"},
		{"history exclude", "/api/comparison/.com/history?exclude=alpha,,bravo", "exclude", "empty item"},
		{"history since", "/api/comparison/.com/history?since=yesterday", "since", "RFC 3339"},
		{"history since in 1999", "/api/comparison/.com/history?since=1999-12-31", "since", "in the years 2000 to 2200"},
		{"history since words", "/api/comparison/.com/history?since=yesterday", "since", "a date (2026-01-31)"},
		{"history since twice", "/api/comparison/.com/history?since=2026-11-01&since=2026-11-02", "since", "more than once"},
		{"changes limit zero", "/api/changes?limit=0", "limit", "1 to 500"},
		{"changes limit", "/api/changes?limit=501", "limit", "1 to 500"},
		{"changes limit words", "/api/changes?limit=ten", "limit", "1 to 500"},
		{"changes cursor", "/api/changes?cursor=forged", "cursor", "next_cursor"},
		{"changes empty cursor", "/api/changes?cursor=", "cursor", "empty"},
		{"changes zone", "/api/changes?zone=exa_mple", "zone", `".com"`},
		{"changes zone twice", "/api/changes?zone=com&zone=net", "zone", "more than once"},
		{"changes registrar", "/api/changes?registrar=Bad_Id", "registrar", "registrar id"},
		{"changes category", "/api/changes?category=nope", "category", "technology"},
		{"changes categories", "/api/changes?category=idn,generic", "category", "technology"},
		{"changes category twice", "/api/changes?category=idn&category=generic", "category", "more than once"},
		{"changes kind", "/api/changes?kind=known", "kind", "added, changed, withdrawn or dropped"},
		{"changes empty kind", "/api/changes?kind=added,,changed", "kind", "empty item"},
		{"changes kinds", "/api/changes?kind=added,changed,withdrawn,dropped,x", "kind", "more than 4"},
		{"changes since", "/api/changes?since=2026-13-01", "since", "RFC 3339"},
		{"changes since in 2201", "/api/changes?since=2201-01-01", "since", "in the years 2000 to 2200"},
		{"changes currency", "/api/changes?currency=JPY", "currency", "no exchange rate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := get(t, p.url+tt.path)
			var pr contracts.Problem
			decode(t, body, &pr)
			if resp.StatusCode != http.StatusBadRequest || pr.Code != contracts.CodeInvalidParameter || pr.Param != tt.param ||
				!strings.Contains(pr.Detail, tt.mention) || resp.Header.Get("Content-Type") != "application/problem+json" {
				t.Errorf("got %d %s, want 400 invalid-parameter naming %s and mentioning %q", resp.StatusCode, body, tt.param, tt.mention)
			}
		})
	}
}

// TestQueryOptionsServed checks options end to end: equivalent spellings
// share one body and ETag, the default-equivalent options give the
// pre-rendered body, pages link to the next one, and repeats come from the
// response cache.
func TestQueryOptionsServed(t *testing.T) {
	p := startPod(t, nil, podConfig{snaps: servingHistory(t)})

	etag := func(path string) string {
		t.Helper()
		resp, body := get(t, p.url+path)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %s", path, resp.StatusCode, body)
		}
		return resp.Header.Get("ETag")
	}
	same := [][]string{
		{"/api/domains", "/api/domains?sort=zone", "/api/domains?currency=usd", "/api/domains?utm_source=x"},
		{"/api/domains?category=idn,generic", "/api/domains?category=generic&category=IDN", "/api/domains?category=%20idn%20,generic"},
		{"/api/domains?q=CO.UK", "/api/domains?q=.co.uk", "/api/domains?q=%20co.uk"},
		{"/api/domains?q=%D0%A0%D0%A4", "/api/domains?q=.%D1%80%D1%84", "/api/domains?q=xn--p1ai"},
		{"/api/comparison/.com", "/api/comparison/com?sort=register", "/api/comparison/COM?currency=USD"},
		{"/api/comparison/.com?sort=cost", "/api/comparison/.com?years=1&sort=cost"},
		{"/api/comparison/.com?registrars=alpha,bravo", "/api/comparison/com?registrars=bravo&registrars=alpha"},
		{"/api/comparison/.com/history", "/api/comparison/COM/history?currency=usd", "/api/comparison/com./history?utm_source=x"},
		{"/api/comparison/.com/history?registrars=alpha,bravo", "/api/comparison/com/history?registrars=bravo&registrars=ALPHA"},
		{"/api/comparison/.com/history?since=2026-11-16", "/api/comparison/.com/history?since=2026-11-16T01:00:00%2B01:00"},
		{"/api/changes", "/api/changes?limit=50", "/api/changes?currency=USD&utm_source=x"},
		{"/api/changes?kind=changed,withdrawn", "/api/changes?kind=withdrawn&kind=CHANGED", "/api/changes?kind=changed,withdrawn,changed"},
		{"/api/changes?since=2026-11-15", "/api/changes?since=2026-11-15T00:00:00Z", "/api/changes?since=2026-11-15T00:00:00.9Z"},
		{"/api/changes?zone=.xn--p1ai", "/api/changes?zone=%D1%80%D1%84", "/api/changes?zone=XN--P1AI"},
	}
	for _, group := range same {
		want := etag(group[0])
		for _, path := range group[1:] {
			if got := etag(path); got != want {
				t.Errorf("%s has ETag %s, %s has %s; want the same body", path, got, group[0], want)
			}
		}
	}
	if etag("/api/domains?sort=-zone") == etag("/api/domains") {
		t.Error("sort=-zone gave the unsorted body")
	}
	if etag("/api/domains?q=co.uk") == etag("/api/domains") || etag("/api/domains?q=co.uk") == etag("/api/domains?q=xn--p1ai") {
		t.Error("q does not filter")
	}

	var page struct {
		Count int     `json:"count"`
		Next  *string `json:"next_cursor"`
		Zones []struct {
			Zone string `json:"zone"`
		} `json:"zones"`
	}
	var zones []string
	next := "/api/domains?limit=2&sort=register"
	for next != "" {
		resp, body := get(t, p.url+next)
		decode(t, body, &page)
		for _, z := range page.Zones {
			zones = append(zones, z.Zone)
		}
		link := resp.Header.Get("Link")
		if (page.Next == nil) != (link == "") {
			t.Fatalf("%s: next_cursor %v but Link %q", next, page.Next, link)
		}
		next = ""
		if page.Next != nil {
			target, ok := strings.CutSuffix(strings.TrimPrefix(link, "<"), `>; rel="next"`)
			u, err := url.Parse(target)
			if !ok || err != nil || u.Query().Get("cursor") != *page.Next || u.Query().Get("sort") != "register" {
				t.Fatalf("Link %q does not lead to the next page of cursor %s", link, *page.Next)
			}
			next = target
		}
	}
	if strings.Join(zones, " ") != ".xn--p1ai .co.uk .com" || page.Count != 3 {
		t.Errorf("pages by registration: %v (count %d), want .xn--p1ai .co.uk .com", zones, page.Count)
	}

	// The cache admits entries asynchronously: repeat until one is served
	// from it.
	before := prometheusCounter(t, p.reg, "zoneprice_response_cache_hits_total", "", "")
	first := etag("/api/comparison/.com?years=3&exclude=india")
	querytest.Until(t, "a repeated request served from the response cache", func() bool {
		if got := etag("/api/comparison/.com?exclude=india&years=3"); got != first {
			t.Fatalf("the same options gave ETag %s, then %s", first, got)
		}
		return prometheusCounter(t, p.reg, "zoneprice_response_cache_hits_total", "", "") > before
	})
}
