package ingest

import (
	"cmp"
	"context"
	"errors"
	"io"
	"io/fs"
	"maps"
	"net"
	"net/url"
	"slices"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/ingest/fetch"
)

// Describer is a source that states its own facts for the registrar
// directory: every registrar adapter, the price sheet and the sample. After
// each round the runner publishes them, with how the source's rounds went,
// as one contracts.RegistrarStatus per registrar the source speaks for.
type Describer interface {
	Describe() Description
}

// Description is what a source states of itself. A zero Kind states
// nothing (a wrapper whose source describes nothing): no status is
// published.
type Description struct {
	Kind contracts.SourceKind
	// Document is where the source reads its list, a URL with no
	// secret in it; "" for a file (a sheet read from disk) or the sample.
	Document string
	// Currency is what the source prices in; "" when its rows each say.
	Currency string
	// Tax is what the source declares of tax in its prices.
	Tax contracts.Tax
	// Registrars are the registrars the source speaks for, whatever its
	// lists hold: a failed round reports on them too. A registrar a list
	// names that is not here (a sheet's) is known by its id.
	Registrars []Registrar
}

// Registrar is one registrar a source speaks for, as people know it.
type Registrar struct {
	ID   string
	Name string
	// Website is its home page, an https URL; "" for an invented one.
	Website string
	// Currency, when set, is what this registrar prices in, in place of
	// the Description's.
	Currency string
}

// failureOf is the class of a failed fetch: fetch when the document could
// not be had (an HTTP status, the network, a timeout, a body cut short, a
// file that could not be read), parse when what came could not be read.
func failureOf(err error) string {
	var status *fetch.StatusError
	var netErr net.Error
	var pathErr *fs.PathError
	switch {
	case errors.As(err, &status), errors.As(err, &netErr), errors.As(err, &pathErr),
		errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled), errors.Is(err, io.ErrUnexpectedEOF):
		return contracts.FailureFetch
	}
	return contracts.FailureParse
}

// statusInterval is the fetch interval the statuses state: Interval, or
// for a one-round run StatedInterval, or an hour.
func (c RunnerConfig) statusInterval() time.Duration {
	return cmp.Or(c.Interval, c.StatedInterval, time.Hour)
}

// report publishes the status of every registrar the source speaks for
// after a round, if it describes itself: the registrars it declares, those
// its published list named, and, after a failure, those whose last status
// it published. What the last good list said (the zones, what the guard
// skipped) and when it was published carry over from the stream's last
// status of the same source, so they survive a restart. A failure to
// publish is logged; the round's outcome stands.
func (r *Runner) report(ctx context.Context, out *outcome) {
	d, ok := r.src.(Describer)
	if !ok || ctx.Err() != nil {
		return
	}
	desc := d.Describe()
	if desc.Kind == "" {
		return
	}
	sctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	defer cancel()
	previous, err := r.lastStatuses(sctx)
	if err != nil {
		r.log.Error("registrar statuses not read back; last success and zones start afresh", "err", err)
	}
	var msgs []contracts.Message
	for _, st := range r.statuses(desc, out, previous) {
		if !r.validStatus(st) {
			continue
		}
		m, err := contracts.EncodeValid(st)
		if err != nil {
			r.log.Error("registrar status not encoded", "registrar", st.Registrar, "err", err)
			continue
		}
		msgs = append(msgs, m)
	}
	if _, _, err := r.pub.Send(sctx, msgs, 64); err != nil {
		r.log.Error("registrar statuses not published", "err", err)
	}
}

// validStatus validates a status, the only time it is: one that fails is
// counted and logged like any invalid event of the source.
func (r *Runner) validStatus(st *contracts.RegistrarStatus) bool {
	if err := st.Validate(); err != nil {
		r.m.invalid.Inc()
		r.log.Warn("registrar status skipped: invalid", "subject", st.Subject(), "err", err)
		return false
	}
	return true
}

