package cache

import (
	"cmp"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
)

// The registrar directory (/api/registrars): who each registrar is and how
// fresh its prices are. Its facts come from two places: the status each
// ingester publishes per registrar after a round (contracts.RegistrarStatus,
// the last per subject), and, for a registrar whose ingester publishes
// none (an older one), what its live prices say: their source, currency
// and tax declaration, and how many zones they price.

// directory is the Index's state of the directory.
type directory struct {
	statuses map[string]statusEntry // by registrar id
	// mix is, by registrar symbol, its live prices by source, currency and
	// tax: counted as prices come and go, so that what a registrar's
	// prices say never depends on the order they were read in.
	mix []registrarMix
	// dirty says the directory must be rendered again; modified is when
	// the stream stored the newest change behind it, Unix nanoseconds.
	dirty    bool
	modified int64
	// staleAt is the earliest moment a registrar the last render showed
	// fresh turns stale: the directory is rendered again then, new data
	// or not. Zero when none will.
	staleAt time.Time
	// entries and body are the last render's.
	entries []*dirEntry
	body    *Body
}

// statusEntry is a registrar's last status and its stream sequence.
type statusEntry struct {
	seq uint64
	st  *contracts.RegistrarStatus
}

// registrarMix counts a registrar's live prices by source, currency and
// tax; nearly always one kind.
type registrarMix []mixCount

type mixCount struct {
	source, currency symbol
	tax              taxCode
	n                int
}

// add adds d to the count of e's kind, dropping a kind that counts none.
func (m registrarMix) add(e *priceEntry, d int) registrarMix {
	for i := range m {
		if c := &m[i]; c.source == e.source && c.currency == e.currency && c.tax == e.tax {
			if c.n += d; c.n == 0 {
				return slices.Delete(m, i, i+1)
			}
			return m
		}
	}
	return append(m, mixCount{source: e.source, currency: e.currency, tax: e.tax, n: d})
}

// zones is how many zones the registrar has a live price for.
func (m registrarMix) zones() int {
	n := 0
	for _, c := range m {
		n += c.n
	}
	return n
}

// main is the kind most of the registrar's prices are, ties to the first
// by source, currency and tax names: the same whatever the order the
// prices came in.
func (m registrarMix) main(names []string) (mixCount, bool) {
	if len(m) == 0 {
		return mixCount{}, false
	}
	return slices.MinFunc(m, func(a, b mixCount) int {
		return cmp.Or(cmp.Compare(b.n, a.n), strings.Compare(names[a.source], names[b.source]),
			strings.Compare(names[a.currency], names[b.currency]), cmp.Compare(a.tax, b.tax))
	}), true
}

// touch records a change of the directory stored at t (Unix nanoseconds).
func (d *directory) touch(t int64) {
	d.dirty = true
	d.modified = max(d.modified, t)
}

// applyStatus keeps a registrar's status, the last one read; as for
// prices, the stream's order is the only authority.
func (d *directory) applyStatus(seq uint64, at int64, st *contracts.RegistrarStatus) Outcome {
	if cur, ok := d.statuses[st.Registrar]; ok && seq <= cur.seq {
		return Redelivered
	}
	d.statuses[st.Registrar] = statusEntry{seq: seq, st: st}
	d.touch(at)
	return Applied
}

// remix moves registrar reg's live price from cur's kind to next's.
func (d *directory) remix(reg symbol, cur, next *priceEntry, at int64) {
	if cur.live == next.live && (!cur.live || (cur.source == next.source && cur.currency == next.currency && cur.tax == next.tax)) {
		return
	}
	if n := int(reg) + 1; n > len(d.mix) {
		d.mix = append(d.mix, make([]registrarMix, n-len(d.mix))...)
	}
	if cur.live {
		d.mix[reg] = d.mix[reg].add(cur, -1)
	}
	if next.live {
		d.mix[reg] = d.mix[reg].add(next, 1)
	}
	d.touch(at)
}

// expire marks the directory dirty once a registrar it shows fresh has
// turned stale by now.
func (d *directory) expire(now time.Time) {
	if !d.staleAt.IsZero() && !d.staleAt.After(now) {
		d.dirty = true
	}
}

// dirEntry is one registrar of a rendered directory, immutable: what the
// options filter and sort by, and its element of the body.
type dirEntry struct {
	id, name    string // name is "" when no status says it
	kind        contracts.SourceKind
	zones       int
	lastSuccess time.Time // zero when unknown
	// stale is 1 once the last success is older than twice the interval
	// (or there never was one), 0 while it is not, -1 when no status says.
	stale    int8
	fragment []byte
}

