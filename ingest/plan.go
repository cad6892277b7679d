package ingest

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
)

// plan is what one run publishes: the changes to the history stream,
// then the messages to the state stream.
type plan struct {
	changes   []contracts.Message
	messages  []contracts.Message
	withdrawn int
	invalid   int
	// offered are the list's valid price sets, published or not, and
	// gone the price subjects of listed or retired registrars that the
	// list no longer has: what changes are found in.
	offered []*contracts.PriceSet
	gone    []string
	// changeCounts counts the changes by kind.
	changeCounts map[contracts.Change]int
}

// diff returns the events that differ from what the stream holds, plus a
// withdrawal for every live price of a listed registrar that the list no
// longer has. It refuses the list if a registrar shrank below MinKeepRatio
// of what the stream holds for it. An event that fails validation is
// skipped and counted; its zone still counts as listed, so a bad row never
// withdraws a good price. inRoot is the root-zone guard's test of the
// round (nil: every zone is in the root).
func (r *Runner) diff(list *List, stored map[string]storedEvent, recorded map[string]*recordedChange, inRoot func(string) string, all bool) (*plan, error) {
	p := &planner{r: r, pl: &plan{}, stored: stored, now: r.now(), all: all}
	ls, err := r.listing(list, stored, inRoot)
	if err != nil {
		return nil, err
	}
	for i := range list.Prices {
		if err := p.add(&list.Prices[i]); err != nil {
			return nil, err
		}
	}
	for i := range list.Zones {
		if err := p.add(&list.Zones[i]); err != nil {
			return nil, err
		}
	}
	for i := range list.Rates {
		if err := p.addRates(&list.Rates[i]); err != nil {
			return nil, err
		}
	}
	if err := p.withdraw(ls, recorded); err != nil {
		return nil, err
	}
	return p.pl, nil
}

// listing is which price subjects a list speaks for.
type listing struct {
	listed     map[string]bool // price subjects in the list
	registrars map[string]int  // zones listed per registrar
	retired    map[string]bool // registrars the list retires
}

// listing reads which subjects the list speaks for, and refuses a list in
// which a registrar shrank below MinKeepRatio of the live prices the
// stream holds for it, or which both lists and retires a registrar. A live
// price of a name outside the DNS root (inRoot) does not count: the guard
// withdraws it, and a list that lost only such names has not shrunk.
func (r *Runner) listing(list *List, stored map[string]storedEvent, inRoot func(string) string) (*listing, error) {
	ls := &listing{listed: map[string]bool{}, registrars: map[string]int{}, retired: map[string]bool{}}
	for i := range list.Prices {
		p := &list.Prices[i]
		if !contracts.ValidRegistrar(p.Registrar) || !contracts.IsCanonicalZone(p.Zone) {
			continue
		}
		if s := p.Subject(); !ls.listed[s] {
			ls.listed[s] = true
			ls.registrars[p.Registrar]++
		}
	}
	// A kept subject counts as listed, so it is not withdrawn, and
	// toward its registrar's count for the shrink guard only if the
	// stream holds a live price there to keep.
	for _, s := range list.Keep {
		if reg, _, ok := contracts.ParsePriceSubject(s); ok && !ls.listed[s] {
			ls.listed[s] = true
			if stored[s].live {
				ls.registrars[reg]++
			}
		}
	}
	live := map[string]int{} // live prices the stream holds per registrar
	for subject, st := range stored {
		if reg, zone, ok := contracts.ParsePriceSubject(subject); ok && st.live && (inRoot == nil || inRoot(zone) == "") {
			live[reg]++
		}
	}
	for reg, n := range ls.registrars {
		if prev := live[reg]; prev > 0 && float64(n) < r.cfg.MinKeepRatio*float64(prev) {
			return nil, fmt.Errorf("%w: registrar %s lists %d zones, the stream holds %d", ErrShrunk, reg, n, prev)
		}
	}
	for _, reg := range list.Retired {
		if ls.registrars[reg] > 0 {
			return nil, fmt.Errorf("%w: registrar %s is both listed and retired", errRefused, reg)
		}
		ls.retired[reg] = true
	}
	return ls, nil
}

// gone reports whether subject is the price subject of a zone that a
// registrar the list speaks for (listed or retired) no longer lists.
func (ls *listing) gone(subject string) (reg, zone string, ok bool) {
	reg, zone, ok = contracts.ParsePriceSubject(subject)
	return reg, zone, ok && !ls.listed[subject] && (ls.registrars[reg] > 0 || ls.retired[reg])
}

// planner builds one round's plan against what the stream holds.
type planner struct {
	r      *Runner
	pl     *plan
	stored map[string]storedEvent
	now    time.Time
	// all publishes every event, changed or not (Runner.Republish).
	all bool
}

