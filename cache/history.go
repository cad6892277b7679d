package cache

import (
	"fmt"
	"maps"
	"math"
	"sync/atomic"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
)

// History holds every change the history stream holds, in stream order,
// compactly: a pod keeps three years of them (millions) in memory. One
// goroutine, the history consumer, adds changes; after each burst it
// publishes an immutable HistoryView, which any number of requests read.
//
// Each change is a fixed-size record of plain numbers in chunks that are
// never moved or rewritten once published (and, where the system allows,
// live outside the Go heap: records.go): a view is the chunks and the
// count of records it may read. A record keeps the offer the change left
// (the "after"); the offer it replaced is the previous record of the same
// registrar and zone, which the record links to, or, where that record is
// not held (it aged out of the stream, or a change was lost), an extension
// holding the change's own "before". Extensions also hold what a record's
// fixed fields cannot: promotions, and amounts of 2^32 minor units or more.
type History struct {
	names   []string // registrars, sources and currencies
	nameIDs map[string]uint16
	zones   []contracts.Zone
	zoneIDs map[string]uint32
	// namesChanged and zonesChanged say a table grew since the last
	// publication, whose view then gets a copy of the lookup map.
	namesChanged, zonesChanged bool
	viewNames                  map[string]uint16
	viewZones                  map[string]uint32

	chunks []*recordChunk
	bases  []uint64 // by chunk: the sequence its records' seq counts from
	n      int
	exts   []*[extChunk]historyExt
	nExt   int

	bySubject map[uint64]int32 // zone<<16 | registrar: its newest record
	byZone    []int32          // by zone id: its newest record
	real      bool             // a registrar other than the sample's has a change
	newest    uint32           // the newest observed_at of any change
	newReal   uint32           // the same of a real registrar's change

	view atomic.Pointer[HistoryView]
}

// historyEpoch is the zero of the records' times: they count seconds from
// 2000-01-01 UTC in 32 bits, up to the year 2136.
const historyEpoch = 946684800

const (
	historyChunk = 1 << 14 // records per chunk: 768 KiB
	extChunk     = 1 << 10 // extensions per chunk
)

// historyRecord is one change, 52 bytes: no field needs more than four,
// so nothing pads it.
type historyRecord struct {
	seq      uint32 // the history stream's sequence, less its chunk's base
	at       uint32 // observed_at, seconds since historyEpoch
	zone     uint32
	prev     int32 // the previous record of the same registrar and zone; -1 for none
	prevZone int32 // the previous record of the same zone; -1 for none
	ext      int32 // its extension; -1 for none
	// promoPrice and promoEnd are the after offer's promotion, on the
	// operation flags name (most promotions are one operation's, a
	// registration's); promoEnd counts seconds since historyEpoch, 0
	// for a promotion without an end. Other promotions are in ext.
	promoPrice uint32
	promoEnd   uint32
	amounts    [contracts.NumOps]uint32 // the after offer's regular prices
	reg        uint16
	source     uint16
	currency   uint16 // of the after offer; of the before for a withdrawal
	kind       uint8  // the change, recordKinds
	flags      uint8  // offered operations (bit per Op), tax code, the inline promotion's operation, dropped
}

// The flags past the offered operations' bits.
const (
	flagTaxShift   = contracts.NumOps // two bits: the tax code
	flagPromoShift = flagTaxShift + 2 // two bits: 1 + the inline promotion's operation; 0 for none
	flagDropped    = 1 << (flagPromoShift + 2)
)

// recordKinds are the changes by their number in a record.
var recordKinds = [...]contracts.Change{contracts.ChangeAdded, contracts.ChangeChanged, contracts.ChangeWithdrawn, contracts.ChangeKnown}

func kindCode(c contracts.Change) uint8 {
	for i, k := range recordKinds {
		if k == c {
			return uint8(i)
		}
	}
	return 0
}

// historyExt is what a record's fixed fields cannot hold.
type historyExt struct {
	// promos are the after offer's promotions when they are not one
	// that fits the record (two operations', or a price of 2^32 minor
	// units or more).
	promos  [contracts.NumOps]historyPromo
	amounts [contracts.NumOps]int64 // the after offer's regular amounts, when big
	big     bool
	// seq is the record's sequence when it is 2^32 or more past its
	// chunk's base (a gap of four thousand million messages).
	seq uint64
	// before is the change's own before, where the previous record is
	// not held or does not say the same.
	before *contracts.Offer
}

type historyPromo struct {
	has   bool
	price int64
	end   int64 // Unix seconds; 0 when the promotion has no end
}

