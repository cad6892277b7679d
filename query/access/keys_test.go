package access_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
	"github.com/zoneprice/zoneprice/query/access"
	"github.com/zoneprice/zoneprice/query/querytest"
)

// pod is one query pod's key store, running until the test ends.
type pod struct {
	keys *access.Keys
	reg  *prometheus.Registry
}

// startKeys runs a pod's key store on js, logging to log (nil discards),
// changed by configure before it runs.
func startKeys(t *testing.T, js jetstream.JetStream, log *slog.Logger, configure ...func(*access.Keys)) *pod {
	t.Helper()
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	reg := prometheus.NewRegistry()
	k, err := access.NewKeys(bus.Keys(js), access.DefaultConfig().Tiers, log, reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range configure {
		c(k)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- k.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("keys run: %v", err)
		}
	})
	return &pod{keys: k, reg: reg}
}

func (p *pod) waitReady(t *testing.T) {
	t.Helper()
	select {
	case <-p.keys.Ready():
	case <-time.After(20 * time.Second):
		t.Fatal("keys not ready within 20s")
	}
}

// tier is the tier a pod grants key, "" when it refuses it.
func (p *pod) tier(key string) string {
	sum := contracts.HashAPIKey(key)
	if s := p.keys.Lookup(&sum); s != nil {
		return s.Tier
	}
	return ""
}

func bucket(t *testing.T, js jetstream.JetStream) jetstream.KeyValue {
	t.Helper()
	kv, err := js.KeyValue(context.Background(), contracts.KeysBucket)
	if err != nil {
		t.Fatal(err)
	}
	return kv
}

// create stores a new key of tier and returns it with its record.
func create(t *testing.T, kv jetstream.KeyValue, tier string) (string, contracts.APIKey) {
	t.Helper()
	key, rec, err := contracts.NewAPIKey(tier, "test", epoch)
	if err != nil {
		t.Fatal(err)
	}
	put(t, kv, rec.ID, rec)
	return key, rec
}

func put(t *testing.T, kv jetstream.KeyValue, id string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(context.Background(), id, b); err != nil {
		t.Fatal(err)
	}
}

// TestKeysReachEveryPod runs two pods on one JetStream: a key created,
// moved to another tier, and revoked (deleted or purged) reaches both.
func TestKeysReachEveryPod(t *testing.T) {
	tests := []struct {
		name   string
		revoke func(jetstream.KeyValue, string) error
	}{
		{"delete", func(kv jetstream.KeyValue, id string) error { return kv.Delete(context.Background(), id) }},
		{"purge", func(kv jetstream.KeyValue, id string) error { return kv.Purge(context.Background(), id) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, js := bustest.Provisioned(t)
			kv := bucket(t, js)
			pods := []*pod{startKeys(t, js, nil), startKeys(t, js, nil)}
			for _, p := range pods {
				p.waitReady(t)
			}
			key, rec := create(t, kv, contracts.ProTier)
			other, _ := create(t, kv, contracts.StandardTier)
			for i, p := range pods {
				querytest.Until(t, "the key in pod "+string(rune('a'+i)), func() bool { return p.tier(key) == contracts.ProTier })
			}
			rec.Tier = contracts.StandardTier
			put(t, kv, rec.ID, rec)
			for i, p := range pods {
				querytest.Until(t, "the new tier in pod "+string(rune('a'+i)), func() bool { return p.tier(key) == contracts.StandardTier })
			}
			if err := tt.revoke(kv, rec.ID); err != nil {
				t.Fatal(err)
			}
			for i, p := range pods {
				querytest.Until(t, "the revocation in pod "+string(rune('a'+i)), func() bool { return p.tier(key) == "" })
				if got := p.tier(other); got != contracts.StandardTier {
					t.Errorf("pod %c: the other key's tier is %q after the revocation, want standard", 'a'+i, got)
				}
			}
		})
	}
}

// TestKeysLoadedWhenReady starts a pod on a bucket that holds keys: the
// moment it is ready, it knows every one of them.
func TestKeysLoadedWhenReady(t *testing.T) {
	_, js := bustest.Provisioned(t)
	kv := bucket(t, js)
	var keys []string
	for range 50 {
		k, _ := create(t, kv, contracts.ProTier)
		keys = append(keys, k)
	}
	revoked, rec := create(t, kv, contracts.ProTier)
	if err := kv.Delete(context.Background(), rec.ID); err != nil {
		t.Fatal(err)
	}
	p := startKeys(t, js, nil)
	p.waitReady(t)
	for i, k := range keys {
		if got := p.tier(k); got != contracts.ProTier {
			t.Errorf("key %d at ready: tier %q, want pro", i, got)
		}
	}
	if got := p.tier(revoked); got != "" {
		t.Errorf("a key revoked before the pod started: tier %q, want refused", got)
	}
	if got := keysGauge(t, p.reg, "pro"); got != 50 {
		t.Errorf("zoneprice_api_keys{tier=pro}: got %v, want 50", got)
	}
}

