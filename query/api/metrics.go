package api

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v5"
	"github.com/prometheus/client_golang/prometheus"
)

type httpMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	size     *prometheus.HistogramVec
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
		size: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "zoneprice_http_response_size_bytes", Help: "HTTP response body size by route template.",
			Buckets: prometheus.ExponentialBuckets(256, 4, 8),
		}, []string{"route"}),
		inflight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "zoneprice_http_requests_in_flight", Help: "HTTP requests being served.",
		}),
	}
	for _, c := range []prometheus.Collector{m.requests, m.duration, m.size, m.inflight} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register http metrics: %w", err)
		}
	}
	return m, nil
}

// instrument gives every request an id (the client's X-Request-Id when it
// is a sane one), counts and times it by route template (never the raw
// path, so label cardinality stays bounded), and logs it at debug level, or
// at info with Config.AccessLog.
func (s *Server) instrument(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		start := time.Now()
		req := c.Request()
		id := req.Header.Get(echo.HeaderXRequestID)
		if !saneRequestID(id) {
			id = s.ids.next()
		}
		c.Response().Header()[echo.HeaderXRequestID] = []string{id}
		s.m.inflight.Inc()
		err := next(c)
		if err != nil {
			c.Set(requestIDKey, id)
			s.echo.HTTPErrorHandler(c, err)
		}
		s.m.inflight.Dec()
		route := c.Path()
		if route == "" {
			route = "unmatched"
		}
		res, _ := echo.UnwrapResponse(c.Response()) // the outermost middleware sees echo's own
		elapsed := time.Since(start)
		s.m.requests.WithLabelValues(route, methodLabel(req.Method), strconv.Itoa(res.Status)).Inc()
		s.m.duration.WithLabelValues(route).Observe(elapsed.Seconds())
		s.m.size.WithLabelValues(route).Observe(float64(res.Size))
		if level := s.accessLevel; s.log.Enabled(req.Context(), level) {
			s.log.Log(req.Context(), level, "request", "id", id, "method", req.Method, "path", req.URL.RequestURI(),
				"route", route, "status", res.Status, "bytes", res.Size, "duration", elapsed)
		}
		return nil
	}
}

// requestIDKey is where the error handler finds the request's id.
const requestIDKey = "request_id"

// saneRequestID accepts a client's id only if it is short and printable, so
// it can go into headers and logs as it is.
func saneRequestID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] < 0x21 || id[i] > 0x7e {
			return false
		}
	}
	return true
}

// requestIDs makes ids unique within the process and, through a random
// prefix, across pods: cheaper than a random id per request.
type requestIDs struct {
	prefix string
	n      atomic.Uint64
}

func newRequestIDs() *requestIDs {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return &requestIDs{prefix: hex.EncodeToString(b[:]) + "-"}
}

func (r *requestIDs) next() string {
	return r.prefix + strconv.FormatUint(r.n.Add(1), 36)
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
