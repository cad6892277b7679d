package notify

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
)

// WebhookRecords is the registrations' bucket (bus.Webhooks): followed,
// read or listed for one not followed yet, and changed where notify
// records what it decided about an endpoint.
type WebhookRecords interface {
	Follow(ctx context.Context, cfg bus.FollowConfig, f bus.Follower[contracts.Webhook]) error
	Get(ctx context.Context, key string) (*contracts.Webhook, uint64, error)
	Change(ctx context.Context, key string, edit func(cur *contracts.Webhook) (*contracts.Webhook, error)) (*contracts.Webhook, error)
	List(ctx context.Context, filter string, loadTimeout time.Duration) ([]bus.Entry[contracts.Webhook], error)
}

// Registrations mirrors contracts.WebhooksBucket in memory: every endpoint
// by ID, for the workers, and the active ones in a table indexed for
// matching, for the dispatcher. It follows the bucket, so a registration,
// pause or deletion takes effect within moments, and writes only what
// notify decides about an endpoint (FailingSince, Disabled), with compare
// and set so that a subscriber's change made meanwhile is never lost.
type Registrations struct {
	records WebhookRecords
	log     *slog.Logger
	metrics *metrics

	mu      sync.Mutex
	byID    map[string]*contracts.Webhook
	version uint64
	table   *table // built from byID at version table.version

	loaded     chan struct{}
	loadedOnce sync.Once
	// deleted tells of each registration deleted while the bucket is
	// followed, so that its deliveries are dropped (Notify.drops); one
	// not told, with the channel full, is dropped at the next count.
	deleted chan deletion
}

// deletion is a registration deleted.
type deletion struct{ owner, webhook string }

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

// newRegistrations returns a mirror of the webhooks bucket; Run fills it.
func newRegistrations(records WebhookRecords, log *slog.Logger, m *metrics) *Registrations {
	return &Registrations{records: records, log: log, metrics: m, byID: map[string]*contracts.Webhook{}, loaded: make(chan struct{}),
		deleted: make(chan deletion, 1024)}
}

// Loaded is closed once the bucket's registrations have been read.
func (r *Registrations) Loaded() <-chan struct{} { return r.loaded }

// Run follows the bucket, waiting for it to be provisioned, until ctx
// ends.
func (r *Registrations) Run(ctx context.Context) error {
	return r.records.Follow(ctx, bus.FollowConfig{}, &follower{r: r})
}

// follower is the bus.Follower that keeps Registrations in step with the
// bucket. Follow calls it from one goroutine, Run's.
type follower struct {
	r *Registrations
	// following is a load done and no failure since; missing, the
	// bucket found not to exist and no load since.
	following, missing bool
}

// Loaded replaces the mirror with the bucket's registrations: those
// deleted while no watch ran are the ones a load does not hold.
func (f *follower) Loaded(all []bus.Entry[contracts.Webhook]) {
	r := f.r
	f.following, f.missing = true, false
	byID := make(map[string]*contracts.Webhook, len(all))
	for _, e := range all {
		if id, w := r.decode(e); w != nil {
			byID[id] = w
		}
	}
	r.mu.Lock()
	r.byID = byID
	r.version++
	r.mu.Unlock()
	r.count()
	r.loadedOnce.Do(func() { close(r.loaded) })
}

// Changed applies changes of the bucket, and tells of the deletions.
func (f *follower) Changed(batch []bus.Entry[contracts.Webhook]) {
	r := f.r
	var deleted []deletion
	r.mu.Lock()
	for _, e := range batch {
		id, w := r.decode(e)
		switch {
		case id == "":
		case w == nil:
			delete(r.byID, id)
			if owner, _, _ := contracts.ParseWebhookKey(e.Key); e.Value == nil && e.Err == nil {
				deleted = append(deleted, deletion{owner: owner, webhook: id})
			}
		default:
			r.byID[id] = w
		}
	}
	r.version++
	r.mu.Unlock()
	r.count()
	for _, d := range deleted {
		select {
		case r.deleted <- d:
		default:
		}
	}
}

// Down logs a failed attempt to follow the bucket; the mirror stays as it
// was.
func (f *follower) Down(err error) {
	log := f.r.log
	switch {
	case errors.Is(err, bus.ErrNoBucket):
		if !f.missing {
			log.Warn("webhooks bucket does not exist yet; waiting for it to be provisioned", "bucket", contracts.WebhooksBucket)
			f.missing = true
		}
	case f.following:
		log.Warn("webhooks watch ended; watching again", "err", err)
	default:
		log.Warn("cannot read the webhooks bucket; retrying", "bucket", contracts.WebhooksBucket, "err", err)
	}
	f.following = false
}

// decode returns the webhook ID an entry of the bucket is for, "" for a
// key that names none, and the registration, nil for a deleted one or one
// that does not decode.
func (r *Registrations) decode(e bus.Entry[contracts.Webhook]) (string, *contracts.Webhook) {
	_, id, ok := contracts.ParseWebhookKey(e.Key)
	if !ok {
		r.log.Warn("a webhooks bucket key that names no webhook; ignored", "key", e.Key)
		return "", nil
	}
	if e.Err != nil || (e.Value != nil && e.Value.ID != id) {
		r.log.Error("a webhook registration that does not decode; not delivering to it", "webhook", id, "err", e.Err)
		return id, nil
	}
	return id, e.Value
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

// update changes webhook id's record in the bucket with change, which
// reports whether it changed anything, through the bucket's compare and
// set: change may be called again, on a fresh read, when someone else
// wrote the record first. It returns the record as written, or nil when
// change wanted nothing or the webhook is gone.
func (r *Registrations) update(ctx context.Context, id string, change func(*contracts.Webhook) bool) (*contracts.Webhook, error) {
	w, ok := r.Lookup(id)
	if !ok {
		return nil, nil
	}
	changed := false
	cur, err := r.records.Change(ctx, contracts.WebhookKey(w.Owner, id), func(cur *contracts.Webhook) (*contracts.Webhook, error) {
		if changed = cur != nil && change(cur); !changed {
			return nil, bus.ErrUnchanged
		}
		return cur, nil
	})
	if err != nil || !changed {
		return nil, err
	}
	return cur, nil
}

// fetch reads owner's webhook id's registration from the bucket, for one
// not in the mirror; nil when it is not there. With the owner it is read
// by its key; without (a delivery queued before the key was in its
// subject), found by a list, which costs a consumer.
func (r *Registrations) fetch(ctx context.Context, owner, id string) (*contracts.Webhook, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if owner != "" {
		w, _, err := r.records.Get(ctx, contracts.WebhookKey(owner, id))
		if errors.Is(err, bus.ErrNoBucket) {
			return nil, nil
		}
		return w, err
	}
	found, err := r.records.List(ctx, contracts.WebhookKey("*", id), 0)
	if err != nil {
		return nil, err
	}
	for _, e := range found {
		if e.Err != nil {
			return nil, e.Err
		}
		if e.Value.ID == id {
			return e.Value, nil
		}
	}
	return nil, nil
}
