package ingest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
)

// Fallback runs a stand-in source, the sample, only for as long as no real
// registrar price exists. Each fetch looks at the stream: while every live
// price belongs to a sample registrar (contracts.IsSampleRegistrar), it
// returns the stand-in's prices, and its rates for any base no other source
// has published; once a real price exists it returns a list that retires
// every sample registrar, so the sample is withdrawn. Its zone metadata is
// published only when no zone source runs beside it, so that the two never
// overwrite each other. Consumers hide sample prices as soon as a real one exists
// (contracts.SampleRegistrarPrefix), so nothing mixes while the withdrawals
// are on their way.
type Fallback struct {
	src     Source
	streams StateReader
	log     *slog.Logger
	// ZonesElsewhere says a zone metadata source runs beside the
	// fallback, which then publishes none of its own.
	ZonesElsewhere bool
}

var (
	_ Source    = (*Fallback)(nil)
	_ Describer = (*Fallback)(nil)
)

// StateReader is what a Fallback reads of the streams (bus.Streams): the
// last message on each subject, and on one subject.
type StateReader interface {
	LastReader
	// LastMsg returns the last message on subject; an error that is
	// bus.ErrNoMessage when the subject holds none.
	LastMsg(ctx context.Context, stream, subject string) (bus.Msg, error)
}

// NewFallback wraps the stand-in source src, which steps aside for what
// streams holds.
func NewFallback(src Source, streams StateReader, log *slog.Logger) *Fallback {
	return &Fallback{src: src, streams: streams, log: log.With("source", src.Name())}
}

// Name implements Source.
func (f *Fallback) Name() string { return f.src.Name() }

// Describe implements Describer: what the stand-in states, if anything.
func (f *Fallback) Describe() Description {
	if d, ok := f.src.(Describer); ok {
		return d.Describe()
	}
	return Description{}
}

// Fetch implements Source.
func (f *Fallback) Fetch(ctx context.Context) (*List, error) {
	list, err := f.src.Fetch(ctx)
	if err != nil {
		return nil, err
	}
	real, err := realPriceExists(ctx, f.streams)
	if err != nil {
		return nil, fmt.Errorf("look for real prices: %w", err)
	}
	if real {
		var retired []string
		seen := map[string]bool{}
		for i := range list.Prices {
			if reg := list.Prices[i].Registrar; !seen[reg] && contracts.IsSampleRegistrar(reg) {
				seen[reg] = true
				retired = append(retired, reg)
			}
		}
		f.log.Info("real prices exist; the sample steps aside", "registrars", len(retired))
		return &List{Retired: retired}, nil
	}
	f.log.Warn("no real registrar prices on the stream; serving the labelled sample until a live source succeeds")
	out := &List{Prices: list.Prices}
	if !f.ZonesElsewhere {
		out.Zones = list.Zones
	}
	for _, r := range list.Rates {
		free, err := ratesFree(ctx, f.streams, r.Subject(), r.Source)
		if err != nil {
			return nil, fmt.Errorf("look for other rates: %w", err)
		}
		if free {
			out.Rates = append(out.Rates, r)
		}
	}
	return out, nil
}

// realPriceExists reports whether the stream holds a live price set of a
// registrar that is not a sample registrar, judged as query pods judge it:
// a document they would reject is not a real price.
func realPriceExists(ctx context.Context, streams LastReader) (bool, error) {
	found := false
	err := streams.ReadLast(ctx, contracts.StateStream, bus.ReaderConfig{Filters: []string{contracts.PriceSubjectPrefix + ">"}}, func(msg bus.Msg) bool {
		reg, _, ok := contracts.ParsePriceSubject(msg.Subject)
		if !ok || contracts.IsSampleRegistrar(reg) {
			return true
		}
		if ev, err := contracts.Decode(msg.Data); err == nil && contracts.OnSubject(ev, msg.Subject) {
			_, found = ev.(*contracts.PriceSet)
		}
		return !found
	})
	return found, err
}

// ratesFree reports whether subject is empty or holds a document from
// source itself, so that publishing there overwrites nobody else's.
func ratesFree(ctx context.Context, streams StateReader, subject, source string) (bool, error) {
	msg, err := streams.LastMsg(ctx, contracts.StateStream, subject)
	if errors.Is(err, bus.ErrNoMessage) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	ev, err := contracts.Decode(msg.Data)
	if err != nil {
		return true, nil // garbage belongs to nobody
	}
	r, ok := ev.(*contracts.Rates)
	return ok && r.Source == source, nil
}

// HeldBy reports whether any subject matching filter holds a document from
// source. A stand-in (the builtin zone catalog) asks it before replacing
// what a live source published earlier, perhaps before a restart.
func HeldBy(ctx context.Context, streams LastReader, filter, source string) (bool, error) {
	held := false
	err := streams.ReadLast(ctx, contracts.StateStream, bus.ReaderConfig{Filters: []string{filter}}, func(msg bus.Msg) bool {
		if ev, err := contracts.Decode(msg.Data); err == nil {
			held = contracts.SourceOf(ev) == source
		}
		return !held
	})
	return held, err
}
