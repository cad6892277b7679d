package api

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/query/access"
)

// limits is the API key check and the rate limit in front of the API
// routes (see package access for the limiter, and why limits are per pod).
// A request is charged to its API key when it presents a valid one, and to
// its address otherwise. A wrong or malformed key is always answered 401,
// never 429, so that a client learns at once that its key is wrong (even
// when others behind its address have used up the free quota), but it is
// still charged to the address, so failed attempts count. A key sent
// before the pod has loaded the keys, or while it cannot read them, is
// answered 503, not 401: an outage must never tell a subscriber that a
// valid key is wrong.
//
// Every answer of a limited route to a client whose tier has a limit
// carries the RateLimit fields of draft-ietf-httpapi-ratelimit-headers-06
// (the last revision with separate RateLimit-Limit, -Remaining, -Reset and
// -Policy fields, the form clients and proxies widely read; later
// revisions merge them into one RateLimit field): the quota per window, the requests left now, the seconds until
// the quota has refilled completely (delta seconds; on a 429, the same
// moment as Retry-After, as the draft asks), and the policy, its window in
// seconds and its burst as an extension parameter ("60;w=60;burst=60").
// The draft's own examples spell that parameter "burst"
// ("12;w=1;burst=1000"), though it also asks for an "x-" prefix on
// parameters it does not register; clients treat both as comments, and
// "burst" is the one they have seen.
type limits struct {
	free    *tierLimits
	tiers   map[string]*tierLimits
	limiter *access.Limiter
	keys    *access.Keys
	trusted access.Prefixes
	// nums are the decimal forms of small numbers as header values, so
	// that the usual answer allocates nothing.
	nums []string
	// rejected counts refused keys by reason.
	malformed, unknown, notLoaded, unavailable prometheus.Counter
	// fallbacks counts client addresses taken from the proxy that wrote
	// an unreadable X-Forwarded-For entry.
	fallbacks prometheus.Counter
}

// tierLimits is a tier's policy with its header values and counters. A nil
// policy is no limit.
type tierLimits struct {
	policy           *access.Policy
	limit, field     []string
	allowed, limited prometheus.Counter
}

func newLimits(cfg access.Config, keys *access.Keys, reg prometheus.Registerer, now func() time.Time) (*limits, error) {
	requests := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "zoneprice_ratelimit_requests_total", Help: "Requests to rate-limited routes by tier and outcome (allowed, limited).",
	}, []string{"tier", "outcome"})
	rejections := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "zoneprice_api_key_rejections_total", Help: "Requests refused for their API key, by reason (malformed, unknown, not_loaded, unavailable).",
	}, []string{"reason"})
	fallbacks := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "zoneprice_client_address_fallbacks_total",
		Help: "Requests from a trusted proxy whose X-Forwarded-For held an entry that is not an address: charged to the trusted proxy that wrote it.",
	})
	limiter := access.NewLimiter(cfg.Clients, now)
	evictions := prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "zoneprice_ratelimit_evictions_total",
		Help: "Clients whose quota was forgotten before it refilled, to make room for others: the limiter's table of clients is too small.",
	}, func() float64 { return float64(limiter.Evicted()) })
	for _, c := range []prometheus.Collector{requests, rejections, evictions, fallbacks} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register limit metrics: %w", err)
		}
	}
	tier := func(name string, r access.Rate) *tierLimits {
		t := &tierLimits{allowed: requests.WithLabelValues(name, "allowed"), limited: requests.WithLabelValues(name, "limited")}
		if !r.Off() {
			t.policy = access.NewPolicy(name, r)
			t.limit = []string{strconv.Itoa(r.Limit)}
			t.field = []string{t.policy.Field()}
		}
		return t
	}
	l := &limits{
		free: tier(contracts.FreeTier, cfg.Anonymous), tiers: map[string]*tierLimits{}, limiter: limiter, keys: keys,
		trusted:   cfg.TrustedProxies,
		nums:      make([]string, 4096),
		malformed: rejections.WithLabelValues("malformed"), unknown: rejections.WithLabelValues("unknown"),
		notLoaded: rejections.WithLabelValues("not_loaded"), unavailable: rejections.WithLabelValues("unavailable"),
		fallbacks: fallbacks,
	}
	for name, r := range cfg.Tiers {
		l.tiers[name] = tier(name, r)
	}
	for i := range l.nums {
		l.nums[i] = strconv.Itoa(i)
	}
	return l, nil
}

// keysState is what the pod knows of its subscribers' keys; without a
// store, that there are none.
func (l *limits) keysState() access.State {
	if l.keys == nil {
		return access.Loaded
	}
	return l.keys.State()
}

// num is n as a one-value header.
func (l *limits) num(n int) []string {
	if n >= 0 && n < len(l.nums) {
		return l.nums[n : n+1 : n+1]
	}
	return []string{strconv.Itoa(n)}
}

// seconds rounds d up to whole seconds, as delta seconds must be.
func seconds(d time.Duration) int {
	return int((d + time.Second - 1) / time.Second)
}

