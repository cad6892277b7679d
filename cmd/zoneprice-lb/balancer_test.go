package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/cmd/internal/cmdtest"
	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/query/querytest"
)

// pod is a stand-in query pod: it answers /readyz as told and names
// itself in every other answer.
type pod struct {
	name   string
	srv    *httptest.Server
	ready  atomic.Bool
	served atomic.Int64
}

func newPod(t *testing.T, name string) *pod {
	t.Helper()
	p := &pod{name: name}
	p.ready.Store(true)
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/readyz" {
			if !p.ready.Load() {
				w.WriteHeader(http.StatusServiceUnavailable)
			}
			return
		}
		p.served.Add(1)
		io.WriteString(w, p.name)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

// hangUp is a backend that is ready but drops every other connection
// before answering, as a pod killed mid-request does.
func hangUp(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/readyz" {
			return
		}
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		conn.Close()
	}))
	t.Cleanup(srv.Close)
	return srv
}

// closedURL is the URL of a server that was there and is gone: its port
// refuses connections.
func closedURL(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	return srv.URL
}

func newBalancer(t *testing.T, backends ...string) (*Balancer, *httptest.Server) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Backends = backends
	lb, err := NewBalancer(cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	front := httptest.NewServer(lb)
	t.Cleanup(front.Close)
	return lb, front
}

func get(t *testing.T, method, url string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body), resp.Header
}

func TestRoundRobin(t *testing.T) {
	a, b := newPod(t, "a"), newPod(t, "b")
	lb, front := newBalancer(t, a.srv.URL, b.srv.URL)
	lb.checkAll(context.Background())
	for range 10 {
		if code, _, _ := get(t, http.MethodGet, front.URL+"/api/domains"); code != http.StatusOK {
			t.Fatalf("status %d", code)
		}
	}
	if a.served.Load() != 5 || b.served.Load() != 5 {
		t.Errorf("served a %d, b %d; want 5 each", a.served.Load(), b.served.Load())
	}
}

func TestReadiness(t *testing.T) {
	a, b := newPod(t, "a"), newPod(t, "b")
	a.ready.Store(false)
	b.ready.Store(false)
	lb, front := newBalancer(t, a.srv.URL, b.srv.URL)
	steps := []struct {
		name         string
		aReady       bool
		bReady       bool
		wantStatus   int
		wantBodyFrom string // "" for the problem body
	}{
		{"none checked yet", false, false, http.StatusServiceUnavailable, ""},
		{"b ready", false, true, http.StatusOK, "b"},
		{"b goes unready, a ready", true, false, http.StatusOK, "a"},
		{"all unready", false, false, http.StatusServiceUnavailable, ""},
	}
	for i, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			a.ready.Store(st.aReady)
			b.ready.Store(st.bReady)
			if i > 0 {
				lb.checkAll(context.Background())
			}
			for range 4 {
				code, body, h := get(t, http.MethodGet, front.URL+"/api/comparison/.com")
				if code != st.wantStatus {
					t.Fatalf("status %d, want %d", code, st.wantStatus)
				}
				if st.wantBodyFrom != "" {
					if body != st.wantBodyFrom {
						t.Errorf("answered by %q, want %q", body, st.wantBodyFrom)
					}
					continue
				}
				var p contracts.Problem
				if err := json.Unmarshal([]byte(body), &p); err != nil {
					t.Fatalf("problem body %q: %v", body, err)
				}
				if p.Code != contracts.CodeNotReady || p.Status != http.StatusServiceUnavailable || p.Instance != "/api/comparison/.com" {
					t.Errorf("problem %+v", p)
				}
				if ct := h.Get("Content-Type"); ct != "application/problem+json" || h.Get("Retry-After") == "" {
					t.Errorf("Content-Type %q, Retry-After %q", ct, h.Get("Retry-After"))
				}
			}
		})
	}
}