// NewHistory returns an empty History with an empty view published.
func NewHistory() *History {
	h := &History{nameIDs: map[string]uint16{}, zoneIDs: map[string]uint32{}, bySubject: map[uint64]int32{}}
	h.Publish()
	return h
}

// Len is how many changes the History holds.
func (h *History) Len() int { return h.n }

// ErrHistoryFull is a change the History cannot hold: more than 65,535
// registrars, sources and currencies, or more than 2^31 changes.
var ErrHistoryFull = fmt.Errorf("history full")

func (h *History) name(s string) (uint16, error) {
	if id, ok := h.nameIDs[s]; ok {
		return id, nil
	}
	if len(h.names) > math.MaxUint16 {
		return 0, fmt.Errorf("%w: more than %d names", ErrHistoryFull, math.MaxUint16+1)
	}
	id := uint16(len(h.names))
	h.names = append(h.names, s)
	h.nameIDs[s] = id
	h.namesChanged = true
	return id, nil
}

func (h *History) zone(ascii string) (uint32, error) {
	if id, ok := h.zoneIDs[ascii]; ok {
		return id, nil
	}
	z, err := contracts.NormalizeZone(ascii)
	if err != nil {
		return 0, err
	}
	id := uint32(len(h.zones))
	h.zones = append(h.zones, z)
	h.zoneIDs[ascii] = id
	h.byZone = append(h.byZone, -1)
	h.zonesChanged = true
	return id, nil
}

func (h *History) record(i int32) *historyRecord {
	return &h.chunks[i/historyChunk].recs[i%historyChunk]
}

// Add appends a change, valid and read from the history stream at seq.
// Nothing of it is visible to readers before the next Publish.
func (h *History) Add(seq uint64, c *contracts.PriceChange) error {
	if h.n >= math.MaxInt32 {
		return fmt.Errorf("%w: %d changes", ErrHistoryFull, h.n)
	}
	rec, err := h.recordOf(c)
	if err != nil {
		return err
	}
	i := int32(h.n)
	if h.n == len(h.chunks)*historyChunk {
		h.chunks = append(h.chunks, newRecordChunk())
		h.bases = append(h.bases, seq)
	}
	r := h.record(i)
	*r = rec
	key := uint64(r.zone)<<16 | uint64(r.reg)
	if prev, ok := h.bySubject[key]; ok {
		r.prev = prev
	}
	if off := seq - h.bases[len(h.bases)-1]; off <= math.MaxUint32 {
		r.seq = uint32(off)
	} else {
		h.extOf(r).seq = seq
	}
	if c.After != nil {
		h.recordOffer(r, c.After)
	}
	if c.Dropped() {
		r.flags |= flagDropped
	}
	if c.Before != nil && !h.leftBy(r.prev, c.Before) {
		h.extOf(r).before = cloneOffer(c.Before)
	}
	h.bySubject[key] = i
	h.byZone[r.zone] = i
	h.n++
	if !contracts.IsSampleRegistrar(c.Registrar) {
		h.real = true
		h.newReal = max(h.newReal, r.at)
	}
	h.newest = max(h.newest, r.at)
	return nil
}

// recordOf is the record of c before it is placed: its time, kind and the
// ids of its zone, registrar, source and currency, which it adds to the
// tables where they are new.
func (h *History) recordOf(c *contracts.PriceChange) (historyRecord, error) {
	zone, err := h.zone(c.Zone)
	if err != nil {
		return historyRecord{}, err
	}
	reg, err := h.name(c.Registrar)
	if err != nil {
		return historyRecord{}, err
	}
	source, err := h.name(c.Source)
	if err != nil {
		return historyRecord{}, err
	}
	offer := c.After
	if offer == nil {
		offer = c.Before
	}
	currency, err := h.name(offerCurrency(offer))
	if err != nil {
		return historyRecord{}, err
	}
	return historyRecord{at: epochSeconds(c.ObservedAt), zone: zone, prev: -1, prevZone: h.byZone[zone], ext: -1,
		reg: reg, source: source, currency: currency, kind: kindCode(c.Change)}, nil
}

// extOf is r's extension, which it is given on first use.
func (h *History) extOf(r *historyRecord) *historyExt {
	if r.ext < 0 {
		if h.nExt == len(h.exts)*extChunk {
			h.exts = append(h.exts, new([extChunk]historyExt))
		}
		r.ext = int32(h.nExt)
		h.nExt++
	}
	return &h.exts[r.ext/extChunk][r.ext%extChunk]
}

