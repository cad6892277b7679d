package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/zoneprice/zoneprice/contracts"
)

// Registrations mirrors contracts.WebhooksBucket in memory: every endpoint
// by ID, for the workers, and the active ones in a table indexed for
// matching, for the dispatcher. It watches the bucket, so a registration,
// pause or deletion takes effect within moments, and writes only what
// notify decides about an endpoint (FailingSince, Disabled), with compare
// and set so that a subscriber's change made meanwhile is never lost.
type Registrations struct {
	js      jetstream.JetStream
	log     *slog.Logger
	metrics *metrics
	kv      atomic.Pointer[jetstream.KeyValue]

	mu      sync.Mutex
	byID    map[string]*contracts.Webhook
	version uint64
	table   *table // built from byID at version table.version

	loaded     chan struct{}
	loadedOnce sync.Once
}

// table is the active endpoints, indexed so that matching a change reads
// only the endpoints that could want it: those filtering on its zone,
// those filtering on its registrar (and no zone), and those with neither
// filter. Each endpoint is in exactly one of the three, so a change meets
// it at most once. A table is never changed once built.
type table struct {
	version     uint64
	byZone      map[string][]*contracts.Webhook
	byRegistrar map[string][]*contracts.Webhook
	rest        []*contracts.Webhook
}

// NewRegistrations returns a mirror of the webhooks bucket; Run fills it.
func newRegistrations(js jetstream.JetStream, log *slog.Logger, m *metrics) *Registrations {
	return &Registrations{js: js, log: log, metrics: m, byID: map[string]*contracts.Webhook{}, loaded: make(chan struct{})}
}

// Loaded is closed once the bucket's registrations have been read.
func (r *Registrations) Loaded() <-chan struct{} { return r.loaded }

// Run binds the bucket, waiting for it to be provisioned, and follows it
// until ctx ends.
func (r *Registrations) Run(ctx context.Context) error {
	missing := false
	for backoff := 100 * time.Millisecond; ; backoff = min(2*backoff, 5*time.Second) {
		kv, err := r.js.KeyValue(ctx, contracts.WebhooksBucket)
		switch {
		case ctx.Err() != nil:
			return nil
		case errors.Is(err, jetstream.ErrBucketNotFound):
			if !missing {
				r.log.Warn("webhooks bucket does not exist yet; waiting for it to be provisioned", "bucket", contracts.WebhooksBucket)
				missing = true
			}
		case err != nil:
			r.log.Warn("cannot bind the webhooks bucket; retrying", "bucket", contracts.WebhooksBucket, "err", err, "in", backoff)
		default:
			r.kv.Store(&kv)
			err := r.follow(ctx, kv)
			if ctx.Err() != nil {
				return nil
			}
			r.log.Warn("webhooks watch ended; watching again", "err", err)
			backoff = 100 * time.Millisecond
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(backoff):
		}
	}
}

// follow applies the bucket's records, then its changes, as they come.
func (r *Registrations) follow(ctx context.Context, kv jetstream.KeyValue) error {
	w, err := kv.WatchAll(ctx)
	if err != nil {
		return fmt.Errorf("watch %s: %w", contracts.WebhooksBucket, err)
	}
	defer w.Stop()
	// A new watch sends every record again: those deleted while no watch
	// ran are the ones it does not send.
	seen := map[string]bool{}
	loading := true
	for {
		var e jetstream.KeyValueEntry
		var ok bool
		select {
		case <-ctx.Done():
			return ctx.Err()
		case e, ok = <-w.Updates():
		}
		if !ok {
			return errors.New("watcher closed")
		}
		if e == nil {
			r.mu.Lock()
			for id := range r.byID {
				if !seen[id] {
					delete(r.byID, id)
				}
			}
			r.version++
			r.mu.Unlock()
			loading, seen = false, nil
			r.count()
			r.loadedOnce.Do(func() { close(r.loaded) })
			continue
		}
		id := r.apply(e)
		if loading && id != "" {
			seen[id] = true
		}
		if !loading {
			r.count()
		}
	}
}

