package notify

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/eventtest"
)

func itoa(n int) string { return strconv.Itoa(n) }

func regular(minor int64) *contracts.OpPrice { return eventtest.Regular("USD", minor) }

// natsMsg is a delivery as the API queues a ping.
func natsMsg(subject string, body []byte, id string, event contracts.EventType) *nats.Msg {
	m := nats.NewMsg(subject)
	m.Data = body
	m.Header.Set(contracts.HeaderMsgID, id)
	m.Header.Set(contracts.HeaderWebhookID, id)
	m.Header.Set(contracts.HeaderEvent, string(event))
	return m
}

// counter sums the samples of the named counter of r's registry whose
// labels include value ("" for every sample).
func counter(t *testing.T, r *replica, name, value string) float64 {
	t.Helper()
	families, err := r.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if value == "" || hasLabelValue(m, value) {
				sum += m.GetCounter().GetValue()
			}
		}
	}
	return sum
}

func hasLabelValue(m *dto.Metric, value string) bool {
	for _, l := range m.GetLabel() {
		if l.GetValue() == value {
			return true
		}
	}
	return false
}

func TestGuard(t *testing.T) {
	tests := []struct {
		name     string
		addr     string
		loopback bool
		ok       bool
		prefixes []netip.Prefix
	}{
		{"public", "93.184.215.14:443", false, true, nil},
		{"public on 80", "93.184.215.14:80", false, true, nil},
		{"public ipv6", "[2606:4700::1111]:443", false, true, nil},
		{"public on another port", "93.184.215.14:8443", false, false, nil},
		{"loopback", "127.0.0.1:443", false, false, nil},
		{"loopback elsewhere in 127/8", "127.1.2.3:443", false, false, nil},
		{"ipv6 loopback", "[::1]:443", false, false, nil},
		{"ipv4-mapped loopback", "[::ffff:127.0.0.1]:443", false, false, nil},
		{"private 10/8", "10.0.0.1:443", false, false, nil},
		{"private 172.16/12", "172.16.5.4:443", false, false, nil},
		{"private 192.168/16", "192.168.1.1:443", false, false, nil},
		{"link-local metadata", "169.254.169.254:80", false, false, nil},
		{"cgnat", "100.64.0.1:443", false, false, nil},
		{"multicast", "224.0.0.1:443", false, false, nil},
		{"unspecified", "0.0.0.0:443", false, false, nil},
		{"ipv6 unspecified", "[::]:443", false, false, nil},
		{"ipv6 unique local", "[fd00::1]:443", false, false, nil},
		{"ipv6 link-local", "[fe80::1]:443", false, false, nil},
		{"ipv6 multicast", "[ff02::1]:443", false, false, nil},
		{"loopback allowed, any port", "127.0.0.1:38123", true, true, nil},
		{"ipv6 loopback allowed", "[::1]:38123", true, true, nil},
		{"private still refused with loopback allowed", "10.0.0.1:443", true, false, nil},
		{"allowed network", "10.201.7.1:443", false, true, []netip.Prefix{netip.MustParsePrefix("10.201.7.1/32")}},
		{"allowed network, another port", "10.201.7.1:38123", false, false, []netip.Prefix{netip.MustParsePrefix("10.201.7.1/32")}},
		{"beside the allowed network", "10.201.7.2:443", false, false, []netip.Prefix{netip.MustParsePrefix("10.201.7.1/32")}},
		{"loopback not in the allowed network", "127.0.0.1:443", false, false, []netip.Prefix{netip.MustParsePrefix("10.201.7.0/24")}},
		{"allowed ipv6 network", "[fd00::5]:443", false, true, []netip.Prefix{netip.MustParsePrefix("fd00::/64")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.AllowLoopback = tt.loopback
			cfg.AllowPrefixes = tt.prefixes
			network := "tcp4"
			if tt.addr[0] == '[' {
				network = "tcp6"
			}
			err := NewGuard(cfg).Control(network, tt.addr, nil)
			if got := err == nil; got != tt.ok {
				t.Errorf("Control(%s) = %v, want allowed %v", tt.addr, err, tt.ok)
			}
			if err != nil && !refused(err) {
				t.Errorf("refusal %v is not recognised as one", err)
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)
	tests := []struct {
		name, header string
		want         time.Duration
	}{
		{"absent", "", 0},
		{"seconds", "120", 2 * time.Minute},
		{"zero", "0", 0},
		{"negative", "-5", 0},
		{"date", now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{"date in the past", now.Add(-time.Hour).Format(http.TimeFormat), 0},
		{"garbage", "soon", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := retryAfter(tt.header, now); got != tt.want {
				t.Errorf("retryAfter(%q) = %v, want %v", tt.header, got, tt.want)
			}
		})
	}
}

func TestRetryDelay(t *testing.T) {
	n := &Notify{cfg: DefaultConfig()}
	for event, schedule := range map[contracts.EventType][]time.Duration{
		contracts.EventPriceDropped: contracts.RetrySchedule(), contracts.EventPing: contracts.PingRetrySchedule(),
	} {
		for i, d := range schedule {
			got := n.retryDelay(event, i+1, 0)
			if got < d*9/10 || got > d*11/10 {
				t.Errorf("%s after attempt %d: %v, want %v ± 10%%", event, i+1, got, d)
			}
		}
	}
	if got := n.retryDelay(contracts.EventPriceDropped, 1, time.Hour); got != time.Hour {
		t.Errorf("with Retry-After 1h: %v", got)
	}
	if got := n.retryDelay(contracts.EventPriceDropped, 1, 100*24*time.Hour); got != n.cfg.MaxRetryAfter {
		t.Errorf("with Retry-After 100 days: %v, want MaxRetryAfter %v", got, n.cfg.MaxRetryAfter)
	}
	if got, most := n.retryDelay(contracts.EventPing, 1, time.Hour), slices.Max(contracts.PingRetrySchedule()); got != most {
		t.Errorf("a ping with Retry-After 1h: %v, want its schedule's longest delay %v", got, most)
	}
	if got := n.retryDelay(contracts.EventPriceDropped, 1, time.Second); got < 4*time.Second {
		t.Errorf("a Retry-After shorter than the schedule shortens it: %v", got)
	}
}

func TestMatch(t *testing.T) {
	observed := time.Now().Add(-time.Hour)
	change := func(registrar, zone string, from, to int64) *contracts.PriceChange {
		return &contracts.PriceChange{Change: contracts.ChangeChanged, Registrar: registrar, Zone: zone,
			Before: &contracts.Offer{Register: regular(from)}, After: &contracts.Offer{Register: regular(to)}, ObservedAt: observed}
	}
	added := &contracts.PriceChange{Change: contracts.ChangeAdded, Registrar: "porkbun", Zone: ".com", After: &contracts.Offer{Register: regular(1000)}, ObservedAt: observed}
	hooks := map[string]*contracts.Webhook{
		"all":        {Events: contracts.EventTypes()},
		"changed":    {Events: []contracts.EventType{contracts.EventPriceChanged}},
		"added":      {Events: []contracts.EventType{contracts.EventZoneAdded}},
		"com":        {Events: contracts.EventTypes(), Filters: contracts.WebhookFilters{Zones: []string{".com", ".net"}}},
		"porkbun":    {Events: contracts.EventTypes(), Filters: contracts.WebhookFilters{Registrars: []string{"porkbun"}}},
		"com-inwx":   {Events: contracts.EventTypes(), Filters: contracts.WebhookFilters{Zones: []string{".com"}, Registrars: []string{"inwx"}}},
		"generic":    {Events: contracts.EventTypes(), Filters: contracts.WebhookFilters{Categories: []string{"generic"}}},
		"big":        {Events: contracts.EventTypes(), Filters: contracts.WebhookFilters{MinChangePercent: 20}},
		"paused":     {Events: contracts.EventTypes(), Paused: true},
		"disabled":   {Events: contracts.EventTypes(), Disabled: &contracts.WebhookDisabled{Reason: "gone"}},
		"dropped":    {Events: []contracts.EventType{contracts.EventPriceDropped}},
		"withdrawns": {Events: []contracts.EventType{contracts.EventZoneWithdrawn}},
	}
	r := newRegistrations(nil, slog.New(slog.DiscardHandler), newMetrics(prometheus.NewRegistry()))
	for id, w := range hooks {
		w.ID = id
		r.byID[id] = w
	}
	categories := func(zone string) []string {
		if zone == ".com" {
			return []string{"generic"}
		}
		return nil
	}
	tests := []struct {
		name   string
		change *contracts.PriceChange
		want   map[string]contracts.EventType
	}{
		{"a drop at porkbun in .com", change("porkbun", ".com", 1000, 900), map[string]contracts.EventType{
			"all": contracts.EventPriceDropped, "changed": contracts.EventPriceChanged, "com": contracts.EventPriceDropped,
			"porkbun": contracts.EventPriceDropped, "generic": contracts.EventPriceDropped, "dropped": contracts.EventPriceDropped,
		}},
		{"a big rise at inwx in .com", change("inwx", ".com", 1000, 1500), map[string]contracts.EventType{
			"all": contracts.EventPriceChanged, "changed": contracts.EventPriceChanged, "com": contracts.EventPriceChanged,
			"com-inwx": contracts.EventPriceChanged, "generic": contracts.EventPriceChanged, "big": contracts.EventPriceChanged,
		}},
		{"a rise in .org", change("inwx", ".org", 1000, 1100), map[string]contracts.EventType{
			"all": contracts.EventPriceChanged, "changed": contracts.EventPriceChanged,
		}},
		{"added", added, map[string]contracts.EventType{
			"all": contracts.EventZoneAdded, "added": contracts.EventZoneAdded, "com": contracts.EventZoneAdded,
			"porkbun": contracts.EventZoneAdded, "generic": contracts.EventZoneAdded, "big": contracts.EventZoneAdded,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := map[string]contracts.EventType{}
			r.current().match(tt.change, categories, func(w *contracts.Webhook, ev contracts.EventType) {
				if _, twice := got[w.ID]; twice {
					t.Errorf("%s matched twice", w.ID)
				}
				got[w.ID] = ev
			})
			if len(got) != len(tt.want) {
				t.Errorf("matched %v, want %v", got, tt.want)
			}
			for id, ev := range tt.want {
				if got[id] != ev {
					t.Errorf("%s: %q, want %q", id, got[id], ev)
				}
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Config)
		field  string
	}{
		{"default", func(*Config) {}, ""},
		{"no workers", func(c *Config) { c.Workers = 0 }, "Workers"},
		{"short timeout", func(c *Config) { c.Timeout = time.Millisecond }, "Timeout"},
		{"no schedule", func(c *Config) { c.RetrySchedule = nil }, "RetrySchedule"},
		{"zero delay", func(c *Config) { c.RetrySchedule = []time.Duration{0} }, "RetrySchedule"},
		{"no ping schedule", func(c *Config) { c.PingRetrySchedule = nil }, "PingRetrySchedule"},
		{"negative ping delay", func(c *Config) { c.PingRetrySchedule = []time.Duration{-time.Second} }, "PingRetrySchedule"},
		{"no cap per key", func(c *Config) { c.MaxQueuedPerKey = 0 }, "MaxQueuedPerKey"},
		{"records never published", func(c *Config) { c.RecordInterval = 0 }, "RecordInterval"},
		{"no ports", func(c *Config) { c.Ports = nil }, "Ports"},
		{"port 0", func(c *Config) { c.Ports = []uint16{0} }, "Ports"},
		{"no user agent", func(c *Config) { c.UserAgent = "" }, "UserAgent"},
		{"no endpoint concurrency", func(c *Config) { c.EndpointConcurrency = 0 }, "EndpointConcurrency"},
		{"an allowed network", func(c *Config) { c.AllowPrefixes = []netip.Prefix{netip.MustParsePrefix("172.18.0.0/16")} }, ""},
		{"an allowed network wider than /16", func(c *Config) { c.AllowPrefixes = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")} }, "AllowPrefixes"},
		{"an allowed ipv6 network wider than /48", func(c *Config) { c.AllowPrefixes = []netip.Prefix{netip.MustParsePrefix("fd00::/8")} }, "AllowPrefixes"},
		{"an invalid allowed network", func(c *Config) { c.AllowPrefixes = []netip.Prefix{{}} }, "AllowPrefixes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tt.change(&cfg)
			err := cfg.Validate()
			var ve *contracts.ValidationError
			switch {
			case tt.field == "" && err != nil:
				t.Errorf("Validate() = %v", err)
			case tt.field != "" && (!errors.As(err, &ve) || ve.Field != tt.field):
				t.Errorf("Validate() = %v, want a problem with %s", err, tt.field)
			}
		})
	}
}

func TestMetricsLint(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := newMetrics(reg)
	m.attempts.WithLabelValues("price.changed", "delivered").Inc()
	m.finished.WithLabelValues("price.changed", "delivered").Inc()
	m.disabled.WithLabelValues("gone").Inc()
	m.registrations.WithLabelValues("active").Set(1)
	m.queued.WithLabelValues("price.changed").Inc()
	problems, err := testutil.GatherAndLint(reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
}

// TestRecorderBatches: a full batch of records is published at once,
// without waiting for the interval, each delivery is answered after its
// record's batch, and closing publishes the rest.
func TestRecorderBatches(t *testing.T) {
	published := make(chan int, 4)
	r := newRecorder(func(_ context.Context, a []bus.Attempt) (int, error) {
		published <- len(a)
		return len(a), nil
	}, time.Hour, time.Hour, slog.New(slog.DiscardHandler))
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.run()
	}()
	var answered atomic.Int32
	for range recordBatch + 3 {
		r.finish(recording{token: r.track(bus.Job{}), attempt: bus.Attempt{Webhook: "wh_0123456789abcdef"}, answer: func() { answered.Add(1) }})
	}
	next := func() int {
		select {
		case n := <-published:
			return n
		case <-time.After(10 * time.Second):
			return 0
		}
	}
	if got := next(); got != recordBatch {
		t.Errorf("first batch of %d records, want %d", got, recordBatch)
	}
	r.close()
	<-done
	if got := next(); got != 3 {
		t.Errorf("batch published on close of %d records, want 3", got)
	}
	if got := answered.Load(); got != recordBatch+3 {
		t.Errorf("%d deliveries answered, want %d", got, recordBatch+3)
	}
	if len(r.inFlight) != 0 {
		t.Errorf("%d deliveries still reported in progress", len(r.inFlight))
	}
}

// TestSignLikeTheLibrary: the signatures are the Standard Webhooks
// library's, by each secret, however often a secret's keyed HMAC is used
// again.
func TestSignLikeTheLibrary(t *testing.T) {
	var secrets []string
	for range 2 {
		s, err := contracts.NewWebhookSecret()
		if err != nil {
			t.Fatal(err)
		}
		secrets = append(secrets, s)
	}
	s := newSigners()
	ts := time.Unix(1_700_000_000, 0)
	for i := range 3 {
		id, body := "msg_"+itoa(i), []byte(`{"type":"ping","n":`+itoa(i)+`}`)
		var want []string
		for _, secret := range secrets {
			wh, err := standardwebhooks.NewWebhook(secret)
			if err != nil {
				t.Fatal(err)
			}
			sig, err := wh.Sign(id, ts, body)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, sig)
		}
		got, err := s.sign(secrets, id, ts, body)
		if err != nil || got != strings.Join(want, " ") {
			t.Errorf("sign #%d = %q, %v; want %q", i, got, err, strings.Join(want, " "))
		}
	}
	if _, err := s.sign([]string{"whsec_not*base64"}, "msg_1", ts, nil); err == nil {
		t.Error("a secret that is not base64 signed")
	}
	if _, err := s.sign(nil, "msg_1", ts, nil); err == nil {
		t.Error("signed with no secret")
	}
}
