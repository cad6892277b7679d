package cache

import (
	"fmt"
	"strconv"

	"github.com/dgraph-io/ristretto/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/contracts"
)

// ResponsesConfig configures the derived-response cache.
type ResponsesConfig struct {
	// MaxBytes bounds the bytes of bodies held.
	MaxBytes int64
}

// DefaultResponsesConfig holds 64 MiB of derived bodies.
func DefaultResponsesConfig() ResponsesConfig { return ResponsesConfig{MaxBytes: 64 << 20} }

// Validate reports a configuration that cannot work.
func (c ResponsesConfig) Validate() error {
	if c.MaxBytes < 1<<20 {
		return contracts.Invalid("MaxBytes", "the response cache must hold at least 1 MiB")
	}
	return nil
}

// Responses is a bounded cache of derived responses: bodies that are
// computed from a snapshot on demand because they cannot all be rendered in
// advance. Keys carry the snapshot version, so a new version never sees an
// old body; old entries age out under the byte bound. It is never the source
// of truth: a miss, or a Set the cache declined, only means computing again.
type Responses struct {
	c        *ristretto.Cache[string, *Body]
	hits     prometheus.Counter
	misses   prometheus.Counter
	rejected prometheus.Counter
}

// NewResponses returns a cache bounded by cfg.MaxBytes, with its metrics
// registered on reg.
func NewResponses(cfg ResponsesConfig, reg prometheus.Registerer) (*Responses, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	rejected := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "zoneprice_response_cache_sets_rejected_total", Help: "Derived responses the cache declined to hold (dropped or refused admission).",
	})
	c, err := ristretto.NewCache(&ristretto.Config[string, *Body]{
		// Ten counters per expected entry, assuming ~1 KiB bodies.
		NumCounters: max(cfg.MaxBytes/1024*10, 1e4),
		MaxCost:     cfg.MaxBytes,
		BufferItems: 64,
		// Cost is the body's size in bytes, nothing else.
		IgnoreInternalCost: true,
		// Admission policy refusals happen after Set returned true.
		OnReject: func(*ristretto.Item[*Body]) { rejected.Inc() },
		// For the cost gauge; the counters cost an atomic add per call,
		// and only derived responses go through this cache.
		Metrics: true,
	})
	if err != nil {
		return nil, fmt.Errorf("response cache: %w", err)
	}
	r := &Responses{
		c: c,
		hits: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "zoneprice_response_cache_hits_total", Help: "Derived responses served from the cache.",
		}),
		misses: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "zoneprice_response_cache_misses_total", Help: "Derived responses that had to be computed.",
		}),
		rejected: rejected,
	}
	cost := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "zoneprice_response_cache_cost_bytes", Help: "Bytes of derived responses the cache holds.",
	}, func() float64 {
		m := c.Metrics
		return float64(m.CostAdded()) - float64(m.CostEvicted())
	})
	for _, m := range []prometheus.Collector{r.hits, r.misses, r.rejected, cost} {
		if err := reg.Register(m); err != nil {
			c.Close()
			return nil, fmt.Errorf("register response cache metrics: %w", err)
		}
	}
	return r, nil
}

func responseKey(version uint64, key string) string {
	return strconv.FormatUint(version, 36) + "\x00" + key
}

// Get returns the body cached for key at a snapshot version.
func (r *Responses) Get(version uint64, key string) (*Body, bool) {
	b, ok := r.c.Get(responseKey(version, key))
	if ok {
		r.hits.Inc()
	} else {
		r.misses.Inc()
	}
	return b, ok
}

// Set offers a body for key at a snapshot version. The cache may decline it
// (admission is probabilistic); that is counted and otherwise harmless.
func (r *Responses) Set(version uint64, key string, b *Body) {
	if !r.c.Set(responseKey(version, key), b, cost(b)) {
		r.rejected.Inc()
	}
}

// entryOverhead estimates what a cached entry holds beside its body's
// bytes: the Body, its strings and header slices, the key and ristretto's
// item.
const entryOverhead = 512

// cost is what a body may come to hold: its JSON, the gzip form a client
// may add later (about a quarter of JSON's size) and the entry's overhead.
// A catalog's or a comparison's CSV form, which a client may also add
// (Body.CSV, about half the JSON), is not counted: few bodies get one.
func cost(b *Body) int64 {
	return int64(len(b.JSON)+len(b.JSON)/4+len(b.Next)) + entryOverhead
}

// Wait blocks until buffered Sets are applied; tests use it to make Sets
// visible.
func (r *Responses) Wait() { r.c.Wait() }

// Close stops the cache's goroutines.
func (r *Responses) Close() { r.c.Close() }
