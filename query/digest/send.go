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
// drops or renewal increases, holding one of a day before today, and sent
// none today.
func digestDue(sub *contracts.Subscriber, today time.Time) bool {
	if !sub.Confirmed || !sub.Wants(contracts.InterestPriceDrops) && !sub.Wants(contracts.InterestRenewalIncreases) ||
		sub.LastDigestAt != nil && !sub.LastDigestAt.Before(today) {
		return false
	}
	before := func(p contracts.PendingChange) bool { return p.ObservedAt.Before(today) }
	return slices.ContainsFunc(sub.Pending, before) || slices.ContainsFunc(sub.Increases, before)
}

// section is one list of a digest: the changes it shows, and how many
// more there were past the record's cap.
type section struct {
	items []contracts.PendingChange
	more  int
}

// size is how many changes the section tells of.
func (s section) size() int { return len(s.items) + s.more }

// batch is one digest: its drops and its renewal increases.
type batch struct {
	drops, increases section
}

// sendDigest claims key's digest in its record, sends it, and puts it
// back if the relay refused it.
func (s *Service) sendDigest(ctx context.Context, key string, today time.Time) {
	now := s.now().UTC()
	var b batch
	var before contracts.Subscriber
	sub, err := s.subs.Store().Change(ctx, key, func(cur *contracts.Subscriber) (*contracts.Subscriber, error) {
		if cur == nil || !digestDue(cur, today) {
			return nil, bus.ErrUnchanged
		}
		before = *cur
		var next *contracts.Subscriber
		next, b = claim(cur, today, now)
		return next, nil
	})
	if err != nil {
		s.log.Error("a digest not claimed; trying again later", "err", err)
		return
	}
	if len(b.drops.items)+len(b.increases.items) == 0 {
		return
	}
	msg, err := s.digest(sub, b, today)
	if err == nil && s.subs.Send(ctx, msg, "digest") {
		s.m.mailed.WithLabelValues("drops").Add(float64(b.drops.size()))
		s.m.mailed.WithLabelValues("increases").Add(float64(b.increases.size()))
		return
	}
	if err != nil {
		s.log.Error("a digest not rendered", "err", err)
	}
	// Put the changes back for the next try.
	if _, err := s.subs.Store().Change(context.WithoutCancel(ctx), key, func(cur *contracts.Subscriber) (*contracts.Subscriber, error) {
		if cur == nil {
			return nil, bus.ErrUnchanged
		}
		next := *cur
		next.Pending, next.PendingMore = putBack(b.drops, cur.Pending, cur.PendingMore, contracts.MaxPendingDrops, &next.MoreThrough)
		next.Increases, next.IncreasesMore = putBack(b.increases, cur.Increases, cur.IncreasesMore, contracts.MaxPendingIncreases, &next.MoreThrough)
		next.LastDigestAt, next.DigestedThrough = before.LastDigestAt, before.DigestedThrough
		return &next, nil
	}); err != nil {
		s.log.Error("a digest that was not sent could not be put back: its changes are lost",
			"drops", len(b.drops.items), "increases", len(b.increases.items), "err", err)
	}
}

// putBack puts a claimed section back before what the record collected
// since (list, more), keeping at most limit and counting the rest, whose
// newest sequence moreThrough then covers.
func putBack(claimed section, list []contracts.PendingChange, more, limit int, moreThrough *uint64) ([]contracts.PendingChange, int) {
	list = append(slices.Clone(claimed.items), list...)
	more += claimed.more
	if len(list) > limit {
		more += len(list) - limit
		*moreThrough = max(*moreThrough, list[len(list)-1].Seq)
		list = list[:limit]
	}
	return list, more
}

