package notify

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
)

func TestDeliverySigned(t *testing.T) {
	h := newHarness(t)
	rc := newReceiver(t, nil)
	rotated, err := contracts.NewWebhookSecret()
	if err != nil {
		t.Fatal(err)
	}
	expires := time.Now().Add(time.Hour)
	w := h.register(t, rc.URL, func(w *contracts.Webhook) {
		w.Secrets = append(w.Secrets, contracts.WebhookSecret{Secret: rotated, Expires: &expires})
	})
	h.start(t, testConfig(), time.Now)
	c, seq := h.change(t, "porkbun", ".com", 900)

	req := rc.wait(t, 1)[0]
	for _, secret := range []string{w.Secrets[0].Secret, rotated} {
		wh, err := standardwebhooks.NewWebhook(secret)
		if err != nil {
			t.Fatal(err)
		}
		if err := wh.Verify(req.Body, req.Header); err != nil {
			t.Errorf("Verify with one of the two secrets in force: %v", err)
		}
	}
	if got := strings.Count(req.Header.Get("Webhook-Signature"), "v1,"); got != 2 {
		t.Errorf("webhook-signature %q has %d signatures, want one per secret in force, 2", req.Header.Get("Webhook-Signature"), got)
	}
	if got, want := req.Header.Get("Webhook-Id"), contracts.DeliveryID(w.ID, seq); got != want {
		t.Errorf("webhook-id %q, want %q", got, want)
	}
	if got := req.Header.Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type %q", got)
	}
	if got := req.Header.Get("User-Agent"); !strings.Contains(got, "zoneprice") {
		t.Errorf("User-Agent %q does not name the service", got)
	}
	var p struct {
		Type      contracts.EventType   `json:"type"`
		Timestamp time.Time             `json:"timestamp"`
		Data      contracts.PriceChange `json:"data"`
	}
	if err := json.Unmarshal(req.Body, &p); err != nil {
		t.Fatal(err)
	}
	if p.Type != contracts.EventPriceDropped || !p.Timestamp.Equal(c.ObservedAt) || p.Data.Zone != ".com" || p.Data.After.Register.Regular.Amount != 900 {
		t.Errorf("payload %s", req.Body)
	}
	got := h.waitAttempts(t, w, 1)
	if got[0].Outcome != contracts.OutcomeDelivered || got[0].Status != 200 || got[0].Attempt != 1 || got[0].Delivery != req.Header.Get("Webhook-Id") {
		t.Errorf("attempt %+v", got[0])
	}
	waitFor(t, "an empty queue", func() bool { return h.queued(t) == 0 })
}

func TestServerErrorsThenOK(t *testing.T) {
	h := newHarness(t)
	rc := newReceiver(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n <= 2 {
			http.Error(w, "down for maintenance", http.StatusInternalServerError)
		}
	})
	w := h.register(t, rc.URL)
	h.start(t, testConfig(), time.Now)
	h.change(t, "porkbun", ".com", 1100)

	reqs := rc.wait(t, 3)
	ids := []string{reqs[0].Header.Get("Webhook-Id"), reqs[1].Header.Get("Webhook-Id"), reqs[2].Header.Get("Webhook-Id")}
	if ids[0] == "" || ids[0] != ids[1] || ids[1] != ids[2] {
		t.Errorf("webhook-ids %q, want one, stable across retries", ids)
	}
	got := h.waitAttempts(t, w, 3)
	var outcomes []contracts.DeliveryOutcome
	for i, a := range got {
		outcomes = append(outcomes, a.Outcome)
		if a.Attempt != i+1 {
			t.Errorf("attempt %d numbered %d", i+1, a.Attempt)
		}
	}
	if want := []contracts.DeliveryOutcome{contracts.OutcomeFailed, contracts.OutcomeFailed, contracts.OutcomeDelivered}; !slices.Equal(outcomes, want) {
		t.Errorf("outcomes %v, want %v", outcomes, want)
	}
	if got[0].Status != 500 || !strings.Contains(got[0].Error, "500") || !strings.Contains(got[0].Error, "maintenance") || got[0].NextAttempt == nil {
		t.Errorf("first attempt %+v", got[0])
	}
	waitFor(t, "failing_since cleared after the success", func() bool { return h.webhook(t, w).FailingSince == nil })
	waitFor(t, "an empty queue", func() bool { return h.queued(t) == 0 })
}

