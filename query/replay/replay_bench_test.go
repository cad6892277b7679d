package replay

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/cache"
	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/eventtest"
)

// BenchmarkReplayCPU is the CPU a pod spends on a replay's 225,000 price
// sets apart from reading them off the wire: decoding, validating, applying
// them to the index and the first build, on one goroutine. It has no NATS
// in it, so its instruction count (valgrind --tool=callgrind) is the same
// from run to run, and tells a change to the replay path apart from noise.
func BenchmarkReplayCPU(b *testing.B) {
	t0 := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	var docs [][]byte
	for r := range 150 {
		for z := range 1500 {
			ev := eventtest.Priced(fmt.Sprintf("r%03d", r), fmt.Sprintf(".z%04d", z), t0, "USD", int64(500+z), int64(700+z), int64(600+z))
			doc, err := json.Marshal(ev)
			if err != nil {
				b.Fatal(err)
			}
			docs = append(docs, doc)
		}
	}
	b.ReportAllocs()
	cpu := CPUTime()
	for b.Loop() {
		dec := &contracts.Decoder{}
		var slot contracts.Slot
		idx := cache.NewIndex("USD")
		idx.Expect(len(docs))
		for i, doc := range docs {
			ev, err := dec.DecodeInto(doc, &slot)
			if err != nil {
				b.Fatal(err)
			}
			if err := contracts.CheckObserved(ev, t0); err != nil {
				b.Fatal(err)
			}
			idx.Apply(uint64(i+1), t0, ev)
		}
		if s := idx.Build(t0); s.Prices != len(docs) {
			b.Fatalf("%d prices, want %d", s.Prices, len(docs))
		}
	}
	b.ReportMetric((CPUTime()-cpu).Seconds()/float64(b.N), "cpu-s/op")
}