// TestKeysWithoutBucket starts a pod before anything created the bucket:
// it is ready with no keys, and takes the keys once the bucket exists.
func TestKeysWithoutBucket(t *testing.T) {
	srv := bustest.Server(t)
	_, js := bustest.Connect(t, srv)
	p := startKeys(t, js, nil)
	p.waitReady(t)
	if _, err := js.KeyValue(context.Background(), contracts.KeysBucket); err == nil {
		t.Fatal("the pod created the bucket; it must only read it")
	}
	kv, err := bus.ProvisionKeys(context.Background(), js, bus.Options{})
	if err != nil {
		t.Fatal(err)
	}
	key, _ := create(t, kv, contracts.ProTier)
	querytest.Until(t, "the key once the bucket exists", func() bool { return p.tier(key) == contracts.ProTier })
}

// TestKeysRefuseBadRecords stores records a pod must not trust next to a
// good one, and a key of a tier the pod does not know.
func TestKeysRefuseBadRecords(t *testing.T) {
	_, js := bustest.Provisioned(t)
	kv := bucket(t, js)
	p := startKeys(t, js, nil)
	p.waitReady(t)

	otherID, misfiled := create(t, kv, contracts.ProTier)
	misfiled.ID = "0123456789abcdef"
	put(t, kv, "fedcba9876543210", misfiled) // under another id
	if _, err := kv.Put(context.Background(), "00000000aaaaaaaa", []byte("{not json")); err != nil {
		t.Fatal(err)
	}
	badTier, rec := create(t, kv, contracts.ProTier)
	rec.Tier = "Gold!"
	put(t, kv, rec.ID, rec) // replaces the good record with an invalid one
	unknown, _ := create(t, kv, "gold")
	good, _ := create(t, kv, contracts.ProTier)

	querytest.Until(t, "the last key", func() bool { return p.tier(good) == contracts.ProTier })
	if got := p.tier(otherID); got != contracts.ProTier {
		t.Errorf("the key stored under its own id: tier %q, want pro", got)
	}
	if got := p.tier(badTier); got != "" {
		t.Errorf("a key whose record became invalid: tier %q, want refused", got)
	}
	if got := p.tier(unknown); got != "gold" {
		t.Errorf("a key of an unknown tier: tier %q, want gold (served at the free limit)", got)
	}
	if got := keysGauge(t, p.reg, "unknown"); got != 1 {
		t.Errorf("zoneprice_api_keys{tier=unknown}: got %v, want 1", got)
	}
	if problems, err := testutil.GatherAndLint(p.reg); err != nil || len(problems) > 0 {
		t.Errorf("metric lint: %v %v", err, problems)
	}
}

// keysGauge is zoneprice_api_keys{tier} in reg.
func keysGauge(t *testing.T, reg *prometheus.Registry, tier string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "zoneprice_api_keys" {
			continue
		}
		for _, m := range mf.GetMetric() {
			if m.GetLabel()[0].GetValue() == tier {
				return m.GetGauge().GetValue()
			}
		}
	}
	t.Fatalf("no zoneprice_api_keys{tier=%q}", tier)
	return 0
}

// TestKeysUnreadableBucket runs a pod that may not read the keys bucket: it
// is ready with no keys, marks them unavailable (not absent), logs the
// error and keeps trying, so that once it is allowed it loads them.
func TestKeysUnreadableBucket(t *testing.T) {
	d := bustest.RestrictedServer(t, bustest.BucketSubjects(contracts.KeysBucket)...)
	key, _ := create(t, bucket(t, d.Admin), contracts.ProTier)

	var logs querytest.LogBuffer
	p := startKeys(t, d.Restricted, slog.New(slog.NewJSONHandler(&logs, nil)))
	k, reg := p.keys, p.reg
	p.waitReady(t)
	if got := k.State(); got != access.Unavailable {
		t.Fatalf("state with the bucket unreadable: got %v, want Unavailable", got)
	}
	if got := p.tier(key); got != "" {
		t.Errorf("a key while the bucket is unreadable: tier %q, want none", got)
	}
	if got := gauge(t, reg, "zoneprice_api_keys_watch_up"); got != 0 {
		t.Errorf("zoneprice_api_keys_watch_up: got %v, want 0", got)
	}
	if got := gauge(t, reg, "zoneprice_api_keys_last_update_timestamp_seconds"); got != 0 {
		t.Errorf("zoneprice_api_keys_last_update_timestamp_seconds: got %v before any load, want 0", got)
	}
	querytest.Until(t, "an error logged", func() bool {
		return strings.Contains(logs.String(), `"level":"ERROR"`) && strings.Contains(logs.String(), contracts.KeysBucket)
	})

	before := time.Now()
	d.Lift(t)
	querytest.Until(t, "the keys once the bucket can be read", func() bool {
		return k.State() == access.Loaded && p.tier(key) == contracts.ProTier
	})
	if got := gauge(t, reg, "zoneprice_api_keys_watch_up"); got != 1 {
		t.Errorf("zoneprice_api_keys_watch_up once loaded: got %v, want 1", got)
	}
	if got := gauge(t, reg, "zoneprice_api_keys_last_update_timestamp_seconds"); got < float64(before.Unix()) {
		t.Errorf("zoneprice_api_keys_last_update_timestamp_seconds once loaded: got %v, want at least %d", got, before.Unix())
	}
	if problems, err := testutil.GatherAndLint(reg); err != nil || len(problems) > 0 {
		t.Errorf("metric lint: %v %v", err, problems)
	}
}

// gauge is the value of an unlabelled gauge in reg.
func gauge(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name && len(mf.GetMetric()) == 1 {
			return mf.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatalf("no gauge %s", name)
	return 0
}