func TestFailingSinceSetOnFailure(t *testing.T) {
	h := newHarness(t)
	rc := newReceiver(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusBadGateway) })
	w := h.register(t, rc.URL)
	cfg := testConfig()
	cfg.RetrySchedule = []time.Duration{time.Hour}
	h.start(t, cfg, time.Now)
	h.change(t, "porkbun", ".com", 1100)
	h.waitAttempts(t, w, 1)
	waitFor(t, "failing_since", func() bool { return h.webhook(t, w).FailingSince != nil })
	if got := h.webhook(t, w); got.Disabled != nil {
		t.Errorf("disabled after one failure: %+v", got.Disabled)
	}
}

func TestReceiverDownThenUp(t *testing.T) {
	h := newHarness(t)
	// An address nobody listens on, until the receiver starts there.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	w := h.register(t, "http://"+addr+"/hook")
	h.start(t, testConfig(), time.Now)
	h.change(t, "porkbun", ".com", 900)
	down := h.waitAttempts(t, w, 1)
	if down[0].Outcome != contracts.OutcomeFailed || down[0].Status != 0 || down[0].Error == "" {
		t.Fatalf("attempt while down %+v", down[0])
	}

	ln, err = net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen again on %s, where the receiver was down: %v (another process took the port meanwhile)", addr, err)
	}
	rc := &receiver{}
	rc.Server = httptest.NewUnstartedServer(http.HandlerFunc(rc.serve))
	rc.Listener.Close()
	rc.Listener = ln
	rc.Start()
	t.Cleanup(rc.Close)
	req := rc.wait(t, 1)[0]
	if got := req.Header.Get("Webhook-Id"); got != down[0].Delivery {
		t.Errorf("delivered as %q, attempted as %q: want the same webhook-id", got, down[0].Delivery)
	}
	waitFor(t, "an empty queue", func() bool { return h.queued(t) == 0 })
}

func TestSlowReceiverTimesOut(t *testing.T) {
	h := newHarness(t)
	rc := newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		}
	})
	w := h.register(t, rc.URL)
	h.start(t, testConfig(), time.Now)
	h.change(t, "porkbun", ".com", 900)
	got := h.waitAttempts(t, w, 2)
	if got[0].Outcome != contracts.OutcomeFailed || !strings.Contains(got[0].Error, "no answer within 1s") {
		t.Errorf("slow attempt %+v", got[0])
	}
	if got[1].Outcome != contracts.OutcomeDelivered {
		t.Errorf("second attempt %+v", got[1])
	}
}

func TestGoneDisables(t *testing.T) {
	h := newHarness(t)
	rc := newReceiver(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusGone) })
	w := h.register(t, rc.URL)
	r := h.start(t, testConfig(), time.Now)
	h.change(t, "porkbun", ".com", 900)
	got := h.waitAttempts(t, w, 1)
	if got[0].Outcome != contracts.OutcomeGone || got[0].Status != 410 || got[0].NextAttempt != nil {
		t.Errorf("attempt %+v", got[0])
	}
	var stored *contracts.Webhook
	waitFor(t, "the endpoint disabled", func() bool { stored = h.webhook(t, w); return stored.Disabled != nil })
	if !strings.Contains(stored.Disabled.Reason, "410") {
		t.Errorf("reason %q does not say 410", stored.Disabled.Reason)
	}
	r.seen(t, stored)
	h.change(t, "porkbun", ".net", 900)
	waitFor(t, "the second change dispatched", func() bool { return counter(t, r, "zoneprice_notify_changes_dispatched_total", "") == 2 })
	waitFor(t, "an empty queue", func() bool { return h.queued(t) == 0 })
	if n := len(rc.requests()); n != 1 {
		t.Errorf("a disabled endpoint got %d requests, want the first only", n)
	}
}

func TestRedirectIsAFailureNotFollowed(t *testing.T) {
	h := newHarness(t)
	target := newReceiver(t, nil)
	rc := newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) {
		to := "http://10.0.0.1/internal"
		if n > 1 {
			to = target.URL // a loopback address this test allows
		}
		http.Redirect(w, r, to, http.StatusFound)
	})
	w := h.register(t, rc.URL)
	h.start(t, testConfig(), time.Now)
	h.change(t, "porkbun", ".com", 900)
	got := h.waitAttempts(t, w, 3)
	for _, a := range got {
		if a.Outcome != contracts.OutcomeFailed || a.Status != http.StatusFound || !strings.Contains(a.Error, "redirects are not followed") {
			t.Errorf("attempt %+v", a)
		}
	}
	if n := len(target.requests()); n != 0 {
		t.Errorf("the redirect's target got %d requests", n)
	}
}

