package app_test

import (
	"context"
	"encoding/json"
	"flag"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/cmd/internal/app"
	"github.com/zoneprice/zoneprice/cmd/internal/cmdtest"
	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/eventtest"
	"github.com/zoneprice/zoneprice/query/notify"
	"github.com/zoneprice/zoneprice/query/querytest"
)

// TestNotifyNATSPermissions runs zoneprice-notify as accounts.conf's
// NOTIFY user through all it does (follow the history and the zones, watch
// and update registrations, queue, send, retry and record deliveries, poll
// the queue) and checks the server refused it nothing, and that it may not
// do what it must not.
func TestNotifyNATSPermissions(t *testing.T) {
	s := startSecureNATS(t, nil)
	admin := s.connect(t, "ADMIN")
	porkbunUser := s.connect(t, "INGEST_PORKBUN")
	reference := s.connect(t, "INGEST_REFERENCE")
	notifier := s.connect(t, "NOTIFY")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := app.Provision(ctx, admin.js, bus.Options{}, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatalf("provision: %v; refused:\n%s", err, admin.violations())
	}
	// Zone metadata, for the category filters.
	if err := ingestOnce(t, reference, map[string]string{"ZONEPRICE_IANA_OFFLINE": "true"}, "--sources", "iana"); err != nil {
		t.Fatalf("ingest zones: %v", err)
	}

	var failed atomic.Bool
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if failed.CompareAndSwap(false, true) {
			w.WriteHeader(http.StatusInternalServerError) // failing_since set, then cleared
		}
	}))
	defer ok.Close()
	gone := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusGone) }))
	defer gone.Close()
	// The API writes registrations; the notify user may too (it records
	// failures in them), and stands in for it here.
	kv, err := notifier.js.KeyValue(ctx, contracts.WebhooksBucket)
	if err != nil {
		t.Fatal(err)
	}
	register := func(url string, filters contracts.WebhookFilters) contracts.Webhook {
		id, _ := contracts.NewWebhookID()
		secret, _ := contracts.NewWebhookSecret()
		w := contracts.Webhook{ID: id, Owner: "ownerkey1", URL: url, Events: contracts.EventTypes(), Filters: filters,
			Secrets: []contracts.WebhookSecret{{Secret: secret}}, CreatedAt: time.Now(), UpdatedAt: time.Now()}
		b, _ := json.Marshal(w)
		if _, err := kv.Put(ctx, contracts.WebhookKey(w.Owner, w.ID), b); err != nil {
			t.Fatalf("register: %v; refused:\n%s", err, notifier.violations())
		}
		return w
	}
	okHook := register(ok.URL, contracts.WebhookFilters{Categories: []string{"generic"}})
	goneHook := register(gone.URL, contracts.WebhookFilters{})
	stored := func(w contracts.Webhook) contracts.Webhook {
		e, err := kv.Get(ctx, contracts.WebhookKey(w.Owner, w.ID))
		if err != nil {
			t.Fatal(err)
		}
		var got contracts.Webhook
		_ = json.Unmarshal(e.Value(), &got)
		return got
	}

	defer runNotify(t, ctx, notifier)()
	if !querytest.Wait(20*time.Second, func() bool {
		// The notify user may not read its consumer's info; the admin
		// sees that the history has one.
		s, err := admin.js.Stream(ctx, contracts.HistoryStream)
		return err == nil && s.CachedInfo().State.Consumers > 0
	}) {
		t.Fatalf("no dispatch consumer within 20s; notify logged:\n%s", notifier.log.String())
	}

	change := &contracts.PriceChange{V: 1, Kind: contracts.KindPriceChange, Change: contracts.ChangeChanged, Registrar: "porkbun", Zone: ".com",
		Before: &contracts.Offer{Register: eventtest.Regular("USD", 1000)}, After: &contracts.Offer{Register: eventtest.Regular("USD", 900)},
		ObservedAt: time.Now().Add(-time.Minute), Source: "porkbun-api"}
	doc, _ := json.Marshal(change)
	if _, err := porkbunUser.js.Publish(ctx, change.Subject(), doc); err != nil {
		t.Fatal(err)
	}
	querytest.Within(t, 60*time.Second, "the 410 endpoint disabled", func() bool { return stored(goneHook).Disabled != nil })
	querytest.Within(t, 60*time.Second, "the other delivered after a failure", func() bool {
		w := stored(okHook)
		return failed.Load() && w.FailingSince == nil && queueEmpty(t, admin, ctx)
	})
	if v := notifier.violations(); v != "" {
		t.Errorf("notify refused:\n%s", v)
	}

	refused := map[string]func(context.Context) error{
		"publish a price": func(ctx context.Context) error {
			_, err := bus.NewPublisher(notifier.js).Publish(ctx, eventtest.RegisterOnly("porkbun", ".org", time.Now(), "USD", 999))
			return err
		},
		"record a change": func(ctx context.Context) error {
			_, err := notifier.js.Publish(ctx, change.Subject(), doc)
			return err
		},
		"write an API key": func(ctx context.Context) error {
			keys, err := notifier.js.KeyValue(ctx, contracts.KeysBucket)
			if err != nil {
				return err
			}
			_, err = keys.Put(ctx, "forgedkey1", []byte("{}"))
			return err
		},
		"update a stream": func(ctx context.Context) error {
			_, err := notifier.js.UpdateStream(ctx, bus.DeliveriesConfig(bus.Options{}))
			return err
		},
		"delete the deliveries consumer": func(ctx context.Context) error {
			return notifier.js.DeleteConsumer(ctx, contracts.DeliveriesStream, notify.DeliverConsumer)
		},
		"create another consumer on the history": func(ctx context.Context) error {
			_, err := notifier.js.CreateOrUpdateConsumer(ctx, contracts.HistoryStream, jetstreamDurable("export"))
			return err
		},
	}
	for what, do := range refused {
		wctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		if err := do(wctx); err == nil {
			t.Errorf("notify could %s", what)
		}
		cancel()
	}
}

