package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
)

// Config is the balancer's configuration.
type Config struct {
	// Addr is where it listens.
	Addr string
	// Backends are the query pods' base URLs (scheme and host[:port]).
	Backends []string
	// CheckPath is the readiness endpoint asked on every backend.
	CheckPath string
	// CheckInterval is how often each backend is asked; a backend is
	// routed to only while its last answer was 200.
	CheckInterval time.Duration
	// CheckTimeout bounds one check; a backend that does not answer in
	// time is not ready. Zero means CheckInterval.
	CheckTimeout time.Duration
}

// DefaultConfig is a balancer on :8080 checking /readyz every 500ms.
func DefaultConfig() Config {
	return Config{Addr: ":8080", CheckPath: "/readyz", CheckInterval: 500 * time.Millisecond}
}

// Validate reports settings that cannot work, naming the flag.
func (c Config) Validate() error {
	if len(c.Backends) == 0 {
		return errors.New("--backends (ZONEPRICE_LB_BACKENDS): give at least one backend URL")
	}
	for _, b := range c.Backends {
		u, err := url.Parse(b)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.TrimSuffix(u.Path, "/") != "" || u.RawQuery != "" {
			return fmt.Errorf("--backends (ZONEPRICE_LB_BACKENDS): %q is not a base URL such as http://query-1:8080", b)
		}
	}
	if !strings.HasPrefix(c.CheckPath, "/") {
		return fmt.Errorf("--check-path (ZONEPRICE_LB_CHECK_PATH): %q does not start with /", c.CheckPath)
	}
	if c.CheckInterval <= 0 {
		return fmt.Errorf("--check-interval (ZONEPRICE_LB_CHECK_INTERVAL): %v must be positive", c.CheckInterval)
	}
	if c.CheckTimeout < 0 || c.CheckTimeout > c.CheckInterval {
		return fmt.Errorf("--check-timeout (ZONEPRICE_LB_CHECK_TIMEOUT): %v must be at most --check-interval (%v)", c.CheckTimeout, c.CheckInterval)
	}
	return nil
}

// backend is one query pod and what its last check said.
type backend struct {
	url   *url.URL
	ready atomic.Bool
}

// Balancer proxies requests round-robin to the backends that are ready.
type Balancer struct {
	cfg      Config
	backends []*backend
	next     atomic.Uint64
	proxy    *httputil.ReverseProxy
	checker  *http.Client
	log      *slog.Logger
}

// NewBalancer returns a balancer over cfg's backends, all of them unready
// until their first check answers.
func NewBalancer(cfg Config, log *slog.Logger) (*Balancer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	b := &Balancer{cfg: cfg, log: log}
	for _, raw := range cfg.Backends {
		u, _ := url.Parse(raw)
		u.Path = ""
		b.backends = append(b.backends, &backend{url: u})
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConnsPerHost = 64
	b.proxy = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(attemptsOf(pr.In.Context())[0].url)
			pr.SetXForwarded()
		},
		Transport:    &retrier{base: transport, b: b},
		ErrorHandler: b.proxyError,
	}
	// Checks never reuse a connection a stopped backend left behind.
	check := http.DefaultTransport.(*http.Transport).Clone()
	check.DisableKeepAlives = true
	timeout := cfg.CheckTimeout
	if timeout == 0 {
		timeout = cfg.CheckInterval
	}
	b.checker = &http.Client{Transport: check, Timeout: timeout}
	return b, nil
}

type attemptsKey struct{}

// attemptsOf returns the backends a request may be sent to, in order.
func attemptsOf(ctx context.Context) []*backend {
	a, _ := ctx.Value(attemptsKey{}).([]*backend)
	return a
}

// ServeHTTP sends r to the next ready backend, and to the ones after it
// while a GET or HEAD finds the connection refused or reset.
func (b *Balancer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	order := b.ready()
	if len(order) == 0 {
		writeProblem(w, r, "no query pod is ready; try again shortly")
		return
	}
	b.proxy.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), attemptsKey{}, order)))
}

