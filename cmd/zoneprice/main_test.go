package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/zoneprice/zoneprice/cmd/internal/cmdtest"
	"github.com/zoneprice/zoneprice/query/querytest"
)

// liveEnv points every keyless live source at handler, as a machine whose
// only network is a local server would see them.
func liveEnv(t *testing.T, handler http.Handler) map[string]string {
	t.Helper()
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	return map[string]string{
		"ZONEPRICE_PORKBUN_URL":     srv.URL + "/porkbun",
		"ZONEPRICE_OVHCLOUD_URL":    srv.URL + "/ovhcloud",
		"ZONEPRICE_ECB_URL":         srv.URL + "/ecb",
		"ZONEPRICE_IANA_TLDS_URL":   srv.URL + "/iana/tlds",
		"ZONEPRICE_IANA_ROOTDB_URL": srv.URL + "/iana/rootdb",
	}
}

// start runs the all-in-one with env and extra arguments until the test
// ends, and returns its API address once it is ready.
func start(t *testing.T, env map[string]string, extra ...string) (addr string, stderr *querytest.LogBuffer) {
	t.Helper()
	addr = cmdtest.FreePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	var stdout bytes.Buffer
	stderr = &querytest.LogBuffer{}
	done := make(chan error, 1)
	args := append([]string{"--data-dir", t.TempDir(), "--embedded-listen", "", "--listen", addr, "--log-format", "text"}, extra...)
	go func() { done <- run(ctx, args, func(k string) string { return env[k] }, &stdout, stderr) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("run: %v\n%s", err, stderr.String())
			}
		case <-time.After(30 * time.Second):
			t.Error("run did not return within 30s of cancellation")
		}
	})
	// Ready takes about 15 s alone under -race (the sample's 31,000
	// prices and their first known periods published and replayed); the
	// deadline leaves room for a machine running other packages' tests.
	cmdtest.Poll(t, "http://"+addr+"/readyz", 3*time.Minute, cmdtest.Status200)
	return addr, stderr
}

// TestEmbeddedNATSRefusesAnonymous runs the all-in-one with its NATS
// listening for other processes, as `make run` does: a client without
// credentials is refused.
func TestEmbeddedNATSRefusesAnonymous(t *testing.T) {
	natsAddr := cmdtest.FreePort(t)
	start(t, liveEnv(t, http.NotFoundHandler()), "--data-dir", t.TempDir(), "--embedded-listen", natsAddr)
	nc, err := nats.Connect("nats://" + natsAddr)
	if err == nil {
		nc.Close()
	}
	if !errors.Is(err, nats.ErrAuthorization) {
		t.Errorf("a client without credentials: got %v, want %v", err, nats.ErrAuthorization)
	}
}

type catalog struct {
	Count int `json:"count"`
	Zones []struct {
		Zone       string   `json:"zone"`
		Categories []string `json:"categories"`
		Min        map[string]*struct {
			Registrar string `json:"registrar"`
		} `json:"min"`
	} `json:"zones"`
}

func get[T any](t *testing.T, url string) T {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var v T
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("decode %s: %v", url, err)
	}
	return v
}

// TestDefaultRun runs the one-command default (embedded NATS, every keyless
// live source, the sample as fallback, the API) on a machine where no live
// source answers, and checks that the first catalog it serves is the whole
// sample, labelled as such, with zone metadata from the builtin catalog;
// then that it shuts down cleanly.
func TestDefaultRun(t *testing.T) {
	env := liveEnv(t, http.NotFoundHandler())
	addr, stderr := start(t, env)
	cat := get[catalog](t, "http://"+addr+"/api/domains")
	// The first catalog served is the whole sample, not part of it.
	if cat.Count < 1900 || len(cat.Zones) != cat.Count {
		t.Errorf("catalog at ready: got %d zones (%d listed), want the whole sample (over 1,900)", cat.Count, len(cat.Zones))
	}
	for _, z := range cat.Zones {
		if m := z.Min["register"]; m != nil && !strings.HasPrefix(m.Registrar, "sample-") {
			t.Errorf("%s: cheapest registrar %q is not labelled sample", z.Zone, m.Registrar)
		}
	}
	// Zone metadata comes from the iana source's builtin catalog.
	var com []string
	for _, z := range cat.Zones {
		if z.Zone == ".com" {
			com = z.Categories
		}
	}
	if !slices.Contains(com, "legacy-gtld") || !slices.Contains(com, "generic") {
		t.Errorf(".com categories = %v, want generic and legacy-gtld from the builtin catalog", com)
	}
	if !strings.Contains(stderr.String(), "serving the labelled sample") {
		t.Errorf("the log does not say the sample is served:\n%s", stderr.String())
	}
}

// TestAutoSwitchesToRealPrices starts with Porkbun failing, so the sample
// is served, then lets Porkbun answer with its real format: the sample
// steps aside (withdrawn, not only hidden) and only real prices are shown.
func TestAutoSwitchesToRealPrices(t *testing.T) {
	fixture, err := os.ReadFile("../../ingest/porkbun/testdata/pricing.json")
	if err != nil {
		t.Fatal(err)
	}
	var porkbunUp atomic.Bool
	env := liveEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/porkbun" && porkbunUp.Load() {
			_, _ = w.Write(fixture)
			return
		}
		http.Error(w, "not here", http.StatusForbidden)
	}))
	// The test polls faster than the free tier allows.
	addr, _ := start(t, env, "--interval", "1s", "--rate-limit", "off")
	if cat := get[catalog](t, "http://"+addr+"/api/domains"); cat.Count < 1900 {
		t.Fatalf("with Porkbun down: %d zones, want the whole sample", cat.Count)
	}
	porkbunUp.Store(true)
	cmdtest.Poll(t, "http://"+addr+"/api/comparison/.com", 30*time.Second, func(status int, body []byte) bool {
		return status == http.StatusOK && bytes.Contains(body, []byte(`"porkbun"`)) && !bytes.Contains(body, []byte(`"sample-`))
	})
	cat := get[catalog](t, "http://"+addr+"/api/domains")
	if cat.Count == 0 || cat.Count > 100 {
		t.Errorf("with Porkbun up: %d zones, want only Porkbun's fixture zones", cat.Count)
	}
	for _, z := range cat.Zones {
		for op, m := range z.Min {
			if m != nil && strings.HasPrefix(m.Registrar, "sample-") {
				t.Errorf("%s %s: sample registrar %s beside real prices", z.Zone, op, m.Registrar)
			}
		}
	}
	// The sample is withdrawn on the stream too, not only hidden. Its
	// withdrawing round starts when the round under way ends; under -race
	// beside other packages' tests one round of the sample took 47 s and
	// the withdrawing one more (a no-op round alone takes a few seconds).
	cmdtest.Poll(t, "http://"+addr+"/metrics", 5*time.Minute, func(status int, body []byte) bool {
		return status == http.StatusOK && withdrawals(body, "sample") > 1000
	})
}

// withdrawals reads zoneprice_ingest_withdrawals_total for a source from a
// metrics page.
func withdrawals(metrics []byte, source string) float64 {
	prefix := `zoneprice_ingest_withdrawals_total{source="` + source + `"} `
	for line := range strings.SplitSeq(string(metrics), "\n") {
		if v, ok := strings.CutPrefix(line, prefix); ok {
			f, _ := strconv.ParseFloat(v, 64)
			return f
		}
	}
	return 0
}
