package digest

import (
	"context"
	"slices"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
)

// collect adds each drop of the history to the digests it belongs in. When
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

// collectOne adds one change's drop to the digests it belongs in and
// acknowledges it; false when ctx ended first, leaving the change to be
// handed back (the records it reached keep the drop, and skip it by its
// sequence when it comes again).
func (s *Service) collectOne(ctx context.Context, dec *contracts.Decoder, job bus.Job) bool {
	seq := job.Seq
	c, err := dec.DecodeChange(job.Data)
	if err != nil || contracts.IsSampleRegistrar(c.Registrar) || !c.Dropped() {
		_ = job.Ack()
		return true
	}
	drop, ok := dropOf(c, seq)
	if !ok {
		_ = job.Ack()
		return true
	}
	for _, key := range s.following(drop) {
		_, err := s.subs.Store().Change(ctx, key, func(cur *contracts.Subscriber) (*contracts.Subscriber, error) {
			return collect(cur, drop)
		})
		if err != nil && ctx.Err() != nil {
			return false
		}
		if err != nil {
			s.log.Error("a drop not added to a digest; collecting the change again shortly", "seq", seq, "err", err)
			_ = job.NakWithDelay(5 * time.Second)
			return true
		}
	}
	_ = job.Ack()
	return true
}

// collect adds drop to a subscriber's next digest: kept while the digest
// has room, counted past it; bus.ErrUnchanged when the subscriber no longer
// follows it or has it already (a change delivered again).
func collect(cur *contracts.Subscriber, drop contracts.PendingDrop) (*contracts.Subscriber, error) {
	// Changes come in stream order, so a drop at or below a sequence
	// already digested or counted past the cap was collected before.
	if cur == nil || !follows(cur, drop) || drop.Seq <= cur.DigestedThrough || drop.Seq <= cur.MoreThrough ||
		slices.ContainsFunc(cur.Pending, func(p contracts.PendingDrop) bool { return p.Seq == drop.Seq }) {
		return nil, bus.ErrUnchanged
	}
	next := *cur
	switch {
	case len(next.Pending) < contracts.MaxPendingDrops:
		next.Pending = append(slices.Clone(next.Pending), drop)
	default:
		next.PendingMore++
		next.MoreThrough = drop.Seq
	}
	return &next, nil
}

// following are the keys of the subscribers whose digest drop belongs in.
func (s *Service) following(drop contracts.PendingDrop) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var keys []string
	for k, sub := range s.mirror {
		if follows(sub, drop) {
			keys = append(keys, k)
		}
	}
	return keys
}

func follows(sub *contracts.Subscriber, drop contracts.PendingDrop) bool {
	return sub.Confirmed && sub.Wants(contracts.InterestPriceDrops) && slices.Contains(sub.Zones, drop.Zone) && drop.Percent >= sub.MinDropPercent
}

// dropOf is the change's largest drop of what a customer pays to register
// or renew (in the same currency, promotions included, as Dropped reads
// it), in percent of the price before. A change that also raised the
// other price is measured by its drop: ChangePercent would report the
// rise.
func dropOf(c *contracts.PriceChange, seq uint64) (contracts.PendingDrop, bool) {
	best := contracts.PendingDrop{Seq: seq, Zone: c.Zone, Registrar: c.Registrar, ObservedAt: c.ObservedAt}
	found := false
	for _, op := range []contracts.Op{contracts.OpRegister, contracts.OpRenew} {
		a, b := c.Before.Ops()[op], c.After.Ops()[op]
		if a == nil || b == nil {
			continue
		}
		was, is := a.Current(c.ObservedAt), b.Current(c.ObservedAt)
		if was.Currency != is.Currency || is.Amount >= was.Amount || was.Amount <= 0 {
			continue
		}
		if p := float64(was.Amount-is.Amount) * 100 / float64(was.Amount); !found || p > best.Percent {
			best.Op, best.Before, best.After, best.Percent, found = op, was, is, p, true
		}
	}
	return best, found
}
