package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// MetricsServer serves /metrics and /healthz for a command that has no API
// of its own (the ingester), so Prometheus can scrape it too.
type MetricsServer struct {
	addr string
	srv  *http.Server
	log  *slog.Logger
}

// NewMetricsServer serves gatherer on addr; with profiles, Go's runtime
// profiles too, under /debug/pprof/ (net/http/pprof): an operator's port,
// never the public one.
func NewMetricsServer(addr string, gatherer prometheus.Gatherer, profiles bool, log *slog.Logger) *MetricsServer {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(gatherer, promhttp.HandlerOpts{EnableOpenMetrics: true}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"ok"}`))
	})
	if profiles {
		mux.HandleFunc("GET /debug/pprof/", pprof.Index)
		mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	}
	return &MetricsServer{addr: addr, log: log, srv: &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 5 * time.Second,
		// A CPU profile or trace takes as long as it is asked to.
		WriteTimeout: 2 * time.Minute,
		IdleTimeout:  120 * time.Second,
	}}
}

// Run serves until ctx ends.
func (m *MetricsServer) Run(ctx context.Context) error {
	ln, err := net.Listen("tcp", m.addr)
	if err != nil {
		return fmt.Errorf("--metrics-listen (ZONEPRICE_METRICS_LISTEN): %w", err)
	}
	errc := make(chan error, 1)
	go func() { errc <- m.srv.Serve(ln) }()
	m.log.Info("metrics listening", "addr", ln.Addr().String())
	select {
	case err := <-errc:
		return fmt.Errorf("serve metrics: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = m.srv.Shutdown(sctx)
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}
