package fetch_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/ingest/fetch"
)

func client(cfg fetch.Config) *fetch.Client {
	if cfg.BaseDelay == 0 {
		cfg.BaseDelay = time.Millisecond
	}
	return fetch.New(cfg, nil, slog.New(slog.DiscardHandler))
}

// sequence answers request n with handlers[n], repeating the last.
func sequence(t *testing.T, handlers ...http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		handlers[min(i, len(handlers)-1)](w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func status(code int, header ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.WriteHeader(code)
		_, _ = w.Write([]byte(`{"status":"ERROR","message":"busy"}`))
	}
}

func ok(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(body)) }
}

func TestRetriesServerErrors(t *testing.T) {
	srv, n := sequence(t, status(500), status(502), ok("list"))
	resp, err := client(fetch.Config{}).Get(context.Background(), srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Body) != "list" || n.Load() != 3 {
		t.Errorf("got body %q after %d requests, want \"list\" after 3", resp.Body, n.Load())
	}
}

func TestGivesUpAfterAttempts(t *testing.T) {
	srv, n := sequence(t, status(503))
	_, err := client(fetch.Config{Attempts: 3}).Get(context.Background(), srv.URL, nil)
	var se *fetch.StatusError
	if !errors.As(err, &se) || se.Status != 503 {
		t.Fatalf("err = %v, want a 503 StatusError", err)
	}
	if !strings.Contains(err.Error(), "after 3 attempts") || !strings.Contains(err.Error(), "busy") {
		t.Errorf("error %q does not say how often it tried and what the server said", err)
	}
	if n.Load() != 3 {
		t.Errorf("%d requests, want 3", n.Load())
	}
}

func TestClientErrorNotRetried(t *testing.T) {
	srv, n := sequence(t, status(403))
	_, err := client(fetch.Config{}).Get(context.Background(), srv.URL, nil)
	var se *fetch.StatusError
	if !errors.As(err, &se) || se.Status != 403 {
		t.Fatalf("err = %v, want a 403 StatusError", err)
	}
	if n.Load() != 1 {
		t.Errorf("%d requests, want 1: a 403 does not get better by asking again", n.Load())
	}
}

func TestRetryAfterHonoured(t *testing.T) {
	srv, n := sequence(t, status(429, "Retry-After", "7"), ok("list"))
	c := client(fetch.Config{})
	waits := fetch.RecordWaits(c)
	resp, err := c.Get(context.Background(), srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Body) != "list" || n.Load() != 2 {
		t.Errorf("got %q after %d requests, want the list on the second", resp.Body, n.Load())
	}
	// BaseDelay is a millisecond: only Retry-After explains seven seconds.
	if len(*waits) != 1 || (*waits)[0] != 7*time.Second {
		t.Errorf("waited %v between attempts, want [7s]", *waits)
	}
}