// renderDirectory renders the directory at now: every registrar with a
// status or a live price shown, by id.
func (x *Index) renderDirectory(now time.Time) {
	d := &x.dir
	ids := make(map[string]registrarMix, len(d.statuses))
	for id := range d.statuses {
		ids[id] = nil
	}
	for reg, m := range d.mix {
		if len(m) > 0 {
			ids[x.syms.name(symbol(reg))] = m
		}
	}
	d.entries = d.entries[:0:0]
	d.staleAt = time.Time{}
	modified := max(d.modified, x.global)
	for _, id := range slices.Sorted(maps.Keys(ids)) {
		if x.hideSample && contracts.IsSampleRegistrar(id) {
			continue // sample and real registrars never appear together
		}
		e, deadline := x.dirEntry(id, d.statuses[id].st, ids[id], now)
		switch {
		case e.stale == 0 && (d.staleAt.IsZero() || deadline.Before(d.staleAt)):
			d.staleAt = deadline
		case e.stale == 1 && !deadline.IsZero():
			modified = max(modified, deadline.UnixNano()) // it turned stale then
		}
		d.entries = append(d.entries, e)
	}
	d.body = NewBody(appendDirectory(nil, d.entries), modifiedTime(modified))
	d.dirty = false
}

// dirEntry renders one registrar from its status (nil without one) and its
// live prices, judged at now; deadline is when it turns stale (zero when
// unknown or never).
func (x *Index) dirEntry(id string, st *contracts.RegistrarStatus, mix registrarMix, now time.Time) (*dirEntry, time.Time) {
	e := &dirEntry{id: id, zones: mix.zones(), stale: -1}
	main, priced := mix.main(x.syms.names)
	b := make([]byte, 0, 512)
	b = appendString(append(b, `{"registrar":`...), id)
	if st == nil {
		if contracts.IsSampleRegistrar(id) {
			e.kind = contracts.SourceSample
		}
		b = append(b, `,"name":null,"website":null,"reported":false,"source":`...)
		b = appendString(b, x.syms.name(main.source))
		b = append(b, `,"kind":`...)
		b = appendOptional(b, string(e.kind))
		b = append(b, `,"document":null,"currency":`...)
		b = appendOptional(b, x.syms.name(main.currency))
		b = appendString(append(b, `,"tax":`...), string(taxNames[main.tax]))
		b = append(b, `,"interval_seconds":null,"last_attempt":null,"last_success":null,"failure":null,"zones":`...)
		b = appendInt(b, int64(e.zones))
		e.fragment = append(b, `,"skipped":null,"stale":null,"stale_at":null}`...)
		return e, time.Time{}
	}
	e.name, e.kind = st.Name, st.SourceKind
	currency := st.Currency
	if currency == "" && priced {
		currency = x.syms.name(main.currency) // the rows each say: say what they say
	}
	b = appendString(append(b, `,"name":`...), st.Name)
	b = appendOptional(append(b, `,"website":`...), st.Website)
	b = appendString(append(b, `,"reported":true,"source":`...), st.Source)
	b = appendString(append(b, `,"kind":`...), string(st.SourceKind))
	b = appendOptional(append(b, `,"document":`...), st.Document)
	b = appendOptional(append(b, `,"currency":`...), currency)
	b = appendString(append(b, `,"tax":`...), string(st.Tax))
	b = appendInt(append(b, `,"interval_seconds":`...), st.IntervalSeconds)
	b = appendTime(append(b, `,"last_attempt":`...), st.LastAttempt)
	var deadline time.Time
	e.stale = 1
	if st.LastSuccess != nil {
		e.lastSuccess = st.LastSuccess.UTC()
		deadline = e.lastSuccess.Add(2 * time.Duration(st.IntervalSeconds) * time.Second)
		if now.Before(deadline) {
			e.stale = 0
		}
	}
	b = appendTime(append(b, `,"last_success":`...), e.lastSuccess)
	b = appendOptional(append(b, `,"failure":`...), st.Failure)
	b = appendInt(append(b, `,"zones":`...), int64(e.zones))
	b = appendSkipped(append(b, `,"skipped":`...), st.Skipped)
	b = appendBool(append(b, `,"stale":`...), e.stale == 1)
	b = appendTime(append(b, `,"stale_at":`...), deadline)
	e.fragment = append(b, '}')
	return e, deadline
}

