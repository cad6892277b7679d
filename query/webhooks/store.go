// Package webhooks keeps subscribers' webhook registrations, with their
// rules: what a registration may say, how many a key may have, how its
// signing secrets rotate. The registrations are records of the
// key-value bucket contracts.WebhooksBucket, and which of them each key
// has, records of contracts.WebhookOwnersBucket; an endpoint's recent
// delivery attempts and its test deliveries are on the deliveries'
// streams (all in package bus). The query pods serve it as the webhook
// API; zoneprice-admin uses it for the operator's commands; the
// deliveries themselves are zoneprice-notify's (package query/notify).
//
// Every change of a record goes through its bucket's one compare-and-set
// loop (bus.Records.Change): notify records an endpoint's failures in the
// same records, and a key's limit holds through the compare and set of
// its record of webhooks (owners.go).
package webhooks

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"code.dny.dev/ssrf"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
)

// The store's own errors; anything else is the bucket's (package bus).
var (
	// ErrNotFound is a webhook the owner has not registered, or none by
	// that ID at all.
	ErrNotFound = errors.New("no such webhook")
	// ErrConflict is an update that met a concurrent update of the same
	// record on every attempt.
	ErrConflict = bus.ErrConflict
)

// QueueFullError is a test delivery refused because as many deliveries
// wait for the endpoint, or for all of the key's endpoints, as may.
type QueueFullError struct {
	// Endpoint is true when the endpoint has no room, false when the key
	// has none.
	Endpoint bool
	Limit    int
}

func (e *QueueFullError) Error() string {
	if e.Endpoint {
		return fmt.Sprintf("%d deliveries already wait for this endpoint, as many as may", e.Limit)
	}
	return fmt.Sprintf("%d deliveries already wait for this key's endpoints together, as many as may", e.Limit)
}

// LimitError is a new webhook beyond the number the owner may register.
type LimitError struct{ Limit int }

func (e *LimitError) Error() string {
	return fmt.Sprintf("at most %d webhooks may be registered with this key", e.Limit)
}

// Config configures the store.
type Config struct {
	// AllowHTTP accepts plain http URLs; otherwise only https.
	AllowHTTP bool
	// AllowLoopback accepts URLs whose host is a loopback address, for
	// tests and local development, as notify's Config.AllowLoopback
	// delivers to them. Never in production.
	AllowLoopback bool
	// AllowPrefixes accepts URLs whose host is an address in these
	// networks although they are internal, as notify's
	// Config.AllowPrefixes delivers to them: for tests on a private
	// container network. Never in production.
	AllowPrefixes []netip.Prefix
	// MaxQueuedPerKey is how many deliveries may wait for one key's
	// endpoints before a ping is refused; zero is
	// contracts.MaxQueuedPerKey.
	MaxQueuedPerKey int
}

// Records is the bucket of registrations, contracts.WebhooksBucket
// (bus.Webhooks), under contracts.WebhookKey(owner, id).
type Records interface {
	Get(ctx context.Context, key string) (*contracts.Webhook, uint64, error)
	Create(ctx context.Context, key string, w *contracts.Webhook) error
	Change(ctx context.Context, key string, edit func(cur *contracts.Webhook) (*contracts.Webhook, error)) (*contracts.Webhook, error)
	List(ctx context.Context, filter string, loadTimeout time.Duration) ([]bus.Entry[contracts.Webhook], error)
}

// Deliveries is where a test delivery is queued, after counting what
// waits for the key's endpoints, and an endpoint's attempts are read
// (bus.NewDeliveries).
type Deliveries interface {
	Queued(ctx context.Context, owner string) (int, error)
	Queue(ctx context.Context, d bus.Delivery) error
	Attempts(ctx context.Context, webhook string) ([]contracts.DeliveryAttempt, error)
}

// Bus is the buckets and streams the store works on, each as the store
// declares it (package bus has them all).
type Bus struct {
	// Webhooks is the registrations (bus.Webhooks).
	Webhooks Records
	// Owners is each key's record of its webhooks (bus.WebhookOwners).
	Owners Owners
	// Deliveries queues test deliveries and reads attempts
	// (bus.NewDeliveries).
	Deliveries Deliveries
}