func TestRetryAfterHonoured(t *testing.T) {
	h := newHarness(t)
	rc := newReceiver(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n == 1 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
		}
	})
	w := h.register(t, rc.URL)
	h.start(t, testConfig(), time.Now)
	h.change(t, "porkbun", ".com", 900)
	got := h.waitAttempts(t, w, 2)
	if got[0].Status != 429 || got[0].NextAttempt == nil {
		t.Fatalf("first attempt %+v", got[0])
	}
	// The schedule's first delay is 20 ms; the receiver asked for 1 s.
	if d := got[0].NextAttempt.Sub(got[0].At); d < time.Second {
		t.Errorf("next attempt planned %v after the 429, want Retry-After's 1s", d)
	}
	if got[1].Outcome != contracts.OutcomeDelivered {
		t.Errorf("second attempt %+v", got[1])
	}
}

func TestGivenUpAfterLastAttempt(t *testing.T) {
	h := newHarness(t)
	rc := newReceiver(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusInternalServerError) })
	w := h.register(t, rc.URL)
	cfg := testConfig()
	r := h.start(t, cfg, time.Now)
	h.change(t, "porkbun", ".com", 900)
	got := h.waitAttempts(t, w, cfg.attempts(contracts.EventPriceDropped))
	waitFor(t, "an empty queue", func() bool { return h.queued(t) == 0 })
	if last := got[len(got)-1]; last.Attempt != cfg.attempts(contracts.EventPriceDropped) || last.NextAttempt != nil {
		t.Errorf("last attempt %+v, want number %d and none planned", last, cfg.attempts(contracts.EventPriceDropped))
	}
	time.Sleep(200 * time.Millisecond) // longer than the schedule
	if n := len(rc.requests()); n != cfg.attempts(contracts.EventPriceDropped) {
		t.Errorf("%d requests, want %d", n, cfg.attempts(contracts.EventPriceDropped))
	}
	if got := counter(t, r, "zoneprice_notify_deliveries_total", "given_up"); got != 1 {
		t.Errorf("given up %v, want 1", got)
	}
}

func TestRestartWithDeliveriesPending(t *testing.T) {
	h := newHarness(t)
	var up atomic.Bool
	rc := newReceiver(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		if !up.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	})
	w := h.register(t, rc.URL)
	cfg := testConfig()
	cfg.RetrySchedule = []time.Duration{300 * time.Millisecond, 300 * time.Millisecond, 300 * time.Millisecond}
	a, b := h.start(t, cfg, time.Now), h.start(t, cfg, time.Now)
	for i := range 5 {
		h.change(t, "porkbun", ".com", int64(900+i))
	}
	h.waitAttempts(t, w, 5)
	a.stop()
	b.stop()
	// While no replica runs: more changes, and the receiver comes back.
	for i := range 5 {
		h.change(t, "porkbun", ".net", int64(900+i))
	}
	up.Store(true)
	if n := h.queued(t); n != 5 {
		t.Errorf("%d deliveries queued while stopped, want the first 5", n)
	}
	h.start(t, cfg, time.Now)
	delivered := map[string]int{}
	waitFor(t, "the 10 deliveries, queued before the stop and after", func() bool {
		clear(delivered)
		for _, a := range h.attempts(t, w) {
			if a.Outcome == contracts.OutcomeDelivered {
				delivered[a.Delivery]++
			}
		}
		return len(delivered) == 10
	})
	waitFor(t, "an empty queue", func() bool { return h.queued(t) == 0 })
	for id, n := range delivered {
		if n != 1 {
			t.Errorf("%s delivered %d times", id, n)
		}
	}
}

