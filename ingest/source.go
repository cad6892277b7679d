// Package ingest turns registrar price lists into events on the state
// stream, and their changes into events on the history stream: a Source
// fetches and normalises a list, a Runner publishes what changed since the
// last run and withdraws what disappeared. It reads the streams and
// publishes through the small interfaces it declares (LastReader,
// StateReader, Sender), which package bus implements on JetStream.
package ingest

import (
	"context"

	"github.com/zoneprice/zoneprice/contracts"
)

// Source fetches one price list and returns it normalised. Sources are
// registered explicitly in main.
type Source interface {
	// Name identifies the source in logs, metrics and the events' source field.
	Name() string
	// Fetch returns the source's current list. An error leaves the last
	// published state in place.
	Fetch(ctx context.Context) (*List, error)
}

// List is what a Source returns. Prices may span several registrars; every
// registrar that appears in Prices is one the source speaks for, so a zone of
// that registrar missing from the next list is withdrawn. Zones and Rates are
// optional. Retired names registrars the source speaks for but no longer
// lists at all: every live price of theirs is withdrawn, which the shrink
// guard would otherwise refuse. It is how a stand-in source (the sample)
// steps aside once real prices exist.
//
// Keep and Skipped report rows the source could not read. Keep names the
// price subjects (contracts.PriceSubject) of rows whose registrar and zone
// were readable but whose prices were not: their last good price stays
// rather than being withdrawn, as it would be if the zone had left the
// list. Skipped counts every unreadable row, for the operator's metrics.
//
// Outside are rows whose names the source read but that can be no zone of
// the DNS root whatever it delegates (a numeric top-level label, as
// Handshake's "8888" has; Tally puts them here): the runner counts them
// with the names its root-zone guard skips (Root), not as unreadable rows,
// and a zone of theirs, having none, is neither priced nor kept.
//
// Drift is how the document the list was read from differs from what its
// source declares it knows (CheckFormat); nil for a source that declares
// nothing.
type List struct {
	Prices  []contracts.PriceSet
	Zones   []contracts.ZoneMeta
	Rates   []contracts.Rates
	Retired []string
	Keep    []string
	Skipped int
	Outside []Skip
	Drift   *Drift
}