// appendOptional writes s as a string, or null when it is empty.
func appendOptional(b []byte, s string) []byte {
	if s == "" {
		return append(b, "null"...)
	}
	return appendString(b, s)
}

// appendSkipped writes what the root-zone guard skipped: the total and
// the count of each reason, by reason.
func appendSkipped(b []byte, skipped map[string]int) []byte {
	total := 0
	for _, n := range skipped {
		total += n
	}
	b = appendInt(append(b, `{"total":`...), int64(total))
	b = append(b, `,"reasons":{`...)
	for i, reason := range slices.Sorted(maps.Keys(skipped)) {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(appendString(b, reason), ':')
		b = appendInt(b, int64(skipped[reason]))
	}
	return append(b, "}}"...)
}

// appendDirectory writes a directory body of entries.
func appendDirectory(b []byte, entries []*dirEntry) []byte {
	size := 32
	for _, e := range entries {
		size += len(e.fragment) + 1
	}
	b = slices.Grow(b, size)
	b = appendInt(append(b, `{"count":`...), int64(len(entries)))
	b = append(b, `,"registrars":[`...)
	for i, e := range entries {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, e.fragment...)
	}
	return append(b, "]}"...)
}

// DirectoryOptions shape one /api/registrars body. The zero value is the
// snapshot's own body.
type DirectoryOptions struct {
	// Query keeps the registrars whose id, or name in lower case,
	// contains it (lower case).
	Query string
	// Kinds keeps the registrars whose source is of one of these kinds; a
	// registrar without a status has none, but a sample registrar's.
	Kinds []contracts.SourceKind
	// Stale keeps the stale registrars (StaleOnly) or those known fresh
	// (FreshOnly); a registrar without a status is neither.
	Stale StaleFilter
	// Sort orders the registrars: SortRegistrar (the default, by id),
	// SortName, SortZones or SortLastSuccess; Desc reverses it, those
	// without the key still last. Ties by id.
	Sort Sort
	Desc bool
}

// StaleFilter is the stale option of a directory.
type StaleFilter uint8

// The values of StaleFilter.
const (
	AnyStale StaleFilter = iota
	StaleOnly
	FreshOnly
)

// RenderDirectory renders /api/registrars with options.
func (s *Snapshot) RenderDirectory(o DirectoryOptions) *Body {
	entries := make([]*dirEntry, 0, len(s.dir))
	for _, e := range s.dir {
		if o.keeps(e) {
			entries = append(entries, e)
		}
	}
	slices.SortStableFunc(entries, func(a, b *dirEntry) int { return compareDirEntries(o.Sort, o.Desc, a, b) })
	return NewBody(appendDirectory(nil, entries), s.Directory.Modified)
}

// keeps reports whether a registrar passes the filters.
func (o *DirectoryOptions) keeps(e *dirEntry) bool {
	switch {
	case len(o.Kinds) > 0 && !slices.Contains(o.Kinds, e.kind):
		return false
	case o.Stale == StaleOnly && e.stale != 1, o.Stale == FreshOnly && e.stale != 0:
		return false
	}
	return o.Query == "" || strings.Contains(e.id, o.Query) || strings.Contains(strings.ToLower(e.name), o.Query)
}

// compareDirEntries orders two registrars: by the sort's key (those
// without one last, whatever the direction), then by id.
func compareDirEntries(by Sort, desc bool, a, b *dirEntry) int {
	var c int
	switch by {
	case SortName:
		c = strings.Compare(strings.ToLower(cmp.Or(a.name, a.id)), strings.ToLower(cmp.Or(b.name, b.id)))
	case SortZones:
		c = cmp.Compare(a.zones, b.zones)
	case SortLastSuccess:
		if a.lastSuccess.IsZero() != b.lastSuccess.IsZero() {
			return cmp.Compare(boolInt(a.lastSuccess.IsZero()), boolInt(b.lastSuccess.IsZero()))
		}
		c = a.lastSuccess.Compare(b.lastSuccess)
	default:
		c = strings.Compare(a.id, b.id)
	}
	if desc {
		c = -c
	}
	return cmp.Or(c, strings.Compare(a.id, b.id))
}

func boolInt(v bool) int {
	if v {
		return 1
	}
	return 0
}
