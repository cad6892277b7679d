package access

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/contracts"
)

// Subscriber is an API key a pod accepts.
type Subscriber struct {
	ID   string
	Tier string
	// Client is the key the subscriber is limited by.
	Client Key
}

// Keys mirrors contracts.KeysBucket in memory: the SHA-256 of every key
// with what it grants. It watches the bucket, so a key created or revoked
// with the admin command takes effect on every pod within moments. It only
// ever reads the bucket, and never creates it: a pod may have read-only
// permissions. Until the bucket exists there are no keys; the pod keeps
// trying to bind it meanwhile.
type Keys struct {
	js    jetstream.JetStream
	tiers Tiers
	log   *slog.Logger
	table atomic.Pointer[map[[32]byte]*Subscriber]
	ready chan struct{}
	// loaded counts the keys in force by tier, "unknown" for tiers this
	// pod has no limit for.
	loaded *prometheus.GaugeVec
	// retry is the longest wait between attempts to bind the bucket.
	retry time.Duration
}

// unknownTier labels keys whose tier this pod does not know.
const unknownTier = "unknown"

// NewKeys returns a store reading from js. tiers are the tiers the pod
// knows; keys of other tiers are served at the free rate, with a warning.
func NewKeys(js jetstream.JetStream, tiers Tiers, log *slog.Logger, reg prometheus.Registerer) (*Keys, error) {
	k := &Keys{js: js, tiers: tiers, log: log, ready: make(chan struct{}), retry: 10 * time.Second,
		loaded: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "zoneprice_api_keys", Help: `API keys in force by tier ("unknown": a tier this pod has no limit for).`,
		}, []string{"tier"}),
	}
	if err := reg.Register(k.loaded); err != nil {
		return nil, fmt.Errorf("register key metrics: %w", err)
	}
	empty := map[[32]byte]*Subscriber{}
	k.publish(empty)
	return k, nil
}

// Lookup returns the subscriber whose key hashes to sum, or nil.
func (k *Keys) Lookup(sum *[32]byte) *Subscriber {
	return (*k.table.Load())[*sum]
}

// Ready is closed once the bucket's keys have been loaded, or the bucket
// was found not to exist.
func (k *Keys) Ready() <-chan struct{} { return k.ready }

// IsReady reports whether Ready is closed.
func (k *Keys) IsReady() bool {
	select {
	case <-k.ready:
		return true
	default:
		return false
	}
}

func (k *Keys) markReady() {
	if !k.IsReady() {
		close(k.ready)
	}
}

// Run binds the bucket and follows it until ctx ends. While NATS is away
// the last keys stay in force.
func (k *Keys) Run(ctx context.Context) error {
	missing := false
	for backoff := 100 * time.Millisecond; ; backoff = min(2*backoff, k.retry) {
		kv, err := k.js.KeyValue(ctx, contracts.KeysBucket)
		switch {
		case ctx.Err() != nil:
			return nil
		case errors.Is(err, jetstream.ErrBucketNotFound):
			if !missing {
				k.log.Warn("api keys bucket does not exist yet: no keys are accepted until it does", "bucket", contracts.KeysBucket)
				missing = true
			}
			k.publish(map[[32]byte]*Subscriber{})
			k.markReady()
		case err != nil:
			k.log.Warn("api keys bucket not available", "bucket", contracts.KeysBucket, "err", err)
		default:
			missing = false
			err = k.follow(ctx, kv)
			if ctx.Err() != nil {
				return nil
			}
			k.log.Warn("api keys watch ended; binding again", "err", err)
			backoff = 100 * time.Millisecond
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(backoff):
		}
	}
}

// follow loads the bucket, then applies its changes as they come. A batch
// of changes that arrived together is published as one new table.
func (k *Keys) follow(ctx context.Context, kv jetstream.KeyValue) error {
	w, err := kv.WatchAll(ctx)
	if err != nil {
		return fmt.Errorf("watch %s: %w", contracts.KeysBucket, err)
	}
	defer w.Stop()
	byID := map[string][32]byte{}
	table := map[[32]byte]*Subscriber{}
	loaded := false
	for {
		var e jetstream.KeyValueEntry
		var ok bool
		select {
		case <-ctx.Done():
			return ctx.Err()
		case e, ok = <-w.Updates():
		}
	drain:
		for {
			switch {
			case !ok:
				return errors.New("watcher closed")
			case e == nil:
				loaded = true
			default:
				k.apply(e, byID, table)
			}
			select {
			case e, ok = <-w.Updates():
			default:
				break drain
			}
		}
		if loaded {
			k.publish(maps.Clone(table))
			k.markReady()
		}
	}
}

// apply makes one bucket change in the working maps. A record that does not
// validate is a key nobody can use: it is dropped, and the key it replaces
// with it.
func (k *Keys) apply(e jetstream.KeyValueEntry, byID map[string][32]byte, table map[[32]byte]*Subscriber) {
	id := e.Key()
	if sum, ok := byID[id]; ok {
		delete(table, sum)
		delete(byID, id)
	}
	if e.Operation() != jetstream.KeyValuePut {
		return
	}
	var rec contracts.APIKey
	if err := json.Unmarshal(e.Value(), &rec); err != nil {
		k.log.Warn("api key record is not JSON; the key is refused", "id", id, "err", err)
		return
	}
	if err := rec.Validate(); err != nil {
		k.log.Warn("invalid api key record; the key is refused", "id", id, "err", err)
		return
	}
	if rec.ID != id {
		k.log.Warn("api key record stored under another id; the key is refused", "id", id, "record_id", rec.ID)
		return
	}
	sum, _ := rec.Sum()
	if _, known := k.tiers[rec.Tier]; !known && rec.Tier != contracts.FreeTier {
		k.log.Warn("api key of a tier this pod has no limit for: served at the free limit", "id", id, "tier", rec.Tier)
	}
	byID[id] = sum
	table[sum] = &Subscriber{ID: id, Tier: rec.Tier, Client: SubscriberKey(&sum)}
}

// publish puts table in force and counts its keys.
func (k *Keys) publish(table map[[32]byte]*Subscriber) {
	k.table.Store(&table)
	counts := map[string]int{contracts.FreeTier: 0, unknownTier: 0}
	for name := range k.tiers {
		counts[name] = 0
	}
	for _, s := range table {
		if _, known := counts[s.Tier]; known && s.Tier != unknownTier {
			counts[s.Tier]++
		} else {
			counts[unknownTier]++
		}
	}
	for tier, n := range counts {
		k.loaded.WithLabelValues(tier).Set(float64(n))
	}
}
