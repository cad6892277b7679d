package notify

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"code.dny.dev/ssrf"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/zoneprice/zoneprice/contracts"
)

// Guard decides, when a delivery connects and after DNS resolution,
// whether the address may be reached: only public unicast addresses on an
// allowed port (code.dny.dev/ssrf's deny list: loopback, private,
// link-local with 169.254.169.254, CGNAT, multicast, unspecified,
// documentation and the other special-purpose ranges, and their IPv6
// equivalents, including IPv4-mapped addresses). Checking the address
// dialled, not the name in the URL, is what keeps DNS rebinding out: the
// name may resolve to anything at any time. With loopback allowed (tests,
// local development) loopback addresses pass on any port; addresses in
// Config.AllowPrefixes (a test's private network) pass on the allowed
// ports.
type Guard struct {
	ssrf     *ssrf.Guardian
	loopback bool
}

// NewGuard returns the guard cfg asks for.
func NewGuard(cfg Config) *Guard {
	var v4, v6 []netip.Prefix
	for _, p := range cfg.AllowPrefixes {
		if p.Addr().Is4() {
			v4 = append(v4, p)
		} else {
			v6 = append(v6, p)
		}
	}
	return &Guard{
		ssrf:     ssrf.New(ssrf.WithPorts(cfg.Ports...), ssrf.WithAllowedV4Prefixes(v4...), ssrf.WithAllowedV6Prefixes(v6...)),
		loopback: cfg.AllowLoopback,
	}
}

// Control is a net.Dialer's Control.
func (g *Guard) Control(network, address string, c syscall.RawConn) error {
	if g.loopback {
		if ap, err := netip.ParseAddrPort(address); err == nil && ap.Addr().Unmap().IsLoopback() {
			return nil
		}
	}
	return g.ssrf.Safe(network, address, c)
}

// refused reports whether err is the guard's refusal.
func refused(err error) bool {
	return errors.Is(err, ssrf.ErrProhibitedIP) || errors.Is(err, ssrf.ErrProhibitedPort) ||
		errors.Is(err, ssrf.ErrProhibitedNetwork) || errors.Is(err, ssrf.ErrInvalidHostPort)
}

// sender sends deliveries over HTTP, through the guard, never following a
// redirect and never through a proxy (a proxy would connect where the
// guard cannot see).
type sender struct {
	cfg     Config
	client  *http.Client
	signers *signers
	// The constant headers' values.
	contentType, userAgent []string
	// urls remembers each endpoint URL's check (contracts.ValidateWebhookURL,
	// nil or its error), at most maxCheckedURLs of them: a delivery parsed
	// its URL twice, once for the check and once for the request.
	urls    sync.Map
	checked atomic.Int64
}

// maxCheckedURLs bounds sender.urls; URLs beyond it are checked each time.
const maxCheckedURLs = 1 << 16

// checkURL is contracts.ValidateWebhookURL for u, remembered.
func (s *sender) checkURL(u string) error {
	if v, ok := s.urls.Load(u); ok {
		err, _ := v.(error)
		return err
	}
	err := contracts.ValidateWebhookURL(u, s.cfg.AllowHTTP)
	if s.checked.Add(1) <= maxCheckedURLs {
		s.urls.Store(u, err)
	}
	return err
}