func TestRetryAfterForms(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name, in string
		want     time.Duration
	}{
		{"seconds", "120", 2 * time.Minute},
		{"http date", "Sun, 22 Nov 2026 10:00:30 GMT", 30 * time.Second},
		{"date in the past", "Sun, 22 Nov 2026 09:00:00 GMT", 0},
		{"negative", "-5", 0},
		{"garbage", "soon", 0},
		{"overflowing seconds", "18446744074", math.MaxInt64},
		{"huge seconds", "9300000000", math.MaxInt64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fetch.RetryAfter(tt.in, now); got != tt.want {
				t.Errorf("RetryAfter(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestBackoffGrowsAndFitsDeadline(t *testing.T) {
	srv, _ := sequence(t, status(500))
	c := client(fetch.Config{Attempts: 4, BaseDelay: time.Second, MaxDelay: time.Minute})
	waits := fetch.RecordWaits(c)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if _, err := c.Get(ctx, srv.URL, nil); err == nil {
		t.Fatal("a server that only fails gave no error")
	}
	bounds := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}
	if len(*waits) != len(bounds) {
		t.Fatalf("waits %v, want %d", *waits, len(bounds))
	}
	for i, w := range *waits {
		if w <= 0 || w > bounds[i] {
			t.Errorf("wait %d = %v, want in (0, %v]", i+1, w, bounds[i])
		}
	}
}

func TestRetryAfterTooLong(t *testing.T) {
	srv, n := sequence(t, status(429, "Retry-After", "3600"))
	_, err := client(fetch.Config{MaxRetryAfter: time.Minute}).Get(context.Background(), srv.URL, nil)
	if err == nil || !strings.Contains(err.Error(), "retry after 1h0m0s") {
		t.Fatalf("err = %v, want one naming the hour the server asked for", err)
	}
	if n.Load() != 1 {
		t.Errorf("%d requests, want 1", n.Load())
	}
}

func TestRetryAfterPastDeadline(t *testing.T) {
	srv, _ := sequence(t, status(503, "Retry-After", "30"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err := client(fetch.Config{}).Get(ctx, srv.URL, nil)
	if err == nil || !strings.Contains(err.Error(), "past the fetch's deadline") {
		t.Fatalf("err = %v, want one saying the retry would miss the deadline", err)
	}
}

func TestTimeoutRetried(t *testing.T) {
	release := make(chan struct{})
	srv, n := sequence(t,
		func(http.ResponseWriter, *http.Request) { <-release },
		ok("list"),
	)
	// Cleanups run last first: release the stuck handler before the
	// server's Close waits for it.
	t.Cleanup(func() { close(release) })
	hc := &http.Client{Timeout: 100 * time.Millisecond}
	c := fetch.New(fetch.Config{BaseDelay: time.Millisecond}, hc, slog.New(slog.DiscardHandler))
	resp, err := c.Get(context.Background(), srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Body) != "list" || n.Load() != 2 {
		t.Errorf("got %q after %d requests, want the list on the second", resp.Body, n.Load())
	}
}

func TestTruncatedBodyRetried(t *testing.T) {
	srv, n := sequence(t,
		func(w http.ResponseWriter, _ *http.Request) {
			// Promise more than is sent, then cut the connection.
			w.Header().Set("Content-Length", "1000")
			_, _ = w.Write([]byte(`{"pricing":{`))
			panic(http.ErrAbortHandler)
		},
		ok("list"),
	)
	resp, err := client(fetch.Config{}).Get(context.Background(), srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Body) != "list" || n.Load() != 2 {
		t.Errorf("got %q after %d requests", resp.Body, n.Load())
	}
}

func TestConditionalRequests(t *testing.T) {
	var gotINM, gotIMS atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotINM.Store(r.Header.Get("If-None-Match"))
		gotIMS.Store(r.Header.Get("If-Modified-Since"))
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Last-Modified", "Fri, 20 Nov 2026 10:00:00 GMT")
		_, _ = w.Write([]byte("list v1"))
	}))
	t.Cleanup(srv.Close)
	c := client(fetch.Config{})
	first, err := c.Get(context.Background(), srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	if first.NotModified || gotINM.Load() != "" {
		t.Fatalf("first request was conditional (If-None-Match %q)", gotINM.Load())
	}
	second, err := c.Get(context.Background(), srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	if gotINM.Load() != `"v1"` || gotIMS.Load() != "Fri, 20 Nov 2026 10:00:00 GMT" {
		t.Errorf("second request sent If-None-Match %q, If-Modified-Since %q", gotINM.Load(), gotIMS.Load())
	}
	if !second.NotModified || string(second.Body) != "list v1" {
		t.Errorf("304 answered NotModified=%v body %q, want the remembered body", second.NotModified, second.Body)
	}
}

func TestUserAgentAndBodyResent(t *testing.T) {
	var agents, bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := make([]byte, 64)
		k, _ := r.Body.Read(b)
		agents = append(agents, r.UserAgent())
		bodies = append(bodies, string(b[:k]))
		if len(agents) == 1 {
			w.WriteHeader(500)
			return
		}
		_, _ = w.Write([]byte("ok"))
	}))
	t.Cleanup(srv.Close)
	_, err := client(fetch.Config{}).Do(context.Background(), fetch.Request{Method: http.MethodPost, URL: srv.URL, Body: []byte("{}")})
	if err != nil {
		t.Fatal(err)
	}
	for i := range agents {
		if agents[i] != fetch.DefaultUserAgent || bodies[i] != "{}" {
			t.Errorf("request %d: User-Agent %q body %q", i+1, agents[i], bodies[i])
		}
	}
}

