package api_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
	"github.com/zoneprice/zoneprice/query/access"
	"github.com/zoneprice/zoneprice/query/api"
)

// discard is a ResponseWriter that keeps only the headers, so that a
// benchmark measures the handler rather than a recorder.
type discard struct {
	h    http.Header
	code int
}

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(code int)        { d.code = code }

// BenchmarkLimiterMiddleware serves /api/comparison/.com, a small body, so
// that the middleware weighs as much as it can, from many goroutines as one
// client address (as wrk does), in process: the whole chain with limits off,
// with the free tier, and with an API key, against a bare net/http handler
// writing the same bytes. The rate is so high that nothing is refused, and
// the burst small enough for the header values to be the precomputed ones,
// as with real limits.
func BenchmarkLimiterMiddleware(b *testing.B) {
	_, js := bustest.Provisioned(b)
	publish(b, js, baseEvents()...)
	kv, err := js.KeyValue(context.Background(), contracts.KeysBucket)
	if err != nil {
		b.Fatal(err)
	}
	key := createKey(b, kv, contracts.ProTier).key
	rate := access.Rate{Limit: 1e9, Window: time.Second, Burst: 1000}

	server := func(b *testing.B, anonymous access.Rate) http.Handler {
		cfg := api.DefaultConfig()
		cfg.Limits.Anonymous = anonymous
		cfg.Limits.Tiers = access.Tiers{contracts.ProTier: rate}
		return startPod(b, js, podConfig{cfg: &cfg, runKeys: true}).handler
	}
	off := server(b, access.Rate{})
	rec0 := httptest.NewRecorder()
	off.ServeHTTP(rec0, httptest.NewRequest(http.MethodGet, "/api/comparison/.com", nil))
	body, ctype := rec0.Body.Bytes(), rec0.Header().Get("Content-Type")
	bare := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		h := w.Header()
		h["Content-Type"] = []string{ctype}
		h["Content-Length"] = []string{strconv.Itoa(len(body))}
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body)
	})
	limited := server(b, rate)

	for _, bc := range []struct {
		name    string
		handler http.Handler
		header  http.Header
	}{
		{"bare net/http", bare, nil},
		{"chain, limits off", off, nil},
		{"chain, free tier", limited, nil},
		{"chain, API key", limited, http.Header{"X-Api-Key": {key}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				req := httptest.NewRequest(http.MethodGet, "/api/comparison/.com", nil)
				req.RemoteAddr = "192.0.2.1:1234"
				for k, v := range bc.header {
					req.Header[k] = v
				}
				w := &discard{h: http.Header{}}
				for pb.Next() {
					clear(w.h)
					bc.handler.ServeHTTP(w, req)
					if w.code != http.StatusOK {
						b.Errorf("status %d: %v", w.code, w.h)
						return
					}
				}
			})
		})
	}
}
