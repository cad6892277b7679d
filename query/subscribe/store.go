package subscribe

import (
	"context"
	"errors"
	"iter"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
)

// Records is the subscribers' bucket, contracts.SubscribersBucket
// (bus.Subscribers), whose deleted records are purged: no earlier
// revision keeps an address.
type Records interface {
	Get(ctx context.Context, key string) (*contracts.Subscriber, uint64, error)
	Change(ctx context.Context, key string, edit func(cur *contracts.Subscriber) (*contracts.Subscriber, error)) (*contracts.Subscriber, error)
	List(ctx context.Context, filter string, loadTimeout time.Duration) ([]bus.Entry[contracts.Subscriber], error)
	Follow(ctx context.Context, cfg bus.FollowConfig, f bus.Follower[contracts.Subscriber]) error
}

// Store keeps subscribers in their bucket, each under the hash of its
// address, and refuses a record that is not a subscriber's.
type Store struct {
	records Records
}

// NewStore returns a store of the subscribers in records. It needs no
// bucket until used, so it can be made before the bucket is provisioned.
func NewStore(records Records) *Store { return &Store{records: records} }

// Get returns the subscriber under key, or nil when there is none.
func (s *Store) Get(ctx context.Context, key string) (*contracts.Subscriber, error) {
	sub, _, err := s.records.Get(ctx, key)
	return sub, err
}

// Change reads the record under key and writes what edit makes of it,
// through the bucket's compare and set: edit may be called again, on a
// fresh read, when another writer got there first. edit gets nil when
// there is no record; it returns the record to write, nil to delete the
// record (purged), or bus.ErrUnchanged to write nothing. Change returns
// the record as it is now (nil for a deletion).
func (s *Store) Change(ctx context.Context, key string, edit func(cur *contracts.Subscriber) (*contracts.Subscriber, error)) (*contracts.Subscriber, error) {
	return s.records.Change(ctx, key, func(cur *contracts.Subscriber) (*contracts.Subscriber, error) {
		next, err := edit(cur)
		if err != nil || next == nil {
			return next, err
		}
		if next.Key() != key {
			return nil, errors.New("an edit changed the subscriber's address")
		}
		if err := next.Validate(); err != nil {
			return nil, err
		}
		return next, nil
	})
}

// All yields every subscriber, in no particular order; a record that does
// not decode is yielded with its error. No bucket yields nothing.
func (s *Store) All(ctx context.Context) iter.Seq2[*contracts.Subscriber, error] {
	return func(yield func(*contracts.Subscriber, error) bool) {
		all, err := s.records.List(ctx, "", 0)
		if err != nil {
			yield(nil, err)
			return
		}
		for _, e := range all {
			if !yield(e.Value, e.Err) {
				return
			}
		}
	}
}

// Follow keeps f in step with the bucket until ctx ends: every
// subscriber once loaded, then each change (bus.Records.Follow).
func (s *Store) Follow(ctx context.Context, f bus.Follower[contracts.Subscriber]) error {
	return s.records.Follow(ctx, bus.FollowConfig{}, f)
}
