package notify

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
	"github.com/zoneprice/zoneprice/contracts/eventtest"
)

// harness is a provisioned NATS with the webhooks bucket, and the notify
// replicas a test starts on it.
type harness struct {
	srv *server.Server
	js  jetstream.JetStream
	kv  jetstream.KeyValue
	// observed is when the changes a test publishes were observed.
	observed time.Time
	seq      int
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	srv, js := bustest.Provisioned(t)
	kv, err := js.KeyValue(context.Background(), contracts.WebhooksBucket)
	if err != nil {
		t.Fatal(err)
	}
	return &harness{srv: srv, js: js, kv: kv, observed: time.Now().Add(-time.Hour).Truncate(time.Second)}
}

// testConfig is the production configuration with loopback receivers and
// plain http allowed, and retries milliseconds apart.
func testConfig() Config {
	cfg := DefaultConfig()
	cfg.AllowLoopback, cfg.AllowHTTP = true, true
	cfg.RetrySchedule = []time.Duration{20 * time.Millisecond, 40 * time.Millisecond, 60 * time.Millisecond, 80 * time.Millisecond}
	cfg.PingRetrySchedule = []time.Duration{20 * time.Millisecond, 40 * time.Millisecond}
	cfg.Timeout = time.Second
	cfg.Workers = 8
	cfg.BusyDelay = 20 * time.Millisecond
	cfg.StatsInterval = 50 * time.Millisecond
	return cfg
}

// replica is a running notify replica.
type replica struct {
	n    *Notify
	reg  *prometheus.Registry
	stop func()
}

// start runs a replica on its own connection until the test ends or
// stop is called, and returns once it dispatches changes.
func (h *harness) start(t *testing.T, cfg Config, now func() time.Time) *replica {
	t.Helper()
	_, js := bustest.Connect(t, h.srv)
	reg := prometheus.NewRegistry()
	n, err := New(busOn(js, cfg), cfg, slog.New(slog.DiscardHandler), reg, now)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- n.Run(ctx) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("notify: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	waitFor(t, "the dispatch and deliver consumers", func() bool {
		_, err1 := h.js.Consumer(context.Background(), contracts.HistoryStream, DispatchConsumer)
		_, err2 := h.js.Consumer(context.Background(), contracts.DeliveriesStream, DeliverConsumer)
		_, err3 := n.bus.Deliver.Info(context.Background()) // this replica's own
		return err1 == nil && err2 == nil && err3 == nil
	})
	return &replica{n: n, reg: reg, stop: stop}
}

// busOn is a replica's Bus on js, as zoneprice-notify makes it.
func busOn(js jetstream.JetStream, cfg Config) Bus {
	return Bus{
		Webhooks:   bus.Webhooks(js),
		State:      bus.NewStreams(js),
		Dispatch:   bus.NewDurable(js, contracts.HistoryStream, bus.DispatchConsumerConfig()),
		Deliver:    bus.NewDurable(js, contracts.DeliveriesStream, bus.DeliverConsumerConfig(cfg.AckWait)),
		Deliveries: bus.NewDeliveries(js),
	}
}

// register stores a new active endpoint at url for events (every event
// type when none), changed by opts, and returns it.
func (h *harness) register(t *testing.T, url string, opts ...func(*contracts.Webhook)) *contracts.Webhook {
	t.Helper()
	id, err := contracts.NewWebhookID()
	if err != nil {
		t.Fatal(err)
	}
	secret, err := contracts.NewWebhookSecret()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	w := &contracts.Webhook{ID: id, Owner: "ownerkey1", URL: url, Events: contracts.EventTypes(),
		Secrets: []contracts.WebhookSecret{{Secret: secret}}, CreatedAt: now, UpdatedAt: now}
	for _, o := range opts {
		o(w)
	}
	if err := w.Validate(true); err != nil {
		t.Fatal(err)
	}
	h.put(t, w)
	return w
}

func (h *harness) put(t *testing.T, w *contracts.Webhook) {
	t.Helper()
	b, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.kv.Put(context.Background(), contracts.WebhookKey(w.Owner, w.ID), b); err != nil {
		t.Fatal(err)
	}
}