// recordOffer writes the offer a change left into its record: the tax
// code, the offered operations and their regular prices, and a sole
// promotion that fits inline; what does not fit goes to the extension.
func (h *History) recordOffer(r *historyRecord, after *contracts.Offer) {
	r.flags = uint8(taxCodeOf(after.Tax)) << flagTaxShift
	promos, inline := 0, true
	for op, p := range after.Ops() {
		if p == nil {
			continue
		}
		r.flags |= 1 << op
		if p.Regular.Amount <= math.MaxUint32 {
			r.amounts[op] = uint32(p.Regular.Amount)
		} else {
			e := h.extOf(r)
			e.big, e.amounts[op] = true, p.Regular.Amount
		}
		if p.Promo != nil {
			promos++
			inline = inline && p.Promo.Price.Amount <= math.MaxUint32
		}
	}
	for op, p := range after.Ops() {
		if p == nil || p.Promo == nil {
			continue
		}
		var end int64
		if p.Promo.EndsAt != nil {
			end = max(p.Promo.EndsAt.Unix(), historyEpoch+1)
		}
		if promos == 1 && inline && end <= historyEpoch+math.MaxUint32 {
			r.flags |= uint8(op+1) << flagPromoShift
			r.promoPrice = uint32(p.Promo.Price.Amount)
			if end != 0 {
				r.promoEnd = uint32(end - historyEpoch)
			}
			continue
		}
		h.extOf(r).promos[op] = historyPromo{has: true, price: p.Promo.Price.Amount, end: end}
	}
}

// Publish makes everything added so far visible to readers, as a new view.
func (h *History) Publish() {
	old := h.view.Load()
	v := &HistoryView{
		chunks: h.chunks, bases: h.bases, exts: h.exts, n: h.n,
		names: h.names, zones: h.zones, byZone: append([]int32(nil), h.byZone...),
		real: h.real, newest: h.newest, newReal: h.newReal,
	}
	if old == nil || h.namesChanged {
		h.viewNames = maps.Clone(h.nameIDs)
	}
	if old == nil || h.zonesChanged {
		h.viewZones = maps.Clone(h.zoneIDs)
	}
	h.namesChanged, h.zonesChanged = false, false
	v.nameIDs, v.zoneIDs = h.viewNames, h.viewZones
	if old != nil {
		v.Version = old.Version + 1
	}
	h.view.Store(v)
}

// View returns the last published view. It never returns nil.
func (h *History) View() *HistoryView { return h.view.Load() }

// offerState is an offer as rendering reads it: the operations' prices,
// the currency and the tax declaration. Two equal offers have equal
// states.
type offerState struct {
	ops      [contracts.NumOps]opState
	currency string
	tax      taxCode
}

// stateOf reads a record's after offer; false for a withdrawal.
func stateOf(names []string, r *historyRecord, e *historyExt) (offerState, bool) {
	if recordKinds[r.kind] == contracts.ChangeWithdrawn {
		return offerState{}, false
	}
	st := offerState{currency: names[r.currency], tax: taxCode((r.flags >> flagTaxShift) & 3)}
	for op := range st.ops {
		if r.flags&(1<<op) == 0 {
			continue
		}
		o := &st.ops[op]
		o.offered, o.regular = true, int64(r.amounts[op])
		if int(r.flags>>flagPromoShift)&3 == op+1 {
			o.hasPromo, o.promo = true, int64(r.promoPrice)
			if r.promoEnd != 0 {
				o.promoEnd = int64(r.promoEnd) + historyEpoch
			}
		}
		if e != nil {
			if e.big && e.amounts[op] != 0 {
				o.regular = e.amounts[op]
			}
			if hp := e.promos[op]; hp.has {
				o.hasPromo, o.promo, o.promoEnd = true, hp.price, hp.end
			}
		}
	}
	return st, true
}

// stateOfOffer reads a document's offer.
func stateOfOffer(o *contracts.Offer) offerState {
	st := offerState{currency: offerCurrency(o), tax: taxCodeOf(o.Tax)}
	for op, p := range o.Ops() {
		if p == nil {
			continue
		}
		s := &st.ops[op]
		s.offered, s.regular = true, p.Regular.Amount
		if p.Promo != nil {
			s.hasPromo, s.promo = true, p.Promo.Price.Amount
			if p.Promo.EndsAt != nil {
				s.promoEnd = p.Promo.EndsAt.Unix()
			}
		}
	}
	return st
}

// leftBy reports whether record i, if any, left the offer o.
func (h *History) leftBy(i int32, o *contracts.Offer) bool {
	if i < 0 {
		return false
	}
	r := h.record(i)
	var e *historyExt
	if r.ext >= 0 {
		e = &h.exts[r.ext/extChunk][r.ext%extChunk]
	}
	st, ok := stateOf(h.names, r, e)
	return ok && st == stateOfOffer(o)
}

