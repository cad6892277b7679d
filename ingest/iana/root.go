package iana

import (
	"context"
	"errors"
	"strings"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/ingest"
)

// Root is the root-zone guard's knowledge of the DNS root
// (ingest.Root), read from what this package publishes. A TLD is
// delegated when the state stream holds zone metadata for it (the live
// IANA list, or the builtin catalog standing in where it never arrived)
// or the builtin catalog has it. The union means that a list the iana
// source is still publishing at its very first start, read half-way,
// never makes a zone look undelegated, and a TLD the root delegates after
// the Public Suffix List bundled here was cut is a zone once IANA's list
// on the stream has it. A name of more than one label is a zone when its
// TLD is delegated and the stream's zone metadata or the Public Suffix
// List (either section: .me.uk, CentralNic's .uk.com) knows it.
//
// What the root no longer delegates stays a zone while the stream holds
// its metadata, which nothing withdraws; no registrar sells a retired TLD.
type Root struct {
	streams ingest.LastReader
}

var _ ingest.Root = (*Root)(nil)

// NewRoot returns the guard's root, read from streams each round.
func NewRoot(streams ingest.LastReader) *Root { return &Root{streams: streams} }

// Check implements ingest.Root.
func (r *Root) Check(ctx context.Context) (func(zone string) string, error) {
	b, err := loadBuiltin()
	if err != nil {
		return nil, err
	}
	listed := map[string]bool{}
	err = r.streams.ReadLast(ctx, contracts.StateStream, bus.ReaderConfig{Filters: []string{contracts.ZoneSubjectPrefix + "*"}}, func(m bus.Msg) bool {
		if ev, err := contracts.Decode(m.Data); err == nil && contracts.OnSubject(ev, m.Subject) {
			if meta, ok := ev.(*contracts.ZoneMeta); ok {
				listed[meta.Zone] = true
			}
		}
		return true
	})
	// What a stream that lost messages still holds is added to the
	// builtin catalog, which stands in for the rest.
	if err != nil && !errors.Is(err, bus.ErrIncomplete) {
		return nil, err
	}
	delegated := map[string]bool{}
	for zone := range listed {
		delegated[tld(zone)] = true
	}
	// A second-level zone's TLD counts too: the Public Suffix List has
	// rules under a few TLDs it has no rule for (co.za, but no za).
	for _, z := range b.cat.zones {
		delegated[tld(z.ASCII)] = true
	}
	return func(zone string) string {
		switch {
		case !delegated[tld(zone)]:
			return contracts.SkipNotInRoot
		case !strings.Contains(zone[1:], "."), listed[zone], b.suffixes[zone]:
			return ""
		}
		return contracts.SkipUnknownSecondLevel
	}, nil
}
