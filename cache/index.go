// Package cache holds the query service's in-memory state: the authoritative
// zone Index that events are applied to, the immutable Snapshot of rendered
// response bodies that requests read, and the bounded Responses cache for
// derived views that cannot all be pre-rendered.
package cache

import (
	"maps"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
)

// Outcome says what applying one event did.
type Outcome int

// The outcomes of Index.Apply.
const (
	// Applied changed the index.
	Applied Outcome = iota
	// Unchanged carried the state the index already had (a re-publish).
	Unchanged
	// Redelivered had a stream sequence the index already applied.
	Redelivered

	// NumOutcomes counts the outcomes above.
	NumOutcomes = int(Redelivered) + 1
)

func (o Outcome) String() string {
	switch o {
	case Applied:
		return "applied"
	case Unchanged:
		return "unchanged"
	case Redelivered:
		return "redelivered"
	}
	return "unknown"
}

// opState is one operation's prices in the price set's currency. Prices
// are held by value, and times as integers, so a large catalog is
// one small map entry per registrar and zone instead of a dozen heap objects
// per price: the index stays small and cheap for the garbage collector.
type opState struct {
	offered  bool
	hasPromo bool
	regular  int64
	promo    int64
	promoEnd int64 // Unix seconds (promotions end on whole seconds); 0 when the source gives no end
}

// promoRunning reports whether the promotion runs at t, in Unix seconds.
func (o *opState) promoRunning(t int64) bool {
	return o.hasPromo && (o.promoEnd == 0 || t < o.promoEnd)
}

// current is the amount a customer pays at t, in Unix seconds.
func (o *opState) current(t int64) int64 {
	if o.promoRunning(t) {
		return o.promo
	}
	return o.regular
}

// symbol numbers a string that many prices repeat (a registrar, a
// currency, a source). Entries hold symbols instead of strings so that they
// hold no pointers at all: the garbage collector never has to scan the
// index's hundreds of thousands of entries.
type symbol uint32

// symbols is the Index's table of them.
type symbols struct {
	ids   map[string]symbol
	names []string
}

func (t *symbols) id(s string) symbol {
	if id, ok := t.ids[s]; ok {
		return id
	}
	id := symbol(len(t.names))
	t.ids[s] = id
	t.names = append(t.names, s)
	return id
}

func (t *symbols) name(id symbol) string { return t.names[id] }

// priceEntry is a registrar's current state for one zone. After a
// withdrawal it stays as a tombstone (live false), keeping the sequence that
// makes a redelivered price set harmless.
type priceEntry struct {
	live     bool
	ops      [3]opState
	currency symbol
	source   symbol
	seq      uint64
	observed int64 // Unix nanoseconds
}

type zoneEntry struct {
	zone    contracts.Zone
	prices  map[symbol]priceEntry // by registrar
	shared  bool                  // prices is a published view's: copy before writing
	live    int                   // live entries
	sample  int                   // live entries of sample registrars
	meta    *contracts.ZoneMeta
	metaSeq uint64
	view    *view        // as the last render showed it; nil when no price is shown
	expiry  time.Time    // earliest end of a promotion the last render showed
	sources []sourceTime // newest observed_at per source among the live prices
	dirty   bool         // in Index.dirty
	// modified is when the stream stored the newest event applied to the
	// zone (withdrawals, hidden prices and metadata included), or when a
	// promotion it showed ended, Unix nanoseconds: its Last-Modified.
	modified int64
}

