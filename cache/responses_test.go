package cache

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestResponsesConfigValidate(t *testing.T) {
	tests := []struct {
		name    string
		cfg     ResponsesConfig
		wantErr bool
	}{
		{name: "default", cfg: DefaultResponsesConfig()},
		{name: "one MiB", cfg: ResponsesConfig{MaxBytes: 1 << 20}},
		{name: "one byte short of a MiB", cfg: ResponsesConfig{MaxBytes: 1<<20 - 1}, wantErr: true},
		{name: "zero", cfg: ResponsesConfig{}, wantErr: true},
		{name: "negative", cfg: ResponsesConfig{MaxBytes: -1}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if got := err != nil; got != tt.wantErr {
				t.Errorf("Validate() = %v, want error %v", err, tt.wantErr)
			}
		})
	}
}

func newResponses(t *testing.T, cfg ResponsesConfig) (*Responses, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	r, err := NewResponses(cfg, reg)
	if err != nil {
		t.Fatalf("NewResponses(%+v): %v", cfg, err)
	}
	t.Cleanup(r.Close)
	return r, reg
}

// counter reads a counter from what reg exposes, failing when it is absent.
func counter(t *testing.T, reg prometheus.Gatherer, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		if len(mf.GetMetric()) != 1 || mf.GetMetric()[0].GetCounter() == nil {
			t.Fatalf("%s is not a single counter: %v", name, mf)
		}
		return mf.GetMetric()[0].GetCounter().GetValue()
	}
	t.Fatalf("%s is not registered", name)
	return 0
}

func TestNewResponsesRejectsSmallConfig(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	r, err := NewResponses(ResponsesConfig{MaxBytes: 1<<20 - 1}, reg)
	if err == nil {
		r.Close()
		t.Fatal("NewResponses with less than 1 MiB succeeded, want an error")
	}
	if r != nil {
		t.Errorf("NewResponses returned %v with its error, want nil", r)
	}
	if n, err := testutil.GatherAndCount(reg); err != nil || n != 0 {
		t.Errorf("registry holds %d metrics (err %v) after a failed NewResponses, want 0", n, err)
	}
}

func TestNewResponsesRegistersOnce(t *testing.T) {
	_, reg := newResponses(t, DefaultResponsesConfig())
	r, err := NewResponses(DefaultResponsesConfig(), reg)
	if err == nil {
		r.Close()
		t.Fatal("second NewResponses on one registry succeeded, want a registration error")
	}
	if !strings.Contains(err.Error(), "register") {
		t.Errorf("error = %q, want it to say registration failed", err)
	}
}

func TestResponsesSetGet(t *testing.T) {
	r, reg := newResponses(t, DefaultResponsesConfig())
	body := NewBody([]byte(`{"zones":[]}`), time.Time{})
	other := NewBody([]byte(`{"zones":[".com"]}`), time.Time{})
	r.Set(7, "search?q=com", body)
	r.Set(36, "abc", other)
	r.Wait()

	tests := []struct {
		name    string
		version uint64
		key     string
		want    *Body
	}{
		{name: "same version and key", version: 7, key: "search?q=com", want: body},
		{name: "other version", version: 8, key: "search?q=com"},
		{name: "older version", version: 6, key: "search?q=com"},
		{name: "other key", version: 7, key: "search?q=net"},
		{name: "second entry", version: 36, key: "abc", want: other},
		// Version 36 is "10" in base 36: without a separator "1"+"0abc"
		// would be the same key as "10"+"abc".
		{name: "key that would collide without a separator", version: 1, key: "0abc"},
	}
	var hits, misses float64
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := r.Get(tt.version, tt.key)
			if tt.want == nil {
				misses++
				if ok {
					t.Errorf("Get(%d, %q) = %s, want a miss", tt.version, tt.key, got.JSON)
				}
				return
			}
			hits++
			if !ok {
				t.Fatalf("Get(%d, %q) missed, want %s", tt.version, tt.key, tt.want.JSON)
			}
			if got != tt.want || !bytes.Equal(got.JSON, tt.want.JSON) || got.ETag != tt.want.ETag {
				t.Errorf("Get(%d, %q) = %s %s, want %s %s", tt.version, tt.key, got.JSON, got.ETag, tt.want.JSON, tt.want.ETag)
			}
		})
	}
	if got := counter(t, reg, "zoneprice_response_cache_hits_total"); got != hits {
		t.Errorf("hits = %v, want %v", got, hits)
	}
	if got := counter(t, reg, "zoneprice_response_cache_misses_total"); got != misses {
		t.Errorf("misses = %v, want %v", got, misses)
	}
}

func TestResponsesRejectedCounter(t *testing.T) {
	r, reg := newResponses(t, DefaultResponsesConfig())
	const name = "zoneprice_response_cache_sets_rejected_total"
	if got := counter(t, reg, name); got != 0 {
		t.Fatalf("%s = %v before any Set, want 0", name, got)
	}
	if got := testutil.ToFloat64(r.rejected); got != 0 {
		t.Fatalf("rejected = %v before any Set, want 0", got)
	}
	// A closed cache declines every Set, deterministically.
	r.Close()
	r.Set(1, "k", NewBody([]byte(`{}`), time.Time{}))
	if got := counter(t, reg, name); got != 1 {
		t.Errorf("%s = %v after a Set on a closed cache, want 1", name, got)
	}
}

// A body the admission policy refuses after Set returned (here one larger
// than the whole cache) is counted as rejected too.
func TestResponsesPolicyRejectionCounted(t *testing.T) {
	cfg := ResponsesConfig{MaxBytes: 1 << 20}
	r, reg := newResponses(t, cfg)
	r.Set(1, "huge", NewBody(make([]byte, cfg.MaxBytes+1), time.Time{}))
	r.Wait()
	if _, ok := r.Get(1, "huge"); ok {
		t.Fatal("a body larger than MaxBytes was cached, want it refused")
	}
	if got := counter(t, reg, "zoneprice_response_cache_sets_rejected_total"); got != 1 {
		t.Errorf("sets_rejected_total = %v after the cache refused a body, want 1", got)
	}
}

func TestResponsesMetricsLint(t *testing.T) {
	_, reg := newResponses(t, DefaultResponsesConfig())
	problems, err := testutil.GatherAndLint(reg)
	if err != nil {
		t.Fatalf("GatherAndLint: %v", err)
	}
	for _, p := range problems {
		t.Errorf("metric %s: %s", p.Metric, p.Text)
	}
	n, err := testutil.GatherAndCount(reg,
		"zoneprice_response_cache_hits_total",
		"zoneprice_response_cache_misses_total",
		"zoneprice_response_cache_sets_rejected_total",
	)
	if err != nil || n != 3 {
		t.Errorf("registered response cache metrics = %d (err %v), want 3", n, err)
	}
}
