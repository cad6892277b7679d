package query

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
)

type httpMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	inflight prometheus.Gauge
}

func newHTTPMetrics(reg prometheus.Registerer) (*httpMetrics, error) {
	m := &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "zoneprice_http_requests_total", Help: "HTTP requests by route template, method and status code.",
		}, []string{"route", "method", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "zoneprice_http_request_duration_seconds", Help: "HTTP request duration by route template.",
			Buckets:                     []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, 1},
			NativeHistogramBucketFactor: 1.1,
		}, []string{"route"}),
		inflight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "zoneprice_http_requests_in_flight", Help: "HTTP requests being served.",
		}),
	}
	for _, c := range []prometheus.Collector{m.requests, m.duration, m.inflight} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register http metrics: %w", err)
		}
	}
	return m, nil
}

// instrument counts and times every request by its route template, never
// the raw path, so label cardinality stays bounded.
func (s *Server) instrument(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		s.m.inflight.Inc()
		err := next(c)
		if err != nil {
			s.echo.HTTPErrorHandler(err, c)
		}
		s.m.inflight.Dec()
		route := c.Path()
		if route == "" {
			route = "unmatched"
		}
		s.m.requests.WithLabelValues(route, methodLabel(c.Request().Method), strconv.Itoa(c.Response().Status)).Inc()
		s.m.duration.WithLabelValues(route).Observe(time.Since(start).Seconds())
		return nil
	}
}

// methodLabel bounds the method label: clients may send any token.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "other"
}
