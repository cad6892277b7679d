package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
	"github.com/zoneprice/zoneprice/contracts/openapitest"
	"github.com/zoneprice/zoneprice/query/access"
	"github.com/zoneprice/zoneprice/query/api"
	"github.com/zoneprice/zoneprice/query/querytest"
)

// limitsConfig is the default configuration with the free tier's rate,
// the tiers and the trusted proxies given as their flags take them.
func limitsConfig(t *testing.T, anonymous, tiers, trusted string) *api.Config {
	t.Helper()
	cfg := api.DefaultConfig()
	var err error
	if cfg.Limits.Anonymous, err = access.ParseRate(anonymous); err != nil {
		t.Fatal(err)
	}
	if cfg.Limits.Tiers, err = access.ParseTiers(tiers); err != nil {
		t.Fatal(err)
	}
	if cfg.Limits.TrustedProxies, err = access.ParsePrefixes(trusted); err != nil {
		t.Fatal(err)
	}
	return &cfg
}

var rateLimitFields = []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy"}

// headerInt is a header holding delta seconds or a count.
func headerInt(t *testing.T, resp *http.Response, name string) int {
	t.Helper()
	n, err := strconv.Atoi(resp.Header.Get(name))
	if err != nil {
		t.Fatalf("%s: %q is not a number", name, resp.Header.Get(name))
	}
	return n
}

// TestRateLimit spends one address's free quota over several routes: every
// answer of an API route carries the RateLimit fields, whatever its status,
// and going over answers 429 with Retry-After and the problem body; the
// other routes and CORS preflights are never limited.
func TestRateLimit(t *testing.T) {
	_, js := bustest.Provisioned(t)
	publish(t, js, baseEvents()...)
	p := startPod(t, js, podConfig{cfg: limitsConfig(t, "3/h", "", ""), runKeys: true})

	resp, _ := get(t, p.url+"/api/domains")
	etag := resp.Header.Get("ETag")
	steps := []struct {
		name      string
		method    string
		path      string
		header    []string
		status    int
		remaining int
	}{
		{"200", http.MethodGet, "/api/comparison/.com", nil, http.StatusOK, 1},
		{"304 counts too", http.MethodGet, "/api/domains", []string{"If-None-Match", etag}, http.StatusNotModified, 0},
		{"over the limit", http.MethodGet, "/api/comparison/zones", nil, http.StatusTooManyRequests, 0},
		{"HEAD over the limit", http.MethodHead, "/api/domains/categories", nil, http.StatusTooManyRequests, 0},
		{"404 of an API route over the limit", http.MethodGet, "/api/comparison/.nope", nil, http.StatusTooManyRequests, 0},
		{"history over the limit", http.MethodGet, "/api/comparison/.com/history", nil, http.StatusTooManyRequests, 0},
		{"HEAD changes over the limit", http.MethodHead, "/api/changes", nil, http.StatusTooManyRequests, 0},
	}
	for _, s := range steps {
		resp, body := do(t, s.method, p.url+s.path, s.header...)
		if resp.StatusCode != s.status {
			t.Fatalf("%s: got %d, want %d: %s", s.name, resp.StatusCode, s.status, body)
		}
		if got := resp.Header.Get("RateLimit-Limit"); got != "3" {
			t.Errorf("%s: RateLimit-Limit %q, want 3", s.name, got)
		}
		if got := resp.Header.Get("RateLimit-Policy"); got != "3;w=3600;burst=3" {
			t.Errorf("%s: RateLimit-Policy %q, want 3;w=3600;burst=3", s.name, got)
		}
		if got := headerInt(t, resp, "RateLimit-Remaining"); got != s.remaining {
			t.Errorf("%s: RateLimit-Remaining %d, want %d", s.name, got, s.remaining)
		}
		// The quota refills one request every 1,200 s, so a full refill
		// takes at most 3,600 s.
		if got := headerInt(t, resp, "RateLimit-Reset"); got < 1 || got > 3600 {
			t.Errorf("%s: RateLimit-Reset %d, want between 1 and 3600", s.name, got)
		}
		if s.status != http.StatusTooManyRequests {
			if ra := resp.Header.Get("Retry-After"); ra != "" {
				t.Errorf("%s: Retry-After %q on an allowed request", s.name, ra)
			}
			continue
		}
		retry := headerInt(t, resp, "Retry-After")
		if retry < 1 || retry > 1200 {
			t.Errorf("%s: Retry-After %d, want between 1 and 1200", s.name, retry)
		}
		if reset := headerInt(t, resp, "RateLimit-Reset"); reset != retry {
			t.Errorf("%s: RateLimit-Reset %d, want Retry-After's %d", s.name, reset, retry)
		}
		if s.method == http.MethodHead {
			continue
		}
		var pr contracts.Problem
		decode(t, body, &pr)
		if pr.Code != contracts.CodeRateLimited || pr.Status != http.StatusTooManyRequests || !strings.Contains(pr.Detail, "free") {
			t.Errorf("%s: problem %+v, want rate-limited naming the free tier", s.name, pr)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" {
			t.Errorf("%s: content type %q", s.name, ct)
		}
	}

	for _, u := range []struct{ method, path string }{
		{http.MethodOptions, "/api/domains"}, {http.MethodGet, "/healthz"}, {http.MethodGet, "/readyz"},
		{http.MethodGet, "/metrics"}, {http.MethodGet, "/api/nothing"},
	} {
		resp, _ := do(t, u.method, p.url+u.path, "Origin", "https://example.org", "Access-Control-Request-Method", "GET")
		if resp.StatusCode == http.StatusTooManyRequests {
			t.Errorf("%s %s: limited", u.method, u.path)
		}
		for _, f := range rateLimitFields {
			if v := resp.Header.Get(f); v != "" {
				t.Errorf("%s %s: %s %q on an unlimited route", u.method, u.path, f, v)
			}
		}
	}

	if got := prometheusCounter(t, p.reg, "zoneprice_ratelimit_requests_total", "outcome", "allowed"); got != 3 {
		t.Errorf("allowed requests: got %v, want 3", got)
	}
	if got := prometheusCounter(t, p.reg, "zoneprice_ratelimit_requests_total", "outcome", "limited"); got != 5 {
		t.Errorf("limited requests: got %v, want 5", got)
	}
	if problems, err := testutil.GatherAndLint(p.reg); err != nil || len(problems) > 0 {
		t.Errorf("metric lint: %v %v", err, problems)
	}
}

