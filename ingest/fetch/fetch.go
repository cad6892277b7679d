// Package fetch is the HTTP client every live registrar adapter fetches its
// price list with. It retries network errors and 5xx responses with
// exponential backoff and full jitter, honours Retry-After on 429 and 503,
// makes conditional requests (If-None-Match, If-Modified-Since) where the
// server gave validators, sends a descriptive User-Agent, bounds the body
// it will read, and sends one request at a time to each host.
package fetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultUserAgent names the service and where to learn about it, as a
// polite client of someone else's API does.
const DefaultUserAgent = "zoneprice-ingest/1 (+https://github.com/zoneprice/zoneprice)"

// Config configures a Client. The zero value of each field means its
// default.
type Config struct {
	// UserAgent is sent with every request.
	UserAgent string
	// Attempts is the most requests made for one fetch, first included
	// (default 4).
	Attempts int
	// BaseDelay is the backoff before the second attempt; each later one
	// doubles it, up to MaxDelay, and the actual wait is drawn uniformly
	// below that bound (full jitter). Defaults 1s and 30s.
	BaseDelay, MaxDelay time.Duration
	// MaxRetryAfter is the longest Retry-After the client waits out
	// (default 2m); a server asking for longer fails the fetch, naming
	// the wait, and the runner's next round tries again.
	MaxRetryAfter time.Duration
	// MaxBody is the largest body read (default 64 MiB); a longer one is
	// an error rather than a truncated price list.
	MaxBody int64
	// Sleep waits between attempts; nil means a real timer. Tests of
	// adapters pass one that returns at once, so that retrying costs
	// them no time.
	Sleep func(ctx context.Context, d time.Duration) error
}

func (c Config) withDefaults() Config {
	if c.UserAgent == "" {
		c.UserAgent = DefaultUserAgent
	}
	if c.Attempts <= 0 {
		c.Attempts = 4
	}
	if c.BaseDelay <= 0 {
		c.BaseDelay = time.Second
	}
	if c.MaxDelay <= 0 {
		c.MaxDelay = 30 * time.Second
	}
	if c.MaxRetryAfter <= 0 {
		c.MaxRetryAfter = 2 * time.Minute
	}
	if c.MaxBody <= 0 {
		c.MaxBody = 64 << 20
	}
	if c.Sleep == nil {
		c.Sleep = sleep
	}
	return c
}

