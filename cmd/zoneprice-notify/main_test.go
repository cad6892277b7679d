package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/cmd/internal/cmdtest"
	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
	"github.com/zoneprice/zoneprice/contracts/eventtest"
	"github.com/zoneprice/zoneprice/query/notify"
	"github.com/zoneprice/zoneprice/query/querytest"
)

// TestDeliversAChange runs zoneprice-notify against a separate JetStream
// server, registers an endpoint and records a change, and checks the
// endpoint gets it and the metrics count it.
func TestDeliversAChange(t *testing.T) {
	srv, js := bustest.Provisioned(t)
	got := make(chan http.Header, 1)
	receiver := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case got <- r.Header.Clone():
		default:
		}
	}))
	defer receiver.Close()
	ctx := context.Background()
	id, _ := contracts.NewWebhookID()
	secret, _ := contracts.NewWebhookSecret()
	w := contracts.Webhook{ID: id, Owner: "ownerkey1", URL: receiver.URL, Events: contracts.EventTypes(),
		Secrets: []contracts.WebhookSecret{{Secret: secret}}, CreatedAt: time.Now(), UpdatedAt: time.Now()}
	b, _ := json.Marshal(w)
	kv, err := js.KeyValue(ctx, contracts.WebhooksBucket)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(ctx, contracts.WebhookKey(w.Owner, w.ID), b); err != nil {
		t.Fatal(err)
	}

	metricsAddr := cmdtest.FreePort(t)
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	var stderr querytest.LogBuffer
	env := map[string]string{"NATS_URL": srv.ClientURL(), "ZONEPRICE_METRICS_LISTEN": metricsAddr,
		"ZONEPRICE_WEBHOOK_ALLOW_LOOPBACK": "true", "ZONEPRICE_WEBHOOK_ALLOW_HTTP": "true", "ZONEPRICE_PPROF": "true"}
	go func() { done <- run(rctx, nil, func(k string) string { return env[k] }, &stderr) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	}()
	querytest.Within(t, 15*time.Second, "the dispatch consumer", func() bool {
		_, err := js.Consumer(ctx, contracts.HistoryStream, notify.DispatchConsumer)
		return err == nil
	})
	c := &contracts.PriceChange{V: 1, Kind: contracts.KindPriceChange, Change: contracts.ChangeChanged, Registrar: "porkbun", Zone: ".com",
		Before: &contracts.Offer{Register: eventtest.Regular("USD", 1000)}, After: &contracts.Offer{Register: eventtest.Regular("USD", 900)},
		ObservedAt: time.Now().Add(-time.Minute), Source: "porkbun-api"}
	doc, _ := json.Marshal(c)
	if _, err := js.Publish(ctx, c.Subject(), doc); err != nil {
		t.Fatal(err)
	}
	select {
	case h := <-got:
		if h.Get("Webhook-Signature") == "" {
			t.Error("unsigned delivery")
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("no delivery; log:\n%s", stderr.String())
	}
	cmdtest.Poll(t, "http://"+metricsAddr+"/metrics", 10*time.Second, func(status int, body []byte) bool {
		return status == 200 && strings.Contains(string(body), `zoneprice_notify_attempts_total{event="price.dropped",outcome="delivered"} 1`)
	})
	if !strings.Contains(stderr.String(), "loopback") {
		t.Errorf("the loopback allowance was not logged:\n%s", stderr.String())
	}
	// ZONEPRICE_PPROF serves the runtime's profiles beside the metrics.
	cmdtest.Poll(t, "http://"+metricsAddr+"/debug/pprof/cmdline", 10*time.Second, cmdtest.Status200)
}

func TestFlagErrorsNameTheFlag(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--webhook-ports", "443,https"}, "--webhook-ports (ZONEPRICE_WEBHOOK_PORTS)"},
		{[]string{"--webhook-workers", "0"}, "--webhook-workers (ZONEPRICE_WEBHOOK_WORKERS)"},
		{[]string{"--webhook-timeout", "1ms"}, "--webhook-timeout (ZONEPRICE_WEBHOOK_TIMEOUT)"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			env := map[string]string{"NATS_URL": "nats://127.0.0.1:1"}
			err := run(context.Background(), append(tt.args, "--metrics-listen", ""), func(k string) string { return env[k] }, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("run(%v) = %v, want an error naming %s", tt.args, err, tt.want)
			}
		})
	}
}

// TestGOGCDefault: notify collects garbage at defaultGOGC unless the
// environment sets GOGC, which the runtime reads itself and run leaves
// alone.
func TestGOGCDefault(t *testing.T) {
	for _, tt := range []struct {
		gogc string
		want int
	}{{"", defaultGOGC}, {"50", 100}} {
		t.Run("GOGC="+tt.gogc, func(t *testing.T) {
			debug.SetGCPercent(100)
			t.Cleanup(func() { debug.SetGCPercent(100) })
			env := map[string]string{"NATS_URL": "nats://127.0.0.1:1", "GOGC": tt.gogc}
			// Invalid workers: run stops once its flags are read.
			_ = run(context.Background(), []string{"--webhook-workers", "0", "--metrics-listen", ""}, func(k string) string { return env[k] }, io.Discard)
			if got := debug.SetGCPercent(100); got != tt.want {
				t.Errorf("GC percent %d, want %d", got, tt.want)
			}
		})
	}
}