// TestRateLimitOff serves far more than any limit with --rate-limit off,
// without the fields.
func TestRateLimitOff(t *testing.T) {
	_, js := bustest.Provisioned(t)
	publish(t, js, baseEvents()...)
	p := startPod(t, js, podConfig{cfg: limitsConfig(t, "off", "", ""), runKeys: true})
	for i := range 100 {
		resp, _ := get(t, p.url+"/api/comparison/.com")
		if resp.StatusCode != http.StatusOK || resp.Header.Get("RateLimit-Limit") != "" {
			t.Fatalf("request %d: got %d with RateLimit-Limit %q, want 200 without", i, resp.StatusCode, resp.Header.Get("RateLimit-Limit"))
		}
	}
}

// TestClientAddress sends two requests as different peers and forwarded
// chains, with a quota of one: the second is refused exactly when both
// count as the same client. X-Forwarded-For field lines are separated by
// "\n". fallbacks is how many of the two were charged to a proxy because
// of an entry that is not an address.
func TestClientAddress(t *testing.T) {
	_, js := bustest.Provisioned(t)
	publish(t, js, baseEvents()...)
	type hop struct{ peer, xff string }
	tests := []struct {
		name      string
		trusted   string
		a, b      hop
		same      bool
		fallbacks float64
	}{
		{"untrusted peer: X-Forwarded-For is ignored", "10.0.0.0/8",
			hop{"192.0.2.1:1000", "198.51.100.1"}, hop{"192.0.2.1:1001", "198.51.100.2"}, true, 0},
		{"trusted proxy: the forwarded address is the client", "10.0.0.0/8",
			hop{"10.0.0.1:1000", "198.51.100.1"}, hop{"10.0.0.1:1001", "198.51.100.2"}, false, 0},
		{"trusted proxy: the right-most untrusted address, not what the client wrote", "10.0.0.0/8",
			hop{"10.0.0.1:1000", "203.0.113.9, 198.51.100.1"}, hop{"10.0.0.2:1000", "203.0.113.10, 198.51.100.1"}, true, 0},
		{"a chain of trusted proxies", "10.0.0.0/8",
			hop{"10.0.0.1:1000", "198.51.100.1, 10.0.0.7"}, hop{"10.0.0.2:1000", "198.51.100.1"}, true, 0},
		{"a private peer outside the list is not trusted", "10.0.0.0/8",
			hop{"192.168.1.1:1000", "198.51.100.1"}, hop{"192.168.1.1:1001", "198.51.100.2"}, true, 0},
		{"a loopback peer outside the list is not trusted", "10.0.0.0/8",
			hop{"127.0.0.1:1000", "198.51.100.1"}, hop{"127.0.0.1:1001", "198.51.100.2"}, true, 0},
		{"no trusted proxies: X-Forwarded-For is ignored", "",
			hop{"10.0.0.1:1000", "198.51.100.1"}, hop{"10.0.0.1:1001", "198.51.100.2"}, true, 0},
		{"different peers without proxies", "",
			hop{"192.0.2.1:1000", ""}, hop{"192.0.2.2:1000", ""}, false, 0},
		{"one IPv6 /64", "",
			hop{"[2001:db8:1:2::1]:1000", ""}, hop{"[2001:db8:1:2:aaaa::1]:1000", ""}, true, 0},
		{"two IPv6 /64s", "",
			hop{"[2001:db8:1:2::1]:1000", ""}, hop{"[2001:db8:1:3::1]:1000", ""}, false, 0},
		{"an IPv6 client through an IPv6 proxy", "2001:db8:ffff::/48",
			hop{"[2001:db8:ffff::1]:1000", "2001:db8:1:2::1"}, hop{"[2001:db8:ffff::2]:1000", "2001:db8:1:2::2"}, true, 0},
		{"a proxy that appends ports: IPv4 clients apart", "10.0.0.0/8",
			hop{"10.0.0.1:1000", "198.51.100.7:5555"}, hop{"10.0.0.1:1001", "198.51.100.8:5555"}, false, 0},
		{"a proxy that appends ports: IPv6 clients apart", "10.0.0.0/8",
			hop{"10.0.0.1:1000", "[2001:db8:1::1]:5555"}, hop{"10.0.0.1:1001", "[2001:db8:2::1]:5555"}, false, 0},
		{"one client with and without a port", "10.0.0.0/8",
			hop{"10.0.0.1:1000", "198.51.100.7:5555"}, hop{"10.0.0.2:1000", "198.51.100.7"}, true, 0},
		{"IPv6 clients with zones", "10.0.0.0/8",
			hop{"10.0.0.1:1000", "2001:db8:1::1%eth0"}, hop{"10.0.0.1:1001", "2001:db8:2::1%eth0"}, false, 0},
		{"unknown: the proxy that wrote it", "10.0.0.0/8",
			hop{"10.0.0.1:1000", "unknown"}, hop{"10.0.0.1:1001", "unknown"}, true, 2},
		{"unknown from two proxies: each its own client", "10.0.0.0/8",
			hop{"10.0.0.1:1000", "unknown"}, hop{"10.0.0.2:1000", "unknown"}, false, 2},
		{"garbage behind a second proxy: that proxy", "10.0.0.0/8",
			hop{"10.0.0.1:1000", "198.51.100.1, garbage, 10.0.0.5"}, hop{"10.0.0.2:1000", "198.51.100.2, garbage, 10.0.0.5"}, true, 2},
		{"garbage the client wrote is never read", "10.0.0.0/8",
			hop{"10.0.0.1:1000", "garbage, 198.51.100.1"}, hop{"10.0.0.1:1001", "198.51.100.2"}, false, 0},
		{"several field lines, walked from the last", "10.0.0.0/8",
			hop{"10.0.0.1:1000", "198.51.100.1\n10.0.0.7"}, hop{"10.0.0.2:1000", "203.0.113.9, 198.51.100.1, 10.0.0.8"}, true, 0},
		{"every hop trusted: the left-most", "10.0.0.0/8",
			hop{"10.0.0.1:1000", "10.0.0.7, 10.0.0.8"}, hop{"10.0.0.2:1000", "10.0.0.7"}, true, 0},
		{"every hop trusted: not the peer", "10.0.0.0/8",
			hop{"10.0.0.1:1000", "10.0.0.7"}, hop{"10.0.0.1:1001", "10.0.0.8"}, false, 0},
		{"peers whose address cannot be read share a quota", "",
			hop{"@", ""}, hop{"@", ""}, true, 0},
		{"a peer whose address cannot be read is not the IPv6 /64 of ::", "",
			hop{"@", ""}, hop{"[::1]:1000", ""}, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := startPod(t, js, podConfig{cfg: limitsConfig(t, "1/h", "", tt.trusted), runKeys: true})
			status := func(h hop) int {
				req := httptest.NewRequest(http.MethodGet, "/api/domains", nil)
				req.RemoteAddr = h.peer
				if h.xff != "" {
					for line := range strings.SplitSeq(h.xff, "\n") {
						req.Header.Add("X-Forwarded-For", line)
					}
				}
				rec := httptest.NewRecorder()
				p.handler.ServeHTTP(rec, req)
				return rec.Code
			}
			if got := status(tt.a); got != http.StatusOK {
				t.Fatalf("first request: got %d, want 200", got)
			}
			want := http.StatusOK
			if tt.same {
				want = http.StatusTooManyRequests
			}
			if got := status(tt.b); got != want {
				t.Errorf("second request: got %d, want %d (same client: %v)", got, want, tt.same)
			}
			if got := prometheusCounter(t, p.reg, "zoneprice_client_address_fallbacks_total", "", ""); got != tt.fallbacks {
				t.Errorf("zoneprice_client_address_fallbacks_total: got %v, want %v", got, tt.fallbacks)
			}
		})
	}
}