func TestTwoReplicasShareTheWork(t *testing.T) {
	h := newHarness(t)
	var mu sync.Mutex
	inFlight, delivered, tried := map[string]int{}, map[string]int{}, map[string]bool{}
	var overlap atomic.Int32
	rc := newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("Webhook-Id")
		mu.Lock()
		inFlight[id]++
		if inFlight[id] > 1 {
			overlap.Add(1)
		}
		// Every third delivery fails its first attempt, so that retries
		// mix in.
		ok := tried[id] || n%3 != 0
		tried[id] = true
		mu.Unlock()
		time.Sleep(5 * time.Millisecond)
		mu.Lock()
		inFlight[id]--
		if ok {
			delivered[id]++
		}
		mu.Unlock()
		if !ok {
			w.WriteHeader(http.StatusInternalServerError)
		}
	})
	var hooks []*contracts.Webhook
	for range 5 {
		hooks = append(hooks, h.register(t, rc.URL))
	}
	a, b := h.start(t, testConfig(), time.Now), h.start(t, testConfig(), time.Now)
	const changes = 20
	for i := range changes {
		h.change(t, "porkbun", ".com", int64(900+i))
	}
	waitFor(t, "every delivery", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(delivered) == changes*len(hooks)
	})
	waitFor(t, "an empty queue", func() bool { return h.queued(t) == 0 })
	if n := overlap.Load(); n > 0 {
		t.Errorf("%d attempts while another attempt of the same delivery was under way", n)
	}
	mu.Lock()
	for id, n := range delivered {
		if n != 1 {
			t.Errorf("%s delivered %d times", id, n)
		}
	}
	mu.Unlock()
	queuedBy := func(r *replica) float64 { return counter(t, r, "zoneprice_notify_deliveries_queued_total", "") }
	if got := queuedBy(a) + queuedBy(b); got != changes*float64(len(hooks)) {
		t.Errorf("the replicas queued %v deliveries together, want %d", got, changes*len(hooks))
	}
}

func TestSSRFRefused(t *testing.T) {
	h := newHarness(t)
	cfg := testConfig()
	cfg.AllowLoopback = false
	cfg.RetrySchedule = []time.Duration{time.Hour}
	rc := newReceiver(t, nil)
	port := rc.Listener.Addr().(*net.TCPAddr).Port
	urls := []string{
		"https://127.0.0.1/hook",
		"https://[::1]/hook",
		rc.URL, // loopback on its own port
		"https://10.0.0.1/hook",
		"https://169.254.169.254/latest/meta-data/",
		"https://localhost/hook",
		"http://localhost:" + itoa(port) + "/hook",
		"https://100.64.0.1/hook",
		"https://[fd00::1]/hook",
	}
	var hooks []*contracts.Webhook
	for _, u := range urls {
		hooks = append(hooks, h.register(t, u))
	}
	h.start(t, cfg, time.Now)
	h.change(t, "porkbun", ".com", 900)
	for i, w := range hooks {
		got := h.waitAttempts(t, w, 1)[0]
		if got.Outcome != contracts.OutcomeRefused || got.Status != 0 || !strings.HasPrefix(got.Error, "refused: ") || got.NextAttempt == nil {
			t.Errorf("%s: attempt %+v, want refused and retried", urls[i], got)
		}
	}
	if n := len(rc.requests()); n != 0 {
		t.Errorf("the loopback receiver got %d requests", n)
	}
}

func TestPlainHTTPRefusedUnlessAllowed(t *testing.T) {
	h := newHarness(t)
	cfg := testConfig()
	cfg.AllowHTTP = false
	rc := newReceiver(t, nil)
	w := h.register(t, rc.URL)
	h.start(t, cfg, time.Now)
	h.change(t, "porkbun", ".com", 900)
	got := h.waitAttempts(t, w, 1)[0]
	if got.Outcome != contracts.OutcomeRefused || !strings.Contains(got.Error, "https") {
		t.Errorf("attempt %+v", got)
	}
}

func TestPausedGetsNothing(t *testing.T) {
	h := newHarness(t)
	paused, active := newReceiver(t, nil), newReceiver(t, nil)
	p := h.register(t, paused.URL, func(w *contracts.Webhook) { w.Paused = true })
	a := h.register(t, active.URL)
	h.start(t, testConfig(), time.Now)
	h.change(t, "porkbun", ".com", 900)
	active.wait(t, 1)
	waitFor(t, "an empty queue", func() bool { return h.queued(t) == 0 })
	if n := len(paused.requests()); n != 0 {
		t.Errorf("a paused endpoint got %d requests", n)
	}
	if n := len(h.attempts(t, p)); n != 0 {
		t.Errorf("a paused endpoint has %d attempts", n)
	}
	_ = a
}

func TestPausedBeforeSentIsDropped(t *testing.T) {
	h := newHarness(t)
	rc := newReceiver(t, func(n int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusInternalServerError) })
	w := h.register(t, rc.URL)
	cfg := testConfig()
	cfg.RetrySchedule = []time.Duration{500 * time.Millisecond}
	r := h.start(t, cfg, time.Now)
	h.change(t, "porkbun", ".com", 900)
	h.waitAttempts(t, w, 1)
	stored := h.webhook(t, w)
	stored.Paused = true
	h.put(t, stored)
	r.seen(t, stored)
	waitFor(t, "an empty queue", func() bool { return h.queued(t) == 0 })
	if n := len(rc.requests()); n != 1 {
		t.Errorf("%d requests, want the one before the pause", n)
	}
	if got := counter(t, r, "zoneprice_notify_deliveries_total", "dropped"); got != 1 {
		t.Errorf("dropped %v, want 1", got)
	}
}