func TestBodyLimit(t *testing.T) {
	srv, _ := sequence(t, ok(strings.Repeat("x", 2048)))
	_, err := client(fetch.Config{MaxBody: 1024}).Get(context.Background(), srv.URL, nil)
	if err == nil || !strings.Contains(err.Error(), "larger than 1024 bytes") {
		t.Fatalf("err = %v, want the body limit named", err)
	}
}

func TestUnknownHostNotRetried(t *testing.T) {
	var dials atomic.Int32
	hc := &http.Client{Transport: &http.Transport{
		DialContext: func(context.Context, string, string) (net.Conn, error) {
			dials.Add(1)
			return nil, &net.DNSError{Err: "no such host", Name: "api.example.invalid", IsNotFound: true}
		},
	}}
	c := fetch.New(fetch.Config{BaseDelay: time.Millisecond}, hc, slog.New(slog.DiscardHandler))
	_, err := c.Get(context.Background(), "http://api.example.invalid/pricing", nil)
	if err == nil || !strings.Contains(err.Error(), "no such host") {
		t.Fatalf("err = %v, want the DNS failure", err)
	}
	if dials.Load() != 1 {
		t.Errorf("%d dials, want 1: an unknown host is not retried", dials.Load())
	}
	if strings.Contains(err.Error(), "attempts") {
		t.Errorf("error %q speaks of attempts; there was one", err)
	}
}

func TestSecretsNotLogged(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(500)
		_, _ = w.Write([]byte("invalid key s3cr3t-key"))
	}))
	t.Cleanup(srv.Close)
	var logged strings.Builder
	c := fetch.New(fetch.Config{BaseDelay: time.Millisecond, Attempts: 2}, nil, slog.New(slog.NewTextHandler(&logged, nil)))
	_, err := c.Do(context.Background(), fetch.Request{URL: srv.URL + "/?key=s3cr3t-key", Secrets: []string{"s3cr3t-key"}})
	if err == nil {
		t.Fatal("no error from a failing server")
	}
	if !strings.Contains(logged.String(), "retrying") {
		t.Fatalf("no retry logged: %q", logged.String())
	}
	if strings.Contains(logged.String(), "s3cr3t-key") {
		t.Errorf("the log holds the secret: %s", logged.String())
	}
}

func TestBackoffShrinksToDeadline(t *testing.T) {
	srv, n := sequence(t, status(500))
	c := client(fetch.Config{Attempts: 2, BaseDelay: time.Minute, MaxDelay: time.Minute})
	waits := fetch.RecordWaits(c)
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	if _, err := c.Get(ctx, srv.URL, nil); err == nil {
		t.Fatal("a server that only fails gave no error")
	}
	// A backoff of up to a minute would pass the deadline: it shrinks to
	// leave the second attempt a tenth of what remained.
	if len(*waits) != 1 || (*waits)[0] <= 0 || (*waits)[0] > 1350*time.Millisecond || n.Load() != 2 {
		t.Errorf("waits %v and %d requests, want one wait within 90%% of the 1.5s left and 2 requests", *waits, n.Load())
	}
}

func TestCheckURL(t *testing.T) {
	for _, tt := range []struct {
		in string
		ok bool
	}{
		{"", true},
		{"https://api.porkbun.com/api/json/v3/pricing/get", true},
		{"http://127.0.0.1:8080/x", true},
		{"ftp://example.org/list", false},
		{"/relative/path", false},
		{"https://", false},
		{"://bad", false},
	} {
		if err := fetch.CheckURL(tt.in); (err == nil) != tt.ok {
			t.Errorf("CheckURL(%q) = %v, want ok %v", tt.in, err, tt.ok)
		}
	}
}

// TestOneRequestPerHost fetches from one host on many goroutines: the
// server never sees two requests at once.
func TestOneRequestPerHost(t *testing.T) {
	var inFlight, most atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(5 * time.Millisecond) // long enough for others to arrive
		_, _ = w.Write([]byte("ok"))
	}))
	t.Cleanup(srv.Close)
	c := fetch.New(fetch.Config{}, srv.Client(), slog.New(slog.DiscardHandler))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if _, err := c.Do(context.Background(), fetch.Request{URL: fmt.Sprintf("%s/list?page=%d", srv.URL, i)}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got := most.Load(); got != 1 {
		t.Errorf("%d requests at once to one host, want 1", got)
	}
}
