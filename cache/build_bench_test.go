package cache

import (
	"fmt"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/eventtest"
)

const (
	benchZones      = 1500
	benchRegistrars = 150
)

// benchEvents synthesises a full catalog: every registrar prices every zone
// in USD, with prices spread so that rows sort and minimums move.
func benchEvents() []*contracts.PriceSet {
	evs := make([]*contracts.PriceSet, 0, benchZones*benchRegistrars)
	for z := range benchZones {
		zone := fmt.Sprintf(".z%04d", z+1)
		for r := range benchRegistrars {
			reg := fmt.Sprintf("r%03d", r+1)
			base := int64(500 + (z*31+r*17)%5000)
			evs = append(evs, eventtest.Priced(reg, zone, t0.Add(time.Duration(r)*time.Second), "USD", base, base+200, base+100))
		}
	}
	return evs
}

func loadIndex(evs []*contracts.PriceSet) *Index {
	x := NewIndex("USD")
	for i, ev := range evs {
		x.Apply(uint64(i+1), storedAt(ev), ev)
	}
	return x
}

// BenchmarkBuildFull measures the first Build after catch-up: every zone is
// rendered.
func BenchmarkBuildFull(b *testing.B) {
	evs := benchEvents()
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		x := loadIndex(evs)
		b.StartTimer()
		s := x.Build(t0)
		if s.Zones != benchZones {
			b.Fatalf("built %d zones, want %d", s.Zones, benchZones)
		}
	}
}

// BenchmarkBuildIncremental measures one price change and the Build that
// follows: one zone re-renders, the catalog bodies are reassembled.
func BenchmarkBuildIncremental(b *testing.B) {
	evs := benchEvents()
	x := loadIndex(evs)
	x.Build(t0)
	seq := uint64(len(evs))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		seq++
		i++
		ev := eventtest.Priced("r042", ".z0750", t0.Add(time.Duration(i)*time.Minute), "USD", int64(400+i%1000), 900, 800)
		if got := x.Apply(seq, storedAt(ev), ev); got != Applied && got != Unchanged {
			b.Fatalf("Apply = %v, want applied", got)
		}
		x.Build(t0)
	}
}