// TestAPIKeys serves subscribers: a key gets its tier's limit, wherever it
// is sent from, and its own quota; a wrong, malformed or revoked key is a
// 401 charged to the address, even over the address's limit; a key of a
// tier this pod does not know gets the free limit.
func TestAPIKeys(t *testing.T) {
	_, js := bustest.Provisioned(t)
	publish(t, js, baseEvents()...)
	p := startPod(t, js, podConfig{cfg: limitsConfig(t, "5/h", "standard=2/h,pro=3/h", ""), runKeys: true})
	kv, err := js.KeyValue(context.Background(), contracts.KeysBucket)
	if err != nil {
		t.Fatal(err)
	}
	pro := createKey(t, kv, contracts.ProTier)
	gold := createKey(t, kv, "gold")
	querytest.Until(t, "the keys in the pod", func() bool {
		a, b := contracts.HashAPIKey(pro.key), contracts.HashAPIKey(gold.key)
		return p.keys.Lookup(&a) != nil && p.keys.Lookup(&b) != nil
	})

	steps := []struct {
		name       string
		header     []string
		status     int
		limit      string
		remaining  string
		authScheme string
	}{
		{"pro key as bearer", []string{"Authorization", "Bearer " + pro.key}, 200, "3", "2", ""},
		{"pro key as X-API-Key", []string{"X-API-Key", pro.key}, 200, "3", "1", ""},
		{"no key: the address's own quota", nil, 200, "5", "4", ""},
		{"wrong key", []string{"Authorization", "Bearer zp_wrong"}, 401, "5", "3", `Bearer error="invalid_token"`},
		{"not bearer", []string{"Authorization", "Basic dXNlcjpwYXNz"}, 401, "5", "2", `Bearer error="invalid_request"`},
		{"a tier this pod does not know", []string{"X-API-Key", gold.key}, 200, "5", "4", ""},
		{"pro key, last of its burst", []string{"X-API-Key", pro.key}, 200, "3", "0", ""},
		{"pro key over its limit", []string{"X-API-Key", pro.key}, 429, "3", "0", ""},
		{"no key, last of the address's quota", nil, 200, "5", "1", ""},
		{"no key, last of the address's quota", nil, 200, "5", "0", ""},
		{"no key over the limit", nil, 429, "5", "0", ""},
		{"wrong key over the address's limit is still told so", []string{"X-API-Key", "zp_wrong"}, 401, "5", "0", `Bearer error="invalid_token"`},
	}
	for _, s := range steps {
		resp, body := get(t, p.url+"/api/domains", s.header...)
		if resp.StatusCode != s.status {
			t.Fatalf("%s: got %d, want %d: %s", s.name, resp.StatusCode, s.status, body)
		}
		if got, got2 := resp.Header.Get("RateLimit-Limit"), resp.Header.Get("RateLimit-Remaining"); got != s.limit || got2 != s.remaining {
			t.Errorf("%s: limit %q remaining %q, want %q and %q", s.name, got, got2, s.limit, s.remaining)
		}
		if got := resp.Header.Get("WWW-Authenticate"); got != s.authScheme {
			t.Errorf("%s: WWW-Authenticate %q, want %q", s.name, got, s.authScheme)
		}
		if s.status == http.StatusUnauthorized {
			var pr contracts.Problem
			decode(t, body, &pr)
			if pr.Code != contracts.CodeInvalidAPIKey || pr.Detail == "" {
				t.Errorf("%s: problem %+v, want invalid-api-key with a detail", s.name, pr)
			}
			if s.name == "not bearer" && !strings.Contains(pr.Detail, "Bearer") {
				t.Errorf("%s: detail %q does not say to use Bearer", s.name, pr.Detail)
			}
		}
		tier := map[string]string{"3": "the pro tier", "5": "the free tier"}[s.limit]
		if s.status == http.StatusTooManyRequests && !strings.Contains(string(body), tier) {
			t.Errorf("%s: %s does not name %s", s.name, body, tier)
		}
	}

	if err := kv.Delete(context.Background(), gold.id); err != nil {
		t.Fatal(err)
	}
	querytest.Until(t, "the revoked key to be refused", func() bool {
		resp, _ := get(t, p.url+"/api/domains", "X-API-Key", gold.key)
		return resp.StatusCode == http.StatusUnauthorized
	})
	for reason, want := range map[string]float64{"unknown": 2, "malformed": 1} {
		if got := prometheusCounter(t, p.reg, "zoneprice_api_key_rejections_total", "reason", reason); got < want {
			t.Errorf("rejections{reason=%s}: got %v, want at least %v", reason, got, want)
		}
	}
	if problems, err := testutil.GatherAndLint(p.reg); err != nil || len(problems) > 0 {
		t.Errorf("metric lint: %v %v", err, problems)
	}
}