// webhook reads w's record back from the bucket.
func (h *harness) webhook(t *testing.T, w *contracts.Webhook) *contracts.Webhook {
	t.Helper()
	e, err := h.kv.Get(context.Background(), contracts.WebhookKey(w.Owner, w.ID))
	if err != nil {
		t.Fatal(err)
	}
	got := new(contracts.Webhook)
	if err := json.Unmarshal(e.Value(), got); err != nil {
		t.Fatal(err)
	}
	return got
}

// seen waits until replica r's mirror holds w as stored.
func (r *replica) seen(t *testing.T, w *contracts.Webhook) {
	t.Helper()
	waitFor(t, "the registration in the mirror", func() bool {
		got, ok := r.n.regs.Lookup(w.ID)
		return ok && got.Paused == w.Paused && (got.Disabled == nil) == (w.Disabled == nil)
	})
}

// change publishes a change of registrar's price for zone to the history
// stream: the register price from 1000 to register (minor units); 0 withdraws, and
// a change from nothing adds. It returns the change and its sequence.
func (h *harness) change(t *testing.T, registrar, zone string, register int64) (*contracts.PriceChange, uint64) {
	t.Helper()
	h.seq++
	c := &contracts.PriceChange{V: 1, Kind: contracts.KindPriceChange, Change: contracts.ChangeChanged,
		Registrar: registrar, Zone: zone,
		Before:     &contracts.Offer{Register: eventtest.Regular("USD", 1000)},
		After:      &contracts.Offer{Register: eventtest.Regular("USD", register)},
		ObservedAt: h.observed.Add(time.Duration(h.seq) * time.Second), Source: "porkbun-api"}
	switch register {
	case 0:
		c.Change, c.After = contracts.ChangeWithdrawn, nil
	case -1:
		c.Change, c.Before, c.After = contracts.ChangeAdded, nil, &contracts.Offer{Register: eventtest.Regular("USD", 1000)}
	}
	return c, h.publish(t, c)
}

func (h *harness) publish(t *testing.T, c *contracts.PriceChange) uint64 {
	t.Helper()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	ack, err := h.js.Publish(context.Background(), c.Subject(), b)
	if err != nil {
		t.Fatal(err)
	}
	return ack.Sequence
}

// attempts returns the attempts recorded for w, oldest first, read as the
// API reads them (the last contracts.MaxAttemptsKept).
func (h *harness) attempts(t *testing.T, w *contracts.Webhook) []contracts.DeliveryAttempt {
	t.Helper()
	out, err := bus.NewDeliveries(h.js).Attempts(context.Background(), w.ID)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// waitAttempts waits until w has at least n attempts recorded, and
// returns them.
func (h *harness) waitAttempts(t *testing.T, w *contracts.Webhook, n int) []contracts.DeliveryAttempt {
	t.Helper()
	var got []contracts.DeliveryAttempt
	waitFor(t, "attempts", func() bool {
		got = h.attempts(t, w)
		return len(got) >= n
	})
	return got
}

// queued is how many deliveries the deliveries stream holds.
func (h *harness) queued(t *testing.T) uint64 {
	t.Helper()
	s, err := h.js.Stream(context.Background(), contracts.DeliveriesStream)
	if err != nil {
		t.Fatal(err)
	}
	return s.CachedInfo().State.Msgs
}

// waitFor polls cond until it holds, failing the test after 15 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// request is one delivery a receiver got.
type request struct {
	Header http.Header
	Body   []byte
}

// receiver is an HTTP endpoint that answers with answer (200 when nil)
// and keeps every request.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	got    []request
	answer func(n int, w http.ResponseWriter, r *http.Request)
}

func newReceiver(t *testing.T, answer func(n int, w http.ResponseWriter, r *http.Request)) *receiver {
	t.Helper()
	rc := &receiver{answer: answer}
	rc.Server = httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	rc.got = append(rc.got, request{Header: r.Header.Clone(), Body: body})
	n := len(rc.got)
	rc.mu.Unlock()
	if rc.answer != nil {
		rc.answer(n, w, r)
	}
}

func (rc *receiver) requests() []request {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]request(nil), rc.got...)
}

// wait waits for n requests and returns them.
func (rc *receiver) wait(t *testing.T, n int) []request {
	t.Helper()
	waitFor(t, "deliveries", func() bool { return len(rc.requests()) >= n })
	return rc.requests()
}
