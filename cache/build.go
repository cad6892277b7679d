package cache

import (
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
)

// Build re-renders what changed since the last Build and returns the new
// snapshot; with nothing changed it returns the last one. now decides which
// promotions are running.
func (x *Index) Build(now time.Time) *Snapshot {
	if !x.Dirty() {
		return x.snap
	}
	x.snap = x.render(now)
	return x.snap
}

// render re-renders the zones that changed, or every zone when
// something all of them show did (the sample rule, rates), and assembles
// the snapshot of the zones shown.
func (x *Index) render(now time.Time) *Snapshot {
	if hide := x.hidingSample(); hide != x.hideSample {
		x.hideSample = hide
		x.chooseRates()
		x.allDirty = true
		x.sorted = nil
		x.dir.dirty = true
	}
	if x.allDirty {
		for _, z := range x.zones {
			x.schedule(z)
		}
	}
	st := x.style(now)
	x.renderDirty(st)
	for _, z := range x.dirty {
		z.dirty = false
		x.modified = max(x.modified, z.modified) // promotions that ended
	}
	clear(x.dirty)
	x.dirty = x.dirty[:0]
	x.allDirty = false
	if x.sorted == nil {
		x.sorted = x.shownZones()
	}
	x.version++
	views := make([]*view, len(x.sorted))
	for i, z := range x.sorted {
		views[i] = z.view
	}
	x.asOf = x.shownAsOf(views)
	s := &Snapshot{
		Version: x.version,
		AsOf:    x.asOf,
		Sources: x.sourceTimes(),
		Prices:  x.prices - x.hiddenCount(x.samplePrices),
		Zones:   len(views),
		style:   st,
		views:   views,
		byZone:  make(map[string]*view, len(views)),
	}
	for _, v := range views {
		s.byZone[v.zone.ASCII] = v
	}
	s.Registrars = len(x.registrars) - x.hiddenCount(x.sampleRegs)
	modified := modifiedTime(x.modified)
	s.global = modifiedTime(x.global)
	s.Domains = NewBody(renderDomains(st, x.asOf, views), modified)
	s.Categories = NewBody(renderCategories(views), modified)
	s.ComparisonZones = NewBody(renderComparisonZones(views), modified)
	if x.dir.dirty || x.dir.body == nil {
		x.renderDirectory(now)
	}
	s.Directory, s.dir = x.dir.body, x.dir.entries
	s.BodyBytes += int64(len(s.Domains.JSON) + len(s.Categories.JSON) + len(s.ComparisonZones.JSON) + len(s.Directory.JSON))
	return s
}

// shownZones lists the zones with a price shown, by ASCII name.
func (x *Index) shownZones() []*zoneEntry {
	sorted := make([]*zoneEntry, 0, len(x.zones))
	for _, z := range x.zones {
		if x.visible(z) > 0 {
			sorted = append(sorted, z)
		}
	}
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].zone.ASCII < sorted[j].zone.ASCII })
	return sorted
}

// shownAsOf is the newest observed_at of what the views show: prices,
// metadata and the chosen rates. It is computed from what is shown, not
// from what was seen, so it too depends only on the stream's current
// content.
func (x *Index) shownAsOf(views []*view) time.Time {
	var asOf int64
	for _, v := range views {
		asOf = max(asOf, v.asOf)
		if v.meta != nil {
			asOf = max(asOf, v.meta.ObservedAt.UnixNano())
		}
	}
	if x.chosen != nil {
		asOf = max(asOf, x.chosen.ObservedAt.UnixNano())
	}
	if asOf > 0 {
		return time.Unix(0, asOf).UTC()
	}
	return time.Time{}
}

// sourceTimes is the newest observed_at of each source's prices shown.
func (x *Index) sourceTimes() map[string]time.Time {
	var newest []sourceTime
	for _, z := range x.sorted {
		for _, src := range z.sources {
			newest = noteSource(newest, src.source, src.at)
		}
	}
	sources := make(map[string]time.Time, len(newest))
	for _, src := range newest {
		sources[x.syms.name(src.source)] = time.Unix(0, src.at).UTC()
	}
	return sources
}