// Index is the authoritative state built from the event stream. It is owned
// by one goroutine (the consumer): Apply and Build are not safe for
// concurrent use. Readers never touch it; they read Snapshots.
type Index struct {
	currency string
	exp      int
	zones    map[string]*zoneEntry
	sorted   []*zoneEntry          // priced zones by ASCII name; nil when it must be rebuilt
	rates    map[string]ratesEntry // by base currency
	chosen   *contracts.Rates      // the rates conversions use; nil when none
	table    contracts.RateTable
	dirty    []*zoneEntry // zones to re-render, each once (zoneEntry.dirty)
	allDirty bool
	asOf     time.Time // of the last render
	// modified is the newest modified of any zone; global is when a change
	// that touches every zone (rates, hiding the sample) was stored. Both
	// Unix nanoseconds.
	modified, global int64
	version          uint64
	prices           int
	// registrars counts each registrar's live price sets.
	registrars map[symbol]int
	// Sample registrars' live prices and registrars, and whether the last
	// render hid them because a real registrar's price exists.
	samplePrices, sampleRegs int
	hideSample               bool
	syms                     symbols
	snap                     *Snapshot
}

// NewIndex returns an empty index rendering prices in currency, which must be
// a known ISO 4217 code.
func NewIndex(currency string) *Index {
	exp, _ := contracts.CurrencyExponent(currency)
	x := &Index{currency: currency, exp: exp, zones: map[string]*zoneEntry{}, registrars: map[symbol]int{}, syms: symbols{ids: map[string]symbol{}}, rates: map[string]ratesEntry{}}
	x.snap = x.render(time.Time{})
	return x
}

func (x *Index) entry(zone string) *zoneEntry {
	z := x.zones[zone]
	if z == nil {
		// Events are validated, so the zone is canonical and normalises.
		nz, _ := contracts.NormalizeZone(zone)
		// Most zones end up priced by most registrars: size for them now
		// rather than growing the map (and copying its entries) repeatedly.
		z = &zoneEntry{zone: nz, prices: make(map[symbol]priceEntry, len(x.registrars))}
		x.zones[zone] = z
	}
	return z
}

// Apply applies one validated event read at stream sequence seq, which the
// stream stored at stored (the message's timestamp: when a change became
// part of the data, the same for every pod, and in stream order; it dates
// the bodies' Last-Modified). The stream's
// order is the only authority: an event at or below the sequence already
// applied for its subject is a redelivery and changes nothing; any later one
// replaces the subject's state, whatever its observed_at. That way a pod's
// state depends only on what the stream holds, and a pod started later
// answers byte for byte what a running one does.
func (x *Index) Apply(seq uint64, stored time.Time, ev contracts.Event) Outcome {
	at := stored.UnixNano()
	switch e := ev.(type) {
	case *contracts.PriceSet:
		return x.applyPrice(seq, at, e.Zone, e.Registrar, e.ObservedAt, e)
	case *contracts.Withdrawal:
		return x.applyPrice(seq, at, e.Zone, e.Registrar, e.ObservedAt, nil)
	case *contracts.ZoneMeta:
		z := x.entry(e.Zone)
		if seq <= z.metaSeq {
			return Redelivered
		}
		z.metaSeq = seq
		x.touch(z, at)
		if z.meta != nil && sameMeta(z.meta, e) {
			z.meta = e
			if z.live > 0 {
				x.schedule(z) // observed_at moved, and as_of with it
			}
			return Unchanged
		}
		z.meta = e
		x.schedule(z)
		return Applied
	case *contracts.Rates:
		if seq <= x.rates[e.Base].seq {
			return Redelivered
		}
		x.rates[e.Base] = ratesEntry{seq: seq, rates: e}
		x.global = max(x.global, at)
		x.modified = max(x.modified, x.global)
		x.chooseRates()
		x.allDirty = true
		return Applied
	}
	return Unchanged
}

// entryOf turns a price set into the index's compact form. A price set has
// one currency (contracts validates that).
func (x *Index) entryOf(set *contracts.PriceSet, seq uint64) priceEntry {
	e := priceEntry{live: true, source: x.syms.id(set.Source), seq: seq, observed: set.ObservedAt.UnixNano()}
	for i, op := range [3]*contracts.OpPrice{set.Register, set.Renew, set.Transfer} {
		if op == nil {
			continue
		}
		e.currency = x.syms.id(op.Regular.Currency)
		o := &e.ops[i]
		o.offered = true
		o.regular = op.Regular.Amount
		if op.Promo != nil {
			o.hasPromo = true
			o.promo = op.Promo.Price.Amount
			if op.Promo.EndsAt != nil {
				// Rounded up, so a promotion never ends early.
				o.promoEnd = op.Promo.EndsAt.Unix()
				if op.Promo.EndsAt.Nanosecond() > 0 {
					o.promoEnd++
				}
			}
		}
	}
	return e
}

