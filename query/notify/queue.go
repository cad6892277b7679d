package notify

import (
	"context"
	"sync"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
)

// What waits in the deliveries stream, for each key, and what goes when
// an endpoint is deleted.
//
// The stream itself caps each endpoint (contracts.MaxQueuedPerEndpoint,
// its limit per subject). Each key's cap (Config.MaxQueuedPerKey) is the
// dispatcher's: the census below counts what waits for each key's
// endpoints, as the stream said every StatsInterval plus what this
// replica queued since, and a delivery for a key at its cap is not
// queued. A key found at its cap is counted again, from the stream,
// before a delivery is refused (at most once a second), so that a key
// whose endpoints take deliveries as fast as they come is never refused
// for what this replica queued and they already took. What other
// replicas queued since the last count is not seen: with R replicas, a
// key may pass its cap by what R-1 of them queue for it in a
// StatsInterval.

// QueueCounter counts what waits in the deliveries stream (bus.Deliveries).
type QueueCounter interface {
	Waiting(ctx context.Context) (map[string]uint64, error)
	Queued(ctx context.Context, owner string) (int, error)
	Drop(ctx context.Context, owner, webhook string) (uint64, error)
}

// recount is how often at most a key at its cap is counted again.
const recount = time.Second

// census is how many deliveries wait for each key's endpoints.
type census struct {
	limit int
	count func(ctx context.Context, owner string) (int, error)
	now   func() time.Time

	mu      sync.Mutex
	byOwner map[string]int
	checked map[string]time.Time // when a key at its cap was last counted
}

func newCensus(limit int, count func(context.Context, string) (int, error), now func() time.Time) *census {
	return &census{limit: limit, count: count, now: now, byOwner: map[string]int{}, checked: map[string]time.Time{}}
}

// set replaces the counts with the stream's, per subject.
func (c *census) set(subjects map[string]uint64) {
	byOwner := map[string]int{}
	for subject, n := range subjects {
		if owner, _, ok := contracts.ParseDeliverySubject(subject); ok && owner != "" {
			byOwner[owner] += int(n)
		}
	}
	c.mu.Lock()
	c.byOwner = byOwner
	clear(c.checked)
	c.mu.Unlock()
}

// admit reports whether one more delivery may be queued for owner's
// endpoints, and counts it if so. A count that fails admits it: the
// endpoint's cap still holds.
func (c *census) admit(ctx context.Context, owner string) bool {
	c.mu.Lock()
	if n := c.byOwner[owner]; n < c.limit {
		c.byOwner[owner] = n + 1
		c.mu.Unlock()
		return true
	}
	if c.now().Sub(c.checked[owner]) < recount {
		c.mu.Unlock()
		return false
	}
	c.mu.Unlock()
	fresh, err := c.count(ctx, owner)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.checked[owner] = c.now()
	if err != nil {
		return true
	}
	if c.byOwner[owner] = fresh; fresh >= c.limit {
		return false
	}
	c.byOwner[owner]++
	return true
}

// takeCensus counts what waits for each key from the stream, and drops
// the deliveries of endpoints that were deleted (sweep). It counts while
// no change's deliveries of this replica are being queued (queueing), so
// that the stream's count holds every delivery it queued before and none
// it queues after.
func (n *Notify) takeCensus(ctx context.Context) {
	n.queueing.Lock()
	subjects, err := n.bus.Deliveries.Waiting(ctx)
	if err == nil {
		n.census.set(subjects)
	}
	n.queueing.Unlock()
	if err != nil {
		n.log.Debug("counting the deliveries waiting failed", "err", err)
		return
	}
	select {
	case <-n.regs.Loaded():
		n.sweep(ctx, subjects)
	default:
	}
}

// sweep drops the deliveries of every endpoint that has some waiting and
// no registration: deleted while no replica followed the bucket, or
// whose drop failed. One missing from the mirror is looked up in the
// bucket first: it may have been created a moment ago.
func (n *Notify) sweep(ctx context.Context, subjects map[string]uint64) {
	for subject := range subjects {
		owner, hook, ok := contracts.ParseDeliverySubject(subject)
		if !ok || owner == "" {
			continue // a delivery queued before its key was in the subject is dropped when handed out
		}
		if _, known := n.regs.Lookup(hook); known {
			continue
		}
		if w, err := n.regs.fetch(ctx, owner, hook); err != nil || w != nil {
			continue
		}
		n.drop(ctx, owner, hook)
	}
}

// drop removes the deliveries waiting for owner's deleted webhook, one
// endpoint at a time, so that an endpoint dropped twice at once (told of
// its deletion while a count finds it gone) is counted once.
func (n *Notify) drop(ctx context.Context, owner, hook string) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	n.dropping.Lock()
	dropped, err := n.bus.Deliveries.Drop(ctx, owner, hook)
	n.dropping.Unlock()
	n.metrics.purged.Add(float64(dropped))
	if err != nil {
		n.metrics.purgeFailures.Inc()
		n.log.Warn("dropping a deleted endpoint's deliveries failed; they are dropped when handed out, and tried again at the next count",
			"webhook", hook, "err", err)
	}
}

// drops drops the deliveries of each endpoint deleted, as the
// registrations' mirror learns of it, until ctx ends.
func (n *Notify) drops(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case d := <-n.regs.deleted:
			n.drop(ctx, d.owner, d.webhook)
		}
	}
}