// style is how the next render shows prices: in the index's currency, with
// the chosen rates, at now.
func (x *Index) style(now time.Time) *style {
	return &style{names: x.syms.names, currency: x.currency, exp: x.exp, table: x.table, rated: x.chosen != nil, now: now.Unix(), hideSample: x.hideSample}
}

// modifiedTime is a Unix nanosecond time, or the zero time for none.
func modifiedTime(t int64) time.Time {
	if t <= 0 {
		return time.Time{}
	}
	return time.Unix(0, t).UTC()
}

// sourceTime is the newest observation one source contributed.
type sourceTime struct {
	source symbol
	at     int64 // Unix nanoseconds
}

// noteSource records an observation of src at t in a short list.
func noteSource(list []sourceTime, src symbol, t int64) []sourceTime {
	for i := range list {
		if list[i].source == src {
			list[i].at = max(list[i].at, t)
			return list
		}
	}
	return append(list, sourceTime{source: src, at: t})
}

// parallelRender is how many dirty zones make a render worth spreading
// over the cores; below it the goroutines cost more than they save.
const parallelRender = 256

// renderDirty renders every dirty zone. Zones render independently (each
// writes only its own entry and reads the shared rate table), so a large
// render, such as the first one after catch-up or a rate change, uses every
// core.
func (x *Index) renderDirty(st *style) {
	workers := runtime.GOMAXPROCS(0)
	zones := x.dirty
	if len(zones) < parallelRender || workers < 2 {
		var sc scratch
		for _, z := range zones {
			x.renderZone(z, st, &sc)
		}
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		part := zones[w*len(zones)/workers : (w+1)*len(zones)/workers]
		wg.Go(func() {
			var sc scratch
			for _, z := range part {
				x.renderZone(z, st, &sc)
			}
		})
	}
	wg.Wait()
}

// view is one priced zone as the last render saw it, immutable once built:
// the snapshot serves its bodies, and computes the parameterised ones from
// its prices, on any goroutine. Its comparison body is rendered the first
// time a client asks for it, once for the data version (comparison), and
// kept while the zone is unchanged: rendering all of them when the data
// changes would spend the build's time and the pod's memory on zones
// nobody asks for.
type view struct {
	zone contracts.Zone
	meta *contracts.ZoneMeta // nil without metadata; events are never modified
	// prices are the zone's prices at the render, tombstones and hidden
	// ones included; nothing writes to the map any more.
	prices  registrarPrices
	summary zoneSummary // in the index's currency
	// asOf is the newest observed_at of the prices, Unix nanoseconds.
	asOf     int64
	fragment []byte // the zone's element of /api/domains
	// style is the build's, which the comparison body is rendered in,
	// and modified when the data behind it last changed.
	style    *style
	modified time.Time
	bodyOnce sync.Once
	body     *Body // its /api/comparison body, once rendered
}

// renderZone rebuilds a zone's view: the prices shown, its comparison body
// and its catalog fragment.
func (x *Index) renderZone(z *zoneEntry, st *style, sc *scratch) {
	z.expiry = time.Time{}
	z.sources = z.sources[:0]
	if x.visible(z) == 0 {
		z.view = nil
		return
	}
	// The view shares the zone's price slice; the index copies it before
	// its next change (zoneEntry.shared), so a view never changes.
	v := &view{zone: z.zone, meta: z.meta, prices: z.prices, style: st}
	z.shared = true
	for _, e := range z.prices {
		id, p := e.reg, &e.priceEntry
		if !p.live || st.hidden(id) {
			continue
		}
		for i := range p.ops {
			op := &p.ops[i]
			if op.hasPromo && op.promoEnd != 0 && op.promoEnd <= st.now {
				// The promotion ended: the zone changed then.
				z.modified = max(z.modified, op.promoEnd*int64(time.Second))
			}
			if op.offered && op.promoRunning(st.now) && op.promoEnd != 0 {
				if end := time.Unix(op.promoEnd, 0).UTC(); z.expiry.IsZero() || end.Before(z.expiry) {
					z.expiry = end
				}
			}
		}
		v.asOf = max(v.asOf, p.observed)
		z.sources = noteSource(z.sources, p.source, p.observed)
	}
	v.summary = st.minimums(st.rows(v, sc, nil))
	v.modified = modifiedTime(max(z.modified, x.global))
	v.fragment = st.renderFragment(v, &v.summary, 0, nil)
	z.view = v
}