// claim takes a digest out of a subscriber's record at now: the drops and
// renewal increases observed before today, and the counts of those past
// the caps. The record returned holds the rest, and marks them all
// digested.
func claim(cur *contracts.Subscriber, today, now time.Time) (*contracts.Subscriber, batch) {
	n := *cur
	var b batch
	n.Pending, b.drops.items = take(cur.Pending, today, &n.DigestedThrough)
	n.Increases, b.increases.items = take(cur.Increases, today, &n.DigestedThrough)
	b.drops.more, n.PendingMore = cur.PendingMore, 0
	b.increases.more, n.IncreasesMore = cur.IncreasesMore, 0
	// The changes counted past the caps are told as "and N more".
	n.DigestedThrough = max(n.DigestedThrough, n.MoreThrough)
	n.LastDigestAt = &now
	return &n, b
}

// take splits list into the changes observed before today, which it
// marks digested (through), and the rest.
func take(list []contracts.PendingChange, today time.Time, through *uint64) (rest, taken []contracts.PendingChange) {
	for _, p := range list {
		if p.ObservedAt.Before(today) {
			taken = append(taken, p)
			*through = max(*through, p.Seq)
		} else {
			rest = append(rest, p)
		}
	}
	return rest, taken
}

// digestLine is one change as the digest shows it.
type digestLine struct {
	Zone, Registrar, Op, Before, After, Percent, URL string
}

// digest renders the digest of b, the changes before today.
func (s *Service) digest(sub *contracts.Subscriber, b batch, today time.Time) (*mail.Message, error) {
	drops, err := s.lines(b.drops.items)
	if err != nil {
		return nil, err
	}
	increases, err := s.lines(b.increases.items)
	if err != nil {
		return nil, err
	}
	day := days(append(slices.Clone(b.drops.items), b.increases.items...))
	var title, subject string
	switch {
	case b.increases.size() == 0:
		title, subject = "Price drops "+day, fmt.Sprintf("Price drops: %d in your zones", b.drops.size())
	case b.drops.size() == 0:
		title, subject = "Renewal increases "+day, fmt.Sprintf("Renewal increases: %d in your zones", b.increases.size())
	default:
		title = "Price drops and renewal increases " + day
		subject = fmt.Sprintf("Price drops: %d, renewal increases: %d in your zones", b.drops.size(), b.increases.size())
	}
	msg, err := s.subs.Mail(mails, sub, "digest", subject, map[string]any{
		"Title": title, "Day": day, "Drops": drops, "More": b.drops.more, "Changes": s.subs.URL("/api/changes?kind=dropped"),
		"Increases": increases, "IncreasesMore": b.increases.more, "IncreasesChanges": s.subs.URL("/api/changes?kind=changed"),
	})
	if err != nil {
		return nil, err
	}
	// The same digest has the same id however often it is sent.
	msg.ID = s.subs.MessageID("digest-" + sub.Key()[:24] + "-" + today.Format("20060102"))
	msg.Bulk = true
	return msg, nil
}

// lines are the changes as the digest shows them.
func (s *Service) lines(changes []contracts.PendingChange) ([]digestLine, error) {
	lines := make([]digestLine, len(changes))
	for i, p := range changes {
		z, err := contracts.NormalizeZone(p.Zone)
		if err != nil {
			return nil, err
		}
		lines[i] = digestLine{Zone: z.Unicode, Registrar: p.Registrar, Op: p.Op.String(), Before: money(p.Before), After: money(p.After),
			Percent: mail.Percent(p.Percent), URL: s.subs.URL("/zones/" + p.Zone)}
	}
	return lines, nil
}

// days says when the changes were observed: "on 25 November 2026", or
// "from 24 November 2026 to 25 November 2026".
func days(changes []contracts.PendingChange) string {
	first, last := changes[0].ObservedAt, changes[0].ObservedAt
	for _, p := range changes[1:] {
		first, last = minTime(first, p.ObservedAt), maxTime(last, p.ObservedAt)
	}
	f, l := first.UTC().Format("2 January 2006"), last.UTC().Format("2 January 2006")
	if f == l {
		return "on " + l
	}
	return "from " + f + " to " + l
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// money writes a price as a person reads it: "9.68 USD".
func money(p contracts.Price) string {
	exp, ok := contracts.CurrencyExponent(p.Currency)
	if !ok {
		exp = 2
	}
	return string(contracts.AppendAmount(nil, p.Amount, exp)) + " " + p.Currency
}
