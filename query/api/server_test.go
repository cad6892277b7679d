package api_test

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
	"github.com/zoneprice/zoneprice/query/api"
	"github.com/zoneprice/zoneprice/query/querytest"
)

// TestGracefulDrain cancels a serving server: readiness fails at once while
// data requests are still answered for the drain delay, then the server
// stops and Serve returns without error.
func TestGracefulDrain(t *testing.T) {
	_, js := bustest.Provisioned(t)
	publish(t, js, baseEvents()...)
	reg := prometheus.NewRegistry()
	log := slog.New(slog.DiscardHandler)
	c := runConsumer(t, js, log, reg)
	// The server is built by hand, not by startPod: the test is of Serve
	// on its own listener, which closes the server when it returns.
	cfg := api.DefaultConfig()
	cfg.DrainDelay = 2 * time.Second
	srv, err := api.NewServer(cfg, c, nil, nil, log, reg, reg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	querytest.Until(t, "ready", func() bool {
		resp, err := http.Get(url + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})

	cancel()
	querytest.Until(t, "readiness to fail", func() bool {
		resp, _ := get(t, url+"/readyz")
		return resp.StatusCode == http.StatusServiceUnavailable
	})
	if resp, _ := get(t, url+"/api/domains"); resp.StatusCode != http.StatusOK {
		t.Errorf("during drain: got %d, want 200", resp.StatusCode)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("serve: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("server did not stop after the drain")
	}
	if _, err := http.Get(url + "/healthz"); err == nil {
		t.Error("server still accepts connections after shutdown")
	}
}

// TestNotReadyBeforeCatchUp asks a pod that has not caught up: data
// endpoints answer 503 not-ready with Retry-After, readiness fails, and
// liveness holds.
func TestNotReadyBeforeCatchUp(t *testing.T) {
	cfg := api.DefaultConfig()
	p := startPod(t, nil, podConfig{cfg: &cfg, snaps: notReady()})
	for _, path := range []string{"/api/domains", "/api/comparison/.com", "/api/comparison/.com/history", "/api/changes", "/readyz"} {
		resp, body := get(t, p.url+path)
		var pr contracts.Problem
		decode(t, body, &pr)
		if resp.StatusCode != http.StatusServiceUnavailable || pr.Code != contracts.CodeNotReady || resp.Header.Get("Retry-After") == "" {
			t.Errorf("%s before catch-up: got %d %s (Retry-After %q), want 503 not-ready with Retry-After", path, resp.StatusCode, body, resp.Header.Get("Retry-After"))
		}
	}
	if resp, _ := get(t, p.url+"/healthz"); resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz before catch-up: got %d, want 200", resp.StatusCode)
	}
}

// TestRequestIDsAndAccessLog checks that every response carries a request
// id (the client's when it sent a sane one) and that the access log, when
// asked for, names it.
func TestRequestIDsAndAccessLog(t *testing.T) {
	// The pod has not caught up: the data endpoints answer 503
	// not-ready, which is logged and carries an id like any other answer.
	var logs querytest.LogBuffer
	cfg := api.DefaultConfig()
	cfg.AccessLog = true
	p := startPod(t, nil, podConfig{cfg: &cfg, snaps: notReady(), log: slog.New(slog.NewJSONHandler(&logs, nil))})

	resp, _ := get(t, p.url+"/api/domains")
	generated := resp.Header.Get("X-Request-Id")
	resp2, _ := get(t, p.url+"/api/domains")
	if generated == "" || generated == resp2.Header.Get("X-Request-Id") {
		t.Errorf("generated ids: got %q and %q, want two different non-empty ids", generated, resp2.Header.Get("X-Request-Id"))
	}
	if resp, _ := get(t, p.url+"/healthz", "X-Request-Id", "client-42"); resp.Header.Get("X-Request-Id") != "client-42" {
		t.Errorf("client id: got %q, want client-42 echoed", resp.Header.Get("X-Request-Id"))
	}
	if resp, _ := get(t, p.url+"/healthz", "X-Request-Id", "bad id with spaces"); resp.Header.Get("X-Request-Id") == "bad id with spaces" {
		t.Error("an id with spaces was echoed, want a generated one")
	}
	for _, want := range []string{`"id":"` + generated + `"`, `"id":"client-42"`, `"route":"/api/domains"`} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("access log lacks %s:\n%s", want, logs.String())
		}
	}
}

// TestConfigValidate checks that a configuration the server cannot work
// with is refused, naming the field to fix.
func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(*api.Config)
		field string // "" for valid
	}{
		{"default", func(*api.Config) {}, ""},
		{"no read header timeout", func(c *api.Config) { c.ReadHeaderTimeout = 0 }, "ReadHeaderTimeout"},
		{"no read timeout", func(c *api.Config) { c.ReadTimeout = 0 }, "ReadTimeout"},
		{"read timeout shorter than the head's", func(c *api.Config) { c.ReadTimeout = c.ReadHeaderTimeout - time.Second }, "ReadTimeout"},
		{"read timeout as long as the head's", func(c *api.Config) { c.ReadTimeout = c.ReadHeaderTimeout }, ""},
		{"no write timeout", func(c *api.Config) { c.WriteTimeout = 0 }, "WriteTimeout"},
		{"negative idle timeout", func(c *api.Config) { c.IdleTimeout = -time.Second }, "IdleTimeout"},
		{"no shutdown timeout", func(c *api.Config) { c.ShutdownTimeout = 0 }, "ShutdownTimeout"},
		{"no header limit", func(c *api.Config) { c.MaxHeaderBytes = 0 }, "MaxHeaderBytes"},
		{"header limit within Go's slack", func(c *api.Config) { c.MaxHeaderBytes = 4096 }, "MaxHeaderBytes"},
		{"smallest header limit", func(c *api.Config) { c.MaxHeaderBytes = 4097 }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := api.DefaultConfig()
			tc.edit(&cfg)
			err := cfg.Validate()
			var ve *contracts.ValidationError
			switch {
			case tc.field == "" && err != nil:
				t.Errorf("got %v, want valid", err)
			case tc.field != "" && (!errors.As(err, &ve) || ve.Field != tc.field):
				t.Errorf("got %v, want an error naming %s", err, tc.field)
			}
		})
	}
}
