package cache

import (
	"encoding/base64"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
)

// HistoryOptions shape one /api/comparison/{zone}/history body. The zero
// value is every registrar's every period, in the snapshot's currency.
type HistoryOptions struct {
	// Currency is the currency to show prices in; "" for the snapshot's.
	Currency string
	// Registrars, when not empty, keeps only these registrars; Exclude
	// drops these.
	Registrars, Exclude []string
	// Since, when set, keeps only the periods that had not ended by then.
	Since time.Time
}

// The changes the feed filters by; KindDropped selects changes that
// lowered what a customer pays to register or renew.
const (
	KindAdded uint8 = 1 << iota
	KindChanged
	KindWithdrawn
	KindDropped
)

// ParseKind reads one of the feed's kinds: added, changed, withdrawn,
// dropped.
func ParseKind(name string) (uint8, bool) {
	switch name {
	case string(contracts.ChangeAdded):
		return KindAdded, true
	case string(contracts.ChangeChanged):
		return KindChanged, true
	case string(contracts.ChangeWithdrawn):
		return KindWithdrawn, true
	case "dropped":
		return KindDropped, true
	}
	return 0, false
}

// ChangesOptions shape one page of /api/changes. The zero value is the
// first page of every change, unlimited, in the snapshot's currency.
type ChangesOptions struct {
	// Currency is the currency to show prices in; "" for the snapshot's.
	Currency string
	// Limit, when above zero, is the most changes on the page; Before
	// continues after a previous page (ChangesCursor).
	Limit  int
	Before uint64
	// Zone keeps one canonical zone's changes; Registrars some
	// registrars'; Category the changes of zones in it.
	Zone       string
	Registrars []string
	Category   string
	// Kinds, a set of Kind bits, keeps the changes of any of them; zero
	// keeps all.
	Kinds uint8
	// Since keeps the changes observed at or after it.
	Since time.Time
}

// ChangesCursor is the text form of a cursor of the feed: the page
// continues with the changes recorded before the sequence.
func ChangesCursor(seq uint64) string {
	return base64.RawURLEncoding.EncodeToString([]byte("c1|" + strconv.FormatUint(seq, 10)))
}

// ParseChangesCursor reads a feed cursor.
func ParseChangesCursor(s string) (uint64, error) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return 0, ErrBadCursor
	}
	rest, ok := strings.CutPrefix(string(raw), "c1|")
	if !ok {
		return 0, ErrBadCursor
	}
	seq, err := strconv.ParseUint(rest, 10, 64)
	if err != nil || seq == 0 {
		return 0, ErrBadCursor
	}
	return seq, nil
}

// sinceSlack is how far out of observed_at order the history may hold
// changes: an ingester stores a change within its fetch timeout of
// observing it. The feed scans past a change older than since by this
// much before it stops.
const sinceSlack = 24 * time.Hour

// period is one registrar's price for a zone between two changes.
type period struct {
	rec    int32
	end    uint32
	hasEnd bool
}

// RenderZoneHistory renders a zone's history: per registrar, the periods
// of its price, newest first. It reports false when the view holds no
// change of the zone that responses may show.
func (s *Snapshot) RenderZoneHistory(v *HistoryView, zone string, o HistoryOptions) (*Body, bool) {
	id, ok := v.zoneIDs[zone]
	if !ok || int(id) >= len(v.byZone) || v.byZone[id] < 0 {
		return nil, false
	}
	st := s.style.in(o.Currency)
	regs, newest, shown := v.zonePeriods(st, id, &o)
	if !shown {
		return nil, false
	}
	z := v.zones[id]
	var meta *contracts.ZoneMeta
	// The body changes with the zone's changes, and with what the
	// snapshot lends it: metadata, rates, the sample rule.
	modified := later(epochTime(newest), s.global)
	if zv := s.byZone[z.ASCII]; zv != nil {
		meta = zv.meta
		modified = later(modified, zv.modified)
	}
	b := make([]byte, 0, 512)
	b = append(b, `{"zone":`...)
	b = appendString(b, z.ASCII)
	b = append(b, `,"unicode":`...)
	b = appendString(b, z.Unicode)
	b = append(b, `,"currency":`...)
	b = appendString(b, st.currency)
	b = append(b, `,"as_of":`...)
	b = appendTime(b, epochTime(newest))
	b = appendMeta(b, meta)
	b = st.appendRates(b)
	b = append(b, `,"registrars":[`...)
	for gi, g := range regs {
		if gi > 0 {
			b = append(b, ',')
		}
		b = v.appendPeriods(b, st, g)
	}
	b = append(b, "]}"...)
	return NewBody(b, modified), true
}