// apply records one change of the bucket and returns the webhook's ID.
func (r *Registrations) apply(e jetstream.KeyValueEntry) string {
	_, id, ok := contracts.ParseWebhookKey(e.Key())
	if !ok {
		r.log.Warn("a webhooks bucket key that names no webhook; ignored", "key", e.Key())
		return ""
	}
	var w *contracts.Webhook
	if e.Operation() == jetstream.KeyValuePut {
		w = new(contracts.Webhook)
		if err := json.Unmarshal(e.Value(), w); err != nil || w.ID != id {
			r.log.Error("a webhook registration that does not decode; not delivering to it", "webhook", id, "err", err)
			w = nil
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if w == nil {
		delete(r.byID, id)
	} else {
		r.byID[id] = w
	}
	r.version++
	return id
}

// count sets the registrations gauge.
func (r *Registrations) count() {
	var active, paused, disabled int
	r.mu.Lock()
	for _, w := range r.byID {
		switch {
		case w.Disabled != nil:
			disabled++
		case w.Paused:
			paused++
		default:
			active++
		}
	}
	r.mu.Unlock()
	r.metrics.registrations.WithLabelValues("active").Set(float64(active))
	r.metrics.registrations.WithLabelValues("paused").Set(float64(paused))
	r.metrics.registrations.WithLabelValues("disabled").Set(float64(disabled))
}

// Lookup returns the registration of webhook id as last seen.
func (r *Registrations) Lookup(id string) (*contracts.Webhook, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	w, ok := r.byID[id]
	return w, ok
}

// current returns the table of active endpoints, building it if the
// bucket changed since the last one: once per burst of changes, not once
// per change of the bucket, so loading 10,000 registrations builds one.
func (r *Registrations) current() *table {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.table != nil && r.table.version == r.version {
		return r.table
	}
	t := &table{version: r.version, byZone: map[string][]*contracts.Webhook{}, byRegistrar: map[string][]*contracts.Webhook{}}
	for _, w := range r.byID {
		switch {
		case !w.Active():
		case len(w.Filters.Zones) > 0:
			for _, z := range w.Filters.Zones {
				t.byZone[z] = append(t.byZone[z], w)
			}
		case len(w.Filters.Registrars) > 0:
			for _, reg := range w.Filters.Registrars {
				t.byRegistrar[reg] = append(t.byRegistrar[reg], w)
			}
		default:
			t.rest = append(t.rest, w)
		}
	}
	r.table = t
	return t
}

// match calls fn with each active endpoint that wants change c, and the
// event type it gets it as.
func (t *table) match(c *contracts.PriceChange, categories func(string) []string, fn func(*contracts.Webhook, contracts.EventType)) {
	for _, group := range [][]*contracts.Webhook{t.byZone[c.Zone], t.byRegistrar[c.Registrar], t.rest} {
		for _, w := range group {
			ev, ok := contracts.EventFor(c, w.Events)
			if ok && w.Filters.Match(c, categories) {
				fn(w, ev)
			}
		}
	}
}

// errNoBucket is an update before the bucket was bound.
var errNoBucket = errors.New("webhooks bucket not bound yet")

// update changes webhook id's record in the bucket with change, which
// reports whether it changed anything, comparing and setting on the
// record's revision and starting again when someone else wrote it first.
// It returns the record as written, or nil when change wanted nothing or
// the webhook is gone.
func (r *Registrations) update(ctx context.Context, id string, change func(*contracts.Webhook) bool) (*contracts.Webhook, error) {
	kvp := r.kv.Load()
	if kvp == nil {
		return nil, errNoBucket
	}
	kv := *kvp
	w, ok := r.Lookup(id)
	if !ok {
		return nil, nil
	}
	key := contracts.WebhookKey(w.Owner, id)
	for range 10 {
		e, err := kv.Get(ctx, key)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read webhook %s: %w", id, err)
		}
		var cur contracts.Webhook
		if err := json.Unmarshal(e.Value(), &cur); err != nil {
			return nil, fmt.Errorf("decode webhook %s: %w", id, err)
		}
		if !change(&cur) {
			return nil, nil
		}
		b, err := json.Marshal(&cur)
		if err != nil {
			return nil, err
		}
		_, err = kv.Update(ctx, key, b, e.Revision())
		if err == nil {
			return &cur, nil
		}
		if !errors.Is(err, jetstream.ErrKeyExists) {
			var apiErr *jetstream.APIError
			if !errors.As(err, &apiErr) || apiErr.ErrorCode != jetstream.JSErrCodeStreamWrongLastSequence {
				return nil, fmt.Errorf("update webhook %s: %w", id, err)
			}
		}
	}
	return nil, fmt.Errorf("update webhook %s: written by others 10 times in a row", id)
}

// fetch reads webhook id's registration from the bucket, for one not in
// the mirror; nil when it is not there.
func (r *Registrations) fetch(ctx context.Context, id string) (*contracts.Webhook, error) {
	kvp := r.kv.Load()
	if kvp == nil {
		return nil, errNoBucket
	}
	kv := *kvp
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	keys, err := kv.ListKeysFiltered(ctx, "*."+id)
	if err != nil {
		return nil, err
	}
	for key := range keys.Keys() {
		e, err := kv.Get(ctx, key)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		w := new(contracts.Webhook)
		if err := json.Unmarshal(e.Value(), w); err != nil || w.ID != id {
			return nil, fmt.Errorf("decode webhook %s: %v", id, err)
		}
		return w, nil
	}
	return nil, nil
}