// Header values of refusals, built once.
var (
	bearerInvalidToken   = []string{`Bearer error="invalid_token"`}
	bearerInvalidRequest = []string{`Bearer error="invalid_request"`}
)

// limit checks the API key of a request to next and charges it to its
// client's quota.
func (s *Server) limit(next echo.HandlerFunc) echo.HandlerFunc {
	l := s.limits
	return func(c *echo.Context) error {
		h := c.Response().Header()
		key, err := access.Credential(c.Request().Header)
		switch {
		case err != nil:
			l.malformed.Inc()
			l.charge(c, l.free, l.addrKey(c))
			h["Www-Authenticate"] = bearerInvalidRequest
			return problem(http.StatusUnauthorized, contracts.CodeInvalidAPIKey, "Invalid API key", err.Error())
		case key == "":
			if err := l.enforce(c, l.free, l.addrKey(c)); err != nil {
				return err
			}
			return next(c)
		}
		switch l.keysState() {
		case access.Loading:
			l.notLoaded.Inc()
			l.charge(c, l.free, l.addrKey(c))
			return problem(http.StatusServiceUnavailable, contracts.CodeNotReady, "Not ready",
				"the service is still loading API keys; retry shortly")
		case access.Unavailable:
			l.unavailable.Inc()
			l.charge(c, l.free, l.addrKey(c))
			return problem(http.StatusServiceUnavailable, contracts.CodeNotReady, "Not ready",
				"API keys are unavailable; retry shortly (without a key the API is served at the free limit)")
		}
		sum := contracts.HashAPIKey(key)
		var sub *access.Subscriber
		if l.keys != nil {
			sub = l.keys.Lookup(&sum)
		}
		if sub == nil {
			l.unknown.Inc()
			l.charge(c, l.free, l.addrKey(c))
			h["Www-Authenticate"] = bearerInvalidToken
			return problem(http.StatusUnauthorized, contracts.CodeInvalidAPIKey, "Invalid API key",
				"the API key is unknown or revoked; without a key the API is free at a lower limit")
		}
		t, ok := l.tiers[sub.Tier]
		if !ok {
			t = l.free // a tier this pod has no limit for; logged when the key was loaded
		}
		if err := l.enforce(c, t, sub.Client); err != nil {
			return err
		}
		c.Set(subscriberKey, sub)
		return next(c)
	}
}

// enforce charges one request to client's quota under t; over the limit,
// it returns the 429 problem.
func (l *limits) enforce(c *echo.Context, t *tierLimits, client access.Key) error {
	d, limited := l.charge(c, t, client)
	if !limited {
		t.allowed.Inc()
		return nil
	}
	t.limited.Inc()
	// With Retry-After, the draft has RateLimit-Reset name the same moment.
	retry := l.num(max(seconds(d.RetryAfter), 1))
	h := c.Response().Header()
	h["Retry-After"] = retry
	h["Ratelimit-Reset"] = retry
	r := t.policy.Rate
	return problem(http.StatusTooManyRequests, contracts.CodeRateLimited, "Too many requests",
		fmt.Sprintf("over the %s tier's limit of %d requests per %s (at most %d at once); retry in %d s",
			t.policy.Tier, r.Limit, windowName(r.Window), r.Burst, max(seconds(d.RetryAfter), 1)))
}

// windowName is how a rate's window reads in a sentence.
func windowName(w time.Duration) string {
	switch w {
	case time.Second:
		return "second"
	case time.Minute:
		return "minute"
	case time.Hour:
		return "hour"
	}
	return w.String()
}

// charge takes one request from client's quota under t, if there is one
// left, and writes the RateLimit fields. limited says the quota was spent.
func (l *limits) charge(c *echo.Context, t *tierLimits, client access.Key) (d access.Decision, limited bool) {
	if t.policy == nil {
		return d, false
	}
	d = l.limiter.Allow(&client, t.policy)
	h := c.Response().Header()
	h["Ratelimit-Limit"] = t.limit
	h["Ratelimit-Remaining"] = l.num(d.Remaining)
	h["Ratelimit-Reset"] = l.num(seconds(d.Reset))
	h["Ratelimit-Policy"] = t.field
	return d, !d.Allowed
}

// addrKey is the limiter key of the client's address (see
// access.ClientAddr), counting the addresses that fell back to a proxy's.
func (l *limits) addrKey(c *echo.Context) access.Key {
	r := c.Request()
	a, fellBack := access.ClientAddr(r.RemoteAddr, r.Header["X-Forwarded-For"], l.trusted)
	if fellBack {
		l.fallbacks.Inc()
	}
	return access.AddrKey(a)
}

// ipExtractor is access.ClientAddr as echo's RealIP, so that whatever else
// asks for the client's address agrees with the limiter; "" when it cannot
// be read.
func ipExtractor(trusted access.Prefixes) echo.IPExtractor {
	return func(r *http.Request) string {
		a, _ := access.ClientAddr(r.RemoteAddr, r.Header["X-Forwarded-For"], trusted)
		if !a.IsValid() {
			return ""
		}
		return a.String()
	}
}