// Client fetches documents. It remembers, per URL, the validators and body
// of the last 200 response, so that a 304 answers with that body again. It
// is safe for concurrent use.
type Client struct {
	hc  *http.Client
	cfg Config
	log *slog.Logger

	mu    sync.Mutex
	cache map[string]cached
	// hosts holds one semaphore per host (Client.host).
	hosts map[string]chan struct{}

	// sleep waits between attempts; tests replace it to see the waits
	// without spending them.
	sleep func(ctx context.Context, d time.Duration) error
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

type cached struct {
	etag, lastModified string
	body               []byte
}

// Request is one document to fetch. Body, when set, is sent again on each
// attempt.
type Request struct {
	Method string // default GET
	URL    string
	Header http.Header
	Body   []byte
	// Secrets are replaced by [REDACTED] wherever the client logs this
	// request's errors. The caller redacts the error it gets back, which
	// may wrap more than the client knows.
	Secrets []string
	// Conditional makes the request conditional on the validators of the
	// last response for the same URL. Leave it off for requests whose
	// answer depends on more than the URL (a POST, a paged query).
	Conditional bool
}

// Response is a fetched document.
type Response struct {
	Body []byte
	// NotModified is set when the server answered 304 and Body is the
	// remembered body of the last 200.
	NotModified bool
	// Status is the server's answer: a 2xx, or 304 with NotModified.
	Status int
	Header http.Header
}

// StatusError is an HTTP status the client did not accept.
type StatusError struct {
	Method string
	URL    string
	Status int
	// Snippet is the start of the body, which often says why.
	Snippet string
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("%s %s: HTTP %d", e.Method, e.URL, e.Status)
	if e.Snippet != "" {
		msg += ": " + e.Snippet
	}
	return msg
}

// New returns a Client on hc (http.DefaultClient when nil). hc's Timeout
// bounds each attempt; the caller's context bounds the whole fetch,
// retries included.
func New(cfg Config, hc *http.Client, log *slog.Logger) *Client {
	if hc == nil {
		hc = http.DefaultClient
	}
	cfg = cfg.withDefaults()
	return &Client{hc: hc, cfg: cfg, log: log, cache: map[string]cached{}, sleep: cfg.Sleep, hosts: map[string]chan struct{}{}}
}

// host returns the semaphore of rawURL's host: one request at a time to
// each host, however many sources share it (or run at once), because a
// registrar's endpoint is someone else's server.
func (c *Client) host(rawURL string) chan struct{} {
	h := rawURL
	if u, err := url.Parse(rawURL); err == nil {
		h = u.Host
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	sem, ok := c.hosts[h]
	if !ok {
		sem = make(chan struct{}, 1)
		c.hosts[h] = sem
	}
	return sem
}

// Get fetches url conditionally.
func (c *Client) Get(ctx context.Context, url string, h http.Header) (*Response, error) {
	return c.Do(ctx, Request{URL: url, Header: h, Conditional: true})
}

// Do fetches one document, retrying as the package comment says, until it
// succeeds, the attempts run out, or ctx ends.
func (c *Client) Do(ctx context.Context, req Request) (*Response, error) {
	if req.Method == "" {
		req.Method = http.MethodGet
	}
	sem := c.host(req.URL)
	var lastErr error
	attempt := 1
	for ; ; attempt++ {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		resp, retryAfter, err := c.attempt(ctx, req)
		<-sem
		if err == nil {
			if err := captured(ctx, req, resp); err != nil {
				return nil, err
			}
			return resp, nil
		}
		lastErr = err
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w (last error: %v)", ctx.Err(), lastErr)
		}
		if !retryable(err) || attempt >= c.cfg.Attempts {
			break
		}
		wait := c.backoff(attempt)
		if retryAfter > 0 {
			if retryAfter > c.cfg.MaxRetryAfter {
				return nil, fmt.Errorf("%w; server asks to retry after %v, more than the %v this client waits", lastErr, retryAfter, c.cfg.MaxRetryAfter)
			}
			wait = retryAfter
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			if retryAfter > 0 {
				return nil, fmt.Errorf("%w; next retry in %v is past the fetch's deadline", lastErr, wait)
			}
			// Backoff is ours to shorten: leave the last attempt a
			// tenth of what remains.
			wait = time.Until(dl) * 9 / 10
		}
		c.log.Warn("fetch failed; retrying", "url", redact(req.URL, req.Secrets), "attempt", attempt, "wait", wait,
			"err", redact(err.Error(), req.Secrets))
		if err := c.sleep(ctx, wait); err != nil {
			return nil, fmt.Errorf("%w (last error: %v)", err, lastErr)
		}
	}
	if attempt == 1 {
		return nil, lastErr
	}
	return nil, fmt.Errorf("after %d attempts: %w", attempt, lastErr)
}

// backoff is the wait before attempt n+1: uniform in [0, min(MaxDelay,
// BaseDelay·2^(n-1))).
func (c *Client) backoff(n int) time.Duration {
	bound := c.cfg.BaseDelay << min(n-1, 20)
	if bound > c.cfg.MaxDelay || bound <= 0 {
		bound = c.cfg.MaxDelay
	}
	return rand.N(bound) + 1
}

// retryableError marks errors worth another attempt.
type retryableError struct{ err error }

func (e retryableError) Error() string { return e.err.Error() }
func (e retryableError) Unwrap() error { return e.err }

func retryable(err error) bool {
	var r retryableError
	return errors.As(err, &r)
}

func (c *Client) attempt(ctx context.Context, req Request) (*Response, time.Duration, error) {
	var body io.Reader
	if req.Body != nil {
		body = bytes.NewReader(req.Body)
	}
	hr, err := http.NewRequestWithContext(ctx, req.Method, req.URL, body)
	if err != nil {
		return nil, 0, fmt.Errorf("build request: %w", err)
	}
	for k, vs := range req.Header {
		hr.Header[k] = vs
	}
	hr.Header.Set("User-Agent", c.cfg.UserAgent)
	var prev cached
	if req.Conditional {
		c.mu.Lock()
		prev = c.cache[req.URL]
		c.mu.Unlock()
		if prev.etag != "" {
			hr.Header.Set("If-None-Match", prev.etag)
		}
		if prev.lastModified != "" {
			hr.Header.Set("If-Modified-Since", prev.lastModified)
		}
	}
	resp, err := c.hc.Do(hr)
	if err != nil {
		var dns *net.DNSError
		if ctx.Err() != nil || (errors.As(err, &dns) && dns.IsNotFound) {
			// A host that does not exist will not exist in a second
			// either: the runner's next round tries again, and a
			// machine with no internet starts without waiting.
			return nil, 0, fmt.Errorf("%s %s: %w", req.Method, req.URL, err)
		}
		return nil, 0, retryableError{fmt.Errorf("%s %s: %w", req.Method, req.URL, err)}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, c.cfg.MaxBody+1))
	if err != nil {
		// A connection cut mid-body: the list is truncated, try again.
		return nil, 0, retryableError{fmt.Errorf("%s %s: read body: %w", req.Method, req.URL, err)}
	}
	if int64(len(data)) > c.cfg.MaxBody {
		return nil, 0, fmt.Errorf("%s %s: body larger than %d bytes", req.Method, req.URL, c.cfg.MaxBody)
	}
	switch {
	case resp.StatusCode == http.StatusNotModified && req.Conditional && prev.body != nil:
		return &Response{Body: prev.body, NotModified: true, Status: resp.StatusCode, Header: resp.Header}, 0, nil
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		if req.Conditional {
			etag, lm := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
			c.mu.Lock()
			if etag != "" || lm != "" {
				c.cache[req.URL] = cached{etag: etag, lastModified: lm, body: data}
			} else {
				delete(c.cache, req.URL)
			}
			c.mu.Unlock()
		}
		return &Response{Body: data, Status: resp.StatusCode, Header: resp.Header}, 0, nil
	}
	serr := &StatusError{Method: req.Method, URL: req.URL, Status: resp.StatusCode, Snippet: snippet(data)}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		return nil, retryAfter(resp.Header.Get("Retry-After"), time.Now()), retryableError{serr}
	case http.StatusRequestTimeout:
		return nil, 0, retryableError{serr}
	}
	if resp.StatusCode >= 500 {
		return nil, 0, retryableError{serr}
	}
	return nil, 0, serr
}