func TestRetry(t *testing.T) {
	tests := []struct {
		name       string
		broken     func(t *testing.T) string
		method     string
		wantStatus int
		// wantOut says the broken backend is taken out at once.
		wantOut bool
	}{
		{"GET, connection refused", closedURL, http.MethodGet, http.StatusOK, true},
		{"HEAD, connection refused", closedURL, http.MethodHead, http.StatusOK, true},
		{"GET, connection dropped before an answer", func(t *testing.T) string { return hangUp(t).URL }, http.MethodGet, http.StatusOK, false},
		{"POST is not repeated", func(t *testing.T) string { return hangUp(t).URL }, http.MethodPost, http.StatusBadGateway, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			good := newPod(t, "good")
			broken := tt.broken(t)
			lb, front := newBalancer(t, broken, good.srv.URL)
			// Both are ready as far as the balancer knows: the broken
			// one answered its check, then failed (or was never
			// checked, for the closed port).
			for _, be := range lb.backends {
				be.ready.Store(true)
			}
			// The round robin starts at the broken backend.
			code, body, _ := get(t, tt.method, front.URL+"/api/domains")
			if code != tt.wantStatus {
				t.Fatalf("status %d (%q), want %d", code, body, tt.wantStatus)
			}
			if tt.wantStatus == http.StatusOK && tt.method == http.MethodGet && body != "good" {
				t.Errorf("answered %q", body)
			}
			if got := lb.backends[0].ready.Load(); got == tt.wantOut {
				t.Errorf("broken backend ready = %v, want %v", got, !tt.wantOut)
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Config)
		want string // "" for valid
	}{
		{"valid", func(c *Config) {}, ""},
		{"no backends", func(c *Config) { c.Backends = nil }, "--backends (ZONEPRICE_LB_BACKENDS)"},
		{"not a URL", func(c *Config) { c.Backends = []string{"query-1:8080"} }, "--backends (ZONEPRICE_LB_BACKENDS)"},
		{"a path", func(c *Config) { c.Backends = []string{"http://query-1:8080/api"} }, "--backends (ZONEPRICE_LB_BACKENDS)"},
		{"check path", func(c *Config) { c.CheckPath = "readyz" }, "--check-path (ZONEPRICE_LB_CHECK_PATH)"},
		{"interval", func(c *Config) { c.CheckInterval = 0 }, "--check-interval (ZONEPRICE_LB_CHECK_INTERVAL)"},
		{"timeout over interval", func(c *Config) { c.CheckTimeout = time.Second }, "--check-timeout (ZONEPRICE_LB_CHECK_TIMEOUT)"},
		{"negative timeout", func(c *Config) { c.CheckTimeout = -time.Second }, "--check-timeout (ZONEPRICE_LB_CHECK_TIMEOUT)"},
		{"timeout of the interval", func(c *Config) { c.CheckTimeout = 0 }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := DefaultConfig()
			c.Backends = []string{"http://query-1:8080", "https://query-2:8443/"}
			tt.edit(&c)
			err := c.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Validate: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("Validate: %v, want an error naming %s", err, tt.want)
			}
		})
	}
}

// TestRun runs the command as its container does, configured from the
// environment, until it routes to the pod, then stops it.
func TestRun(t *testing.T) {
	p := newPod(t, "pod")
	addr := cmdtest.FreePort(t)
	env := map[string]string{
		"ZONEPRICE_LB_LISTEN":         addr,
		"ZONEPRICE_LB_BACKENDS":       p.srv.URL + ", " + closedURL(t),
		"ZONEPRICE_LB_CHECK_INTERVAL": "20ms",
		"ZONEPRICE_LB_CHECK_TIMEOUT":  "20ms",
	}
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr querytest.LogBuffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, nil, func(k string) string { return env[k] }, &stdout, &stderr) }()
	cmdtest.Poll(t, "http://"+addr+"/api/domains", 10*time.Second, func(status int, body []byte) bool {
		return status == http.StatusOK && string(body) == "pod"
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "backend in: ready") {
		t.Errorf("log does not say the pod came in:\n%s", stderr.String())
	}
}
