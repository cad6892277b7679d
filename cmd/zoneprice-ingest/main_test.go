package main

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/zoneprice/zoneprice/cmd/internal/cmdtest"
	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
	"github.com/zoneprice/zoneprice/query/querytest"
)

// TestOnceAgainstExistingNATS runs the ingester against a separate JetStream
// server: it provisions the stream, publishes one round and exits.
func TestOnceAgainstExistingNATS(t *testing.T) {
	srv := bustest.Server(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	env := map[string]string{"NATS_URL": srv.ClientURL()}
	if err := run(ctx, []string{"--once", "--sources", "sample"}, func(k string) string { return env[k] }, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	_, js := bustest.Connect(t, srv)
	s, err := js.Stream(ctx, contracts.StateStream)
	if err != nil {
		t.Fatalf("stream after --once: %v", err)
	}
	if got := s.CachedInfo().State.Msgs; got < 20000 {
		t.Errorf("stream holds %d messages after one sample round, want over 20,000", got)
	}
}

func TestUnknownSource(t *testing.T) {
	srv := bustest.Server(t)
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
	srv := bustest.Server(t)
	addr := cmdtest.FreePort(t)
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
	cmdtest.Poll(t, "http://"+addr+"/metrics", 2*time.Minute, func(status int, body []byte) bool {
		return status == http.StatusOK && bytes.Contains(body, want)
	})
}

// TestOnceAutoWithNoLiveSource runs one auto round where no live source
// answers: the failures are reported together, and they do not keep the
// builtin zone metadata or the sample from being published.
func TestOnceAutoWithNoLiveSource(t *testing.T) {
	srv := bustest.Server(t)
	down := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(down.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	env := map[string]string{
		"NATS_URL":                  srv.ClientURL(),
		"ZONEPRICE_PORKBUN_URL":     down.URL,
		"ZONEPRICE_OVHCLOUD_URL":    down.URL,
		"ZONEPRICE_ECB_URL":         down.URL,
		"ZONEPRICE_IANA_TLDS_URL":   down.URL,
		"ZONEPRICE_IANA_ROOTDB_URL": down.URL,
	}
	err := run(ctx, []string{"--once"}, func(k string) string { return env[k] }, &stderr)
	for _, name := range []string{"porkbun", "ovhcloud", "ecb"} {
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("run error %v does not report the failed %s", err, name)
		}
	}
	_, js := bustest.Connect(t, srv)
	s, err := js.Stream(ctx, contracts.StateStream)
	if err != nil {
		t.Fatal(err)
	}
	prices, err := s.Info(ctx, jetstream.WithSubjectFilter(contracts.PriceSubjectPrefix+"sample-alpha.*"))
	if err != nil {
		t.Fatal(err)
	}
	zones, err := s.Info(ctx, jetstream.WithSubjectFilter(contracts.ZoneSubjectPrefix+"*"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(prices.State.Subjects); n < 1000 {
		t.Errorf("sample-alpha has %d prices after the round, want the sample's (over 1,000)", n)
	}
	if n := len(zones.State.Subjects); n < 1900 {
		t.Errorf("%d zones have metadata after the round, want the builtin catalog's (over 1,900)", n)
	}
}

// TestImportIntoTheAllInOne runs ingest/README.md's import, `go run
// ./cmd/zoneprice-ingest --sources porkbun --file pricing.json --once`,
// from the directory the all-in-one runs in, as `make run` does: it signs
// in with the credentials the all-in-one wrote into data/nats, given no
// flag for them. The all-in-one here listens on a free port, not 4222, and
// the environment says so, as it would to both commands.
func TestImportIntoTheAllInOne(t *testing.T) {
	fixture, err := filepath.Abs("../../ingest/porkbun/testdata/pricing.json")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	srv := cmdtest.AllInOneNATS(t, filepath.Join(root, "data", "nats"))
	t.Chdir(root)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var stderr querytest.LogBuffer
	env := map[string]string{"NATS_URL": srv.ClientURL(), "ZONEPRICE_EMBEDDED_LISTEN": srv.Addr().String()}
	if err := run(ctx, []string{"--sources", "porkbun", "--file", fixture, "--once"}, func(k string) string { return env[k] }, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	if want := filepath.Join("data", "nats", "credentials", "ingest.nk"); !strings.Contains(stderr.String(), want) {
		t.Errorf("the log does not name the credentials used, %s:\n%s", want, stderr.String())
	}
	if strings.Contains(stderr.String(), "Permissions Violation") {
		t.Errorf("refused:\n%s", stderr.String())
	}
	nc, js, err := srv.Connect("test", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	s, err := js.Stream(ctx, contracts.StateStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx, jetstream.WithSubjectFilter(contracts.PriceSubjectPrefix+"porkbun.*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(info.State.Subjects) == 0 {
		t.Error("no porkbun price on the stream after the import")
	}
}

// TestAllInOneRefusesWithoutCredentials runs the same import from a
// directory without the all-in-one's credentials: NATS refuses it, and the
// log says where the credentials were looked for.
func TestAllInOneRefusesWithoutCredentials(t *testing.T) {
	srv := cmdtest.AllInOneNATS(t, t.TempDir())
	t.Chdir(t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	var stderr querytest.LogBuffer
	env := map[string]string{"NATS_URL": srv.ClientURL(), "ZONEPRICE_EMBEDDED_LISTEN": srv.Addr().String()}
	err := run(ctx, []string{"--sources", "porkbun", "--file", "../../ingest/porkbun/testdata/pricing.json", "--once"}, func(k string) string { return env[k] }, &stderr)
	if err == nil {
		t.Fatal("the import without credentials succeeded")
	}
	for _, want := range []string{"Authorization Violation", `looked_for`} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("the log does not say %s:\n%s", want, stderr.String())
		}
	}
}
