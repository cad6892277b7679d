package digest

import (
	"context"
	"slices"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
)

// collect adds each drop and renewal increase of the history to the
// digests it belongs in. When
// ctx ends, the change taken but not collected is handed back to the
// server (negatively acknowledged), as zoneprice-notify hands back its
// changes and deliveries, so that the next process, or this one
// restarted, takes it at once rather than after the consumer's AckWait.
// One change at a time: the consumer hands out no other before it is
// answered.
func (s *Service) collect(ctx context.Context) error {
	var dec contracts.Decoder
	return s.history.Consume(ctx, bus.ConsumeConfig{Pull: 1, Log: s.log}, func(job bus.Job) {
		if !s.collectOne(ctx, &dec, job) {
			_ = job.Nak() // hand it back
		}
	})
}

// news is what one change brings the digests: its drop, its renewal
// increase, or both (nil where it brings none). Both are collected into a
// record together, in one write, so that a change is in a record whole or
// not at all.
type news struct {
	drop, increase *contracts.PendingChange
}

// newsOf is what the change at seq brings the digests; none from a sample
// registrar's.
func newsOf(c *contracts.PriceChange, seq uint64) news {
	var n news
	if contracts.IsSampleRegistrar(c.Registrar) {
		return n
	}
	if d, ok := dropOf(c, seq); ok {
		n.drop = &d
	}
	if i, ok := increaseOf(c, seq); ok {
		n.increase = &i
	}
	return n
}

// collectOne adds one change's news to the digests it belongs in and
// acknowledges it; false when ctx ended first, leaving the change to be
// handed back (the records it reached keep it, and skip it by its
// sequence when it comes again).
func (s *Service) collectOne(ctx context.Context, dec *contracts.Decoder, job bus.Job) bool {
	seq := job.Seq
	c, err := dec.DecodeChange(job.Data)
	if err != nil {
		_ = job.Ack()
		return true
	}
	n := newsOf(c, seq)
	for _, key := range s.following(n) {
		var added news
		_, err := s.subs.Store().Change(ctx, key, func(cur *contracts.Subscriber) (*contracts.Subscriber, error) {
			var next *contracts.Subscriber
			var err error
			next, added, err = collect(cur, n)
			return next, err
		})
		if err != nil && ctx.Err() != nil {
			return false
		}
		if err != nil {
			s.log.Error("a change not added to a digest; collecting it again shortly", "seq", seq, "err", err)
			_ = job.NakWithDelay(5 * time.Second)
			return true
		}
		s.m.collected.WithLabelValues("drops").Add(float64(count(added.drop)))
		s.m.collected.WithLabelValues("increases").Add(float64(count(added.increase)))
	}
	_ = job.Ack()
	return true
}

// collect adds n to a subscriber's next digest, each of its drop and
// increase that the subscriber follows: kept while its list has room,
// counted past it. It returns what it added, or bus.ErrUnchanged when the
// subscriber follows neither or has the change already (delivered again).
func collect(cur *contracts.Subscriber, n news) (*contracts.Subscriber, news, error) {
	var add news
	if cur == nil {
		return nil, add, bus.ErrUnchanged
	}
	if n.drop != nil && followsDrop(cur, *n.drop) {
		add.drop = n.drop
	}
	if n.increase != nil && followsIncrease(cur, *n.increase) {
		add.increase = n.increase
	}
	seq, ok := add.seq()
	// Changes come in stream order, so a change at or below a sequence
	// already digested or counted past a cap was collected before.
	if !ok || seq <= cur.DigestedThrough || seq <= cur.MoreThrough || holds(cur.Pending, seq) || holds(cur.Increases, seq) {
		return nil, news{}, bus.ErrUnchanged
	}
	next := *cur
	if add.drop != nil {
		next.Pending, next.PendingMore = appendCapped(next.Pending, next.PendingMore, *add.drop, contracts.MaxPendingDrops, &next.MoreThrough)
	}
	if add.increase != nil {
		next.Increases, next.IncreasesMore = appendCapped(next.Increases, next.IncreasesMore, *add.increase, contracts.MaxPendingIncreases, &next.MoreThrough)
	}
	return &next, add, nil
}