// registrarPeriods are one registrar's periods in a zone's history,
// newest first, as the zone's changes are read from the newest.
type registrarPeriods struct {
	name    string
	periods []period
	seen    bool
	newer   uint32 // when its change after the one being read was observed
}

// zonePeriods reads the changes of zone id, newest first, into the
// periods of each registrar o keeps, ordered by registrar. newest is when
// the zone's newest change responses may show was observed, whatever o
// leaves out; shown reports there is one.
func (v *HistoryView) zonePeriods(st *style, id uint32, o *HistoryOptions) (regs []*registrarPeriods, newest uint32, shown bool) {
	since := int64(0)
	if !o.Since.IsZero() {
		since = o.Since.Unix() - historyEpoch
	}
	byReg := map[uint16]*registrarPeriods{}
	for i := v.byZone[id]; i >= 0; i = v.record(i).prevZone {
		r := v.record(i)
		if v.hidden(st, r) {
			continue
		}
		shown = true
		newest = max(newest, r.at) // the zone's, as a comparison's as_of, whatever the options leave out
		name := v.names[r.reg]
		if len(o.Registrars) > 0 && !slices.Contains(o.Registrars, name) || slices.Contains(o.Exclude, name) {
			continue
		}
		g := byReg[r.reg]
		if g == nil {
			g = &registrarPeriods{name: name}
			byReg[r.reg] = g
		}
		if recordKinds[r.kind] != contracts.ChangeWithdrawn && (!g.seen || int64(g.newer) > since) {
			g.periods = append(g.periods, period{rec: i, end: g.newer, hasEnd: g.seen})
		}
		g.seen, g.newer = true, r.at
	}
	if !shown {
		return nil, 0, false
	}
	regs = make([]*registrarPeriods, 0, len(byReg))
	for _, g := range byReg {
		if len(g.periods) > 0 {
			regs = append(regs, g)
		}
	}
	slices.SortFunc(regs, func(a, b *registrarPeriods) int { return strings.Compare(a.name, b.name) })
	return regs, newest, true
}