func TestPingSentToPausedEndpoint(t *testing.T) {
	h := newHarness(t)
	rc := newReceiver(t, nil)
	w := h.register(t, rc.URL, func(w *contracts.Webhook) { w.Paused = true })
	h.start(t, testConfig(), time.Now)
	id, err := contracts.NewPingDeliveryID()
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(contracts.WebhookPayload{Type: contracts.EventPing, Timestamp: time.Now(),
		Data: contracts.PingData{Webhook: w.ID, Message: "test"}})
	m := natsMsg(contracts.DeliverySubject(w.Owner, w.ID), body, id, contracts.EventPing)
	if _, err := h.js.PublishMsg(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	req := rc.wait(t, 1)[0]
	if req.Header.Get("Webhook-Id") != id {
		t.Errorf("webhook-id %q, want the ping's %q", req.Header.Get("Webhook-Id"), id)
	}
	got := h.waitAttempts(t, w, 1)[0]
	if got.Type != contracts.EventPing || got.Outcome != contracts.OutcomeDelivered {
		t.Errorf("attempt %+v", got)
	}
}

func TestDisabledAfterFailingFiveDays(t *testing.T) {
	h := newHarness(t)
	rc := newReceiver(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusInternalServerError) })
	w := h.register(t, rc.URL)
	var clock atomic.Pointer[time.Time]
	start := time.Now()
	clock.Store(&start)
	now := func() time.Time { return *clock.Load() }
	cfg := testConfig()
	cfg.RetrySchedule = []time.Duration{50 * time.Millisecond, 50 * time.Millisecond, 50 * time.Millisecond, 50 * time.Millisecond}
	r := h.start(t, cfg, now)
	h.change(t, "porkbun", ".com", 900)
	h.waitAttempts(t, w, 1)
	var stored *contracts.Webhook
	waitFor(t, "failing_since", func() bool { stored = h.webhook(t, w); return stored.FailingSince != nil })
	r.seen(t, stored)
	waitFor(t, "failing_since in the mirror", func() bool {
		got, _ := r.n.regs.Lookup(w.ID)
		return got.FailingSince != nil
	})
	if stored.Disabled != nil {
		t.Fatal("disabled on the first failure")
	}
	later := start.Add(contracts.WebhookFailureLimit + time.Minute)
	clock.Store(&later)
	waitFor(t, "the endpoint disabled", func() bool { stored = h.webhook(t, w); return stored.Disabled != nil })
	if !strings.Contains(stored.Disabled.Reason, "every delivery failed") || !strings.Contains(stored.Disabled.Reason, "500") {
		t.Errorf("reason %q does not say why", stored.Disabled.Reason)
	}
	if !stored.Disabled.At.Equal(later) {
		t.Errorf("disabled at %v, want the clock's %v", stored.Disabled.At, later)
	}
	waitFor(t, "an empty queue", func() bool { return h.queued(t) == 0 })
	if got := counter(t, r, "zoneprice_notify_endpoints_disabled_total", "failing"); got != 1 {
		t.Errorf("disabled counter %v, want 1", got)
	}
}

func TestCategoryFilterFromZoneMetadata(t *testing.T) {
	h := newHarness(t)
	meta := &contracts.ZoneMeta{V: 1, Kind: contracts.KindZoneMeta, Zone: ".io", Unicode: ".io", Type: "country-code",
		Categories: []string{"country-code", "cctld-as-generic"}, ObservedAt: h.observed, Source: "iana"}
	if err := meta.Validate(); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(meta)
	if _, err := h.js.Publish(context.Background(), meta.Subject(), b); err != nil {
		t.Fatal(err)
	}
	rc := newReceiver(t, nil)
	w := h.register(t, rc.URL, func(w *contracts.Webhook) { w.Filters.Categories = []string{"cctld-as-generic"} })
	h.start(t, testConfig(), time.Now)
	h.change(t, "porkbun", ".com", 900)
	_, seq := h.change(t, "porkbun", ".io", 900)
	req := rc.wait(t, 1)[0]
	waitFor(t, "an empty queue", func() bool { return h.queued(t) == 0 })
	if got, want := req.Header.Get("Webhook-Id"), contracts.DeliveryID(w.ID, seq); got != want || len(rc.requests()) != 1 {
		t.Errorf("got %d deliveries, the first %q; want only .io's, %q", len(rc.requests()), got, want)
	}
}

