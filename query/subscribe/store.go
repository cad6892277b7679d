package subscribe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"sync"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/zoneprice/zoneprice/contracts"
)

// The store's own errors; anything else is JetStream's.
var (
	// ErrNoBucket is a subscribers bucket not provisioned yet.
	ErrNoBucket = errors.New("the subscribers bucket " + contracts.SubscribersBucket + " does not exist yet")
	// ErrConflict is a change that met a concurrent change of the same
	// record on every attempt.
	ErrConflict = errors.New("the subscriber kept changing under the update")
	// errUnchanged, returned by an edit, writes nothing.
	errUnchanged = errors.New("unchanged")
)

// changeAttempts is how many times Change reads, edits and writes a
// record before it gives up: writers are a person's own form and the
// alerts' digest, so five conflicts in a row is a storm, not bad luck.
const changeAttempts = 5

// Store keeps subscribers in contracts.SubscribersBucket.
type Store struct {
	js jetstream.JetStream

	mu sync.Mutex
	kv jetstream.KeyValue
}

// NewStore returns a store on js. It binds the bucket when first used, so
// it can be made before the bucket is provisioned.
func NewStore(js jetstream.JetStream) *Store { return &Store{js: js} }

func (s *Store) bucket(ctx context.Context) (jetstream.KeyValue, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.kv != nil {
		return s.kv, nil
	}
	kv, err := s.js.KeyValue(ctx, contracts.SubscribersBucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, ErrNoBucket
	}
	if err != nil {
		return nil, fmt.Errorf("bind %s: %w", contracts.SubscribersBucket, err)
	}
	s.kv = kv
	return kv, nil
}

// Get returns the subscriber under key, or nil when there is none.
func (s *Store) Get(ctx context.Context, key string) (*contracts.Subscriber, error) {
	kv, err := s.bucket(ctx)
	if err != nil {
		return nil, err
	}
	sub, _, err := read(ctx, kv, key)
	return sub, err
}

func read(ctx context.Context, kv jetstream.KeyValue, key string) (*contracts.Subscriber, uint64, error) {
	e, err := kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("read subscriber: %w", err)
	}
	var sub contracts.Subscriber
	if err := json.Unmarshal(e.Value(), &sub); err != nil {
		return nil, 0, fmt.Errorf("subscriber record at revision %d: %w", e.Revision(), err)
	}
	return &sub, e.Revision(), nil
}

// Change reads the record under key and writes what edit makes of it,
// compare-and-set on the revision it read, starting over from a fresh
// read when another writer got there first. edit gets nil when there is
// no record; it returns the record to write, nil to delete the record
// (purged: no earlier revision keeps the address), or errUnchanged to
// write nothing. Change returns what was written (nil for a deletion).
func (s *Store) Change(ctx context.Context, key string, edit func(cur *contracts.Subscriber) (*contracts.Subscriber, error)) (*contracts.Subscriber, error) {
	kv, err := s.bucket(ctx)
	if err != nil {
		return nil, err
	}
	for range changeAttempts {
		cur, rev, err := read(ctx, kv, key)
		if err != nil {
			return nil, err
		}
		next, err := edit(cur)
		if errors.Is(err, errUnchanged) {
			return cur, nil
		}
		if err != nil {
			return nil, err
		}
		switch {
		case next == nil && cur == nil:
			return nil, nil
		case next == nil:
			err = kv.Purge(ctx, key, jetstream.LastRevision(rev))
		default:
			if next.Key() != key {
				return nil, errors.New("an edit changed the subscriber's address")
			}
			if err := next.Validate(); err != nil {
				return nil, err
			}
			var body []byte
			if body, err = json.Marshal(next); err != nil {
				return nil, err
			}
			if cur == nil {
				_, err = kv.Create(ctx, key, body)
			} else {
				_, err = kv.Update(ctx, key, body, rev)
			}
		}
		if conflict(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("write subscriber: %w", err)
		}
		return next, nil
	}
	return nil, ErrConflict
}

// conflict reports a write that lost to another: the record changed
// since it was read (or appeared, for a create).
func conflict(err error) bool {
	var apiErr *jetstream.APIError
	return errors.Is(err, jetstream.ErrKeyExists) ||
		errors.As(err, &apiErr) && (apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence || apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant)
}

// All yields every subscriber with its key, in no particular order; a
// record that does not decode is yielded with its error. No bucket yields
// nothing.
func (s *Store) All(ctx context.Context) iter.Seq2[*contracts.Subscriber, error] {
	return func(yield func(*contracts.Subscriber, error) bool) {
		kv, err := s.bucket(ctx)
		if errors.Is(err, ErrNoBucket) {
			return
		}
		if err != nil {
			yield(nil, err)
			return
		}
		keys, err := kv.ListKeys(ctx)
		if errors.Is(err, jetstream.ErrNoKeysFound) {
			return
		}
		if err != nil {
			yield(nil, fmt.Errorf("list subscribers: %w", err))
			return
		}
		var names []string
		for k := range keys.Keys() {
			names = append(names, k)
		}
		if err := ctx.Err(); err != nil {
			yield(nil, fmt.Errorf("list subscribers: %w", err))
			return
		}
		for _, k := range names {
			sub, _, err := read(ctx, kv, k)
			if sub == nil && err == nil {
				continue // deleted since listed
			}
			if !yield(sub, err) {
				return
			}
		}
	}
}
