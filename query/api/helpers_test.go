package api_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/cache"
	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/eventtest"
	"github.com/zoneprice/zoneprice/query/access"
	"github.com/zoneprice/zoneprice/query/api"
	"github.com/zoneprice/zoneprice/query/replay"
	"github.com/zoneprice/zoneprice/query/webhooks"
)

var epoch = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// clock is every pod's clock: an hour after the fixtures were observed.
func clock() time.Time { return epoch.Add(time.Hour) }

// baseEvents are the data most tests serve: prices in three currencies,
// one of them without a rate, a second-level zone, an IDN, metadata for
// two zones and EUR rates.
func baseEvents() []contracts.Event {
	return []contracts.Event{
		eventtest.Priced("alpha", ".com", epoch, "USD", 968, 1037, 968),
		eventtest.Priced("bravo", ".com", epoch, "USD", 1099, 1199, 1099),
		eventtest.Priced("charlie", ".com", epoch, "EUR", 899, 1299, 1299),
		eventtest.Priced("india", ".com", epoch, "INR", 50000, 70000, 70000),
		eventtest.Priced("alpha", ".co.uk", epoch, "USD", 599, 699, 0),
		eventtest.Priced("bravo", ".xn--p1ai", epoch, "USD", 300, 300, 300),
		eventtest.Priced("alpha", ".xn--p1ai", epoch, "USD", 350, 350, 350),
		eventtest.ZoneMeta(".com", "generic", epoch, "generic", "legacy-gtld"),
		eventtest.ZoneMeta(".xn--p1ai", "country-code", epoch, "country-code", "idn"),
		eventtest.Rates(epoch, "EUR", map[string]string{"USD": "1.0830"}),
	}
}

func publish(t testing.TB, js jetstream.JetStream, events ...contracts.Event) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, _, err := bus.NewPublisher(js).PublishAll(ctx, events, 256); err != nil {
		t.Fatalf("publish: %v", err)
	}
}

// pod is one query service: its real router behind a real HTTP server,
// serving from a consumer of a real JetStream server or from fixed
// snapshots, and its registry.
type pod struct {
	url      string
	handler  http.Handler
	reg      *prometheus.Registry
	consumer *replay.Consumer // nil on fixed snapshots
	keys     *access.Keys     // nil without keys
}

// podConfig is how startPod builds a pod. The zero value is a pod that
// consumes the stream and has caught up, with no API keys and no limit on
// the free tier.
type podConfig struct {
	// cfg is the server's configuration. Nil is api.DefaultConfig()
	// without a limit on the free tier: most tests poll faster than it
	// allows, and limits have their own tests in limits_test.go.
	cfg *api.Config
	// snaps, when set, is served instead of a consumer of the stream,
	// which then needs no JetStream.
	snaps api.Snapshots
	// keys gives the pod a store of the API keys on JetStream, which
	// the test runs when it likes; runKeys runs it and waits until it
	// has loaded them.
	keys, runKeys bool
	// webhooks gives the pod a store of webhooks on JetStream,
	// configured by hooks (the zero value takes https URLs only).
	webhooks bool
	hooks    webhooks.Config
	// log is the pod's logger; nil discards.
	log *slog.Logger
	// reg is the pod's registry; nil is a new one.
	reg *prometheus.Registry
}

// startPod starts a pod on js as pc says, until the test ends.
func startPod(t testing.TB, js jetstream.JetStream, pc podConfig) *pod {
	t.Helper()
	cfg := api.DefaultConfig()
	cfg.Limits.Anonymous = access.Rate{}
	if pc.cfg != nil {
		cfg = *pc.cfg
	}
	log := pc.log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p := &pod{reg: pc.reg}
	if p.reg == nil {
		p.reg = prometheus.NewRegistry()
	}
	snaps := pc.snaps
	if snaps == nil {
		p.consumer = runConsumer(t, js, log, p.reg)
		snaps = p.consumer
	}
	if pc.keys || pc.runKeys {
		keys, err := access.NewKeys(bus.Keys(js), cfg.Limits.Tiers, log, p.reg)
		if err != nil {
			t.Fatalf("new keys: %v", err)
		}
		p.keys = keys
	}
	if pc.runKeys {
		background(t, "keys", p.keys.Run)
		select {
		case <-p.keys.Ready():
		case <-time.After(30 * time.Second):
			t.Fatal("keys not loaded within 30s")
		}
	}
	var hooks *webhooks.Store
	if pc.webhooks {
		hooks = webhooks.NewStore(pc.hooks, webhooks.Bus{Webhooks: bus.Webhooks(js), Owners: bus.WebhookOwners(js), Deliveries: bus.NewDeliveries(js)}, time.Now)
	}
	srv, err := api.NewServer(cfg, snaps, p.keys, hooks, log, p.reg, p.reg)
	if err != nil {
		t.Fatalf("new server: %v", err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		hs.Close()
		srv.Close()
	})
	p.url, p.handler = hs.URL, srv.Handler()
	return p
}

