// Package webhooks keeps subscribers' webhook registrations in the
// JetStream key-value bucket contracts.WebhooksBucket, reads an endpoint's
// recent delivery attempts from contracts.AttemptsStream, and queues test
// deliveries on contracts.DeliveriesStream. The query pods serve it as the
// webhook API; zoneprice-admin uses it for the operator's commands; the
// deliveries themselves are zoneprice-notify's (package query/notify).
//
// Every change of a registration compares and sets on the record's
// revision, and starts over from a fresh read when another writer got
// there first: notify records an endpoint's failures in the same records.
package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/zoneprice/zoneprice/contracts"
)

// The store's own errors; anything else is JetStream's.
var (
	// ErrNotFound is a webhook the owner has not registered, or none by
	// that ID at all.
	ErrNotFound = errors.New("no such webhook")
	// ErrConflict is an update that met a concurrent update of the same
	// record on every attempt.
	ErrConflict = errors.New("the webhook kept changing under the update")
	// ErrNoBucket is a bucket that has not been provisioned yet.
	ErrNoBucket = errors.New("the webhooks bucket " + contracts.WebhooksBucket + " does not exist yet")
)

// LimitError is a new webhook beyond the number the owner may register.
type LimitError struct{ Limit int }

func (e *LimitError) Error() string {
	return fmt.Sprintf("at most %d webhooks may be registered with this key", e.Limit)
}

// Config configures the store.
type Config struct {
	// AllowHTTP accepts plain http URLs; otherwise only https.
	AllowHTTP bool
}

// updateAttempts is how many times an update reads, changes and writes a
// record before it gives up with ErrConflict. Writers are a subscriber's
// own requests and notify's failure records: a record changed under every
// one of five attempts is a storm, not bad luck.
const updateAttempts = 5

// Store reads and writes webhook registrations.
type Store struct {
	cfg Config
	js  jetstream.JetStream
	now func() time.Time

	mu sync.Mutex
	kv jetstream.KeyValue
}

// NewStore returns a store on js. It binds the bucket when first used, so
// it can be made before the bucket is provisioned.
func NewStore(cfg Config, js jetstream.JetStream, now func() time.Time) *Store {
	return &Store{cfg: cfg, js: js, now: now}
}

// bucket binds the webhooks bucket once; query pods may read and write it
// but not create it.
func (s *Store) bucket(ctx context.Context) (jetstream.KeyValue, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.kv != nil {
		return s.kv, nil
	}
	kv, err := s.js.KeyValue(ctx, contracts.WebhooksBucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, ErrNoBucket
	}
	if err != nil {
		return nil, fmt.Errorf("bind %s: %w", contracts.WebhooksBucket, err)
	}
	s.kv = kv
	return kv, nil
}

// Registration is what a subscriber sends to register a webhook.
type Registration struct {
	URL         string
	Events      []contracts.EventType
	Filters     contracts.WebhookFilters
	Description string
	Paused      bool
}

// Created is a new webhook with its signing secret, which is shown this
// once.
type Created struct {
	Webhook contracts.Webhook
	Secret  string
}

// Create registers a webhook for owner, who may have at most limit. Zones
// in the filters may be in any form a person types; they are stored
// canonical. Two creates at once may together pass the limit by one.
func (s *Store) Create(ctx context.Context, owner string, r Registration, limit int) (Created, error) {
	filters, err := normalizeFilters(r.Filters)
	if err != nil {
		return Created{}, err
	}
	id, err := contracts.NewWebhookID()
	if err != nil {
		return Created{}, err
	}
	secret, err := contracts.NewWebhookSecret()
	if err != nil {
		return Created{}, err
	}
	now := s.now().UTC()
	w := contracts.Webhook{ID: id, Owner: owner, URL: r.URL, Events: r.Events, Filters: filters, Description: r.Description,
		Paused: r.Paused, Secrets: []contracts.WebhookSecret{{Secret: secret}}, CreatedAt: now, UpdatedAt: now}
	if err := w.Validate(s.cfg.AllowHTTP); err != nil {
		return Created{}, err
	}
	existing, err := s.List(ctx, owner)
	if err != nil {
		return Created{}, err
	}
	if len(existing) >= limit {
		return Created{}, &LimitError{Limit: limit}
	}
	kv, err := s.bucket(ctx)
	if err != nil {
		return Created{}, err
	}
	body, err := json.Marshal(w)
	if err != nil {
		return Created{}, err
	}
	if _, err := kv.Create(ctx, contracts.WebhookKey(owner, id), body); err != nil {
		return Created{}, fmt.Errorf("store webhook %s: %w", id, err)
	}
	return Created{Webhook: w, Secret: secret}, nil
}

