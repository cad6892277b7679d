package subscribe

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
)

// AlertsConsumer is the durable consumer of the history stream that
// collects price drops for the digests. Every process that runs Alerts
// shares it, so each change is collected once. Its configuration is
// bus.AlertsConsumerConfig.
const AlertsConsumer = bus.AlertsConsumer

// Consumer is AlertsConsumer on the history stream (bus.Durable).
type Consumer interface {
	Consume(ctx context.Context, cfg bus.ConsumeConfig, handle func(bus.Job)) error
}

// Alerts sends the price-drop digests: it follows the history stream and
// adds each drop to the pending digest of every confirmed subscriber who
// follows its zone with a threshold it reaches (kept in the subscriber's
// record, so a restart loses none), and once a day sends each of them the
// drops of the days before, in one mail. It also deletes addresses not
// confirmed within ConfirmTTL.
//
// Exactly once, as far as SMTP allows: a change is acknowledged only once
// every matching record holds it, and is not added twice (a change
// delivered again is found by its sequence); a digest is claimed in the
// record (LastDigestAt, DigestedThrough, the drops taken out) before it is
// sent, so two processes never both send it, and put back when the relay
// refuses it. A process killed between the claim and the relay's answer
// loses that one digest rather than send it twice.
type Alerts struct {
	s       *Service
	history Consumer
	tick    time.Duration

	mu sync.Mutex
	// subs mirrors the subscribers bucket (by key), loaded is closed once
	// the mirror holds the whole bucket.
	subs       map[string]*contracts.Subscriber
	loaded     chan struct{}
	loadedOnce sync.Once
}

// NewAlerts returns the digests of s's subscribers, collecting the drops
// that history hands out; every tick it looks for digests due (the
// decision is s's clock's, the tick only how often it is asked).
func NewAlerts(s *Service, history Consumer, tick time.Duration) *Alerts {
	return &Alerts{s: s, history: history, tick: tick, subs: map[string]*contracts.Subscriber{}, loaded: make(chan struct{})}
}

// Run collects and sends until ctx ends.
func (a *Alerts) Run(ctx context.Context) error {
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error { return a.s.store.records.Follow(ctx, bus.FollowConfig{}, (*mirror)(a)) })
	g.Go(func() error {
		select {
		case <-a.loaded:
		case <-ctx.Done():
			return nil
		}
		return a.collect(ctx)
	})
	g.Go(func() error {
		t := time.NewTicker(a.tick)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-t.C:
			}
			select {
			case <-a.loaded:
				a.sendDue(ctx)
			default:
			}
		}
	})
	return g.Wait()
}

// Loaded is closed once the subscribers are loaded.
func (a *Alerts) Loaded() <-chan struct{} { return a.loaded }

// mirror is the bus.Follower that keeps Alerts' subs in step with the
// subscribers bucket.
type mirror Alerts

// Loaded replaces the mirror with the bucket's subscribers.
func (m *mirror) Loaded(all []bus.Entry[contracts.Subscriber]) {
	m.mu.Lock()
	clear(m.subs)
	m.mu.Unlock()
	m.Changed(all)
	m.loadedOnce.Do(func() { close(m.loaded) })
}

// Changed applies changes of the bucket. A record that does not decode is
// skipped, and the subscriber kept as last seen.
func (m *mirror) Changed(batch []bus.Entry[contracts.Subscriber]) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, e := range batch {
		switch {
		case e.Err != nil:
			m.s.log.Error("a subscriber record that does not decode; skipped", "revision", e.Revision, "err", e.Err)
		case e.Value == nil:
			delete(m.subs, e.Key)
		default:
			m.subs[e.Key] = e.Value
		}
	}
}

// Down logs a failed attempt to follow the bucket, which Follow makes
// again: waiting for it to be provisioned, or after a watch ended.
func (m *mirror) Down(err error) {
	m.s.log.Warn("cannot follow the subscribers bucket; retrying", "err", err)
}