// retryAfter reads a Retry-After value: delay seconds or an HTTP date.
// Zero means none was given or it could not be read.
func retryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		switch {
		case s < 0:
			return 0
		case s > int64(math.MaxInt64/time.Second):
			return math.MaxInt64 // longer than any client waits
		}
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

func snippet(b []byte) string {
	const max = 200
	b = bytes.TrimSpace(b)
	if len(b) > max {
		b = b[:max]
	}
	return string(bytes.ToValidUTF8(b, []byte("?")))
}

// Redact hides every secret in err's message, for a credentialed source
// whose server may echo them, and keeps the error it wraps inspectable
// with errors.Is and errors.As.
func Redact(err error, secrets ...string) error {
	if msg := redact(err.Error(), secrets); msg != err.Error() {
		return &redactedError{msg: msg, err: err}
	}
	return err
}

// redactedError is an error whose message has its secrets redacted.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// redact replaces every secret in s.
func redact(s string, secrets []string) string {
	for _, secret := range secrets {
		if secret != "" {
			s = strings.ReplaceAll(s, secret, "[REDACTED]")
		}
	}
	return s
}

// Ready checks what a source's constructor needs before it builds the
// source named source: a valid configuration (cfg's Validate) and a
// client. It returns the source's clock, time.Now when now is nil.
func Ready(source string, cfg interface{ Validate() error }, client *Client, now func() time.Time) (func() time.Time, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if client == nil {
		return nil, fmt.Errorf("%s source needs a fetch client", source)
	}
	if now == nil {
		now = time.Now
	}
	return now, nil
}

// CheckURL reports a configured address the client cannot fetch: anything
// but an absolute http or https URL. Empty is fine; it means the source's
// default.
func CheckURL(raw string) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an absolute http or https URL", raw)
	}
	return nil
}