// ready returns the ready backends, starting at the next one in turn.
func (b *Balancer) ready() []*backend {
	start := int(b.next.Add(1) - 1)
	var out []*backend
	for i := range b.backends {
		if be := b.backends[(start+i)%len(b.backends)]; be.ready.Load() {
			out = append(out, be)
		}
	}
	return out
}

// proxyError answers when no attempt got a response.
func (b *Balancer) proxyError(w http.ResponseWriter, r *http.Request, err error) {
	if r.Context().Err() != nil {
		return // the client left
	}
	b.log.Warn("no backend answered", "method", r.Method, "path", r.URL.Path, "err", err)
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(http.StatusBadGateway)
	p := contracts.NewProblem(http.StatusBadGateway, "http-502", "Bad gateway", "no query pod answered")
	p.Instance = r.URL.Path
	_ = json.NewEncoder(w).Encode(p)
}

func writeProblem(w http.ResponseWriter, r *http.Request, detail string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Retry-After", "1")
	w.WriteHeader(http.StatusServiceUnavailable)
	p := contracts.NewProblem(http.StatusServiceUnavailable, contracts.CodeNotReady, "Not ready", detail)
	p.Instance = r.URL.Path
	_ = json.NewEncoder(w).Encode(p)
}

// retrier sends a request to the next backend when the one before failed
// without sending a byte of a response, if sending it twice is harmless.
type retrier struct {
	base http.RoundTripper
	b    *Balancer
}

func (t *retrier) RoundTrip(req *http.Request) (*http.Response, error) {
	order := attemptsOf(req.Context())
	resp, err := t.base.RoundTrip(req)
	for i := 1; err != nil && i < len(order) && retryable(req, err); i++ {
		failed := order[i-1]
		if isDial(err) && failed.ready.CompareAndSwap(true, false) {
			// Nothing listens: leave it out until a check says otherwise.
			t.b.log.Info("backend out: connection refused", "backend", failed.url.String(), "err", err)
		}
		next := req.Clone(req.Context())
		next.URL.Scheme, next.URL.Host = order[i].url.Scheme, order[i].url.Host
		resp, err = t.base.RoundTrip(next)
	}
	return resp, err
}

// retryable reports whether req may go to another backend after err: it
// is idempotent and has no body to replay, the client is still waiting,
// and the backend refused or dropped the connection before answering.
func retryable(req *http.Request, err error) bool {
	if (req.Method != http.MethodGet && req.Method != http.MethodHead) || (req.Body != nil && req.Body != http.NoBody) || req.Context().Err() != nil {
		return false
	}
	return isDial(err) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// isDial reports whether err happened while connecting, so that nothing
// at all reached the backend.
func isDial(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// Run checks every backend every CheckInterval until ctx ends.
func (b *Balancer) Run(ctx context.Context) error {
	t := time.NewTicker(b.cfg.CheckInterval)
	defer t.Stop()
	for {
		b.checkAll(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// checkAll checks every backend at once and returns when all have
// answered or timed out.
func (b *Balancer) checkAll(ctx context.Context) {
	var wg sync.WaitGroup
	for _, be := range b.backends {
		wg.Go(func() { b.check(ctx, be) })
	}
	wg.Wait()
}

// check asks one backend whether it is ready and logs a change.
func (b *Balancer) check(ctx context.Context, be *backend) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, be.url.String()+b.cfg.CheckPath, nil)
	if err != nil {
		return
	}
	ready := false
	why := ""
	resp, err := b.checker.Do(req)
	if err != nil {
		why = err.Error()
	} else {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		ready = resp.StatusCode == http.StatusOK
		why = resp.Status
	}
	if ctx.Err() != nil {
		return
	}
	if was := be.ready.Swap(ready); was != ready {
		if ready {
			b.log.Info("backend in: ready", "backend", be.url.String())
		} else {
			b.log.Info("backend out: not ready", "backend", be.url.String(), "check", why)
		}
	}
}
