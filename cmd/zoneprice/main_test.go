package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/cmd/internal/cmdtest"
)

// TestDefaultRun runs the one-command default (embedded NATS, sample source,
// API) and checks that the first catalog it serves is whole and labelled as
// sample data, then that it shuts down cleanly.
func TestDefaultRun(t *testing.T) {
	addr := cmdtest.FreeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr bytes.Buffer
	done := make(chan error, 1)
	args := []string{"--data-dir", t.TempDir(), "--embedded-listen", "", "--listen", addr, "--log-format", "text"}
	go func() { done <- run(ctx, args, func(string) string { return "" }, &stdout, &stderr) }()
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

	cmdtest.Poll(t, "http://"+addr+"/readyz", 60*time.Second, cmdtest.Status200)
	resp, err := http.Get("http://" + addr + "/api/domains")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var cat struct {
		Count int `json:"count"`
		Zones []struct {
			Zone string `json:"zone"`
			Min  map[string]*struct {
				Registrar string `json:"registrar"`
			} `json:"min"`
		} `json:"zones"`
	}
	if err := json.Unmarshal(body, &cat); err != nil {
		t.Fatalf("decode catalog: %v", err)
	}
	// The first catalog served is the whole sample, not part of it.
	if cat.Count < 1900 || len(cat.Zones) != cat.Count {
		t.Errorf("catalog at ready: got %d zones (%d listed), want the whole sample (over 1,900)", cat.Count, len(cat.Zones))
	}
	for _, z := range cat.Zones {
		if m := z.Min["register"]; m != nil && !strings.HasPrefix(m.Registrar, "sample-") {
			t.Errorf("%s: cheapest registrar %q is not labelled sample", z.Zone, m.Registrar)
		}
	}
}
