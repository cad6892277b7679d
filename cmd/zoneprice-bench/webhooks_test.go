package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/zoneprice/zoneprice/contracts"
)

// TestHookReceiver checks the bench's receiver the way notify reaches it:
// a signed delivery is handed on once, a repeat of its webhook-id is
// counted and not handed on, and a wrong signature is refused.
func TestHookReceiver(t *testing.T) {
	secret, err := contracts.NewWebhookSecret()
	if err != nil {
		t.Fatal(err)
	}
	recv := newHookReceiver()
	if err := recv.add("/hook/a/0", secret); err != nil {
		t.Fatal(err)
	}
	var got []int
	recv.nextRun(func(d hookDelivery) {
		i, err := changeIndex(d.body)
		if err != nil {
			t.Error(err)
		}
		got = append(got, i)
	})
	m, err := contracts.Encode(hookChange(".com", 7))
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"type":"price.changed","timestamp":"2026-01-01T00:00:00Z","data":` + string(m.Body) + `}`)
	wh, _ := standardwebhooks.NewWebhook(secret)
	post := func(id string, sign bool) int {
		now := time.Now()
		sig, _ := wh.Sign(id, now, body)
		if !sign {
			sig = "v1,AAAA"
		}
		req := httptest.NewRequest(http.MethodPost, "/hook/a/0", bytes.NewReader(body))
		req.Header.Set(standardwebhooks.HeaderWebhookID, id)
		req.Header.Set(standardwebhooks.HeaderWebhookTimestamp, strconv.FormatInt(now.Unix(), 10))
		req.Header.Set(standardwebhooks.HeaderWebhookSignature, sig)
		w := httptest.NewRecorder()
		recv.ServeHTTP(w, req)
		_, _ = io.Copy(io.Discard, w.Body)
		return w.Code
	}
	for _, tt := range []struct {
		id   string
		sign bool
		want int
	}{{"msg_1", true, 204}, {"msg_1", true, 204}, {"msg_2", false, 400}} {
		if code := post(tt.id, tt.sign); code != tt.want {
			t.Errorf("post %s (signed %v) = %d, want %d", tt.id, tt.sign, code, tt.want)
		}
	}
	if len(got) != 1 || got[0] != 7 {
		t.Errorf("handed on %v, want [7]", got)
	}
	if d, b := recv.duplicates.Load(), recv.badSignatures.Load(); d != 1 || b != 1 {
		t.Errorf("duplicates %d, bad signatures %d; want 1 and 1", d, b)
	}
}

func TestOnlyFlag(t *testing.T) {
	c, err := parseFlags([]string{"-only", "webhooks,http"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !c.selected("webhooks") || !c.selected("http") || c.selected("catchup") || !c.needsQuery() {
		t.Errorf("-only webhooks,http selected %v", c.only)
	}
	if _, err := parseFlags([]string{"-only", "webhook"}, io.Discard); err == nil {
		t.Error("-only webhook (a section that does not exist) was accepted")
	}
}

// TestThroughputMedians checks that the throughput rows judge notify
// against the bare client by the medians of their runs, and show the
// runs' spread and the CPU per delivery of each kind of run.
func TestThroughputMedians(t *testing.T) {
	w := &webhookResult{
		notifyWorkers: 64, deliveries: 20_000, queued: 20_000,
		realTook:  []time.Duration{2 * time.Second, time.Second, 1600 * time.Millisecond},
		bareTook:  []time.Duration{time.Second, 800 * time.Millisecond, 900 * time.Millisecond},
		notifyCPU: 3 * time.Second, notifyCPURuns: 2, benchCPU: 6 * time.Second, bareCPU: 3 * time.Second,
		bareRecvCPU: 1200 * time.Millisecond,
	}
	var r report
	w.writeThroughput(&r)
	for _, want := range []string{
		"(20,000 a run; median of 3 runs, 1.00 s–2.00 s) | 12,500/s",
		"(median of 3 runs, 0.80 s–1.00 s) | 22,222/s",
		"| zoneprice-notify / bare (of the medians) | 0.56 | ≥ 0.6 | **FAIL** |",
		"| 75.0 µs; 100.0 µs |", // notify's over the two runs it was read in; the bench's over three
		"| 50.0 µs; 20.0 µs |",  // the bare client's process; the bench's
	} {
		if !strings.Contains(r.String(), want) {
			t.Errorf("the rows lack %q:\n%s", want, r.String())
		}
	}
	if len(r.failed) != 1 || r.checks != 2 {
		t.Errorf("%d checks, failed %q; want 2 checks and the ratio failed", r.checks, r.failed)
	}
}

// TestBareHooks runs the bare client's subcommand: it says ready first,
// posts nothing when its standard input ends without the word to start,
// and after the word every delivery reaches the receiver once, verified,
// before it answers no failures and the CPU time it took.
func TestBareHooks(t *testing.T) {
	gogc := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(gogc) })
	recv, file, want := bareHooksPlan(t)
	var mu sync.Mutex
	seen := map[int]int{}
	recv.nextRun(func(d hookDelivery) {
		i, err := changeIndex(d.body)
		if err != nil {
			t.Error(err)
		}
		mu.Lock()
		seen[i]++
		mu.Unlock()
	})
	arrived := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(seen)
	}
	args := []string{"-gc-headroom", "8388608", file}

	var stdout, stderr bytes.Buffer
	err := runBareHooks(t.Context(), args, strings.NewReader(""), &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "waiting to start") || stdout.String() != "ready\n" {
		t.Errorf("without the word: %v, stdout %q; want ready, then the wait refused", err, stdout.String())
	}
	if n := arrived(); n != 0 {
		t.Fatalf("%d deliveries arrived without the word to start", n)
	}

	stdout.Reset()
	if err := runBareHooks(t.Context(), args, strings.NewReader("go\n"), &stdout, &stderr); err != nil {
		t.Fatalf("bare-hooks: %v; stderr: %s", err, stderr.String())
	}
	var failures int
	var cpu time.Duration
	if _, err := fmt.Sscanf(stdout.String(), "ready\n%d %d\n", &failures, &cpu); err != nil || failures != 0 || cpu <= 0 {
		t.Errorf("stdout %q (%v), want ready, then no failures and the CPU time taken", stdout.String(), err)
	}
	if n := arrived(); n != want {
		t.Errorf("%d distinct deliveries arrived, want %d", n, want)
	}
	if d, b := recv.duplicates.Load(), recv.badSignatures.Load(); d != 0 || b != 0 {
		t.Errorf("duplicates %d, bad signatures %d; want none", d, b)
	}
}

// bareHooksPlan serves a receiver with three endpoints and writes a plan
// of 200 deliveries to them, each a change of its own; it returns the
// receiver, the plan's file and how many deliveries it holds.
func bareHooksPlan(t *testing.T) (*hookReceiver, string, int) {
	t.Helper()
	recv := newHookReceiver()
	srv := httptest.NewServer(recv)
	t.Cleanup(srv.Close)
	var plan hookPlan
	for e := range 3 {
		secret, err := contracts.NewWebhookSecret()
		if err != nil {
			t.Fatal(err)
		}
		path := "/hook/bare/" + strconv.Itoa(e)
		if err := recv.add(path, secret); err != nil {
			t.Fatal(err)
		}
		plan.Endpoints = append(plan.Endpoints, planEndpoint{Path: path, URL: srv.URL + path, Secret: secret})
	}
	for i := range 200 {
		m, err := contracts.Encode(hookChange(".com", i))
		if err != nil {
			t.Fatal(err)
		}
		body := []byte(`{"type":"price.changed","timestamp":"2026-01-01T00:00:00Z","data":` + string(m.Body) + `}`)
		plan.Deliveries = append(plan.Deliveries, planDelivery{Path: plan.Endpoints[i%3].Path, Body: body})
	}
	data, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return recv, file, len(plan.Deliveries)
}
