package api_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mmcdole/gofeed"

	"github.com/zoneprice/zoneprice/contracts/eventtest"
)

// feedPod serves baseEvents with historyEvents' history, alpha named with
// markup and an ampersand, which a feed must carry as text, and charlie
// named plainly.
func feedPod(t *testing.T) *pod {
	t.Helper()
	f := serving(t, append(baseEvents(),
		eventtest.Status("alpha", "Alpha & <Co>", time.Hour, epoch, 3),
		eventtest.Status("charlie", "Charlie", time.Hour, epoch, 1))...)
	f.hist = historyOf(t, historyEvents()...)
	return startPod(t, nil, podConfig{snaps: f})
}

// parseFeed parses an Atom feed with gofeed, an independent parser.
func parseFeed(t *testing.T, body []byte) *gofeed.Feed {
	t.Helper()
	f, err := gofeed.NewParser().ParseString(string(body))
	if err != nil {
		t.Fatalf("gofeed: %v\n%s", err, body)
	}
	if f.FeedType != "atom" {
		t.Fatalf("gofeed reads a %q feed", f.FeedType)
	}
	return f
}

// TestFeeds reads each feed with gofeed and checks it against the API's
// page of the same changes: the same changes in the same order, each
// entry's id the change's, its time when it was observed, its link the
// zone's page.
func TestFeeds(t *testing.T) {
	p := feedPod(t)
	for _, tt := range []struct {
		feed, changes, title string
	}{
		{"/changes.atom", "/api/changes?limit=50", "zoneprice: price changes"},
		{"/drops.atom", "/api/changes?kind=dropped&limit=50", "zoneprice: price drops"},
		{"/zones/.com/changes.atom", "/api/changes?zone=.com&limit=50", "zoneprice: .com price changes"},
		{"/zones/.xn--p1ai/changes.atom", "/api/changes?zone=.xn--p1ai&limit=50", "zoneprice: .рф price changes"},
	} {
		t.Run(tt.feed, func(t *testing.T) {
			resp, body := get(t, p.url+tt.feed)
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/atom+xml; charset=utf-8" {
				t.Fatalf("%d, %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
			checkAtom(t, body)
			f := parseFeed(t, body)
			var page changesPage
			decode(t, send(t, http.MethodGet, p.url+tt.changes).body, &page)
			if f.Title != tt.title || len(f.Items) != len(page.Changes) || len(f.Items) == 0 {
				t.Fatalf("feed %q with %d entries; want %q with the API's %d", f.Title, len(f.Items), tt.title, len(page.Changes))
			}
			for i, it := range f.Items {
				ch := page.Changes[i]
				if it.GUID != "urn:zoneprice:change:"+ch.ID {
					t.Errorf("entry %d: id %q, want the change's %s", i, it.GUID, ch.ID)
				}
				if it.UpdatedParsed == nil || !it.UpdatedParsed.Equal(ch.ObservedAt) {
					t.Errorf("entry %d: updated %v, observed at %v", i, it.UpdatedParsed, ch.ObservedAt)
				}
				if it.Link != "/zones/"+ch.Zone {
					t.Errorf("entry %d: link %q, want the zone's page", i, it.Link)
				}
				if !slices.Contains(it.Categories, ch.Kind) || slices.Contains(it.Categories, "dropped") != ch.Dropped {
					t.Errorf("entry %d: categories %q for a %s change, dropped %v", i, it.Categories, ch.Kind, ch.Dropped)
				}
				if !strings.HasPrefix(it.Title, ch.Unicode+" at ") || it.Description == "" {
					t.Errorf("entry %d: title %q, summary %q", i, it.Title, it.Description)
				}
			}
			if tt.feed == "/drops.atom" && len(f.Items) == len(parseFeed(t, mustGet(t, p.url+"/changes.atom")).Items) {
				t.Errorf("the drops feed holds every change")
			}

			// Rendered once: the same bytes again, and a 304 for its tag.
			_, again := get(t, p.url+tt.feed)
			re, _ := get(t, p.url+tt.feed, "If-None-Match", resp.Header.Get("ETag"))
			if !bytes.Equal(again, body) || resp.Header.Get("ETag") == "" || re.StatusCode != http.StatusNotModified {
				t.Errorf("again: same bytes %v; revalidated with %q: %d", bytes.Equal(again, body), resp.Header.Get("ETag"), re.StatusCode)
			}
			gz := send(t, http.MethodGet, p.url+tt.feed, "Accept-Encoding", "gzip")
			if gz.resp.Header.Get("Content-Encoding") != "gzip" || !bytes.Equal(gz.body, body) {
				t.Errorf("gzip: %q", gz.resp.Header.Get("Content-Encoding"))
			}
		})
	}
}

func mustGet(t *testing.T, url string) []byte {
	t.Helper()
	resp, body := get(t, url)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
	return body
}

// TestFeedTitles: an entry's title says what changed in the registrar's
// own currency, by the registrar's name, its markup as text.
func TestFeedTitles(t *testing.T) {
	p := feedPod(t)
	f := parseFeed(t, mustGet(t, p.url+"/changes.atom"))
	titles := map[string]bool{}
	for _, it := range f.Items {
		titles[it.Title] = true
	}
	for _, want := range []string{
		".com at Alpha & <Co>: register $10.68 → $9.68, renew $11.37 → $10.37, transfer $10.68 → $9.68",
		".com at bravo: register $9.99 → $10.99",
		".com at Charlie: register €9.99 → €8.99",
		".com at delta: no longer offered",
		".com at delta: now offered, register $15.00, renew $15.00, transfer $15.00",
		".рф at bravo: transfer $3.00 → $2.50",
	} {
		if !titles[want] {
			t.Errorf("no entry %q in %q", want, slices.Sorted(maps.Keys(titles)))
		}
	}
}

// checkAtom reads body with encoding/xml, strictly, and checks what RFC
// 4287 requires: an atom:feed with one id, title and updated, an author
// (for the entries, which have none of their own) and a self link; and
// entries with one id (an IRI), title and updated (RFC 3339) each and an
// alternate link, as they have no content.
func checkAtom(t *testing.T, body []byte) {
	t.Helper()
	type link struct {
		Rel  string `xml:"rel,attr"`
		Href string `xml:"href,attr"`
	}
	type entry struct {
		ID      []string `xml:"http://www.w3.org/2005/Atom id"`
		Titles  []string `xml:"http://www.w3.org/2005/Atom title"`
		Updates []string `xml:"http://www.w3.org/2005/Atom updated"`
		Links   []link   `xml:"http://www.w3.org/2005/Atom link"`
	}
	var doc struct {
		XMLName xml.Name
		ID      []string `xml:"http://www.w3.org/2005/Atom id"`
		Title   []string `xml:"http://www.w3.org/2005/Atom title"`
		Updated []string `xml:"http://www.w3.org/2005/Atom updated"`
		Author  []struct {
			Name string `xml:"http://www.w3.org/2005/Atom name"`
		} `xml:"http://www.w3.org/2005/Atom author"`
		Links   []link  `xml:"http://www.w3.org/2005/Atom link"`
		Entries []entry `xml:"http://www.w3.org/2005/Atom entry"`
	}
	if !bytes.HasPrefix(body, []byte(`<?xml version="1.0" encoding="UTF-8"?>`)) {
		t.Errorf("no XML declaration: %.60s", body)
	}
	// Well-formed to the end: every token, strictly.
	d := xml.NewDecoder(bytes.NewReader(body))
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
	}
	if err := xml.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.XMLName.Space != "http://www.w3.org/2005/Atom" || doc.XMLName.Local != "feed" {
		t.Errorf("root %v, want atom:feed", doc.XMLName)
	}
	if len(doc.ID) != 1 || len(doc.Title) != 1 || len(doc.Updated) != 1 || len(doc.Author) != 1 || doc.Author[0].Name == "" {
		t.Errorf("feed: %d ids, %d titles, %d updated, authors %v; want one each", len(doc.ID), len(doc.Title), len(doc.Updated), doc.Author)
	}
	checkTime(t, "feed updated", doc.Updated)
	if !slices.ContainsFunc(doc.Links, func(l link) bool { return l.Rel == "self" && strings.HasSuffix(l.Href, ".atom") }) {
		t.Errorf("feed links %v: no self link", doc.Links)
	}
	ids := map[string]bool{}
	for i, e := range doc.Entries {
		if len(e.ID) != 1 || !strings.HasPrefix(e.ID[0], "urn:zoneprice:change:") || ids[e.ID[0]] {
			t.Errorf("entry %d: ids %q: want one IRI, unique in the feed", i, e.ID)
		} else {
			ids[e.ID[0]] = true
		}
		if len(e.Titles) != 1 || e.Titles[0] == "" {
			t.Errorf("entry %d: titles %q", i, e.Titles)
		}
		checkTime(t, "entry updated", e.Updates)
		if !slices.ContainsFunc(e.Links, func(l link) bool { return l.Rel == "alternate" && l.Href != "" }) {
			t.Errorf("entry %d: links %v: an entry without content needs an alternate link", i, e.Links)
		}
	}
}