type createdKey struct{ key, id string }

func createKey(t testing.TB, kv jetstream.KeyValue, tier string) createdKey {
	t.Helper()
	key, rec, err := contracts.NewAPIKey(tier, "test", epoch)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(context.Background(), rec.ID, b); err != nil {
		t.Fatal(err)
	}
	return createdKey{key: key, id: rec.ID}
}

// TestKeysUnavailable runs a pod whose NATS user may not read the keys
// bucket: it becomes ready all the same and serves clients without a key,
// while a key, which it cannot check, is answered 503 (as the document
// says), never 401. Once the permissions are fixed the key is served.
func TestKeysUnavailable(t *testing.T) {
	r := bustest.RestrictedServer(t, bustest.BucketSubjects(contracts.KeysBucket)...)
	publish(t, r.Admin, baseEvents()...)
	kv, err := r.Admin.KeyValue(context.Background(), contracts.KeysBucket)
	if err != nil {
		t.Fatal(err)
	}
	pro := createKey(t, kv, contracts.ProTier)
	p := startPod(t, r.Restricted, podConfig{cfg: limitsConfig(t, "60/m", "pro=600/m", ""), runKeys: true})
	if got := p.keys.State(); got != access.Unavailable {
		t.Fatalf("keys: got %v, want unavailable", got)
	}

	d := openapitest.Load(t)
	for _, c := range []apiCase{
		{name: "ready", target: "/readyz", path: "/readyz", status: http.StatusOK},
		{name: "no key", target: "/api/domains", path: "/api/domains", status: http.StatusOK},
		{name: "a key", target: "/api/domains", path: "/api/domains", status: http.StatusServiceUnavailable,
			header: []string{"Authorization", "Bearer " + pro.key}, wantCode: contracts.CodeNotReady},
		{name: "a wrong key", target: "/api/openapi.json", path: "/api/openapi.json", status: http.StatusServiceUnavailable,
			header: []string{"X-API-Key", "zp_wrong"}, wantCode: contracts.CodeNotReady},
	} {
		t.Run(c.name, func(t *testing.T) {
			x := c.run(t, d, p.url)
			if c.status == http.StatusServiceUnavailable && !strings.Contains(string(x.body), "API keys are unavailable; retry shortly") {
				t.Errorf("503 does not say the keys are unavailable: %s", x.body)
			}
		})
	}
	if got := prometheusCounter(t, p.reg, "zoneprice_api_key_rejections_total", "reason", "unavailable"); got != 2 {
		t.Errorf("rejections{reason=unavailable}: got %v, want 2", got)
	}

	r.Lift(t)
	querytest.Until(t, "the key served at its tier's limit once the bucket can be read", func() bool {
		resp, _ := get(t, p.url+"/api/domains", "Authorization", "Bearer "+pro.key)
		return resp.StatusCode == http.StatusOK && resp.Header.Get("RateLimit-Limit") == "600"
	})
	if resp, _ := get(t, p.url+"/api/domains", "X-API-Key", "zp_wrong"); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a wrong key once the keys are loaded: got %d, want 401", resp.StatusCode)
	}
	if problems, err := testutil.GatherAndLint(p.reg); err != nil || len(problems) > 0 {
		t.Errorf("metric lint: %v %v", err, problems)
	}
}

