package digest

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/query/mail"
)

// sendDue sends every digest that is due, and deletes the addresses not
// confirmed in time.
func (s *Service) sendDue(ctx context.Context) {
	now := s.now().UTC()
	today := now.Truncate(24 * time.Hour)
	var due, stale []string
	s.mu.Lock()
	for k, sub := range s.mirror {
		switch {
		case s.subs.Expired(sub, now):
			stale = append(stale, k)
		case digestDue(sub, today):
			due = append(due, k)
		}
	}
	s.mu.Unlock()
	for _, k := range stale {
		if err := s.subs.DeleteExpired(ctx, k, now); err != nil {
			s.log.Warn("an unconfirmed address not deleted; trying again later", "err", err)
		}
	}
	for _, k := range due {
		if ctx.Err() != nil {
			return
		}
		s.sendDigest(ctx, k, today)
	}
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
func (s *Service) sendDigest(ctx context.Context, key string, today time.Time) {
	now := s.now().UTC()
	var batch []contracts.PendingDrop
	var more int
	var before contracts.Subscriber
	sub, err := s.subs.Store().Change(ctx, key, func(cur *contracts.Subscriber) (*contracts.Subscriber, error) {
		if cur == nil || !digestDue(cur, today) {
			return nil, bus.ErrUnchanged
		}
		before = *cur
		var next *contracts.Subscriber
		next, batch, more = claim(cur, today, now)
		return next, nil
	})
	if err != nil {
		s.log.Error("a digest not claimed; trying again later", "err", err)
		return
	}
	if len(batch) == 0 {
		return
	}
	msg, err := s.digest(sub, batch, more, today)
	if err == nil && s.subs.Send(ctx, msg, "digest") {
		return
	}
	if err != nil {
		s.log.Error("a digest not rendered", "err", err)
	}
	// Put the drops back for the next try.
	if _, err := s.subs.Store().Change(context.WithoutCancel(ctx), key, func(cur *contracts.Subscriber) (*contracts.Subscriber, error) {
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
		s.log.Error("a digest that was not sent could not be put back: its drops are lost", "drops", len(batch), "err", err)
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
func (s *Service) digest(sub *contracts.Subscriber, batch []contracts.PendingDrop, more int, today time.Time) (*mail.Message, error) {
	lines := make([]digestLine, len(batch))
	for i, p := range batch {
		z, err := contracts.NormalizeZone(p.Zone)
		if err != nil {
			return nil, err
		}
		lines[i] = digestLine{Zone: z.Unicode, Registrar: p.Registrar, Op: p.Op.String(), Before: money(p.Before), After: money(p.After),
			Percent: mail.Percent(p.Percent), URL: s.subs.URL("/zones/" + p.Zone)}
	}
	first, last := batch[0].ObservedAt.UTC().Format("2 January 2006"), batch[len(batch)-1].ObservedAt.UTC().Format("2 January 2006")
	day := "on " + last
	if first != last {
		day = "from " + first + " to " + last
	}
	msg, err := s.subs.Mail(mails, sub, "digest", fmt.Sprintf("Price drops: %d in your zones", len(batch)+more), map[string]any{
		"Day": day, "Drops": lines, "More": more, "Changes": s.subs.URL("/api/changes?kind=dropped"),
	})
	if err != nil {
		return nil, err
	}
	// The same digest has the same id however often it is sent.
	msg.ID = s.subs.MessageID("digest-" + sub.Key()[:24] + "-" + today.Format("20060102"))
	msg.Bulk = true
	return msg, nil
}

// money writes a price as a person reads it: "9.68 USD".
func money(p contracts.Price) string {
	exp, ok := contracts.CurrencyExponent(p.Currency)
	if !ok {
		exp = 2
	}
	return string(contracts.AppendAmount(nil, p.Amount, exp)) + " " + p.Currency
}
