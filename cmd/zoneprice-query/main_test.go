package main

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/contracts/natstest"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/sample"
)

// TestJoinsExistingNATS starts a query pod against a separate JetStream
// server that an ingester has filled, and checks it becomes ready and serves.
func TestJoinsExistingNATS(t *testing.T) {
	srv, js := natstest.Provisioned(t)
	r, err := ingest.NewRunner(sample.New(time.Now), js,
		ingest.RunnerConfig{Timeout: time.Minute, MinKeepRatio: 0.5}, slog.New(slog.DiscardHandler), prometheus.NewRegistry(), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Once(context.Background()); err != nil {
		t.Fatal(err)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var stderr bytes.Buffer
	env := map[string]string{"NATS_URL": srv.ClientURL(), "ZONEPRICE_LISTEN": addr}
	go func() { done <- run(ctx, nil, func(k string) string { return env[k] }, &stderr) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/api/comparison/.com")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no .com comparison within 30s:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
