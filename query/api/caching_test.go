package api_test

import (
	"bytes"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
	"github.com/zoneprice/zoneprice/contracts/eventtest"
	"github.com/zoneprice/zoneprice/query/querytest"
)

// TestHTTPCaching checks conditional requests and compression as a cache or
// a client library sees them: each representation has its own strong ETag,
// either validates the data, If-None-Match outranks If-Modified-Since, and
// Last-Modified moves when the body does, withdrawals included.
func TestHTTPCaching(t *testing.T) {
	_, js := bustest.Provisioned(t)
	publish(t, js, baseEvents()...)
	p := startPod(t, js, podConfig{})
	url := p.url + "/api/comparison/.com"

	plainResp, plain := get(t, url, "Accept-Encoding", "identity")
	for header, want := range map[string]string{
		"Cache-Control":    "public, max-age=300",
		"Vary":             "Accept, Accept-Encoding", // JSON or CSV (csv.go)
		"Content-Encoding": "",
	} {
		if got := plainResp.Header.Get(header); got != want {
			t.Errorf("plain 200: %s = %q, want %q", header, got, want)
		}
	}
	plainTag := plainResp.Header.Get("ETag")
	lastModified := plainResp.Header.Get("Last-Modified")
	if lm, err := http.ParseTime(lastModified); err != nil || lm.After(time.Now()) {
		t.Fatalf("Last-Modified %q: want when the stream stored the data, not in the future (%v)", lastModified, err)
	}

	gzResp, gz := get(t, url, "Accept-Encoding", "br;q=1.0, gzip;q=0.8")
	if got := gzResp.Header.Get("Content-Encoding"); got != "gzip" {
		t.Fatalf("Accept-Encoding with gzip: Content-Encoding %q, want gzip", got)
	}
	r, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatalf("gzip body: %v", err)
	}
	unzipped, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(unzipped, plain) {
		t.Fatalf("gzip body decompresses to %d bytes (err %v), want the %d plain bytes", len(unzipped), err, len(plain))
	}
	gzTag := gzResp.Header.Get("ETag")
	if gzTag == plainTag || gzResp.ContentLength != int64(len(gz)) || len(gz) >= len(plain) {
		t.Errorf("gzip: ETag %s (plain %s), length %d of %d bytes, plain %d; want its own tag and a smaller exact body",
			gzTag, plainTag, gzResp.ContentLength, len(gz), len(plain))
	}

	tests := []struct {
		name   string
		header []string
		want   int
		coding string
	}{
		{"refused gzip", []string{"Accept-Encoding", "gzip;q=0, *;q=0.5"}, http.StatusOK, ""},
		{"star", []string{"Accept-Encoding", "*"}, http.StatusOK, "gzip"},
		{"plain tag", []string{"Accept-Encoding", "identity", "If-None-Match", plainTag}, http.StatusNotModified, ""},
		{"gzip tag", []string{"Accept-Encoding", "gzip", "If-None-Match", `"x", ` + gzTag}, http.StatusNotModified, ""},
		// A tag names one representation (RFC 9110 13.1.2).
		{"gzip tag from a plain client", []string{"Accept-Encoding", "identity", "If-None-Match", gzTag}, http.StatusOK, ""},
		{"plain tag from a gzip client", []string{"Accept-Encoding", "gzip", "If-None-Match", plainTag}, http.StatusOK, "gzip"},
		{"weak form", []string{"Accept-Encoding", "identity", "If-None-Match", "W/" + plainTag}, http.StatusNotModified, ""},
		{"other tag", []string{"Accept-Encoding", "identity", "If-None-Match", `"0123"`}, http.StatusOK, ""},
		{"modified since", []string{"Accept-Encoding", "identity", "If-Modified-Since", lastModified}, http.StatusNotModified, ""},
		{"modified earlier", []string{"Accept-Encoding", "identity", "If-Modified-Since", epoch.Add(-time.Second).Format(http.TimeFormat)}, http.StatusOK, ""},
		{"garbage date", []string{"Accept-Encoding", "identity", "If-Modified-Since", "yesterday"}, http.StatusOK, ""},
		// RFC 9110 13.2.2: a tag that does not match wins over a date that does.
		{"tag outranks date", []string{"Accept-Encoding", "identity", "If-None-Match", `"0123"`, "If-Modified-Since", lastModified}, http.StatusOK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := get(t, url, tt.header...)
			if resp.StatusCode != tt.want || resp.Header.Get("Content-Encoding") != tt.coding {
				t.Fatalf("got %d with Content-Encoding %q, want %d %q", resp.StatusCode, resp.Header.Get("Content-Encoding"), tt.want, tt.coding)
			}
			if tt.want == http.StatusNotModified {
				if len(body) != 0 || resp.Header.Get("ETag") == "" || resp.Header.Get("Cache-Control") == "" ||
					resp.Header.Get("Vary") == "" || resp.Header.Get("Last-Modified") != lastModified {
					t.Errorf("304 with %d bytes and headers %v; want no body and the 200's validators", len(body), resp.Header)
				}
			}
		})
	}

	// A withdrawal leaves as_of where it was but changes the body: a client
	// holding the old date must get the new body. Dates have whole
	// seconds, so the change is published in a later second than the
	// data the client holds (see the README on If-Modified-Since).
	lm, _ := http.ParseTime(lastModified)
	querytest.Until(t, "the next second", func() bool { return time.Now().Truncate(time.Second).After(lm) })
	publish(t, js, eventtest.Withdrawal("alpha", ".com", epoch.Add(time.Minute)))
	querytest.Until(t, "the withdrawal to be served", func() bool {
		resp, _ := get(t, url, "Accept-Encoding", "identity", "If-Modified-Since", lastModified)
		later, err := http.ParseTime(resp.Header.Get("Last-Modified"))
		return resp.StatusCode == http.StatusOK && err == nil && later.After(lm)
	})
	for _, path := range []string{"/api/domains", "/api/domains/categories", "/api/comparison/zones", "/api/registrars"} {
		if resp, _ := get(t, p.url+path, "If-Modified-Since", lastModified); resp.StatusCode != http.StatusOK {
			t.Errorf("%s after the withdrawal: %d for the old date, want 200", path, resp.StatusCode)
		}
	}
}