func count(p *contracts.PendingChange) int {
	if p == nil {
		return 0
	}
	return 1
}

// seq is the change's sequence; false when it brings nothing.
func (n news) seq() (uint64, bool) {
	switch {
	case n.drop != nil:
		return n.drop.Seq, true
	case n.increase != nil:
		return n.increase.Seq, true
	}
	return 0, false
}

func holds(list []contracts.PendingChange, seq uint64) bool {
	return slices.ContainsFunc(list, func(p contracts.PendingChange) bool { return p.Seq == seq })
}

// appendCapped adds p to list while it has fewer than limit, and
// otherwise counts it in more, moving moreThrough to its sequence.
func appendCapped(list []contracts.PendingChange, more int, p contracts.PendingChange, limit int, moreThrough *uint64) ([]contracts.PendingChange, int) {
	if len(list) < limit {
		return append(slices.Clone(list), p), more
	}
	*moreThrough = p.Seq
	return list, more + 1
}

// following are the keys of the subscribers whose digest n belongs in.
func (s *Service) following(n news) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var keys []string
	for k, sub := range s.mirror {
		if n.drop != nil && followsDrop(sub, *n.drop) || n.increase != nil && followsIncrease(sub, *n.increase) {
			keys = append(keys, k)
		}
	}
	return keys
}

func followsDrop(sub *contracts.Subscriber, drop contracts.PendingChange) bool {
	return sub.Confirmed && sub.Wants(contracts.InterestPriceDrops) && slices.Contains(sub.Zones, drop.Zone) && drop.Percent >= sub.MinDropPercent
}

func followsIncrease(sub *contracts.Subscriber, inc contracts.PendingChange) bool {
	return sub.Confirmed && sub.Wants(contracts.InterestRenewalIncreases) && slices.Contains(sub.Zones, inc.Zone)
}

// paid is what a customer paid for op when the change was observed, and
// pays after it (promotions included, as Dropped reads them): when the
// change priced op on both sides, in one currency, above zero before.
func paid(c *contracts.PriceChange, op contracts.Op) (was, is contracts.Price, ok bool) {
	if c.Change != contracts.ChangeChanged {
		return was, is, false
	}
	a, b := c.Before.Ops()[op], c.After.Ops()[op]
	if a == nil || b == nil {
		return was, is, false
	}
	was, is = a.Current(c.ObservedAt), b.Current(c.ObservedAt)
	return was, is, was.Currency == is.Currency && was.Amount > 0
}

// dropOf is the change's largest drop of what a customer pays to register
// or renew, in percent of the price before. A change that also raised the
// other price is measured by its drop: ChangePercent would report the
// rise.
func dropOf(c *contracts.PriceChange, seq uint64) (contracts.PendingChange, bool) {
	best := contracts.PendingChange{Seq: seq, Zone: c.Zone, Registrar: c.Registrar, ObservedAt: c.ObservedAt}
	found := false
	for _, op := range []contracts.Op{contracts.OpRegister, contracts.OpRenew} {
		was, is, ok := paid(c, op)
		if !ok || is.Amount >= was.Amount {
			continue
		}
		if p := float64(was.Amount-is.Amount) * 100 / float64(was.Amount); !found || p > best.Percent {
			best.Op, best.Before, best.After, best.Percent, found = op, was, is, p, true
		}
	}
	return best, found
}

// increaseOf is the change's rise of what a customer pays to renew, in
// percent of the price before: what an owner of a name in the zone pays
// next. A change that lowered the register price while it raised the
// renewal has both a drop and an increase.
func increaseOf(c *contracts.PriceChange, seq uint64) (contracts.PendingChange, bool) {
	was, is, ok := paid(c, contracts.OpRenew)
	if !ok || is.Amount <= was.Amount {
		return contracts.PendingChange{}, false
	}
	return contracts.PendingChange{Seq: seq, Zone: c.Zone, Registrar: c.Registrar, ObservedAt: c.ObservedAt, Op: contracts.OpRenew,
		Before: was, After: is, Percent: float64(is.Amount-was.Amount) * 100 / float64(was.Amount)}, true
}