// Store reads and writes webhook registrations.
type Store struct {
	cfg        Config
	records    Records
	owners     Owners
	deliveries Deliveries
	now        func() time.Time
	guard      *ssrf.Guardian
	// creates and pings take one key's creates, and its pings, in turn.
	creates, pings ownerLocks
}

// NewStore returns a store of the registrations on b. It needs no bucket
// until used, so it can be made before the buckets are provisioned.
func NewStore(cfg Config, b Bus, now func() time.Time) *Store {
	return &Store{cfg: cfg, records: b.Webhooks, owners: b.Owners, deliveries: b.Deliveries, now: now, guard: newGuard(cfg)}
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

// Create registers a webhook for owner, who may have at most limit, then
// a *LimitError: exactly, however many creates run at once, on however
// many pods (owners.go). Zones in the filters may be in any form a person
// types; they are stored canonical. A refused create writes nothing.
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
	if err := s.validate(&w); err != nil {
		return Created{}, err
	}
	unlock, err := s.creates.lock(ctx, owner)
	if err != nil {
		return Created{}, err
	}
	defer unlock()
	if err := s.claim(ctx, owner, id, limit, now); err != nil {
		return Created{}, err
	}
	if err := s.records.Create(ctx, contracts.WebhookKey(owner, id), &w); err != nil {
		// The place claimed is given back; should that fail too, List
		// gives it back later (forgetDangling).
		_ = s.release(context.WithoutCancel(ctx), owner, id)
		return Created{}, err
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
	filter := ""
	if owner != "" {
		filter = contracts.WebhookKey(owner, "*")
	}
	out, err := s.list(ctx, filter)
	if err != nil {
		return nil, err
	}
	if owner != "" {
		if err := s.forgetDangling(ctx, owner, out); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(out, func(a, b contracts.Webhook) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// list returns the webhooks whose keys match filter; none before the
// bucket exists.
func (s *Store) list(ctx context.Context, filter string) ([]contracts.Webhook, error) {
	entries, err := s.records.List(ctx, filter, 0)
	if err != nil {
		return nil, fmt.Errorf("list webhooks: %w", err)
	}
	out := make([]contracts.Webhook, 0, len(entries))
	for _, e := range entries {
		if e.Err != nil {
			return nil, e.Err
		}
		out = append(out, *e.Value)
	}
	return out, nil
}

// Get returns owner's webhook id; another owner's is ErrNotFound.
func (s *Store) Get(ctx context.Context, owner, id string) (contracts.Webhook, error) {
	if !contracts.ValidWebhookID(id) {
		return contracts.Webhook{}, ErrNotFound
	}
	w, _, err := s.records.Get(ctx, contracts.WebhookKey(owner, id))
	switch {
	case errors.Is(err, bus.ErrNoBucket):
		// Before the bucket exists, no webhook does.
		return contracts.Webhook{}, ErrNotFound
	case err != nil:
		return contracts.Webhook{}, err
	case w == nil:
		return contracts.Webhook{}, ErrNotFound
	}
	return *w, nil
}

// Find returns the webhook id whoever owns it, for the operator.
func (s *Store) Find(ctx context.Context, id string) (contracts.Webhook, error) {
	if !contracts.ValidWebhookID(id) {
		return contracts.Webhook{}, ErrNotFound
	}
	found, err := s.list(ctx, contracts.WebhookKey("*", id))
	if err != nil {
		return contracts.Webhook{}, fmt.Errorf("find webhook %s: %w", id, err)
	}
	if len(found) == 0 {
		return contracts.Webhook{}, ErrNotFound
	}
	return found[0], nil
}

// update changes owner's webhook id through the bucket's compare and set:
// change may be called again, on a fresh read, when another writer got
// there first.
func (s *Store) update(ctx context.Context, owner, id string, change func(w *contracts.Webhook, now time.Time) error) (contracts.Webhook, error) {
	if !contracts.ValidWebhookID(id) {
		return contracts.Webhook{}, ErrNotFound
	}
	w, err := s.records.Change(ctx, contracts.WebhookKey(owner, id), func(w *contracts.Webhook) (*contracts.Webhook, error) {
		if w == nil {
			return nil, ErrNotFound
		}
		now := s.now().UTC()
		if err := change(w, now); err != nil {
			return nil, err
		}
		w.UpdatedAt = now
		return w, nil
	})
	if errors.Is(err, bus.ErrNoBucket) {
		return contracts.Webhook{}, ErrNotFound
	}
	if err != nil {
		return contracts.Webhook{}, err
	}
	return *w, nil
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
		if p.URL == nil {
			// A URL registered before addresses were checked stays
			// (notify refuses to connect to it): the subscriber may
			// change the rest.
			return w.Validate(s.cfg.AllowHTTP)
		}
		return s.validate(w)
	})
}

// validate reports the first problem with registration w, naming the
// field: the registration's own rules, then the URL's address.
func (s *Store) validate(w *contracts.Webhook) error {
	if err := w.Validate(s.cfg.AllowHTTP); err != nil {
		return err
	}
	return s.checkAddress(w.URL)
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

// Delete removes owner's webhook id, and then its place in the key's
// limit. Deliveries already queued for it are dropped by notify, which
// finds no registration.
func (s *Store) Delete(ctx context.Context, owner, id string) error {
	if !contracts.ValidWebhookID(id) {
		return ErrNotFound
	}
	_, err := s.records.Change(ctx, contracts.WebhookKey(owner, id), func(w *contracts.Webhook) (*contracts.Webhook, error) {
		if w == nil {
			return nil, ErrNotFound
		}
		return nil, nil
	})
	if errors.Is(err, bus.ErrNoBucket) {
		return ErrNotFound
	}
	if err != nil {
		return err
	}
	// The webhook is gone whatever comes next; a place of the limit not
	// given back here is given back by List later (forgetDangling).
	_ = s.release(ctx, owner, id)
	return nil
}

// The number of attempts Attempts returns: by default, and at most (all
// the stream keeps).
const (
	DefaultAttempts = 50
	MaxAttempts     = contracts.MaxAttemptsKept
)

// Attempts returns the last n recorded delivery attempts of webhook id,
// newest first by their own At: an attempt is recorded when it ends, so
// a slow one is recorded after attempts begun later. Attempts begun at
// the same instant come in the order they were recorded, the last first.
// The caller has checked that the webhook is the client's.
func (s *Store) Attempts(ctx context.Context, id string, n int) ([]contracts.DeliveryAttempt, error) {
	n = min(max(n, 1), MaxAttempts)
	all, err := s.deliveries.Attempts(ctx, id)
	if err != nil {
		return nil, err
	}
	slices.Reverse(all)
	slices.SortStableFunc(all, func(a, b contracts.DeliveryAttempt) int { return b.At.Compare(a.At) })
	return all[:min(len(all), n)], nil
}

// pingMessage is what a test delivery says.
const pingMessage = "a test delivery from zoneprice, as asked for with POST /api/webhooks/{id}/test"

// Ping queues a test delivery (event ping) to owner's webhook id and
// returns its delivery id (its webhook-id header). A ping for an endpoint
// or a key whose deliveries waiting are at their cap is a
// *QueueFullError: the endpoint's cap is the stream's and holds exactly;
// the key's is counted first, with the key's pings in turn in this
// process, so that pods at once may pass it by one each.
func (s *Store) Ping(ctx context.Context, owner, id string) (string, error) {
	if _, err := s.Get(ctx, owner, id); err != nil {
		return "", err
	}
	unlock, err := s.pings.lock(ctx, owner)
	if err != nil {
		return "", err
	}
	defer unlock()
	limit := cmp.Or(s.cfg.MaxQueuedPerKey, contracts.MaxQueuedPerKey)
	queued, err := s.deliveries.Queued(ctx, owner)
	if err != nil {
		return "", err
	}
	if queued >= limit {
		return "", &QueueFullError{Limit: limit}
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
	err = s.deliveries.Queue(ctx, bus.Delivery{Owner: owner, Webhook: id, ID: delivery, Event: contracts.EventPing, Body: body})
	if errors.Is(err, bus.ErrEndpointFull) {
		return "", &QueueFullError{Endpoint: true, Limit: contracts.MaxQueuedPerEndpoint}
	}
	if err != nil {
		return "", err
	}
	return delivery, nil
}