func TestSampleAndKnownChangesNotDelivered(t *testing.T) {
	h := newHarness(t)
	rc := newReceiver(t, nil)
	h.register(t, rc.URL)
	h.start(t, testConfig(), time.Now)
	h.change(t, contracts.SampleRegistrarPrefix+"alpha", ".com", 900)
	known := &contracts.PriceChange{V: 1, Kind: contracts.KindPriceChange, Change: contracts.ChangeKnown, Registrar: "porkbun", Zone: ".org",
		After: &contracts.Offer{Register: regular(1000)}, ObservedAt: h.observed, Source: "porkbun-api"}
	h.publish(t, known)
	_, seq := h.change(t, "porkbun", ".net", 900)
	req := rc.wait(t, 1)[0]
	waitFor(t, "an empty queue", func() bool { return h.queued(t) == 0 })
	if n := len(rc.requests()); n != 1 || req.Header.Get("Webhook-Id") == "" {
		t.Errorf("%d deliveries, want .net's only", n)
	}
	_ = seq
}

func TestHistoryBeforeFirstStartNotSent(t *testing.T) {
	h := newHarness(t)
	rc := newReceiver(t, nil)
	h.register(t, rc.URL)
	h.change(t, "porkbun", ".com", 900) // before notify ever ran
	h.start(t, testConfig(), time.Now)
	h.change(t, "porkbun", ".net", 900)
	rc.wait(t, 1)
	waitFor(t, "an empty queue", func() bool { return h.queued(t) == 0 })
	if n := len(rc.requests()); n != 1 {
		t.Errorf("%d deliveries, want the change after the first start only", n)
	}
}

func TestDispatchedTwiceQueuedOnce(t *testing.T) {
	h := newHarness(t)
	rc := newReceiver(t, nil)
	w := h.register(t, rc.URL)
	r := h.start(t, testConfig(), time.Now)
	c, seq := h.change(t, "porkbun", ".com", 900)
	rc.wait(t, 1)
	// As a replica stopped between queueing and acknowledging would: the
	// same change queued again is dropped by the stream.
	doc, _ := json.Marshal(c)
	if err := r.n.queue(context.Background(), c, doc, seq); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "an empty queue", func() bool { return h.queued(t) == 0 })
	time.Sleep(100 * time.Millisecond)
	if n := len(rc.requests()); n != 1 {
		t.Errorf("%d deliveries of one change", n)
	}
	_ = w
}

// TestLongAttemptNotHandedOut: an attempt that runs past the consumer's
// ack wait (a slow receiver within the timeout) reports progress, so the
// server hands the delivery to neither replica again while it runs: the
// receiver sees one request, not a second one beside the first.
func TestLongAttemptNotHandedOut(t *testing.T) {
	h := newHarness(t)
	var started, running atomic.Int32
	var overlap atomic.Int32
	rc := newReceiver(t, func(int, http.ResponseWriter, *http.Request) {
		started.Add(1)
		if running.Add(1) > 1 {
			overlap.Add(1)
		}
		defer running.Add(-1)
		time.Sleep(5 * time.Second)
	})
	h.register(t, rc.URL)
	cfg := testConfig()
	// Reports every 500 ms: a loaded machine would have to stall a
	// replica for 2 s for the server to hand the delivery out again.
	cfg.AckWait, cfg.Timeout = 2*time.Second, 8*time.Second
	h.start(t, cfg, time.Now)
	h.start(t, cfg, time.Now)
	h.change(t, "porkbun", ".com", 900)
	rc.wait(t, 1)
	waitFor(t, "the attempt's end and acknowledgement", func() bool { return running.Load() == 0 && h.queued(t) == 0 })
	// Long enough for a redelivery after the attempt, too.
	time.Sleep(2500 * time.Millisecond)
	if n, o := started.Load(), overlap.Load(); n != 1 || o != 0 {
		t.Errorf("the receiver got %d requests (%d while another ran), want 1", n, o)
	}
}