// collect adds each drop of the history to the digests it belongs in. When
// ctx ends, the change taken but not collected is handed back to the
// server (negatively acknowledged), as zoneprice-notify hands back its
// changes and deliveries, so that the next process, or this one
// restarted, takes it at once rather than after the consumer's AckWait.
// One change at a time: the consumer hands out no other before it is
// answered.
func (a *Alerts) collect(ctx context.Context) error {
	var dec contracts.Decoder
	return a.history.Consume(ctx, bus.ConsumeConfig{Pull: 1, Log: a.s.log}, func(job bus.Job) {
		if !a.collectOne(ctx, &dec, job) {
			_ = job.Nak() // hand it back
		}
	})
}

// collectOne adds one change's drop to the digests it belongs in and
// acknowledges it; false when ctx ended first, leaving the change to be
// handed back (the records it reached keep the drop, and skip it by its
// sequence when it comes again).
func (a *Alerts) collectOne(ctx context.Context, dec *contracts.Decoder, job bus.Job) bool {
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
	for _, key := range a.following(drop) {
		_, err := a.s.store.Change(ctx, key, func(cur *contracts.Subscriber) (*contracts.Subscriber, error) {
			return collect(cur, drop)
		})
		if err != nil && ctx.Err() != nil {
			return false
		}
		if err != nil {
			a.s.log.Error("a drop not added to a digest; collecting the change again shortly", "seq", seq, "err", err)
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
func (a *Alerts) following(drop contracts.PendingDrop) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var keys []string
	for k, sub := range a.subs {
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

// sendDue sends every digest that is due, and deletes the addresses not
// confirmed in time.
func (a *Alerts) sendDue(ctx context.Context) {
	now := a.s.now().UTC()
	today := now.Truncate(24 * time.Hour)
	var due, stale []string
	a.mu.Lock()
	for k, sub := range a.subs {
		switch {
		case !sub.Confirmed && expired(sub, now, a.s.cfg.ConfirmTTL):
			stale = append(stale, k)
		case digestDue(sub, today):
			due = append(due, k)
		}
	}
	a.mu.Unlock()
	for _, k := range stale {
		if _, err := a.s.store.Change(ctx, k, func(cur *contracts.Subscriber) (*contracts.Subscriber, error) {
			if cur == nil || cur.Confirmed || !expired(cur, now, a.s.cfg.ConfirmTTL) {
				return nil, bus.ErrUnchanged
			}
			return nil, nil
		}); err != nil {
			a.s.log.Warn("an unconfirmed address not deleted; trying again later", "err", err)
		}
	}
	for _, k := range due {
		if ctx.Err() != nil {
			return
		}
		a.sendDigest(ctx, k, today)
	}
}

// expired reports an unconfirmed subscriber whose last confirmation link
// no longer works.
func expired(sub *contracts.Subscriber, now time.Time, ttl time.Duration) bool {
	last := sub.CreatedAt
	if sub.FormMailAt != nil {
		last = *sub.FormMailAt
	}
	return now.Sub(last) > ttl
}

// digestDue reports a subscriber owed a digest: confirmed, following
// drops, holding drops of a day before today, and sent none today.
func digestDue(sub *contracts.Subscriber, today time.Time) bool {
	if !sub.Confirmed || !sub.Wants(contracts.InterestPriceDrops) || sub.LastDigestAt != nil && !sub.LastDigestAt.Before(today) {
		return false
	}
	return slices.ContainsFunc(sub.Pending, func(p contracts.PendingDrop) bool { return p.ObservedAt.Before(today) })
}

// sendDigest claims key's digest in its record, sends it, and puts it
// back if the relay refused it.
func (a *Alerts) sendDigest(ctx context.Context, key string, today time.Time) {
	now := a.s.now().UTC()
	var batch []contracts.PendingDrop
	var more int
	var before contracts.Subscriber
	sub, err := a.s.store.Change(ctx, key, func(cur *contracts.Subscriber) (*contracts.Subscriber, error) {
		if cur == nil || !digestDue(cur, today) {
			return nil, bus.ErrUnchanged
		}
		before = *cur
		var next *contracts.Subscriber
		next, batch, more = claim(cur, today, now)
		return next, nil
	})
	if err != nil {
		a.s.log.Error("a digest not claimed; trying again later", "err", err)
		return
	}
	if len(batch) == 0 {
		return
	}
	msg, err := a.digest(sub, batch, more, today)
	if err == nil && a.s.send(ctx, msg, "digest") {
		return
	}
	if err != nil {
		a.s.log.Error("a digest not rendered", "err", err)
	}
	// Put the drops back for the next try.
	if _, err := a.s.store.Change(context.WithoutCancel(ctx), key, func(cur *contracts.Subscriber) (*contracts.Subscriber, error) {
		if cur == nil {
			return nil, bus.ErrUnchanged
		}
		next := *cur
		next.Pending = append(slices.Clone(batch), cur.Pending...)
		if len(next.Pending) > contracts.MaxPendingDrops {
			next.PendingMore += len(next.Pending) - contracts.MaxPendingDrops
			next.MoreThrough = max(next.MoreThrough, next.Pending[len(next.Pending)-1].Seq)
			next.Pending = next.Pending[:contracts.MaxPendingDrops]
		}
		next.PendingMore += more
		next.LastDigestAt, next.DigestedThrough = before.LastDigestAt, before.DigestedThrough
		return &next, nil
	}); err != nil {
		a.s.log.Error("a digest that was not sent could not be put back: its drops are lost", "drops", len(batch), "err", err)
	}
}

// claim takes a digest out of a subscriber's record at now: the drops
// observed before today, and the count of those past the cap. The record
// returned holds the rest, and marks them all digested.
func claim(cur *contracts.Subscriber, today, now time.Time) (next *contracts.Subscriber, batch []contracts.PendingDrop, more int) {
	n := *cur
	n.Pending = nil
	for _, p := range cur.Pending {
		if p.ObservedAt.Before(today) {
			batch = append(batch, p)
			n.DigestedThrough = max(n.DigestedThrough, p.Seq)
		} else {
			n.Pending = append(n.Pending, p)
		}
	}
	more, n.PendingMore = cur.PendingMore, 0
	// The drops counted past the cap are told as "and N more".
	n.DigestedThrough = max(n.DigestedThrough, n.MoreThrough)
	n.LastDigestAt = &now
	return &n, batch, more
}

// digestLine is one drop as the digest shows it.
type digestLine struct {
	Zone, Registrar, Op, Before, After, Percent, URL string
}

// digest renders the digest of batch, the drops before today.
func (a *Alerts) digest(sub *contracts.Subscriber, batch []contracts.PendingDrop, more int, today time.Time) (*Message, error) {
	lines := make([]digestLine, len(batch))
	for i, p := range batch {
		z, err := contracts.NormalizeZone(p.Zone)
		if err != nil {
			return nil, err
		}
		lines[i] = digestLine{Zone: z.Unicode, Registrar: p.Registrar, Op: string(p.Op), Before: money(p.Before), After: money(p.After),
			Percent: percent(p.Percent), URL: a.s.cfg.base() + "/zones/" + p.Zone}
	}
	first, last := batch[0].ObservedAt.UTC().Format("2 January 2006"), batch[len(batch)-1].ObservedAt.UTC().Format("2 January 2006")
	day := "on " + last
	if first != last {
		day = "from " + first + " to " + last
	}
	msg, err := a.s.mail(sub, "digest", fmt.Sprintf("Price drops: %d in your zones", len(batch)+more), map[string]any{
		"Day": day, "Drops": lines, "More": more, "Changes": a.s.cfg.base() + "/api/changes?kind=dropped",
	})
	if err != nil {
		return nil, err
	}
	// The same digest has the same id however often it is sent.
	msg.ID = "digest-" + sub.Key()[:24] + "-" + today.Format("20060102") + "@" + hostOf(a.s.cfg.PublicURL)
	msg.Bulk = true
	return msg, nil
}

func hostOf(publicURL string) string {
	h := strings.TrimPrefix(strings.TrimPrefix(publicURL, "https://"), "http://")
	if i := strings.IndexAny(h, ":/"); i >= 0 {
		h = h[:i]
	}
	return h
}

// money writes a price as a person reads it: "9.68 USD".
func money(p contracts.Price) string {
	exp, ok := contracts.CurrencyExponent(p.Currency)
	if !ok {
		exp = 2
	}
	return string(contracts.AppendAmount(nil, p.Amount, exp)) + " " + p.Currency
}