// normalizeFilters returns f with its zones canonical, or the first zone
// that is none, named by its place.
func normalizeFilters(f contracts.WebhookFilters) (contracts.WebhookFilters, error) {
	if len(f.Zones) > contracts.MaxWebhookFilterValues {
		return f, contracts.Invalid("filters.zones", "more than %d values", contracts.MaxWebhookFilterValues)
	}
	zones := make([]string, 0, len(f.Zones))
	for i, z := range f.Zones {
		n, err := contracts.NormalizeZone(z)
		if err != nil {
			return f, contracts.Invalid(fmt.Sprintf("filters.zones[%d]", i), "%v", err)
		}
		if !slices.Contains(zones, n.ASCII) {
			zones = append(zones, n.ASCII)
		}
	}
	f.Zones = zones
	return f, f.Validate()
}

// List returns owner's webhooks, oldest first; "" lists every owner's.
func (s *Store) List(ctx context.Context, owner string) ([]contracts.Webhook, error) {
	kv, err := s.bucket(ctx)
	if errors.Is(err, ErrNoBucket) {
		return []contracts.Webhook{}, nil
	}
	if err != nil {
		return nil, err
	}
	filter := ">"
	if owner != "" {
		filter = contracts.WebhookKey(owner, "*")
	}
	keys, err := kv.ListKeysFiltered(ctx, filter)
	if err != nil {
		return nil, fmt.Errorf("list webhooks: %w", err)
	}
	var names []string
	for k := range keys.Keys() {
		names = append(names, k)
	}
	// The lister stops by itself at the end of the keys, or when ctx
	// ends, which leaves the list short.
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("list webhooks: %w", err)
	}
	out := []contracts.Webhook{}
	for _, k := range names {
		w, _, err := s.read(ctx, kv, k)
		if errors.Is(err, ErrNotFound) {
			continue // deleted since it was listed
		}
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	slices.SortFunc(out, func(a, b contracts.Webhook) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// Get returns owner's webhook id; another owner's is ErrNotFound.
func (s *Store) Get(ctx context.Context, owner, id string) (contracts.Webhook, error) {
	if !contracts.ValidWebhookID(id) {
		return contracts.Webhook{}, ErrNotFound
	}
	kv, err := s.bucket(ctx)
	if err != nil {
		return contracts.Webhook{}, notFoundWithoutBucket(err)
	}
	w, _, err := s.read(ctx, kv, contracts.WebhookKey(owner, id))
	return w, err
}

// Find returns the webhook id whoever owns it, for the operator.
func (s *Store) Find(ctx context.Context, id string) (contracts.Webhook, error) {
	if !contracts.ValidWebhookID(id) {
		return contracts.Webhook{}, ErrNotFound
	}
	kv, err := s.bucket(ctx)
	if err != nil {
		return contracts.Webhook{}, notFoundWithoutBucket(err)
	}
	keys, err := kv.ListKeysFiltered(ctx, contracts.WebhookKey("*", id))
	if err != nil {
		return contracts.Webhook{}, fmt.Errorf("find webhook %s: %w", id, err)
	}
	var key string
	for k := range keys.Keys() {
		key = k
	}
	if err := ctx.Err(); err != nil {
		return contracts.Webhook{}, fmt.Errorf("find webhook %s: %w", id, err)
	}
	if key == "" {
		return contracts.Webhook{}, ErrNotFound
	}
	w, _, err := s.read(ctx, kv, key)
	return w, err
}

// notFoundWithoutBucket: before the bucket exists, no webhook does.
func notFoundWithoutBucket(err error) error {
	if errors.Is(err, ErrNoBucket) {
		return ErrNotFound
	}
	return err
}

// read returns the record under key and its revision.
func (s *Store) read(ctx context.Context, kv jetstream.KeyValue, key string) (contracts.Webhook, uint64, error) {
	e, err := kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return contracts.Webhook{}, 0, ErrNotFound
	}
	if err != nil {
		return contracts.Webhook{}, 0, fmt.Errorf("read webhook %s: %w", key, err)
	}
	var w contracts.Webhook
	if err := json.Unmarshal(e.Value(), &w); err != nil {
		return contracts.Webhook{}, 0, fmt.Errorf("decode webhook %s: %w", key, err)
	}
	return w, e.Revision(), nil
}

// update reads owner's webhook id, changes it, and writes it back if no
// one else wrote it in between; otherwise it starts over.
func (s *Store) update(ctx context.Context, owner, id string, change func(w *contracts.Webhook, now time.Time) error) (contracts.Webhook, error) {
	if !contracts.ValidWebhookID(id) {
		return contracts.Webhook{}, ErrNotFound
	}
	kv, err := s.bucket(ctx)
	if err != nil {
		return contracts.Webhook{}, notFoundWithoutBucket(err)
	}
	key := contracts.WebhookKey(owner, id)
	for range updateAttempts {
		w, rev, err := s.read(ctx, kv, key)
		if err != nil {
			return contracts.Webhook{}, err
		}
		now := s.now().UTC()
		if err := change(&w, now); err != nil {
			return contracts.Webhook{}, err
		}
		w.UpdatedAt = now
		body, err := json.Marshal(w)
		if err != nil {
			return contracts.Webhook{}, err
		}
		_, err = kv.Update(ctx, key, body, rev)
		if errors.Is(err, jetstream.ErrKeyExists) {
			continue
		}
		if err != nil {
			return contracts.Webhook{}, fmt.Errorf("store webhook %s: %w", id, err)
		}
		return w, nil
	}
	return contracts.Webhook{}, ErrConflict
}

// Patch is a change of a registration: each field that is not nil
// replaces the stored one (Filters as a whole).
type Patch struct {
	URL         *string
	Events      []contracts.EventType
	Filters     *contracts.WebhookFilters
	Description *string
	Paused      *bool
	// Enable re-enables an endpoint the service disabled, and forgets its
	// failures.
	Enable bool
}

// Patch changes owner's webhook id.
func (s *Store) Patch(ctx context.Context, owner, id string, p Patch) (contracts.Webhook, error) {
	var filters contracts.WebhookFilters
	if p.Filters != nil {
		var err error
		if filters, err = normalizeFilters(*p.Filters); err != nil {
			return contracts.Webhook{}, err
		}
	}
	return s.update(ctx, owner, id, func(w *contracts.Webhook, _ time.Time) error {
		if p.URL != nil {
			w.URL = *p.URL
		}
		if p.Events != nil {
			w.Events = p.Events
		}
		if p.Filters != nil {
			w.Filters = filters
		}
		if p.Description != nil {
			w.Description = *p.Description
		}
		if p.Paused != nil {
			w.Paused = *p.Paused
		}
		if p.Enable {
			w.Disabled, w.FailingSince = nil, nil
		}
		return w.Validate(s.cfg.AllowHTTP)
	})
}

// Disable stops deliveries to owner's webhook id, for the operator, with
// the reason the subscriber sees.
func (s *Store) Disable(ctx context.Context, owner, id, reason string) (contracts.Webhook, error) {
	return s.update(ctx, owner, id, func(w *contracts.Webhook, now time.Time) error {
		w.Disabled = &contracts.WebhookDisabled{At: now, Reason: reason}
		return nil
	})
}

// RotateSecret gives owner's webhook id a new signing secret, returned
// this once. The one it replaces still signs deliveries for
// contracts.WebhookRotationOverlap; secrets whose overlap has ended go.
func (s *Store) RotateSecret(ctx context.Context, owner, id string) (Created, error) {
	secret, err := contracts.NewWebhookSecret()
	if err != nil {
		return Created{}, err
	}
	w, err := s.update(ctx, owner, id, func(w *contracts.Webhook, now time.Time) error {
		expires := now.Add(contracts.WebhookRotationOverlap)
		kept := []contracts.WebhookSecret{{Secret: secret}}
		for _, old := range w.Secrets {
			switch {
			case old.Expires == nil:
				old.Expires = &expires
			case !now.Before(*old.Expires):
				continue
			}
			kept = append(kept, old)
		}
		w.Secrets = kept
		return nil
	})
	if err != nil {
		return Created{}, err
	}
	return Created{Webhook: w, Secret: secret}, nil
}

// Delete removes owner's webhook id. Deliveries already queued for it are
// dropped by notify, which finds no registration.
func (s *Store) Delete(ctx context.Context, owner, id string) error {
	if !contracts.ValidWebhookID(id) {
		return ErrNotFound
	}
	kv, err := s.bucket(ctx)
	if err != nil {
		return notFoundWithoutBucket(err)
	}
	key := contracts.WebhookKey(owner, id)
	for range updateAttempts {
		_, rev, err := s.read(ctx, kv, key)
		if err != nil {
			return err
		}
		err = kv.Delete(ctx, key, jetstream.LastRevision(rev))
		if errors.Is(err, jetstream.ErrKeyExists) {
			continue
		}
		if err != nil {
			return fmt.Errorf("delete webhook %s: %w", id, err)
		}
		return nil
	}
	return ErrConflict
}

// The number of attempts Attempts returns: by default, and at most (all
// the stream keeps).
const (
	DefaultAttempts = 50
	MaxAttempts     = contracts.MaxAttemptsKept
)

// attemptsWait bounds the read of an endpoint's attempts.
const attemptsWait = 5 * time.Second

// Attempts returns the last n recorded delivery attempts of webhook id,
// newest first. The caller has checked that the webhook is the client's.
func (s *Store) Attempts(ctx context.Context, id string, n int) ([]contracts.DeliveryAttempt, error) {
	n = min(max(n, 1), MaxAttempts)
	// An ephemeral consumer of the endpoint's subject: the stream keeps at
	// most MaxAttemptsKept of them, so all of them are read and the last
	// n kept.
	cons, err := s.js.CreateConsumer(ctx, contracts.AttemptsStream, jetstream.ConsumerConfig{
		FilterSubject:     contracts.AttemptSubject(id),
		DeliverPolicy:     jetstream.DeliverAllPolicy,
		AckPolicy:         jetstream.AckNonePolicy,
		MemoryStorage:     true,
		Replicas:          1,
		InactiveThreshold: time.Minute,
	})
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return []contracts.DeliveryAttempt{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read attempts of %s: %w", id, err)
	}
	defer func() {
		// The consumer goes by itself after InactiveThreshold if this
		// fails.
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), attemptsWait)
		defer cancel()
		_ = s.js.DeleteConsumer(dctx, contracts.AttemptsStream, cons.CachedInfo().Name)
	}()
	pending := int(cons.CachedInfo().NumPending)
	out := make([]contracts.DeliveryAttempt, 0, min(pending, n))
	if pending == 0 {
		return out, nil
	}
	batch, err := cons.Fetch(pending, jetstream.FetchMaxWait(attemptsWait))
	if err != nil {
		return nil, fmt.Errorf("read attempts of %s: %w", id, err)
	}
	var all []contracts.DeliveryAttempt
	for msg := range batch.Messages() {
		var a contracts.DeliveryAttempt
		if err := json.Unmarshal(msg.Data(), &a); err != nil {
			continue // not one of notify's records; nothing to show
		}
		all = append(all, a)
	}
	if err := batch.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) {
		return nil, fmt.Errorf("read attempts of %s: %w", id, err)
	}
	for i := len(all) - 1; i >= 0 && len(out) < n; i-- {
		out = append(out, all[i])
	}
	return out, nil
}

// pingMessage is what a test delivery says.
const pingMessage = "a test delivery from zoneprice, as asked for with POST /api/webhooks/{id}/test"

// Ping queues a test delivery (event ping) to owner's webhook id and
// returns its delivery id (its webhook-id header).
func (s *Store) Ping(ctx context.Context, owner, id string) (string, error) {
	if _, err := s.Get(ctx, owner, id); err != nil {
		return "", err
	}
	delivery, err := contracts.NewPingDeliveryID()
	if err != nil {
		return "", err
	}
	body, err := json.Marshal(contracts.WebhookPayload{Type: contracts.EventPing, Timestamp: s.now().UTC(),
		Data: contracts.PingData{Webhook: id, Message: pingMessage}})
	if err != nil {
		return "", err
	}
	msg := &nats.Msg{Subject: contracts.DeliverySubject(id), Data: body, Header: nats.Header{
		contracts.HeaderMsgID:     []string{delivery},
		contracts.HeaderWebhookID: []string{delivery},
		contracts.HeaderEvent:     []string{string(contracts.EventPing)},
	}}
	if _, err := s.js.PublishMsg(ctx, msg); err != nil {
		return "", fmt.Errorf("queue a ping to %s: %w", id, err)
	}
	return delivery, nil
}