// runConsumer runs a consumer of js's stream until the test ends, and
// returns it once it has caught up.
func runConsumer(t testing.TB, js jetstream.JetStream, log *slog.Logger, reg prometheus.Registerer) *replay.Consumer {
	t.Helper()
	c, err := replay.New(bus.NewStreams(js), replay.DefaultConfig(), log, reg, clock)
	if err != nil {
		t.Fatalf("new consumer: %v", err)
	}
	background(t, "consumer", c.Run)
	select {
	case <-c.Ready():
	case <-time.After(60 * time.Second):
		t.Fatal("consumer not ready within 60s")
	}
	return c
}

// background runs part until the test ends, and fails the test if it
// returns an error.
func background(t testing.TB, what string, part func(context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- part(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("%s run: %v", what, err)
		}
	})
}

// fixedSnapshots serves one snapshot, ready or not, and a history, loaded
// or not: a pod for tests of the handlers, which need no stream.
type fixedSnapshots struct {
	snap  *cache.Snapshot
	ready bool
	hist  *cache.HistoryView // nil: not loaded
}

var _ api.Snapshots = fixedSnapshots{}

func (f fixedSnapshots) Snapshot() *cache.Snapshot { return f.snap }

func (f fixedSnapshots) IsReady() bool { return f.ready }

func (f fixedSnapshots) History() (*cache.HistoryView, bool) {
	if f.hist == nil {
		return cache.NewHistory().View(), false
	}
	return f.hist, true
}

// notReady is a pod's data before it has caught up: empty, and not ready.
func notReady() fixedSnapshots {
	return fixedSnapshots{snap: cache.NewIndex(replay.DefaultConfig().Currency).Snapshot()}
}

// serving is a pod's data once it has caught up with a stream holding
// events.
func serving(t testing.TB, events ...contracts.Event) fixedSnapshots {
	t.Helper()
	return fixedSnapshots{snap: api.SnapshotOf(t, clock(), events...), ready: true}
}

// do makes a request with header pairs and returns the response and its
// body as it came: a request that asks for gzip turns off the client's own
// decompression, and gets the compressed bytes.
func do(t testing.TB, method, url string, header ...string) (*http.Response, []byte) {
	t.Helper()
	return call(t, method, url, "", header...)
}

// call is do with content, none when "".
func call(t testing.TB, method, url, content string, header ...string) (*http.Response, []byte) {
	t.Helper()
	var body io.Reader
	if content != "" {
		body = strings.NewReader(content)
	}
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read %s: %v", url, err)
	}
	return resp, b
}

// get is do for a GET.
func get(t testing.TB, url string, header ...string) (*http.Response, []byte) {
	t.Helper()
	return do(t, http.MethodGet, url, header...)
}

// exchange is one request and what came back, the body decompressed.
type exchange struct {
	resp *http.Response
	body []byte
}

// send is do with a gzipped body undone, for tests that read what the
// body says whatever its encoding.
func send(t testing.TB, method, url string, header ...string) exchange {
	t.Helper()
	resp, body := do(t, method, url, header...)
	if resp.Header.Get("Content-Encoding") == "gzip" && method != http.MethodHead && resp.StatusCode != http.StatusNotModified {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatalf("%s %s: gzip: %v", method, url, err)
		}
		if body, err = io.ReadAll(zr); err != nil {
			t.Fatalf("%s %s: gunzip: %v", method, url, err)
		}
	}
	return exchange{resp: resp, body: body}
}

// decode parses a body with numbers kept as their literal text.
func decode(t testing.TB, body []byte, v any) {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
}

// prometheusCounter is the counter name in reg with label=value, or the
// first one when label is "".
func prometheusCounter(t testing.TB, reg *prometheus.Registry, name, label, value string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if label == "" {
				return m.GetCounter().GetValue()
			}
			for _, lp := range m.GetLabel() {
				if lp.GetName() == label && lp.GetValue() == value {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

// serveOn runs a pod's server the way a pod runs it, with Serve on a
// listener of its own, until the test ends, and returns its address: for
// tests of what Serve sets up around the handler (the server's timeouts and
// its limit on a request's head), which startPod's httptest server lacks.
// Nil cfg is startPod's default.
func serveOn(t testing.TB, cfg *api.Config, snaps api.Snapshots) string {
	t.Helper()
	c := api.DefaultConfig()
	c.Limits.Anonymous = access.Rate{}
	if cfg != nil {
		c = *cfg
	}
	reg := prometheus.NewRegistry()
	srv, err := api.NewServer(c, snaps, nil, nil, slog.New(slog.DiscardHandler), reg, reg)
	if err != nil {
		t.Fatalf("new server: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		srv.Close()
		t.Fatal(err)
	}
	background(t, "server", func(ctx context.Context) error { return srv.Serve(ctx, ln) })
	return ln.Addr().String()
}