// appendPeriods writes a registrar's element of a zone's history: its
// periods, each with the offer that began it.
func (v *HistoryView) appendPeriods(b []byte, st *style, g *registrarPeriods) []byte {
	b = append(b, `{"registrar":`...)
	b = appendString(b, g.name)
	b = append(b, `,"periods":[`...)
	for pi, p := range g.periods {
		if pi > 0 {
			b = append(b, ',')
		}
		r := v.record(p.rec)
		b = append(b, `{"from":`...)
		b = appendTime(b, epochTime(r.at))
		b = append(b, `,"to":`...)
		if p.hasEnd {
			b = appendTime(b, epochTime(p.end))
		} else {
			b = append(b, "null"...)
		}
		b = append(b, `,"kind":`...)
		b = appendString(b, string(recordKinds[r.kind]))
		b = append(b, `,"source":`...)
		b = appendString(b, v.names[r.source])
		b = append(b, ',')
		after, _ := v.after(p.rec)
		b = st.appendOffer(b, &after, int64(r.at)+historyEpoch)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// RenderChanges renders one page of /api/changes: the changes the options
// select, newest first (by when the history recorded them). The body's
// Next is the next page's cursor.
func (s *Snapshot) RenderChanges(v *HistoryView, o ChangesOptions) *Body {
	st := s.style.in(o.Currency)
	since, stop := int64(-1), int64(-1)
	if !o.Since.IsZero() {
		since = o.Since.Unix() - historyEpoch
		stop = since - int64(sinceSlack/time.Second)
	}
	var zone uint32
	if o.Zone != "" {
		id, ok := v.zoneIDs[o.Zone]
		if !ok || int(id) >= len(v.byZone) {
			return s.renderChangesPage(st, v, nil, "")
		}
		zone = id
	}
	// start is the newest record to consider: below the cursor.
	start := int32(v.n - 1)
	if o.Before > 0 {
		// Records are in sequence order: the first at or after the
		// cursor's, less one.
		start = int32(sort.Search(v.n, func(i int) bool { return v.seq(int32(i)) >= o.Before })) - 1
	}
	next := func(i int32) int32 { return i - 1 }
	if o.Zone != "" {
		// The zone's chain, from its newest record below the cursor.
		i := v.byZone[zone]
		for i >= 0 && i > start {
			i = v.record(i).prevZone
		}
		start = i
		next = func(i int32) int32 { return v.record(i).prevZone }
	}
	var picked []int32
	more := ""
	for i := start; i >= 0; i = next(i) {
		r := v.record(i)
		if int64(r.at) < stop {
			break
		}
		if !v.matches(st, s, r, &o, since) {
			continue
		}
		if o.Limit > 0 && len(picked) == o.Limit {
			more = ChangesCursor(v.seq(picked[len(picked)-1]))
			break
		}
		picked = append(picked, i)
	}
	return s.renderChangesPage(st, v, picked, more)
}

// matches reports whether the feed's options keep record r.
func (v *HistoryView) matches(st *style, s *Snapshot, r *historyRecord, o *ChangesOptions, since int64) bool {
	kind := recordKinds[r.kind]
	if kind == contracts.ChangeKnown || v.hidden(st, r) || int64(r.at) < since {
		return false
	}
	if len(o.Registrars) > 0 && !slices.Contains(o.Registrars, v.names[r.reg]) {
		return false
	}
	if o.Kinds != 0 {
		var k uint8
		switch kind {
		case contracts.ChangeAdded:
			k = KindAdded
		case contracts.ChangeChanged:
			k = KindChanged
		case contracts.ChangeWithdrawn:
			k = KindWithdrawn
		}
		if r.flags&flagDropped != 0 {
			k |= KindDropped
		}
		if o.Kinds&k == 0 {
			return false
		}
	}
	if o.Category != "" {
		zv := s.byZone[v.zones[r.zone].ASCII]
		if zv == nil || zv.meta == nil || !slices.Contains(zv.meta.Categories, o.Category) {
			return false
		}
	}
	return true
}

func (s *Snapshot) renderChangesPage(st *style, v *HistoryView, picked []int32, next string) *Body {
	b := make([]byte, 0, 256+400*len(picked))
	b = append(b, `{"currency":`...)
	b = appendString(b, st.currency)
	b = append(b, `,"as_of":`...)
	b = appendTime(b, v.newestShown(st))
	b = st.appendRates(b)
	b = append(b, `,"next_cursor":`...)
	if next != "" {
		b = appendString(b, next)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"changes":[`...)
	newest := uint32(0)
	for k, i := range picked {
		if k > 0 {
			b = append(b, ',')
		}
		r := v.record(i)
		newest = max(newest, r.at)
		z := v.zones[r.zone]
		at := int64(r.at) + historyEpoch
		b = append(b, `{"id":"`...)
		b = strconv.AppendUint(b, v.seq(i), 10)
		b = append(b, `","zone":`...)
		b = appendString(b, z.ASCII)
		b = append(b, `,"unicode":`...)
		b = appendString(b, z.Unicode)
		b = append(b, `,"registrar":`...)
		b = appendString(b, v.names[r.reg])
		b = append(b, `,"kind":`...)
		b = appendString(b, string(recordKinds[r.kind]))
		b = append(b, `,"dropped":`...)
		b = appendBool(b, r.flags&flagDropped != 0)
		b = append(b, `,"observed_at":`...)
		b = appendTime(b, epochTime(r.at))
		b = append(b, `,"source":`...)
		b = appendString(b, v.names[r.source])
		for _, side := range [...]string{"before", "after"} {
			b = append(b, `,"`...)
			b = append(b, side...)
			b = append(b, `":`...)
			var o offerState
			var ok bool
			if side == "before" {
				o, ok = v.before(i)
			} else {
				o, ok = v.after(i)
			}
			if !ok {
				b = append(b, "null"...)
				continue
			}
			b = append(b, '{')
			b = st.appendOffer(b, &o, at)
			b = append(b, '}')
		}
		b = append(b, '}')
	}
	b = append(b, "]}"...)
	// A page changes with its own changes, and with anything of the
	// snapshot's it shows or filters by: rates, metadata (categories),
	// the sample rule. The catalog's Last-Modified is the newest of
	// those.
	modified := s.Domains.Modified
	if newest != 0 {
		modified = later(modified, epochTime(newest))
	}
	body := NewBody(b, modified)
	body.Next = next
	return body
}

// appendOffer writes an offer's fields, for a moment at (Unix seconds):
// its tax declaration, the price of each operation a customer paid then
// (a running promotion's), converted to the style's currency, the native
// prices when the currency differs, and the running promotions.
func (st *style) appendOffer(b []byte, o *offerState, at int64) []byte {
	b = append(b, `"tax":`...)
	b = appendString(b, string(taxNames[o.tax]))
	var native, converted [contracts.NumOps]int64
	all := true
	for op := range o.ops {
		p := &o.ops[op]
		if !p.offered {
			continue
		}
		native[op] = p.current(at)
		c, ok := st.table.Convert(contracts.Price{Amount: native[op], Currency: o.currency}, st.currency)
		if !ok {
			all = false
			continue
		}
		converted[op] = c.Amount
	}
	for _, op := range contracts.Ops {
		b = append(b, ',')
		b = appendString(b, op.String())
		b = append(b, ':')
		if o.ops[op].offered && all {
			b = contracts.AppendAmount(b, converted[op], st.exp)
		} else {
			b = append(b, "null"...)
		}
	}
	b = append(b, `,"converted":`...)
	b = appendBool(b, all)
	if o.currency != st.currency {
		exp, _ := contracts.CurrencyExponent(o.currency)
		b = append(b, `,"native":{"currency":`...)
		b = appendString(b, o.currency)
		for _, op := range contracts.Ops {
			b = append(b, ',')
			b = appendString(b, op.String())
			b = append(b, ':')
			if o.ops[op].offered {
				b = contracts.AppendAmount(b, native[op], exp)
			} else {
				b = append(b, "null"...)
			}
		}
		b = append(b, '}')
	}
	first := true
	for op := range o.ops {
		p := &o.ops[op]
		if !p.offered || !p.promoRunning(at) {
			continue
		}
		if first {
			b = append(b, `,"promo":{`...)
			first = false
		} else {
			b = append(b, ',')
		}
		b = appendString(b, contracts.Op(op).String())
		b = append(b, `:{"regular":`...)
		regular := contracts.Price{Amount: p.regular, Currency: o.currency}
		if c, ok := st.table.Convert(regular, st.currency); ok && all {
			b = contracts.AppendAmount(b, c.Amount, st.exp)
		} else {
			exp, _ := contracts.CurrencyExponent(o.currency)
			b = contracts.AppendAmount(b, regular.Amount, exp)
		}
		b = append(b, `,"ends_at":`...)
		if p.promoEnd != 0 {
			b = appendTime(b, time.Unix(p.promoEnd, 0).UTC())
		} else {
			b = append(b, "null"...)
		}
		b = append(b, '}')
	}
	if !first {
		b = append(b, '}')
	}
	return b
}