func checkTime(t *testing.T, what string, values []string) {
	t.Helper()
	if len(values) != 1 {
		t.Errorf("%s: %q, want one", what, values)
		return
	}
	if _, err := time.Parse(time.RFC3339, values[0]); err != nil {
		t.Errorf("%s: %v", what, err)
	}
}

// TestFeedAnswers: a zone's feed in any form, unknown and malformed
// zones, and the history still loading.
func TestFeedAnswers(t *testing.T) {
	p := feedPod(t)
	for _, tt := range []struct {
		name, target string
		status       int
		location     string
	}{
		{name: "as typed", target: "/zones/COM/changes.atom", status: 301, location: "/zones/.com/changes.atom"},
		{name: "unicode", target: "/zones/.%D1%80%D1%84/changes.atom", status: 301, location: "/zones/.xn--p1ai/changes.atom"},
		{name: "with prices, without changes", target: "/zones/.co.uk/changes.atom", status: 200},
		{name: "unknown", target: "/zones/.nope/changes.atom", status: 404},
		{name: "malformed", target: "/zones/exa_mple/changes.atom", status: 400},
		{name: "HEAD", target: "/changes.atom", status: 200},
	} {
		t.Run(tt.name, func(t *testing.T) {
			method := http.MethodGet
			if tt.name == "HEAD" {
				method = http.MethodHead
			}
			req, _ := http.NewRequest(method, p.url+tt.target, nil)
			resp, err := noRedirects.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.status || resp.Header.Get("Location") != tt.location {
				t.Errorf("%d, Location %q; want %d, %q", resp.StatusCode, resp.Header.Get("Location"), tt.status, tt.location)
			}
		})
	}
	// A zone whose changes are all its sample's, and none kept: an empty
	// feed is still a feed.
	f := parseFeed(t, mustGet(t, p.url+"/zones/.co.uk/changes.atom"))
	if len(f.Items) != 0 || f.Title != "zoneprice: .co.uk price changes" {
		t.Errorf(".co.uk: %q with %d entries", f.Title, len(f.Items))
	}

	loading := startPod(t, nil, podConfig{snaps: serving(t, baseEvents()...)})
	resp, _ := get(t, loading.url+"/drops.atom")
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("while the history loads: %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
}

// TestPagesLinkFeeds: the catalog and a zone's page name their feeds in
// their heads, where feed readers look, and link them and the CSV.
func TestPagesLinkFeeds(t *testing.T) {
	p := feedPod(t)
	for _, tt := range []struct {
		page string
		want []string
	}{
		{"/", []string{
			`<link rel="alternate" type="application/atom+xml" title="zoneprice: price drops" href="/drops.atom">`,
			`<link rel="alternate" type="application/atom+xml" title="zoneprice: price changes" href="/changes.atom">`,
			`href="/api/domains?format=csv&amp;years=3"`,
		}},
		{"/zones/.xn--p1ai", []string{
			`<link rel="alternate" type="application/atom+xml" title="zoneprice: .рф price changes" href="/zones/.xn--p1ai/changes.atom">`,
			`href="/api/comparison/.xn--p1ai?format=csv&amp;years=3"`,
		}},
	} {
		_, body := page(t, p.url+tt.page)
		checkPage(t, body)
		for _, w := range tt.want {
			if !bytes.Contains(body, []byte(w)) {
				t.Errorf("%s lacks %s", tt.page, w)
			}
		}
	}
	for _, link := range []string{"/api/domains?format=csv&years=3", "/api/comparison/.xn--p1ai?format=csv&years=3"} {
		resp, _ := get(t, p.url+link)
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") {
			t.Errorf("%s: %d %s", link, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}
}