// TestDispatchPastAFullEndpoint: changes for an endpoint that has as many
// deliveries waiting as the stream keeps for one are dispatched all the
// same (acknowledged, not dispatched again and again), and the deliveries
// the stream refused are counted, by event type and reason.
func TestDispatchPastAFullEndpoint(t *testing.T) {
	h := newHarness(t)
	cfg := bus.DeliveriesConfig(bus.Options{})
	cfg.MaxMsgsPerSubject = 3
	if _, err := h.js.UpdateStream(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	rc := newReceiver(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusInternalServerError) })
	h.register(t, rc.URL)
	ncfg := testConfig()
	ncfg.RetrySchedule = []time.Duration{time.Hour} // failed deliveries wait in the stream
	r := h.start(t, ncfg, time.Now)
	for i := range 6 {
		h.change(t, "porkbun", ".com", int64(900+i))
	}
	waitFor(t, "six changes dispatched", func() bool {
		return counter(t, r, "zoneprice_notify_changes_dispatched_total", "") == 6 &&
			counter(t, r, "zoneprice_notify_deliveries_refused_total", "endpoint_full") == 3
	})
	if got := counter(t, r, "zoneprice_notify_deliveries_queued_total", ""); got != 3 {
		t.Errorf("%v deliveries counted queued, want 3", got)
	}
	if got := h.queued(t); got != 3 {
		t.Errorf("the stream holds %d deliveries, want 3", got)
	}
	waitFor(t, "every change acknowledged", func() bool {
		c, err := h.js.Consumer(context.Background(), contracts.HistoryStream, DispatchConsumer)
		if err != nil {
			t.Fatal(err)
		}
		info, err := c.Info(context.Background())
		return err == nil && info.NumAckPending == 0 && info.NumPending == 0
	})
}

// TestKeyCapOnDispatch: the dispatcher queues no more deliveries for a key
// whose endpoints have its cap waiting together, and counts the ones it
// refuses; a key whose endpoints take what comes is counted again from
// the stream when its own count reaches the cap, and is never refused.
func TestKeyCapOnDispatch(t *testing.T) {
	h := newHarness(t)
	failing := newReceiver(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusInternalServerError) })
	working := newReceiver(t, nil)
	for range 2 {
		h.register(t, failing.URL, func(w *contracts.Webhook) { w.Filters.Zones = []string{".com"} })
	}
	ok := h.register(t, working.URL, func(w *contracts.Webhook) {
		w.Owner, w.Filters.Zones = "ownerkey2", []string{".net"}
	})
	cfg := testConfig()
	cfg.RetrySchedule = []time.Duration{time.Hour} // failed deliveries wait in the stream
	cfg.MaxQueuedPerKey = 4
	r := h.start(t, cfg, time.Now)
	for i := range 3 {
		h.change(t, "porkbun", ".com", int64(900+i))
	}
	waitFor(t, "three changes dispatched, two deliveries refused", func() bool {
		return counter(t, r, "zoneprice_notify_changes_dispatched_total", "") == 3 &&
			counter(t, r, "zoneprice_notify_deliveries_refused_total", "key_full") == 2
	})
	if got := h.queued(t); got != 4 {
		t.Errorf("the stream holds %d deliveries, want the key's cap, 4", got)
	}
	for i := range 10 {
		h.change(t, "porkbun", ".net", int64(900+i))
		working.wait(t, i+1)
		waitFor(t, "the delivery acknowledged", func() bool { return h.queued(t) == 4 })
	}
	if got := len(h.waitAttempts(t, ok, 10)); got != 10 {
		t.Errorf("the working key's endpoint had %d attempts, want 10", got)
	}
	if got := counter(t, r, "zoneprice_notify_deliveries_refused_total", "key_full"); got != 2 {
		t.Errorf("%v deliveries refused for the key's cap after the working key's, want still 2", got)
	}
}

// TestDeletedEndpointsDeliveriesDropped: deleting an endpoint removes its
// deliveries waiting for a retry from the queue at once, pings included;
// and those of an endpoint deleted while no replica ran are removed by the
// next replica's count.
func TestDeletedEndpointsDeliveriesDropped(t *testing.T) {
	h := newHarness(t)
	rc := newReceiver(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) })
	gone, later := h.register(t, rc.URL), h.register(t, rc.URL)
	cfg := testConfig()
	// No retry within the test, pings' included: the receiver's count
	// is the first attempts.
	cfg.RetrySchedule, cfg.PingRetrySchedule = []time.Duration{time.Hour}, []time.Duration{time.Hour}
	r := h.start(t, cfg, time.Now)
	for i := range 3 {
		h.change(t, "porkbun", ".com", int64(900+i))
	}
	ping := bus.Delivery{Owner: gone.Owner, Webhook: gone.ID, ID: "msg_0123456789abcdef01234567", Event: contracts.EventPing, Body: []byte(`{}`)}
	if err := bus.NewDeliveries(h.js).Queue(context.Background(), ping); err != nil {
		t.Fatal(err)
	}
	h.waitAttempts(t, gone, 4)
	h.waitAttempts(t, later, 3)
	if err := h.kv.Delete(context.Background(), contracts.WebhookKey(gone.Owner, gone.ID)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the deleted endpoint's deliveries dropped, and counted", func() bool {
		return h.queued(t) == 3 && counter(t, r, "zoneprice_notify_deliveries_purged_total", "") == 4
	})
	r.stop()
	if err := h.kv.Delete(context.Background(), contracts.WebhookKey(later.Owner, later.ID)); err != nil {
		t.Fatal(err)
	}
	h.start(t, cfg, time.Now)
	waitFor(t, "the deliveries of the endpoint deleted meanwhile dropped", func() bool { return h.queued(t) == 0 })
	if got := len(rc.requests()); got != 7 {
		t.Errorf("the receiver got %d requests, want the 7 first attempts", got)
	}
}

