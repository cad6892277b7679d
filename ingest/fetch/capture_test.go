package fetch_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/ingest/fetch"
)

// TestCapture: a document fetched under WithCapture is saved byte for
// byte with its meta, the URL's secrets redacted; a 304 saves the body it
// answers with; a fetch without a capture saves nothing.
func TestCapture(t *testing.T) {
	body := "[{\"Name\":\"com\",\"Pricing\":{\"Price\":9.58}}]\r\n\x00odd bytes kept\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	at := time.Date(2026, 11, 28, 9, 30, 0, 0, time.UTC)
	capture, err := fetch.NewCapture(dir, func() time.Time { return at })
	if err != nil {
		t.Fatal(err)
	}
	c := client(fetch.Config{})
	if _, err := c.Get(context.Background(), srv.URL+"/other.json", nil); err != nil {
		t.Fatal(err)
	}
	ctx := fetch.WithCapture(context.Background(), capture, "namecheap-list")
	req := fetch.Request{URL: srv.URL + "/tlds.json?key=s3cret", Secrets: []string{"s3cret"}, Conditional: true}
	for range 2 {
		if _, err := c.Do(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	for n, status := range []int{200, 304} {
		base := filepath.Join(dir, "namecheap-list", "20261128T093000Z-"+string(rune('1'+n)))
		got, err := os.ReadFile(base + ".body")
		if err != nil || string(got) != body {
			t.Errorf("document %d: %q, %v; want the body byte for byte", n+1, got, err)
		}
		raw, err := os.ReadFile(base + ".json")
		if err != nil {
			t.Fatal(err)
		}
		var m fetch.Meta
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		want := fetch.Meta{Source: "namecheap-list", Method: "GET", URL: srv.URL + "/tlds.json?key=[REDACTED]", FetchedAt: at,
			Status: status, ContentType: "application/json; charset=utf-8", Body: filepath.Base(base) + ".body"}
		if status == 304 {
			want.ContentType = ""
		}
		if m != want {
			t.Errorf("meta %d = %+v, want %+v", n+1, m, want)
		}
		if strings.Contains(string(raw), "s3cret") {
			t.Errorf("meta %d holds the secret: %s", n+1, raw)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("capture directory holds %d entries, want the one source's", len(entries))
	}
}