func newSender(cfg Config) *sender {
	dialer := &net.Dialer{Timeout: cfg.Timeout, KeepAlive: 30 * time.Second, Control: NewGuard(cfg).Control}
	tr := &http.Transport{
		Proxy:               nil,
		DialContext:         dialer.DialContext,
		ForceAttemptHTTP2:   true,
		TLSHandshakeTimeout: 10 * time.Second,
		// No ResponseHeaderTimeout: the client's Timeout, the same,
		// bounds the whole attempt, and one timer per request is enough.
		MaxIdleConns: 1024,
		// Idle connections are kept per host, not per endpoint: one host
		// may receive for many endpoints (a webhook service's), and with
		// only an endpoint's share kept, most of a fan-out to them opened
		// a connection (1.6 to 2.8 times as long as over 50 hosts, make
		// bench). Every worker may reuse one.
		MaxIdleConnsPerHost: max(cfg.Workers, cfg.EndpointConcurrency, 2),
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	return &sender{cfg: cfg, signers: newSigners(),
		contentType: []string{"application/json"}, userAgent: []string{cfg.UserAgent}, client: &http.Client{
			Transport: tr,
			Timeout:   cfg.Timeout,
			// A redirect is the receiver's answer, and a failure: following
			// it would send a signed delivery somewhere nobody registered.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}}
}

// The Standard Webhooks headers, in canonical form.
var (
	headerWebhookID        = http.CanonicalHeaderKey(standardwebhooks.HeaderWebhookID)
	headerWebhookTimestamp = http.CanonicalHeaderKey(standardwebhooks.HeaderWebhookTimestamp)
	headerWebhookSignature = http.CanonicalHeaderKey(standardwebhooks.HeaderWebhookSignature)
)

// result is how one attempt went.
type result struct {
	outcome contracts.DeliveryOutcome
	status  int
	err     string
	// retryAfter is the receiver's Retry-After on 429 or 503, 0 if none.
	retryAfter time.Duration
	duration   time.Duration
}

// maxErrorBody is how much of a failed answer's body the error shows.
const maxErrorBody = 200

// send makes one attempt of delivery id (its body) to w, signed at now.
func (s *sender) send(ctx context.Context, w *contracts.Webhook, id string, body []byte, now time.Time) result {
	if err := s.checkURL(w.URL); err != nil {
		return result{outcome: contracts.OutcomeRefused, err: err.Error()}
	}
	sig, err := s.signers.sign(w.SigningSecrets(now), id, now, body)
	if err != nil {
		return result{outcome: contracts.OutcomeFailed, err: err.Error()}
	}
	// The client's Timeout bounds the attempt.
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader(body))
	if err != nil {
		return result{outcome: contracts.OutcomeFailed, err: err.Error()}
	}
	// Set in canonical form, and the constant values shared: nothing
	// on the way changes a request's headers.
	req.Header = http.Header{
		headerWebhookID:        {id},
		headerWebhookTimestamp: {strconv.FormatInt(now.Unix(), 10)},
		headerWebhookSignature: {sig},
		"Content-Type":         s.contentType,
		"User-Agent":           s.userAgent,
	}
	start := time.Now()
	resp, err := s.client.Do(req)
	r := result{duration: time.Since(start)}
	switch {
	case err != nil && refused(err):
		r.outcome, r.err = contracts.OutcomeRefused, "refused: "+guardReason(err)
		return r
	case err != nil && (errors.Is(err, context.DeadlineExceeded) || isTimeout(err)):
		r.outcome, r.err = contracts.OutcomeFailed, fmt.Sprintf("no answer within %v", s.cfg.Timeout)
		return r
	case err != nil:
		r.outcome, r.err = contracts.OutcomeFailed, err.Error()
		return r
	}
	defer resp.Body.Close()
	r.status = resp.StatusCode
	// The start of the answer, shown in a failure's error; read into
	// the stack, since most answers are a 2xx that nobody reads.
	var buf [maxErrorBody]byte
	n, _ := io.ReadFull(resp.Body, buf[:])
	snippet := buf[:n]
	// Read a little more so the connection can be reused, not the rest
	// of an endless answer.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	r.duration = time.Since(start)
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		r.outcome = contracts.OutcomeDelivered
		return r
	case resp.StatusCode == http.StatusGone:
		r.outcome, r.err = contracts.OutcomeGone, "answered 410 Gone"
		return r
	}
	r.outcome = contracts.OutcomeFailed
	r.err = "answered " + resp.Status
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		r.err += " (redirects are not followed)"
	}
	if text := strings.TrimSpace(strings.ToValidUTF8(string(snippet), "")); text != "" {
		r.err += ": " + text
	}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		r.retryAfter = retryAfter(resp.Header.Get("Retry-After"), now)
	}
	return r
}

// guardReason is the guard's refusal without the dialler's wrapping.
func guardReason(err error) string {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err.Error()
	}
	return err.Error()
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// signers keeps each signing secret in use keyed once: its key decoded,
// and HMACs whose state Reset takes back to the key's, so that a
// delivery costs the hash of its own bytes and no more. They are kept
// in a pool per secret, since workers sign for one endpoint at once.
// The table is emptied when it holds maxSigners secrets (rotated and
// deleted endpoints' secrets go then).
type signers struct {
	mu sync.RWMutex
	by map[string]*sync.Pool
}

// maxSigners bounds the secrets a replica keeps keyed.
const maxSigners = 100_000

func newSigners() *signers { return &signers{by: map[string]*sync.Pool{}} }

// pool returns the pool of HMACs keyed with secret.
func (s *signers) pool(secret string) (*sync.Pool, error) {
	s.mu.RLock()
	p, ok := s.by[secret]
	s.mu.RUnlock()
	if ok {
		return p, nil
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, contracts.WebhookSecretPrefix))
	if err != nil {
		return nil, errors.New("a signing secret is not base64")
	}
	p = &sync.Pool{New: func() any { return hmac.New(sha256.New, key) }}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.by) >= maxSigners {
		clear(s.by)
	}
	s.by[secret] = p
	return p, nil
}

// sign returns the webhook-signature header: a "v1,<signature>" by each
// secret, separated by spaces, as Standard Webhooks asks while a rotated
// secret still signs. The signature is the base64 HMAC-SHA256 of
// id.ts.body, written to the hash piece by piece, not copied into one.
func (s *signers) sign(secrets []string, id string, ts time.Time, body []byte) (string, error) {
	if len(secrets) == 0 {
		return "", errors.New("the endpoint has no signing secret in force")
	}
	var buf [64]byte
	prefix := append(append(buf[:0], id...), '.')
	prefix = append(strconv.AppendInt(prefix, ts.Unix(), 10), '.')
	const encoded = 44 // base64 of a SHA-256
	out := make([]byte, 0, len(secrets)*(len("v1,")+encoded+1))
	var sum [sha256.Size]byte
	for i, secret := range secrets {
		p, err := s.pool(secret)
		if err != nil {
			return "", err
		}
		h := p.Get().(hash.Hash)
		h.Reset()
		h.Write(prefix)
		h.Write(body)
		h.Sum(sum[:0])
		p.Put(h)
		if i > 0 {
			out = append(out, ' ')
		}
		out = base64.StdEncoding.AppendEncode(append(out, "v1,"...), sum[:])
	}
	return string(out), nil
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date; 0 when
// absent or unreadable.
func retryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(min(s, int64(365*24*3600))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
