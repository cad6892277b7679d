package cache

import (
	"encoding/json"
	"math"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/zoneprice/zoneprice/contracts"
)

// TestHistoryRecordSize holds a change to 52 bytes: a pod holds millions.
func TestHistoryRecordSize(t *testing.T) {
	if n := unsafe.Sizeof(historyRecord{}); n != 52 {
		t.Errorf("a history record is %d bytes, want 52", n)
	}
}

func offer(cur string, register, renew int64) *contracts.Offer {
	o := &contracts.Offer{Register: &contracts.OpPrice{Regular: contracts.Price{Amount: register, Currency: cur}}}
	if renew >= 0 {
		o.Renew = &contracts.OpPrice{Regular: contracts.Price{Amount: renew, Currency: cur}}
	}
	return o
}

func change(kind contracts.Change, reg, zone string, at time.Time, before, after *contracts.Offer) *contracts.PriceChange {
	return &contracts.PriceChange{V: contracts.SchemaVersion, Kind: contracts.KindPriceChange, Change: kind,
		Registrar: reg, Zone: zone, Before: before, After: after, ObservedAt: at, Source: "test"}
}

type historyFeed struct {
	t   testing.TB
	h   *History
	seq uint64
}

func (f *historyFeed) add(cs ...*contracts.PriceChange) {
	f.t.Helper()
	for _, c := range cs {
		if err := c.Validate(); err != nil {
			f.t.Fatalf("fixture is not a valid change: %v", err)
		}
		f.seq += 2 // sequences need not be dense
		if err := f.h.Add(f.seq, c); err != nil {
			f.t.Fatal(err)
		}
	}
}

// sameOffer compares an offer rebuilt from the history with a document's.
func sameOffer(t *testing.T, what string, got offerState, ok bool, want *contracts.Offer) {
	t.Helper()
	if want == nil {
		if ok {
			t.Errorf("%s: got an offer %+v, want none", what, got)
		}
		return
	}
	if !ok || got != stateOfOffer(want) {
		w, _ := json.Marshal(want)
		t.Errorf("%s: got %+v (ok %v), want %s", what, got, ok, w)
	}
}

// TestHistoryKeepsEveryOffer rebuilds each change's before and after from
// the compact records: from the previous record, from an extension where
// that is not held or disagrees, with promotions and amounts of 2^32 and
// more.
func TestHistoryKeepsEveryOffer(t *testing.T) {
	ends := t0.Add(30 * 24 * time.Hour)
	promo := offer("EUR", 1000, 1200)
	promo.Register.Promo = &contracts.Promo{Price: contracts.Price{Amount: 500, Currency: "EUR"}, EndsAt: &ends}
	promo.Tax = contracts.TaxIncluded
	twoPromos := offer("EUR", 1000, 1200)
	twoPromos.Register.Promo = &contracts.Promo{Price: contracts.Price{Amount: 400, Currency: "EUR"}}
	twoPromos.Renew.Promo = &contracts.Promo{Price: contracts.Price{Amount: 900, Currency: "EUR"}, EndsAt: &ends}
	big := offer("IDR", math.MaxUint32+5, 7)
	changes := []*contracts.PriceChange{
		change(contracts.ChangeAdded, "a", ".com", at(0), nil, offer("EUR", 1000, 1200)),
		change(contracts.ChangeChanged, "a", ".com", at(time.Hour), offer("EUR", 1000, 1200), promo),
		change(contracts.ChangeChanged, "a", ".com", at(90*time.Minute), promo, twoPromos),
		change(contracts.ChangeChanged, "a", ".com", at(2*time.Hour), twoPromos, big),
		change(contracts.ChangeWithdrawn, "a", ".com", at(3*time.Hour), big, nil),
		// The first change held of a subject whose earlier ones aged out.
		change(contracts.ChangeChanged, "b", ".com", at(4*time.Hour), offer("USD", 10, -1), offer("USD", 11, -1)),
		// A before the previous record does not say (a change lost).
		change(contracts.ChangeChanged, "b", ".com", at(5*time.Hour), offer("USD", 12, -1), offer("USD", 13, -1)),
		change(contracts.ChangeKnown, "c", ".co.uk", at(6*time.Hour), nil, offer("GBP", 1, 1)),
	}
	f := &historyFeed{t: t, h: NewHistory()}
	f.add(changes...)
	if v := f.h.View(); v.Len() != 0 {
		t.Fatalf("before Publish a view shows %d changes, want none", v.Len())
	}
	f.h.Publish()
	v := f.h.View()
	if v.Len() != len(changes) {
		t.Fatalf("view holds %d changes, want %d", v.Len(), len(changes))
	}
	for i, c := range changes {
		got, ok := v.after(int32(i))
		sameOffer(t, "after of change "+string(rune('0'+i)), got, ok, c.After)
		got, ok = v.before(int32(i))
		sameOffer(t, "before of change "+string(rune('0'+i)), got, ok, c.Before)
	}
	if n := f.h.nExt; n != 4 {
		t.Errorf("%d extensions, want 4: two promotions of one offer, the big amount, and two befores (one promotion fits a record)", n)
	}
	if !v.HasZone(".co.uk") || v.HasZone(".uk") {
		t.Error("HasZone does not follow the changes held")
	}
}

// TestHistorySequences keeps each change's stream sequence, across gaps of
// any size.
func TestHistorySequences(t *testing.T) {
	h := NewHistory()
	seqs := []uint64{7, 8, 1 << 40, 1<<40 + 1}
	for i, seq := range seqs {
		c := change(contracts.ChangeAdded, "a", ".z"+string(rune('a'+i)), at(0), nil, offer("USD", 1, -1))
		if err := h.Add(seq, c); err != nil {
			t.Fatal(err)
		}
	}
	h.Publish()
	v := h.View()
	for i, want := range seqs {
		if got := v.seq(int32(i)); got != want {
			t.Errorf("change %d has sequence %d, want %d", i, got, want)
		}
	}
}

// TestHistoryViewsWhileAdding reads published views while changes are
// added and published: under the race detector, readers and the writer
// share no memory they do not both only read.
func TestHistoryViewsWhileAdding(t *testing.T) {
	f := &historyFeed{t: t, h: NewHistory()}
	snap := NewIndex("USD").Snapshot()
	const n = 3 * historyChunk / 2 // past a chunk's end
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				v := f.h.View()
				b := snap.RenderChanges(v, ChangesOptions{Limit: 20})
				if v.Len() > 0 && len(b.JSON) < 100 {
					t.Errorf("a page of %d changes rendered as %s", v.Len(), b.JSON)
					return
				}
				if v.HasZone(".com") {
					snap.RenderZoneHistory(v, ".com", HistoryOptions{})
				}
			}
		})
	}
	prev := offer("USD", 100, 100)
	f.add(change(contracts.ChangeAdded, "a", ".com", at(0), nil, prev))
	for i := 1; i < n; i++ {
		next := offer("USD", int64(100+i), 100)
		f.add(change(contracts.ChangeChanged, "a", ".com", at(time.Duration(i)*time.Second), prev, next))
		prev = next
		if i%1000 == 0 {
			f.h.Publish()
		}
	}
	f.h.Publish()
	close(stop)
	wg.Wait()
	if got := f.h.View().Len(); got != n {
		t.Errorf("view holds %d changes, want %d", got, n)
	}
}