// queueEmpty reports whether the deliveries stream holds nothing.
func queueEmpty(t *testing.T, c *client, ctx context.Context) bool {
	t.Helper()
	s, err := c.js.Stream(ctx, contracts.DeliveriesStream)
	if err != nil {
		t.Fatal(err)
	}
	return s.CachedInfo().State.Msgs == 0
}

func jetstreamDurable(name string) jetstream.ConsumerConfig {
	return jetstream.ConsumerConfig{Durable: name, AckPolicy: jetstream.AckExplicitPolicy}
}

// TestLocalNotifyUser runs zoneprice-notify beside the all-in-one, signed
// in with the seed the all-in-one made for it, and checks it delivers
// without a refusal.
func TestLocalNotifyUser(t *testing.T) {
	dir := t.TempDir()
	srv := cmdtest.AllInOneNATS(t, dir)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, js, err := srv.Connect("zoneprice", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if err := app.Provision(ctx, js, bus.Options{}, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	got := make(chan struct{}, 1)
	receiver := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		select {
		case got <- struct{}{}:
		default:
		}
	}))
	defer receiver.Close()
	kv, err := js.KeyValue(ctx, contracts.WebhooksBucket)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := contracts.NewWebhookID()
	secret, _ := contracts.NewWebhookSecret()
	w := contracts.Webhook{ID: id, Owner: "ownerkey1", URL: receiver.URL, Events: contracts.EventTypes(),
		Secrets: []contracts.WebhookSecret{{Secret: secret}}, CreatedAt: time.Now(), UpdatedAt: time.Now()}
	b, _ := json.Marshal(w)
	if _, err := kv.Put(ctx, contracts.WebhookKey(w.Owner, w.ID), b); err != nil {
		t.Fatal(err)
	}

	c, err := joinAs(t, "zoneprice-notify", localEnv(srv, dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	waitConnected(t, c.nc)
	defer runNotify(t, ctx, c)()
	querytest.Within(t, 20*time.Second, "the dispatch consumer", func() bool {
		_, err := js.Consumer(ctx, contracts.HistoryStream, notify.DispatchConsumer)
		return err == nil
	})
	change := &contracts.PriceChange{V: 1, Kind: contracts.KindPriceChange, Change: contracts.ChangeWithdrawn, Registrar: "porkbun", Zone: ".com",
		Before: &contracts.Offer{Register: eventtest.Regular("USD", 1000)}, ObservedAt: time.Now().Add(-time.Minute), Source: "porkbun-api"}
	doc, _ := json.Marshal(change)
	if _, err := js.Publish(ctx, change.Subject(), doc); err != nil {
		t.Fatal(err)
	}
	select {
	case <-got:
	case <-ctx.Done():
		t.Fatalf("no delivery; notify logged:\n%s", c.log.String())
	}
	if v := c.violations(); v != "" {
		t.Errorf("notify refused:\n%s", v)
	}
}

// runNotify runs zoneprice-notify's parts on c's connection, with loopback
// receivers allowed, until the function it returns is called.
func runNotify(t *testing.T, ctx context.Context, c *client) (stop func()) {
	t.Helper()
	fs := flag.NewFlagSet("zoneprice-notify", flag.ContinueOnError)
	nf, err := app.RegisterNotifyFlags(fs, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if err := fs.Parse([]string{"--webhook-allow-loopback", "--webhook-allow-http"}); err != nil {
		t.Fatal(err)
	}
	n, err := app.Notify(c.js, nf, slog.New(slog.NewJSONHandler(c.log, nil)), prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	nctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- n.Run(nctx) }()
	return func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("notify: %v", err)
		}
	}
}