func (x *Index) applyPrice(seq uint64, at int64, zone, registrar string, observed time.Time, set *contracts.PriceSet) Outcome {
	z := x.entry(zone)
	reg := x.syms.id(registrar)
	cur, known := z.prices[reg]
	if known && seq <= cur.seq {
		return Redelivered
	}
	x.touch(z, at)
	wasHiding := x.hidingSample()
	defer func() {
		if x.hidingSample() != wasHiding && x.samplePrices > 0 {
			// The first real price hides the sample in every zone, the
			// last one's withdrawal brings it back: every zone with
			// both kinds of prices changes now.
			x.global = max(x.global, at)
		}
	}()
	next := priceEntry{seq: seq, observed: observed.UnixNano()}
	if set != nil {
		next = x.entryOf(set, seq)
	}
	if z.shared {
		z.prices = maps.Clone(z.prices)
		z.shared = false
	}
	z.prices[reg] = next
	sample := contracts.IsSampleRegistrar(registrar)
	switch {
	case cur.live && next.live && samePrices(&cur, &next):
		// Same prices observed again: only observed_at moved, which the
		// comparison shows, so the zone still re-renders.
		x.schedule(z)
		return Unchanged
	case next.live && !cur.live:
		was := x.visible(z)
		z.live++
		x.prices++
		if x.registrars[reg]++; x.registrars[reg] == 1 && sample {
			x.sampleRegs++
		}
		if sample {
			z.sample++
			x.samplePrices++
		}
		if (was == 0) != (x.visible(z) == 0) {
			x.sorted = nil
		}
	case !next.live && cur.live:
		was := x.visible(z)
		z.live--
		x.prices--
		if x.registrars[reg]--; x.registrars[reg] == 0 {
			delete(x.registrars, reg)
			if sample {
				x.sampleRegs--
			}
		}
		if sample {
			z.sample--
			x.samplePrices--
		}
		if (was == 0) != (x.visible(z) == 0) {
			x.sorted = nil
		}
	case !next.live:
		// A withdrawal of something not priced leaves only a tombstone
		// against late price sets.
		return Unchanged
	}
	x.schedule(z)
	return Applied
}

// touch records that an event the stream stored at t (Unix nanoseconds)
// changed z. Last-Modified follows the stream's times, not when this pod read
// them, so every pod at the same position answers the same.
func (x *Index) touch(z *zoneEntry, t int64) {
	z.modified = max(z.modified, t)
	x.modified = max(x.modified, t)
}

// schedule adds a zone to the next render, once.
func (x *Index) schedule(z *zoneEntry) {
	if !z.dirty {
		z.dirty = true
		x.dirty = append(x.dirty, z)
	}
}

// Dirty reports whether events were applied since the last Build.
func (x *Index) Dirty() bool { return x.allDirty || len(x.dirty) > 0 }

// Version is the data version of the last built snapshot.
func (x *Index) Version() uint64 { return x.snap.Version }

// Snapshot returns the last built snapshot.
func (x *Index) Snapshot() *Snapshot { return x.snap }

// Expire marks dirty every zone with a promotion that ended by now, so the
// next Build shows its regular price.
func (x *Index) Expire(now time.Time) {
	for _, z := range x.zones {
		if !z.expiry.IsZero() && !z.expiry.After(now) {
			x.schedule(z)
		}
	}
}

