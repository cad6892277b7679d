package ingest

import (
	"context"
	"errors"
	"fmt"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
)

// A round records its changes before the prices they lead to (Once), so a
// crash between the two leaves the history ahead of the state: the history
// says porkbun prices .toys while the state stream still has no such
// price, and the catalog goes on serving what it held (the sample, on a
// first import). The next successful round puts it right, but a source
// that cannot be fetched (a machine offline) never has one. So a runner
// whose fetch fails reconciles once: it reads the history's last word on
// every subject its source recorded, and publishes to the state what that
// word says where the state says otherwise (the change's offer as a price
// set, or a withdrawal). It needs nothing of the source but its name,
// which every change carries.

// reconcileOnce reconciles, the first time a fetch fails, and logs what it
// did; a failure is tried again at the next failed fetch.
func (r *Runner) reconcileOnce(ctx context.Context) {
	if r.reconciled {
		return
	}
	n, err := r.reconcile(ctx)
	switch {
	case err != nil:
		r.log.Error("the source could not be fetched, and the state could not be reconciled with the history's last word", "err", err)
	case n > 0:
		r.reconciled = true
		r.log.Warn("the source could not be fetched; the state was behind the history (a round stopped between recording changes and publishing prices), and what the history says was published", "published", n)
	default:
		r.reconciled = true
	}
}

// reconcile publishes the state the history's last word on the source's
// subjects leads to, where the state stream says otherwise, and returns
// how many documents it published.
func (r *Runner) reconcile(ctx context.Context) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	defer cancel()
	last := map[string]*contracts.PriceChange{}
	seen := map[string]bool{}
	var regs []string
	err := r.streams.ReadLast(ctx, contracts.HistoryStream, bus.ReaderConfig{Filters: []string{contracts.ChangeSubjectPrefix + ">"}}, func(msg bus.Msg) bool {
		ev, err := contracts.Decode(msg.Data)
		c, ok := ev.(*contracts.PriceChange)
		if err != nil || !ok || !contracts.OnSubject(c, msg.Subject) || c.Source != r.src.Name() {
			return true
		}
		if !seen[c.Registrar] {
			seen[c.Registrar] = true
			regs = append(regs, c.Registrar)
		}
		last[contracts.PriceSubject(c.Registrar, c.Zone)] = c
		return true
	})
	switch {
	case errors.Is(err, bus.ErrNoStream):
		return 0, nil
	case err != nil && !errors.Is(err, bus.ErrIncomplete):
		return 0, fmt.Errorf("read history: %w", err)
	}
	if len(last) == 0 {
		return 0, nil
	}
	stored, err := r.stored(ctx, &List{Retired: regs})
	if err != nil && !errors.Is(err, bus.ErrIncomplete) {
		return 0, fmt.Errorf("read current state: %w", err)
	}
	var msgs []contracts.Message
	for subject, c := range last {
		ev := behind(c, stored[subject])
		if ev == nil {
			continue
		}
		if err := ev.Validate(); err != nil {
			r.log.Warn("the history's last word on a subject is not a valid price; it is passed over", "subject", subject, "err", err)
			continue
		}
		m, err := contracts.EncodeValid(ev)
		if err != nil {
			return 0, err
		}
		msgs = append(msgs, m)
	}
	if len(msgs) == 0 {
		return 0, nil
	}
	if _, _, err := r.pub.Send(ctx, msgs, 256); err != nil {
		return 0, fmt.Errorf("publish: %w", err)
	}
	return len(msgs), nil
}

// behind returns the document that brings the state of c's subject, st, to
// what c, the history's last word on it, says; nil when it says so already.
// A state newer than the change (the history lost its later changes) is
// left as it is.
func behind(c *contracts.PriceChange, st storedEvent) contracts.Event {
	if st.live && !st.observed.Before(c.ObservedAt) {
		return nil
	}
	if c.After == nil {
		if !st.live {
			return nil
		}
		return &contracts.Withdrawal{V: contracts.SchemaVersion, Kind: contracts.KindWithdrawal, Registrar: c.Registrar, Zone: c.Zone,
			ObservedAt: c.ObservedAt, Source: c.Source}
	}
	if st.live && st.offer.Equal(c.After) {
		return nil
	}
	return &contracts.PriceSet{V: contracts.SchemaVersion, Kind: contracts.KindPriceSet, Registrar: c.Registrar, Zone: c.Zone,
		Register: c.After.Register, Renew: c.After.Renew, Transfer: c.After.Transfer, Tax: c.After.Tax,
		ObservedAt: c.ObservedAt, Source: c.Source}
}
