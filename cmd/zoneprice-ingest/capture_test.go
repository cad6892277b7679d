package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/query/querytest"
)

// TestCaptureRoundTrip runs a live round with --capture against a local
// server speaking each adapter's format, then imports the saved document
// with --file into another JetStream server: both publish the same prices.
func TestCaptureRoundTrip(t *testing.T) {
	for _, tc := range []struct{ source, urlEnv, fixture string }{
		{"porkbun", "ZONEPRICE_PORKBUN_URL", "../../ingest/porkbun/testdata/pricing.json"},
		{"namecheap-list", "ZONEPRICE_NAMECHEAP_LIST_URL", "../../ingest/namecheaplist/testdata/tlds.json"},
		{"tierra", "ZONEPRICE_TIERRA_URL", "../../ingest/tierra/testdata/pricingData.json"},
	} {
		t.Run(tc.source, func(t *testing.T) {
			body, err := os.ReadFile(tc.fixture)
			if err != nil {
				t.Fatal(err)
			}
			api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(body)
			}))
			t.Cleanup(api.Close)
			dir := t.TempDir()
			live := ingestOnce(t, tc.source, map[string]string{tc.urlEnv: api.URL + "/prices"}, "--capture", dir)
			meta := capturedMeta(t, filepath.Join(dir, tc.source))
			if meta.URL != api.URL+"/prices" || meta.Status != 200 || meta.ContentType != "application/json" || meta.Source != tc.source {
				t.Errorf("meta = %+v", meta)
			}
			saved, err := os.ReadFile(filepath.Join(dir, tc.source, meta.Body))
			if err != nil || string(saved) != string(body) {
				t.Fatalf("the captured document is not the served one byte for byte (%v)", err)
			}
			imported := ingestOnce(t, tc.source, nil, "--file", filepath.Join(dir, tc.source, meta.Body))
			if len(live) == 0 || !reflect.DeepEqual(imported, live) {
				t.Errorf("the import published %d prices, the live round %d; they differ", len(imported), len(live))
			}
		})
	}
}

// TestCaptureNeedsOnce: --capture saves one round, and nothing with --file.
func TestCaptureNeedsOnce(t *testing.T) {
	for _, args := range [][]string{
		{"--sources", "porkbun", "--capture", t.TempDir()},
		{"--sources", "porkbun", "--once", "--file", "x.json", "--capture", t.TempDir()},
	} {
		err := run(context.Background(), args, func(string) string { return "" }, &querytest.LogBuffer{})
		if err == nil || !strings.Contains(err.Error(), "--capture (ZONEPRICE_CAPTURE_DIR)") {
			t.Errorf("%q: %v, want an error naming --capture", args, err)
		}
	}
}

// ingestOnce runs one round of source on a fresh JetStream server, with
// env and the extra flags, and returns the prices it published by
// subject, their observation times left out.
func ingestOnce(t *testing.T, source string, env map[string]string, flags ...string) map[string]contracts.PriceSet {
	t.Helper()
	srv := bustest.Server(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var stderr querytest.LogBuffer
	args := append([]string{"--once", "--sources", source, "--nats-url", srv.ClientURL(), "--metrics-listen", ""}, flags...)
	if err := run(ctx, args, func(k string) string { return env[k] }, &stderr); err != nil {
		t.Fatalf("run %q: %v\n%s", args, err, stderr.String())
	}
	_, js := bustest.Connect(t, srv)
	out := map[string]contracts.PriceSet{}
	err := bus.NewStreams(js).ReadLast(ctx, contracts.StateStream, bus.ReaderConfig{Filters: []string{contracts.PriceSubjectPrefix + ">"}}, func(m bus.Msg) bool {
		if ev, err := contracts.Decode(m.Data); err == nil {
			if p, ok := ev.(*contracts.PriceSet); ok {
				p.ObservedAt = time.Time{}
				out[m.Subject] = *p
			}
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// capturedMeta reads the one document a round captured in dir.
func capturedMeta(t *testing.T, dir string) fetch.Meta {
	t.Helper()
	metas, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(metas) != 1 {
		t.Fatalf("%s holds %d metas (%v), want one", dir, len(metas), err)
	}
	raw, err := os.ReadFile(metas[0])
	if err != nil {
		t.Fatal(err)
	}
	var m fetch.Meta
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