func offerCurrency(o *contracts.Offer) string {
	for _, p := range o.Ops() {
		if p != nil {
			return p.Regular.Currency
		}
	}
	return ""
}

// cloneOffer copies an offer out of a decoder's reused storage.
func cloneOffer(o *contracts.Offer) *contracts.Offer {
	c := &contracts.Offer{Tax: o.Tax}
	for op, p := range o.Ops() {
		if p == nil {
			continue
		}
		cp := &contracts.OpPrice{Regular: p.Regular}
		if p.Promo != nil {
			cp.Promo = &contracts.Promo{Price: p.Promo.Price}
			if p.Promo.EndsAt != nil {
				end := *p.Promo.EndsAt
				cp.Promo.EndsAt = &end
			}
		}
		switch contracts.Op(op) {
		case contracts.OpRegister:
			c.Register = cp
		case contracts.OpRenew:
			c.Renew = cp
		case contracts.OpTransfer:
			c.Transfer = cp
		}
	}
	return c
}

func epochSeconds(t time.Time) uint32 {
	s := t.Unix() - historyEpoch
	return uint32(min(max(s, 0), math.MaxUint32))
}

func epochTime(s uint32) time.Time { return time.Unix(int64(s)+historyEpoch, 0).UTC() }

// HistoryView is an immutable view of a History: the records published
// up to one Publish, and the tables to read them.
type HistoryView struct {
	// Version increases with every Publish.
	Version uint64

	chunks  []*recordChunk
	bases   []uint64
	exts    []*[extChunk]historyExt
	n       int
	names   []string
	nameIDs map[string]uint16
	zones   []contracts.Zone
	zoneIDs map[string]uint32
	byZone  []int32
	real    bool
	newest  uint32
	newReal uint32
}

// Len is how many changes the view holds.
func (v *HistoryView) Len() int { return v.n }

// Newest is when the newest change the view holds was observed; zero
// without one.
func (v *HistoryView) Newest() time.Time {
	if v.n == 0 {
		return time.Time{}
	}
	return epochTime(v.newest)
}

func (v *HistoryView) record(i int32) *historyRecord {
	return &v.chunks[i/historyChunk].recs[i%historyChunk]
}

// seq is record i's history stream sequence.
func (v *HistoryView) seq(i int32) uint64 {
	r := v.record(i)
	if e := v.ext(r); e != nil && e.seq != 0 {
		return e.seq
	}
	return v.bases[i/historyChunk] + uint64(r.seq)
}

func (v *HistoryView) ext(r *historyRecord) *historyExt {
	if r.ext < 0 {
		return nil
	}
	return &v.exts[r.ext/extChunk][r.ext%extChunk]
}

// after is the offer record i's change left; false for a withdrawal.
func (v *HistoryView) after(i int32) (offerState, bool) {
	r := v.record(i)
	return stateOf(v.names, r, v.ext(r))
}

// before is the offer record i's change replaced; false for an addition
// or a first known price.
func (v *HistoryView) before(i int32) (offerState, bool) {
	r := v.record(i)
	switch recordKinds[r.kind] {
	case contracts.ChangeAdded, contracts.ChangeKnown:
		return offerState{}, false
	}
	if e := v.ext(r); e != nil && e.before != nil {
		return stateOfOffer(e.before), true
	}
	if r.prev >= 0 {
		return v.after(r.prev)
	}
	return offerState{}, false
}

// HasZone reports whether the view holds a change of the canonical zone.
func (v *HistoryView) HasZone(zone string) bool {
	id, ok := v.zoneIDs[zone]
	return ok && int(id) < len(v.byZone) && v.byZone[id] >= 0
}

// hidesSample reports whether the sample's changes are left out, with
// snap's own rule: once any real registrar has a price, or a change.
func (v *HistoryView) hidesSample(st *style) bool { return st.hideSample || v.real }

// newestShown is when the newest change a reader is shown was observed:
// Newest, but of the real registrars' changes while the sample is hidden
// (the sample's own withdrawal, hidden, is not news); zero without one.
func (v *HistoryView) newestShown(st *style) time.Time {
	switch {
	case !v.hidesSample(st):
		return v.Newest()
	case v.newReal == 0:
		return time.Time{}
	}
	return epochTime(v.newReal)
}

func (v *HistoryView) hidden(st *style, r *historyRecord) bool {
	return v.hidesSample(st) && contracts.IsSampleRegistrar(v.names[r.reg])
}