// TestPingRetriedForMinutes: a ping that fails is tried on the short ping
// schedule and given up, while a change's delivery to the same endpoint
// waits for its next retry on the long one.
func TestPingRetriedForMinutes(t *testing.T) {
	h := newHarness(t)
	rc := newReceiver(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusInternalServerError) })
	w := h.register(t, rc.URL)
	cfg := testConfig()
	cfg.RetrySchedule = []time.Duration{time.Hour}
	r := h.start(t, cfg, time.Now)
	h.change(t, "porkbun", ".com", 900)
	ping := bus.Delivery{Owner: w.Owner, Webhook: w.ID, ID: "msg_0123456789abcdef01234567", Event: contracts.EventPing, Body: []byte(`{}`)}
	if err := bus.NewDeliveries(h.js).Queue(context.Background(), ping); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the ping given up", func() bool { return counter(t, r, "zoneprice_notify_deliveries_total", "given_up") == 1 })
	pings := 0
	for _, a := range h.attempts(t, w) {
		if a.Type == contracts.EventPing {
			pings++
		}
	}
	if want := cfg.attempts(contracts.EventPing); pings != want {
		t.Errorf("the ping was tried %d times, want %d", pings, want)
	}
	if got := h.queued(t); got != 1 {
		t.Errorf("the stream holds %d deliveries, want the change's, waiting for its retry", got)
	}
	var total time.Duration
	for _, d := range DefaultConfig().PingRetrySchedule {
		total += d
	}
	if total > 10*time.Minute {
		t.Errorf("a ping's schedule runs %v, want minutes", total)
	}
}

// TestRecordsKeptOnStop: attempts' records wait to be published together
// (here for an hour), and the server is not told a delivery is done
// before its record is stored; a replica told to stop publishes the
// records it holds, an endpoint's as one message, and answers for them
// before Run returns.
func TestRecordsKeptOnStop(t *testing.T) {
	h := newHarness(t)
	rc := newReceiver(t, nil)
	w := h.register(t, rc.URL)
	cfg := testConfig()
	cfg.RecordInterval = time.Hour
	r := h.start(t, cfg, time.Now)
	for _, price := range []int64{900, 800, 700} {
		h.change(t, "porkbun", ".com", price)
	}
	rc.wait(t, 3)
	waitFor(t, "the attempts counted", func() bool {
		return counter(t, r, "zoneprice_notify_attempts_total", string(contracts.OutcomeDelivered)) == 3
	})
	if got := h.attempts(t, w); len(got) != 0 {
		t.Errorf("%d attempts recorded before the interval passed, want them held", len(got))
	}
	if n := h.queued(t); n != 3 {
		t.Errorf("%d deliveries queued, want the three whose records are not stored yet", n)
	}
	r.stop()
	got := h.attempts(t, w)
	if len(got) != 3 || got[0].Outcome != contracts.OutcomeDelivered {
		t.Errorf("attempts recorded by the stop: %+v, want the three deliveries", got)
	}
	s, err := h.js.Stream(context.Background(), contracts.AttemptsStream)
	if err != nil {
		t.Fatal(err)
	}
	subject := contracts.AttemptSubject(w.ID)
	info, err := s.Info(context.Background(), jetstream.WithSubjectFilter(subject))
	if err != nil || info.State.Subjects[subject] != 1 {
		t.Errorf("the endpoint's messages: %v, %v; want the three attempts in one", info.State.Subjects, err)
	}
	waitFor(t, "an empty queue", func() bool { return h.queued(t) == 0 })
}