// valid validates an event, the only time it is validated: what is
// invalid is skipped and counted, and the rest is encoded for the
// publisher as it is.
func (p *planner) valid(ev contracts.Event) bool {
	if err := ev.Validate(); err != nil {
		p.pl.invalid++
		p.r.m.invalid.Inc()
		p.r.log.Warn("event skipped: invalid", "subject", ev.Subject(), "err", err)
		return false
	}
	return true
}

// publish adds a valid event to the messages to publish.
func (p *planner) publish(ev contracts.Event) error {
	m, err := contracts.EncodeValid(ev)
	if err != nil {
		return err
	}
	p.pl.messages = append(p.pl.messages, m)
	return nil
}

// add publishes an event of the list if it is valid and the stream does
// not hold it already (or holds it since Refresh ago).
func (p *planner) add(ev contracts.Event) error {
	if !p.valid(ev) {
		return nil
	}
	// Query pods refuse a document observed ahead of when the stream
	// stored it; the runner does not publish one.
	if err := contracts.CheckObserved(ev, p.now); err != nil {
		p.r.m.refused.WithLabelValues("future").Inc()
		p.r.log.Warn("event skipped: observed in the future (is this machine's or the source's clock wrong?)", "subject", ev.Subject(), "err", err)
		return nil
	}
	if ps, ok := ev.(*contracts.PriceSet); ok {
		p.pl.offered = append(p.pl.offered, ps)
	}
	st, ok := p.stored[ev.Subject()]
	stale := p.r.cfg.Refresh > 0 && p.now.Sub(st.observed) >= p.r.cfg.Refresh
	if p.all || !ok || st.fp != fingerprint(ev) || stale {
		return p.publish(ev)
	}
	return nil
}

// addRates adds a rates document unless it would replace better rates of
// the same source: newer ones, or ones a rate jumped from.
func (p *planner) addRates(rates *contracts.Rates) error {
	// A stale copy (a cache serving yesterday's file) never replaces
	// the same source's newer rates; another source's (the sample's
	// fixed ones) are no reason to hold back.
	st, ok := p.stored[rates.Subject()]
	if ok && st.source == rates.Source && st.ratesDate > rates.Date {
		p.r.m.refused.WithLabelValues("older_rates").Inc()
		p.r.log.Warn("rates older than the stream's skipped", "base", rates.Base, "date", rates.Date, "stream_date", st.ratesDate)
		return nil
	}
	// A rate that moved by more than a factor of MaxRateJump since the
	// same source's rates for the base on the stream is a broken feed
	// more likely than a market: the last good rates stay until an
	// operator looks (and, if the move is real, removes the old rates).
	// Another source's rates there are no yardstick: the sample's, or a
	// document nobody should have published.
	if ok && st.rates != nil && st.source == rates.Source {
		if code, from, to := contracts.RateJump(st.rates, rates); code != "" {
			p.r.m.refused.WithLabelValues("rate_jump").Inc()
			p.r.log.Error("rates refused: a rate jumped; the last good rates stay", "base", rates.Base, "currency", code,
				"from", from, "to", to, "max_factor", contracts.MaxRateJump)
			return nil
		}
	}
	return p.add(rates)
}

// withdraw notes the subjects whose zones left the list (plan.gone), and
// withdraws every one of them the stream still holds anything but a
// withdrawal on.
func (p *planner) withdraw(ls *listing, recorded map[string]*recordedChange) error {
	for subject := range recorded {
		if _, _, ok := ls.gone(subject); ok {
			p.pl.gone = append(p.pl.gone, subject)
		}
	}
	for subject, st := range p.stored {
		reg, zone, ok := ls.gone(subject)
		if ok && recorded[subject] == nil {
			p.pl.gone = append(p.pl.gone, subject)
		}
		// Anything but a withdrawal, including a document that does not
		// decode, is withdrawn once the list no longer has it: otherwise
		// garbage there would outlive the zone.
		if !ok || st.withdrawn {
			continue
		}
		w := &contracts.Withdrawal{
			V: contracts.SchemaVersion, Kind: contracts.KindWithdrawal, Registrar: reg, Zone: zone,
			ObservedAt: p.now, Source: p.r.src.Name(),
		}
		if !p.valid(w) {
			continue // a subject no valid document can be on
		}
		if err := p.publish(w); err != nil {
			return err
		}
		p.pl.withdrawn++
	}
	return nil
}

// fingerprint hashes an event without its observed_at, so that the same
// prices observed again compare equal.
func fingerprint(ev contracts.Event) [32]byte {
	var v any = ev
	switch e := ev.(type) {
	case *contracts.PriceSet:
		c := *e
		c.ObservedAt = time.Time{}
		v = &c
	case *contracts.ZoneMeta:
		c := *e
		c.ObservedAt = time.Time{}
		v = &c
	case *contracts.Rates:
		c := *e
		c.ObservedAt = time.Time{}
		v = &c
	}
	b, _ := json.Marshal(v)
	return sha256.Sum256(b)
}
