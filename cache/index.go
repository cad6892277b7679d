package cache

import (
	"cmp"
	"slices"
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
	// Refused was a price of one more registrar for a zone that already
	// has contracts.MaxRegistrarsPerZone: it changed nothing.
	Refused
	// SourceFull was a price of one more registrar for a zone in which
	// its source already prices contracts.MaxRegistrarsPerSource: it
	// changed nothing.
	SourceFull

	// NumOutcomes counts the outcomes above.
	NumOutcomes = int(SourceFull) + 1
)

// String names the outcome as the consumer's metrics label it.
func (o Outcome) String() string {
	switch o {
	case Applied:
		return "applied"
	case Unchanged:
		return "unchanged"
	case Redelivered:
		return "redelivered"
	case Refused:
		return "refused"
	case SourceFull:
		return "source_full"
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
	// recent is the last symbol looked up in each kind: events arrive a
	// registrar at a time, from one source, in one currency, so most
	// lookups are the one before, and a comparison saves a map lookup.
	recent [numKinds]struct {
		name string
		id   symbol
	}
}

// The kinds of string a symbol stands for, for symbols.recent.
const (
	kindRegistrar = iota
	kindSource
	kindCurrency
	numKinds
)

func (t *symbols) id(kind int, s string) symbol {
	if r := &t.recent[kind]; r.name == s && s != "" {
		return r.id
	}
	id, ok := t.ids[s]
	if !ok {
		id = symbol(len(t.names))
		t.ids[s] = id
		t.names = append(t.names, s)
	}
	t.recent[kind].name, t.recent[kind].id = s, id
	return id
}

func (t *symbols) name(id symbol) string { return t.names[id] }

// priceEntry is a registrar's current state for one zone. After a
// withdrawal it stays as a tombstone (live false), keeping the sequence that
// makes a redelivered price set harmless.
type priceEntry struct {
	live     bool
	tax      taxCode // whether the prices include tax
	ops      [contracts.NumOps]opState
	currency symbol
	source   symbol
	seq      uint64
	observed int64 // Unix nanoseconds
}

// registrarPrices are a zone's price entries, sorted by registrar symbol.
// Symbols are handed out in the order registrars are first seen, and a
// replay, like an ingester's round, brings one registrar's zones at a
// time, so a new entry is nearly always appended. A map grew about seven
// times per zone during a replay, rehashing every entry each time: a
// fifth of a replay's CPU (BenchmarkReplayCPU).
type registrarPrices []registrarPrice

type registrarPrice struct {
	reg symbol
	priceEntry
}

// find returns where reg's entry is, or would be inserted, and whether it
// is there.
func (p registrarPrices) find(reg symbol) (int, bool) {
	if n := len(p); n == 0 || p[n-1].reg < reg {
		return n, false
	}
	return slices.BinarySearchFunc(p, reg, func(e registrarPrice, r symbol) int { return cmp.Compare(e.reg, r) })
}

type zoneEntry struct {
	zone   contracts.Zone
	prices registrarPrices // by registrar
	// bySource counts the live prices by source (admits).
	bySource sourceCounts
	shared   bool // prices is a published view's: copy before writing
	live     int  // live entries
	sample   int  // live entries of sample registrars
	meta     *contracts.ZoneMeta
	metaSeq  uint64
	view     *view        // as the last render showed it; nil when no price is shown
	expiry   time.Time    // earliest end of a promotion the last render showed
	sources  []sourceTime // newest observed_at per source among the live prices
	dirty    bool         // in Index.dirty
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
	// expect is how many events a replay under way brings (Expect).
	expect int
	// dir is the registrar directory (directory.go).
	dir  directory
	snap *Snapshot
}

// NewIndex returns an empty index rendering prices in currency, which must be
// a known ISO 4217 code.
func NewIndex(currency string) *Index {
	exp, _ := contracts.CurrencyExponent(currency)
	x := &Index{currency: currency, exp: exp, zones: map[string]*zoneEntry{}, registrars: map[symbol]int{}, syms: symbols{ids: map[string]symbol{}}, rates: map[string]ratesEntry{},
		dir: directory{statuses: map[string]statusEntry{}}}
	x.snap = x.render(time.Time{})
	return x
}

// Expect tells the index that a replay of about events events begins (0:
// it ended), so that zones grow to their share of them at once. A replay
// brings one registrar's zones after another's, so every zone gains one
// entry per registrar: doubling from one, each zone's entries were copied
// nine times on the way to 150 registrars, a seventh of a replay's CPU
// (BenchmarkReplayCPU), and ended with 256 slots for 150.
func (x *Index) Expect(events int) { x.expect = events }

// grow makes room for at least one more entry in p: twice its length, or
// the zones' average share of the replay under way when that is more, at
// most sixteen times the length so that a guess made while few zones are
// known cannot reserve much.
func (x *Index) grow(p registrarPrices) registrarPrices {
	n := len(p)
	want := max(2*n, 1)
	if x.expect > 0 && len(x.zones) > 0 {
		share := x.expect/len(x.zones) + 1
		want = max(want, min(share, 16*max(n, 1), contracts.MaxRegistrarsPerZone))
	}
	return slices.Grow(p, want-n)
}

func (x *Index) entry(zone string) *zoneEntry {
	z := x.zones[zone]
	if z == nil {
		// Events are validated, so the zone is canonical and normalises.
		nz, _ := contracts.NormalizeZone(zone)
		// Most zones end up priced by most registrars: size for them now
		// rather than growing the slice (and copying its entries) repeatedly.
		z = &zoneEntry{zone: nz, prices: make(registrarPrices, 0, len(x.registrars))}
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
	case *contracts.RegistrarStatus:
		return x.dir.applyStatus(seq, at, e)
	}
	return Unchanged
}

// entryOf turns a price set into the index's compact form. A price set has
// one currency (contracts validates that).
func (x *Index) entryOf(set *contracts.PriceSet, seq uint64) priceEntry {
	e := priceEntry{live: true, tax: taxCodeOf(set.Tax), source: x.syms.id(kindSource, set.Source), seq: seq, observed: set.ObservedAt.UnixNano()}
	for i, op := range set.Ops() {
		if op == nil {
			continue
		}
		e.currency = x.syms.id(kindCurrency, op.Regular.Currency)
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
	reg := x.syms.id(kindRegistrar, registrar)
	i, known := z.prices.find(reg)
	var cur priceEntry
	if known {
		cur = z.prices[i].priceEntry
	}
	if known && seq <= cur.seq {
		return Redelivered
	}
	if set != nil {
		if out, ok := z.admits(&cur, x.syms.id(kindSource, set.Source)); !ok {
			return out
		}
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
		z.prices = slices.Clone(z.prices)
		z.shared = false
	}
	if known {
		z.prices[i].priceEntry = next
	} else {
		if len(z.prices) == cap(z.prices) {
			z.prices = x.grow(z.prices)
		}
		z.prices = slices.Insert(z.prices, i, registrarPrice{reg: reg, priceEntry: next})
	}
	z.recount(&cur, &next)
	x.dir.remix(reg, &cur, &next, at)
	switch {
	case cur.live && next.live && samePrices(&cur, &next):
		// Same prices observed again: only observed_at moved, which the
		// comparison shows, so the zone still re-renders.
		x.schedule(z)
		return Unchanged
	case next.live && !cur.live:
		x.count(z, reg, contracts.IsSampleRegistrar(registrar), 1)
	case !next.live && cur.live:
		x.count(z, reg, contracts.IsSampleRegistrar(registrar), -1)
	case !next.live:
		// A withdrawal of something not priced leaves only a tombstone
		// against late price sets.
		return Unchanged
	}
	x.schedule(z)
	return Applied
}

// admits reports whether zone z takes a price of source for a registrar
// whose entry is cur, and the outcome when it does not. A zone is full
// at contracts.MaxRegistrarsPerZone registrars: one more would only grow
// its comparison. One source may hold contracts.MaxRegistrarsPerSource of
// them, so that a flood of one source's registrars (an ingester gone
// wrong, or a stolen credential) cannot fill a zone and lock every other
// registrar out of it. A pod started later replays each subject's last
// message only, so where a registrar has withdrawn since, it admits one a
// running pod refused; that registrar's next republish (daily at the
// latest) puts the running pod right.
func (z *zoneEntry) admits(cur *priceEntry, source symbol) (Outcome, bool) {
	switch {
	case !cur.live && z.live >= contracts.MaxRegistrarsPerZone:
		return Refused, false
	case (!cur.live || cur.source != source) && z.bySource.count(source) >= contracts.MaxRegistrarsPerSource:
		return SourceFull, false
	}
	return Applied, true
}

// recount moves a registrar's live price from cur's source to next's.
func (z *zoneEntry) recount(cur, next *priceEntry) {
	if cur.live {
		z.bySource = z.bySource.add(cur.source, -1)
	}
	if next.live {
		z.bySource = z.bySource.add(next.source, 1)
	}
}

// sourceCounts are a zone's live prices by source: few sources price a
// zone, so a slice beats a map.
type sourceCounts []sourceCount

type sourceCount struct {
	source symbol
	n      int
}

func (c sourceCounts) count(source symbol) int {
	for _, sc := range c {
		if sc.source == source {
			return sc.n
		}
	}
	return 0
}

// add adds d to source's count, dropping a source that counts none.
func (c sourceCounts) add(source symbol, d int) sourceCounts {
	for i := range c {
		if c[i].source == source {
			if c[i].n += d; c[i].n == 0 {
				return slices.Delete(c, i, i+1)
			}
			return c
		}
	}
	return append(c, sourceCount{source: source, n: d})
}

// count adds d (1 or -1) to the live prices of zone z, of registrar reg
// and, for a sample registrar, of the sample, and forgets the sorted
// catalog when z appears in it or leaves it.
func (x *Index) count(z *zoneEntry, reg symbol, sample bool, d int) {
	was := x.visible(z)
	z.live += d
	x.prices += d
	x.registrars[reg] += d
	switch n := x.registrars[reg]; {
	case d > 0 && n == 1 && sample:
		x.sampleRegs++
	case d < 0 && n == 0:
		delete(x.registrars, reg)
		if sample {
			x.sampleRegs--
		}
	}
	if sample {
		z.sample += d
		x.samplePrices += d
	}
	if (was == 0) != (x.visible(z) == 0) {
		x.sorted = nil
	}
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

// Dirty reports whether events were applied since the last Build, or a
// moment it awaited came (Expire).
func (x *Index) Dirty() bool { return x.allDirty || len(x.dirty) > 0 || x.dir.dirty }

// Version is the data version of the last built snapshot.
func (x *Index) Version() uint64 { return x.snap.Version }

// Snapshot returns the last built snapshot.
func (x *Index) Snapshot() *Snapshot { return x.snap }

// Expire marks dirty every zone with a promotion that ended by now, so the
// next Build shows its regular price, and the directory once a registrar it
// shows fresh turned stale by now.
func (x *Index) Expire(now time.Time) {
	for _, z := range x.zones {
		if !z.expiry.IsZero() && !z.expiry.After(now) {
			x.schedule(z)
		}
	}
	x.dir.expire(now)
}

// NextExpiry returns the earliest moment the last Build must be rendered
// again without new data: the end of a promotion it showed as running, or
// a registrar it showed fresh turning stale; the zero time when none comes.
func (x *Index) NextExpiry() time.Time {
	next := x.dir.staleAt
	for _, z := range x.sorted {
		if !z.expiry.IsZero() && (next.IsZero() || z.expiry.Before(next)) {
			next = z.expiry
		}
	}
	return next
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

// hiddenCount is n when sample prices are hidden, else zero.
func (x *Index) hiddenCount(n int) int {
	if x.hideSample {
		return n
	}
	return 0
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

func samePrices(a, b *priceEntry) bool {
	return a.ops == b.ops && a.currency == b.currency && a.source == b.source && a.tax == b.tax
}

// taxCode is a price set's contracts.Tax in a byte, so that entries hold
// no pointers.
type taxCode uint8

const (
	taxUnknown taxCode = iota
	taxExcluded
	taxIncluded
)

var taxNames = [...]contracts.Tax{taxUnknown: contracts.TaxUnknown, taxExcluded: contracts.TaxExcluded, taxIncluded: contracts.TaxIncluded}

func taxCodeOf(t contracts.Tax) taxCode {
	switch t {
	case contracts.TaxExcluded:
		return taxExcluded
	case contracts.TaxIncluded:
		return taxIncluded
	}
	return taxUnknown
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
