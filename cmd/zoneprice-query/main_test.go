package main

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/cmd/internal/cmdtest"

	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/sample"
)

// TestJoinsExistingNATS starts a query pod against a separate JetStream
// server that an ingester has filled, and checks it becomes ready and serves.
func TestJoinsExistingNATS(t *testing.T) {
	srv, js := bustest.Provisioned(t)
	r, err := ingest.NewRunner(sample.New(time.Now), bus.NewStreams(js), bus.NewPublisher(js),
		ingest.RunnerConfig{Timeout: time.Minute, MinKeepRatio: 0.5}, slog.New(slog.DiscardHandler), prometheus.NewRegistry(), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Once(context.Background()); err != nil {
		t.Fatal(err)
	}

	addr, metricsAddr := cmdtest.FreePort(t), cmdtest.FreePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var stderr bytes.Buffer
	env := map[string]string{"NATS_URL": srv.ClientURL(), "ZONEPRICE_LISTEN": addr, "ZONEPRICE_METRICS_LISTEN": metricsAddr}
	go func() { done <- run(ctx, nil, func(k string) string { return env[k] }, &stderr) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	}()
	cmdtest.Poll(t, "http://"+addr+"/api/comparison/.com", 30*time.Second, cmdtest.Status200)
	// With --metrics-listen, metrics move off the public port.
	if resp, err := http.Get("http://" + addr + "/metrics"); err != nil {
		t.Errorf("/metrics on the API port: %v", err)
	} else {
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("/metrics on the API port: got %d, want 404", resp.StatusCode)
		}
	}
	cmdtest.Poll(t, "http://"+metricsAddr+"/metrics", 10*time.Second, cmdtest.Status200)
}