// lastStatuses reads the last status of every registrar that this source
// published, by registrar.
func (r *Runner) lastStatuses(ctx context.Context) (map[string]*contracts.RegistrarStatus, error) {
	out := map[string]*contracts.RegistrarStatus{}
	err := r.streams.ReadLast(ctx, contracts.StateStream, bus.ReaderConfig{Filters: []string{contracts.StatusSubjectPrefix + "*"}}, func(m bus.Msg) bool {
		ev, err := contracts.Decode(m.Data)
		if st, ok := ev.(*contracts.RegistrarStatus); err == nil && ok && contracts.OnSubject(st, m.Subject) && st.Source == r.src.Name() {
			out[st.Registrar] = st
		}
		return true
	})
	if errors.Is(err, bus.ErrIncomplete) {
		return out, nil // what survived; the rest start afresh
	}
	return out, err
}

// statuses builds the round's status of each registrar the source speaks
// for, sorted by registrar.
func (r *Runner) statuses(desc Description, out *outcome, previous map[string]*contracts.RegistrarStatus) []*contracts.RegistrarStatus {
	zones := map[string]int{}
	named := map[string]bool{}
	for _, reg := range desc.Registrars {
		named[reg.ID] = true
	}
	if out.list != nil {
		for _, p := range out.list.Prices {
			zones[p.Registrar]++
			named[p.Registrar] = true
		}
		for _, reg := range out.list.Retired {
			named[reg] = true
		}
		for _, s := range out.skips {
			named[s.Registrar] = true
		}
	} else {
		for reg := range previous {
			named[reg] = true
		}
	}
	var sts []*contracts.RegistrarStatus
	for _, reg := range slices.Sorted(maps.Keys(named)) {
		if contracts.ValidRegistrar(reg) {
			sts = append(sts, r.status(desc, reg, out, zones[reg], previous[reg]))
		}
	}
	return sts
}

// status is one registrar's status after the round out; prev is its last
// one from this source, or nil.
func (r *Runner) status(desc Description, reg string, out *outcome, zones int, prev *contracts.RegistrarStatus) *contracts.RegistrarStatus {
	who := Registrar{ID: reg, Name: reg}
	if i := slices.IndexFunc(desc.Registrars, func(x Registrar) bool { return x.ID == reg }); i >= 0 {
		who = desc.Registrars[i]
	}
	st := &contracts.RegistrarStatus{
		V: contracts.SchemaVersion, Kind: contracts.KindRegistrarStatus, Registrar: reg,
		Name: cmp.Or(who.Name, reg), Website: who.Website,
		Source: r.src.Name(), SourceKind: desc.Kind, Document: withoutUser(desc.Document),
		Currency: cmp.Or(who.Currency, desc.Currency), Tax: cmp.Or(desc.Tax, contracts.TaxUnknown),
		IntervalSeconds: int64(r.cfg.statusInterval() / time.Second),
		LastAttempt:     out.at, Failure: out.failure, ObservedAt: out.at,
		Skipped: map[string]int{}, SkippedNames: []string{},
	}
	if out.list == nil {
		if prev != nil {
			if prev.LastSuccess != nil && !prev.LastSuccess.After(out.at) {
				st.LastSuccess = prev.LastSuccess
			}
			st.Zones, st.Skipped, st.SkippedNames = prev.Zones, prev.Skipped, prev.SkippedNames
		}
		return st
	}
	at := out.at
	st.LastSuccess, st.Zones = &at, zones
	for _, s := range out.skips {
		if s.Registrar != reg {
			continue
		}
		st.Skipped[s.Reason]++
		if len(st.SkippedNames) < contracts.MaxSkippedNames {
			st.SkippedNames = append(st.SkippedNames, s.Name)
		}
	}
	return st
}

// withoutUser is a URL without the user and password an operator may have
// configured in it: a status is public.
func withoutUser(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	u.User = nil
	return u.String()
}
