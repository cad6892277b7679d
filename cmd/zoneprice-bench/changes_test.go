package main

import (
	"slices"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/cache"
	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest/sample"
)

// testHistory generates the history of 40 zones × 12 registrars (the
// named sample registrars, so every currency the seed uses) at nine
// changes each.
func testHistory(t *testing.T) (*historySet, int) {
	t.Helper()
	zones, err := sample.Zones()
	if err != nil {
		t.Fatal(err)
	}
	end := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	prices, err := sample.Generate(zones[:40], 12, end.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	n := 9 * len(prices)
	h, err := generateHistory(prices, n, end)
	if err != nil {
		t.Fatal(err)
	}
	return h, n
}

// TestHistoryShape checks what the bench's history data set promises:
// exactly the changes asked, each valid and accepted as a query pod
// accepts it, each subject's first added or known, each before the
// previous after of its subject, each subject's last after the offer the
// state holds, and observed_at in stream order.
func TestHistoryShape(t *testing.T) {
	h, n := testHistory(t)
	if got := len(h.recs); got != n {
		t.Fatalf("generated %d changes, want %d", got, n)
	}
	last := map[int32]*contracts.PriceChange{}
	hist := cache.NewHistory()
	var dec contracts.Decoder
	var prev time.Time
	promos, ends := 0, 0
	for i := range h.recs {
		c := h.change(i)
		m, err := contracts.Encode(c)
		if err != nil {
			t.Fatalf("change %d: %v", i, err)
		}
		if m.Stream != contracts.HistoryStream {
			t.Fatalf("change %d goes to %s", i, m.Stream)
		}
		decoded, err := dec.DecodeChange(m.Body)
		if err != nil {
			t.Fatalf("change %d: decode: %v", i, err)
		}
		if err := hist.Add(uint64(i+1), decoded); err != nil {
			t.Fatalf("change %d: history: %v", i, err)
		}
		if c.ObservedAt.Before(prev) {
			t.Fatalf("change %d observed at %v, before the change ahead of it (%v)", i, c.ObservedAt, prev)
		}
		prev = c.ObservedAt
		s := h.recs[i].subject
		if p := last[s]; p == nil {
			if c.Change != contracts.ChangeAdded && c.Change != contracts.ChangeKnown {
				t.Fatalf("change %d, the first of %s %s, is %s", i, c.Registrar, c.Zone, c.Change)
			}
		} else {
			if !c.Before.Equal(p.After) {
				t.Fatalf("change %d of %s %s: before %+v is not the previous after %+v", i, c.Registrar, c.Zone, c.Before, p.After)
			}
			if !c.ObservedAt.After(p.ObservedAt) {
				t.Fatalf("change %d of %s %s observed at %v, not after its previous change", i, c.Registrar, c.Zone, c.ObservedAt)
			}
		}
		if c.After != nil && c.After.Register.Promo != nil {
			promos++
			if c.After.Register.Promo.EndsAt != nil {
				ends++
			}
		}
		last[s] = c
	}
	if got := len(last); got != len(h.prices) {
		t.Errorf("%d prices have changes, want all %d", got, len(h.prices))
	}
	for s, c := range last {
		if want := h.prices[s].Offer(); !c.After.Equal(want) {
			t.Errorf("%s %s: the last change leaves %+v, the state holds %+v", c.Registrar, c.Zone, c.After, want)
		}
	}
	for k, kind := range changeKinds {
		if h.kinds[k] == 0 {
			t.Errorf("no change %s", kind)
		}
	}
	if promos == 0 || ends == 0 || ends == promos {
		t.Errorf("%d changes start or keep a promotion, %d of them with an end: want both kinds", promos, ends)
	}
	if span := h.change(len(h.recs) - 1).ObservedAt.Sub(h.change(0).ObservedAt); span < (historyYears*365-40)*24*time.Hour {
		t.Errorf("the changes span %v, want about %d years", span, historyYears)
	}
}

func TestHistoryDeterministic(t *testing.T) {
	a, _ := testHistory(t)
	b, _ := testHistory(t)
	if !slices.Equal(a.recs, b.recs) {
		t.Error("two generations of the same history differ")
	}
}