// TestReadyWaitsForKeys runs a pod whose keys are not loaded: it is not
// ready, serves clients without a key, and asks clients with one to come
// back, rather than calling their key wrong.
func TestReadyWaitsForKeys(t *testing.T) {
	_, js := bustest.Provisioned(t)
	publish(t, js, baseEvents()...)
	p := startPod(t, js, podConfig{cfg: limitsConfig(t, "60/m", "pro=600/m", ""), keys: true})

	resp, body := get(t, p.url+"/readyz")
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "API keys") {
		t.Errorf("/readyz before the keys: got %d %s, want 503 about API keys", resp.StatusCode, body)
	}
	if resp, _ := get(t, p.url+"/api/domains"); resp.StatusCode != http.StatusOK {
		t.Errorf("no key before the keys: got %d, want 200", resp.StatusCode)
	}
	resp, body = get(t, p.url+"/api/domains", "X-API-Key", "zp_anything")
	var pr contracts.Problem
	decode(t, body, &pr)
	if resp.StatusCode != http.StatusServiceUnavailable || pr.Code != contracts.CodeNotReady || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a key before the keys: got %d %s, want 503 not-ready with Retry-After", resp.StatusCode, body)
	}

	background(t, "keys", p.keys.Run)
	querytest.Until(t, "ready once the keys are loaded", func() bool {
		resp, _ := get(t, p.url+"/readyz")
		return resp.StatusCode == http.StatusOK
	})
}
