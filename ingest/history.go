package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
)

// recordedChange is the history stream's last word on a registrar's zone:
// the offer its last change left (nil after a withdrawal) and that
// change's stream sequence.
type recordedChange struct {
	offer *contracts.Offer
	seq   uint64
}

// recorded reads the last change on every change subject of the list's
// registrars, keyed by the price subject it is about. It returns nil, and
// logs why, when there is no history stream (a deployment provisioned
// before history existed): prices are still published, and history starts,
// with each price as its first known period, once the stream is
// provisioned.
func (r *Runner) recorded(ctx context.Context, list *List) (map[string]*recordedChange, error) {
	var filters []string
	seen := map[string]bool{}
	add := func(reg string) {
		if !seen[reg] && contracts.ValidRegistrar(reg) {
			seen[reg] = true
			filters = append(filters, contracts.RegistrarChangeFilter(reg))
		}
	}
	for i := range list.Prices {
		add(list.Prices[i].Registrar)
	}
	for _, reg := range list.Retired {
		add(reg)
	}
	out := map[string]*recordedChange{}
	if len(filters) == 0 {
		return out, nil
	}
	ctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	defer cancel()
	err := r.streams.ReadLast(ctx, contracts.HistoryStream, bus.ReaderConfig{Filters: filters}, func(msg bus.Msg) bool {
		ev, err := contracts.Decode(msg.Data)
		c, ok := ev.(*contracts.PriceChange)
		if err != nil || !ok || !contracts.OnSubject(c, msg.Subject) {
			// Not a change this runner can build on: the subject is
			// treated as one without history.
			r.log.Warn("history holds a document that is not a change of its subject; it is passed over", "subject", msg.Subject, "err", err)
			return true
		}
		out[contracts.PriceSubject(c.Registrar, c.Zone)] = &recordedChange{offer: c.After, seq: msg.Seq}
		return true
	})
	switch {
	case errors.Is(err, bus.ErrNoStream):
		r.log.Error("no history stream: prices are published, their changes are not recorded until it is provisioned", "stream", contracts.HistoryStream)
		return nil, nil
	case errors.Is(err, bus.ErrIncomplete):
		// A subject whose last change was lost starts again from the
		// price the state stream holds, as a first known period.
		r.log.Error("the history stream lost messages; subjects without a last change start again from what is known", "err", err)
		return out, nil
	case err != nil:
		return nil, err
	}
	return out, nil
}

// changes adds to the plan the changes its list makes to what the history
// says each registrar charges: added, changed and withdrawn. A subject the
// history has never recorded, while the state stream holds a live price
// there, is recorded first with that price as its first known period
// (the first round after history is provisioned, or after a change ages
// out of it).
//
// The list is compared with the history's last word, not with the state:
// if a round recorded changes and stopped before publishing the prices
// they lead to, the next round finds the history already saying so and
// records nothing twice. Each change's message id is derived from the
// subject, the sequence of the change it follows and the offers, so that
// a retry within the stream's duplicate window is dropped too.
func (r *Runner) changes(pl *plan, stored map[string]storedEvent, recorded map[string]*recordedChange) error {
	now := r.now()
	counts := map[contracts.Change]int{}
	pl.changeCounts = counts
	// last is what the history says the subject's offer is, after what
	// this round has added to it.
	last := func(subject string) (*contracts.Offer, uint64, error) {
		if rec := recorded[subject]; rec != nil {
			return rec.offer, rec.seq, nil
		}
		st := stored[subject]
		if !st.live || st.offer == nil {
			return nil, 0, nil
		}
		reg, zone, _ := contracts.ParsePriceSubject(subject)
		known := &contracts.PriceChange{
			V: contracts.SchemaVersion, Kind: contracts.KindPriceChange, Change: contracts.ChangeKnown,
			Registrar: reg, Zone: zone, After: st.offer, ObservedAt: st.observed, Source: st.source,
		}
		if err := r.addChange(pl, known, 0); err != nil {
			return nil, 0, err
		}
		counts[contracts.ChangeKnown]++
		recorded[subject] = &recordedChange{offer: st.offer}
		return st.offer, 0, nil
	}
	for _, p := range pl.offered {
		subject := p.Subject()
		before, seq, err := last(subject)
		if err != nil {
			return err
		}
		after := p.Offer()
		if before.Equal(after) {
			continue
		}
		c := &contracts.PriceChange{
			V: contracts.SchemaVersion, Kind: contracts.KindPriceChange, Change: contracts.ChangeChanged,
			Registrar: p.Registrar, Zone: p.Zone, Before: before, After: after, ObservedAt: p.ObservedAt, Source: p.Source,
		}
		if before == nil {
			c.Change = contracts.ChangeAdded
		}
		if err := r.addChange(pl, c, seq); err != nil {
			return err
		}
		counts[c.Change]++
	}
	for _, subject := range pl.gone {
		before, seq, err := last(subject)
		if err != nil {
			return err
		}
		if before == nil {
			continue
		}
		reg, zone, _ := contracts.ParsePriceSubject(subject)
		c := &contracts.PriceChange{
			V: contracts.SchemaVersion, Kind: contracts.KindPriceChange, Change: contracts.ChangeWithdrawn,
			Registrar: reg, Zone: zone, Before: before, ObservedAt: now, Source: r.src.Name(),
		}
		if err := r.addChange(pl, c, seq); err != nil {
			return err
		}
		counts[c.Change]++
	}
	return nil
}

// addChange validates and encodes a change and gives it its message id.
// A change that does not validate is a bug in building it, not bad input:
// the round fails rather than record a change it cannot vouch for.
func (r *Runner) addChange(pl *plan, c *contracts.PriceChange, previous uint64) error {
	m, err := contracts.Encode(c)
	if err != nil {
		return fmt.Errorf("change of %s: %w", c.Subject(), err)
	}
	m.ID = changeID(c, previous)
	pl.changes = append(pl.changes, m)
	return nil
}

// changeID identifies a change by what it is, not by when it was seen:
// its subject, the history sequence of the change it follows, its kind and
// both offers.
func changeID(c *contracts.PriceChange, previous uint64) string {
	h := sha256.New()
	h.Write([]byte(c.Subject() + "\n" + string(c.Change) + "\n"))
	var seq [8]byte
	binary.BigEndian.PutUint64(seq[:], previous)
	h.Write(seq[:])
	for _, o := range []*contracts.Offer{c.Before, c.After} {
		h.Write([]byte{'\n'})
		if o != nil {
			fp := fingerprint(&contracts.PriceSet{Register: o.Register, Renew: o.Renew, Transfer: o.Transfer, Tax: o.Tax.Known()})
			h.Write(fp[:])
		}
	}
	sum := h.Sum(nil)
	return "change-" + hex.EncodeToString(sum[:16])
}
