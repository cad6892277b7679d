package main

import (
	"bytes"
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/cmd/internal/cmdtest"
	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/natstest"
)

// TestOnceAgainstExistingNATS runs the ingester against a separate JetStream
// server: it provisions the stream, publishes one round and exits.
func TestOnceAgainstExistingNATS(t *testing.T) {
	srv := natstest.Server(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	env := map[string]string{"NATS_URL": srv.ClientURL()}
	if err := run(ctx, []string{"--once", "--sources", "sample"}, func(k string) string { return env[k] }, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	_, js := natstest.Connect(t, srv)
	s, err := js.Stream(ctx, contracts.StateStream)
	if err != nil {
		t.Fatalf("stream after --once: %v", err)
	}
	if got := s.CachedInfo().State.Msgs; got < 20000 {
		t.Errorf("stream holds %d messages after one sample round, want over 20,000", got)
	}
}

func TestUnknownSource(t *testing.T) {
	srv := natstest.Server(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	err := run(ctx, []string{"--once", "--sources", "nope", "--nats-url", srv.ClientURL()}, func(string) string { return "" }, &stderr)
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte(`--sources (ZONEPRICE_SOURCES): unknown source "nope"`)) {
		t.Errorf("got %v, want an error naming --sources and the unknown source", err)
	}
}

// TestServesMetrics runs the ingester as a service: Prometheus can scrape
// its per-source metrics.
func TestServesMetrics(t *testing.T) {
	srv := natstest.Server(t)
	addr := cmdtest.FreeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var stderr bytes.Buffer
	args := []string{"--nats-url", srv.ClientURL(), "--metrics-listen", addr}
	go func() { done <- run(ctx, args, func(string) string { return "" }, &stderr) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	}()
	want := []byte(`zoneprice_ingest_fetches_total{outcome="ok",source="sample"} 1`)
	cmdtest.Poll(t, "http://"+addr+"/metrics", 30*time.Second, func(status int, body []byte) bool {
		return status == http.StatusOK && bytes.Contains(body, want)
	})
}