// NextExpiry returns the earliest end of a promotion the last Build showed as
// running, or the zero time when none ends.
func (x *Index) NextExpiry() time.Time {
	var next time.Time
	for _, z := range x.sorted {
		if !z.expiry.IsZero() && (next.IsZero() || z.expiry.Before(next)) {
			next = z.expiry
		}
	}
	return next
}

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

// hidingSample reports whether sample prices are to be hidden: whether any
// real registrar has a live price.
func (x *Index) hidingSample() bool { return len(x.registrars) > x.sampleRegs }

// visible is the number of a zone's live prices the next render shows.
func (x *Index) visible(z *zoneEntry) int {
	if x.hideSample {
		return z.live - z.sample
	}
	return z.live
}

func (x *Index) render(now time.Time) *Snapshot {
	if hide := x.hidingSample(); hide != x.hideSample {
		x.hideSample = hide
		x.chooseRates()
		x.allDirty = true
		x.sorted = nil
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
		x.sorted = make([]*zoneEntry, 0, len(x.zones))
		for _, z := range x.zones {
			if x.visible(z) > 0 {
				x.sorted = append(x.sorted, z)
			}
		}
		sort.Slice(x.sorted, func(i, j int) bool { return x.sorted[i].zone.ASCII < x.sorted[j].zone.ASCII })
	}
	x.version++
	views := make([]*view, len(x.sorted))
	for i, z := range x.sorted {
		views[i] = z.view
	}
	// as_of is computed from what is shown, not from what was seen, so it
	// too depends only on the stream's current content.
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
	x.asOf = time.Time{}
	if asOf > 0 {
		x.asOf = time.Unix(0, asOf).UTC()
	}
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
	s := &Snapshot{
		Version: x.version,
		AsOf:    x.asOf,
		Sources: sources,
		Prices:  x.prices - x.hiddenCount(x.samplePrices),
		Zones:   len(views),
		style:   st,
		views:   views,
		byZone:  make(map[string]*view, len(views)),
	}
	for _, v := range views {
		s.byZone[v.zone.ASCII] = v
		s.BodyBytes += int64(len(v.body.JSON))
	}
	s.Registrars = len(x.registrars) - x.hiddenCount(x.sampleRegs)
	modified := modifiedTime(x.modified)
	s.Domains = NewBody(x.renderDomains(st, views), modified)
	s.Categories = NewBody(renderCategories(views), modified)
	s.ComparisonZones = NewBody(renderComparisonZones(views), modified)
	s.BodyBytes += int64(len(s.Domains.JSON) + len(s.Categories.JSON) + len(s.ComparisonZones.JSON))
	return s
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

// hiddenCount is n when sample prices are hidden, else zero.
func (x *Index) hiddenCount(n int) int {
	if x.hideSample {
		return n
	}
	return 0
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

// ratesEntry is the last rates event for one base currency.
type ratesEntry struct {
	seq   uint64
	rates *contracts.Rates
}

// chooseRates picks the rates conversions use when several bases are
// published: the newest date, then the alphabetically first base, so that
// every pod chooses the same whatever the order it read them in. The
// sample's rates are passed over while sample prices are hidden.
func (x *Index) chooseRates() {
	var best *contracts.Rates
	for _, e := range x.rates {
		r := e.rates
		if x.hideSample && r.Source == contracts.SampleSource {
			continue // made-up rates never convert real prices
		}
		if best == nil || r.Date > best.Date || (r.Date == best.Date && r.Base < best.Base) {
			best = r
		}
	}
	x.chosen = best
	x.table = contracts.RateTable{}
	if best != nil {
		x.table = contracts.NewRateTable(best)
	}
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

func samePrices(a, b *priceEntry) bool {
	return a.ops == b.ops && a.currency == b.currency && a.source == b.source
}

func sameMeta(a, b *contracts.ZoneMeta) bool {
	if a.Unicode != b.Unicode || a.Type != b.Type || len(a.Categories) != len(b.Categories) {
		return false
	}
	for i := range a.Categories {
		if a.Categories[i] != b.Categories[i] {
			return false
		}
	}
	return true
}
