package webhooks

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
)

// How a key's webhooks are counted against its tier's limit: its record
// in contracts.WebhookOwnersBucket lists them, and a new webhook's ID is
// added to it by compare and set (claim) before the registration is
// written, only while the key has fewer than its limit. Two creates at
// once, on one pod or on several, cannot both see room for one more: the
// second's write fails on the revision the first wrote, and it reads the
// record again. A deletion removes the ID after the registration is gone
// (release).
//
// A pod takes one key's creates in turn (ownerLocks), so that a burst of
// them does not make every create but one lose its compare and set, again
// and again, until it gives up with ErrConflict: only creates on other
// pods compete for the record.

// Owners is the record of each key's webhooks,
// contracts.WebhookOwnersBucket (bus.WebhookOwners), under the key's id.
type Owners interface {
	Change(ctx context.Context, key string, edit func(cur *contracts.WebhookOwner) (*contracts.WebhookOwner, error)) (*contracts.WebhookOwner, error)
}

// danglingAfter is how long an ID may be counted without its
// registration before List takes it for the remains of a create or a
// deletion cut short (a pod stopped between its two writes) and forgets
// it. It is far longer than a create takes (webhookTimeout, 10 s, in the
// API), so a create under way is never mistaken for one.
const danglingAfter = 5 * time.Minute

// claim counts webhook id as one of owner's at now, unless owner has
// limit already (a *LimitError).
func (s *Store) claim(ctx context.Context, owner, id string, limit int, now time.Time) error {
	_, err := s.owners.Change(ctx, owner, func(cur *contracts.WebhookOwner) (*contracts.WebhookOwner, error) {
		if cur == nil {
			var err error
			if cur, err = s.countAnew(ctx, owner); err != nil {
				return nil, err
			}
		}
		if len(cur.Webhooks) >= limit {
			return nil, &LimitError{Limit: limit}
		}
		cur.Webhooks = append(cur.Webhooks, contracts.OwnedWebhook{ID: id, Since: now})
		return cur, nil
	})
	return err
}

// countAnew is owner's record made from its registrations: for a key
// that has none yet, and for one that registered its webhooks before
// keys had records.
func (s *Store) countAnew(ctx context.Context, owner string) (*contracts.WebhookOwner, error) {
	list, err := s.list(ctx, contracts.WebhookKey(owner, "*"))
	if err != nil {
		return nil, err
	}
	o := &contracts.WebhookOwner{Webhooks: make([]contracts.OwnedWebhook, 0, len(list))}
	for _, w := range list {
		o.Webhooks = append(o.Webhooks, contracts.OwnedWebhook{ID: w.ID, Since: w.CreatedAt})
	}
	return o, nil
}

// release stops counting webhook id as one of owner's. A key without a
// record, or whose record does not count id, is left as it is.
func (s *Store) release(ctx context.Context, owner, id string) error {
	_, err := s.owners.Change(ctx, owner, func(cur *contracts.WebhookOwner) (*contracts.WebhookOwner, error) {
		if cur == nil || !cur.Has(id) {
			return nil, bus.ErrUnchanged
		}
		cur.Webhooks = slices.DeleteFunc(cur.Webhooks, func(w contracts.OwnedWebhook) bool { return w.ID == id })
		return cur, nil
	})
	if errors.Is(err, bus.ErrNoBucket) {
		return nil
	}
	return err
}

// forgetDangling stops counting the IDs of owner's record that have had
// no registration for danglingAfter, given its registrations list, read
// before: the remains of a create or a deletion cut short between its
// two writes, which would otherwise hold a place of the key's limit for
// good.
func (s *Store) forgetDangling(ctx context.Context, owner string, list []contracts.Webhook) error {
	registered := make(map[string]bool, len(list))
	for _, w := range list {
		registered[w.ID] = true
	}
	cutoff := s.now().Add(-danglingAfter)
	dangling := func(w contracts.OwnedWebhook) bool { return !registered[w.ID] && w.Since.Before(cutoff) }
	_, err := s.owners.Change(ctx, owner, func(cur *contracts.WebhookOwner) (*contracts.WebhookOwner, error) {
		if cur == nil || !slices.ContainsFunc(cur.Webhooks, dangling) {
			return nil, bus.ErrUnchanged
		}
		cur.Webhooks = slices.DeleteFunc(cur.Webhooks, dangling)
		return cur, nil
	})
	if errors.Is(err, bus.ErrNoBucket) {
		return nil
	}
	return err
}

// ownerLocks lets one create of a key run at a time in this process.
type ownerLocks struct {
	mu    sync.Mutex
	locks map[string]*ownerLock
}

// ownerLock is one key's lock and how many hold it or wait for it, so
// that it is forgotten when none do.
type ownerLock struct {
	turn  chan struct{}
	users int
}

// lock waits for owner's turn, or for ctx to end; unlock ends the turn.
func (l *ownerLocks) lock(ctx context.Context, owner string) (unlock func(), err error) {
	l.mu.Lock()
	if l.locks == nil {
		l.locks = map[string]*ownerLock{}
	}
	ol := l.locks[owner]
	if ol == nil {
		ol = &ownerLock{turn: make(chan struct{}, 1)}
		l.locks[owner] = ol
	}
	ol.users++
	l.mu.Unlock()
	done := func() {
		l.mu.Lock()
		if ol.users--; ol.users == 0 {
			delete(l.locks, owner)
		}
		l.mu.Unlock()
	}
	select {
	case ol.turn <- struct{}{}:
		return func() { <-ol.turn; done() }, nil
	case <-ctx.Done():
		done()
		return nil, ctx.Err()
	}
}
