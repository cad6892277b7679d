package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
	"github.com/zoneprice/zoneprice/contracts/eventtest"
	"github.com/zoneprice/zoneprice/query/querytest"
)

type catalog struct {
	Count int `json:"count"`
	Zones []struct {
		Zone       string   `json:"zone"`
		Unicode    string   `json:"unicode"`
		Categories []string `json:"categories"`
		Registrars int      `json:"registrars"`
		Min        map[string]*struct {
			Price     json.Number `json:"price"`
			Registrar string      `json:"registrar"`
		} `json:"min"`
	} `json:"zones"`
}

func (p *pod) catalog(t *testing.T) catalog {
	t.Helper()
	resp, body := get(t, p.url+"/api/domains")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/domains: got %d, want 200: %s", resp.StatusCode, body)
	}
	var c catalog
	decode(t, body, &c)
	return c
}

func (p *pod) minRegister(t *testing.T, zone string) (string, string) {
	t.Helper()
	for _, z := range p.catalog(t).Zones {
		if z.Zone == zone {
			if m := z.Min["register"]; m != nil {
				return m.Price.String(), m.Registrar
			}
			return "", ""
		}
	}
	return "", ""
}

func TestPipelineEndpoints(t *testing.T) {
	_, js := bustest.Provisioned(t)
	publish(t, js, baseEvents()...)
	p := startPod(t, js, podConfig{})

	c := p.catalog(t)
	var zones []string
	for _, z := range c.Zones {
		zones = append(zones, z.Zone)
	}
	if got, want := strings.Join(zones, " "), ".co.uk .com .xn--p1ai"; got != want {
		t.Errorf("catalog zones: got %q, want %q", got, want)
	}
	// charlie's 8.99 EUR is 9.74 USD at 1.0830, so alpha's 9.68 USD is the
	// cheapest; india's INR has no rate and stays out of the minimum.
	if got, reg := p.minRegister(t, ".com"); got != "9.68" || reg != "alpha" {
		t.Errorf(".com min register: got %s by %s, want 9.68 by alpha", got, reg)
	}

	resp, body := get(t, p.url+"/api/comparison/.com")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("comparison: got %d: %s", resp.StatusCode, body)
	}
	var cmp struct {
		Zone   string `json:"zone"`
		Rates  *struct{ Base, Date, Source string }
		Prices []struct {
			Registrar string          `json:"registrar"`
			Register  *json.Number    `json:"register"`
			Converted bool            `json:"converted"`
			Native    json.RawMessage `json:"native"`
			Cheapest  []string        `json:"cheapest"`
		} `json:"prices"`
	}
	decode(t, body, &cmp)
	var order []string
	for _, r := range cmp.Prices {
		order = append(order, r.Registrar)
	}
	if got, want := strings.Join(order, " "), "alpha charlie bravo india"; got != want {
		t.Errorf("comparison order: got %q, want %q", got, want)
	}
	if cmp.Rates == nil || cmp.Rates.Date != "2026-11-20" || cmp.Rates.Source != "test" {
		t.Errorf("rates disclosure: got %+v, want date 2026-11-20 from test", cmp.Rates)
	}
	for _, r := range cmp.Prices {
		switch r.Registrar {
		case "charlie":
			if r.Register == nil || r.Register.String() != "9.74" || !r.Converted || !strings.Contains(string(r.Native), `"register":8.99`) {
				t.Errorf("charlie: got register %v converted %v native %s, want 9.74 converted from 8.99 EUR", r.Register, r.Converted, r.Native)
			}
		case "india":
			if r.Register != nil || r.Converted || !strings.Contains(string(r.Native), `"currency":"INR"`) {
				t.Errorf("india: got register %v converted %v native %s, want null, unconverted, INR shown", r.Register, r.Converted, r.Native)
			}
		case "alpha":
			if strings.Join(r.Cheapest, ",") != "register,renew,transfer" {
				t.Errorf("alpha cheapest: got %v, want register,renew,transfer", r.Cheapest)
			}
		}
	}

	resp, body = get(t, p.url+"/api/comparison/zones")
	var cz struct {
		Count int `json:"count"`
		Zones []struct {
			Zone       string `json:"zone"`
			Registrars int    `json:"registrars"`
		} `json:"zones"`
	}
	decode(t, body, &cz)
	if resp.StatusCode != http.StatusOK || cz.Count != 2 || cz.Zones[0].Zone != ".com" || cz.Zones[0].Registrars != 4 {
		t.Errorf("comparison zones: got %d %s, want .com (4) and .xn--p1ai", resp.StatusCode, body)
	}

	_, body = get(t, p.url+"/api/domains/categories")
	var cats struct {
		Categories []struct {
			ID    string `json:"id"`
			Name  string `json:"name"`
			Zones int    `json:"zones"`
		} `json:"categories"`
	}
	decode(t, body, &cats)
	got := map[string]int{}
	for _, c := range cats.Categories {
		got[c.ID] = c.Zones
	}
	want := map[string]int{"generic": 1, "legacy-gtld": 1, "country-code": 1, "idn": 1}
	if len(got) != len(want) {
		t.Errorf("categories: got %v, want %v", got, want)
	}
	for id, n := range want {
		if got[id] != n {
			t.Errorf("category %s: got %d zones, want %d", id, got[id], n)
		}
	}
}

func TestZoneForms(t *testing.T) {
	_, js := bustest.Provisioned(t)
	publish(t, js, baseEvents()...)
	p := startPod(t, js, podConfig{})
	_, canonical := get(t, p.url+"/api/comparison/.xn--p1ai")
	_, com := get(t, p.url+"/api/comparison/.com")
	_, couk := get(t, p.url+"/api/comparison/.co.uk")

	tests := []struct {
		name, path string
		wantStatus int
		wantBody   []byte
		wantCode   string
	}{
		{"dotted", "/api/comparison/.com", 200, com, ""},
		{"bare", "/api/comparison/com", 200, com, ""},
		{"upper", "/api/comparison/COM", 200, com, ""},
		{"root dot", "/api/comparison/.com.", 200, com, ""},
		{"second level", "/api/comparison/CO.UK", 200, couk, ""},
		{"unicode percent-encoded", "/api/comparison/.%D1%80%D1%84", 200, canonical, ""},
		{"unicode bare", "/api/comparison/%D1%80%D1%84", 200, canonical, ""},
		{"a-label", "/api/comparison/xn--p1ai", 200, canonical, ""},
		{"a-label upper", "/api/comparison/.XN--P1AI", 200, canonical, ""},
		{"empty label", "/api/comparison/a..b", 400, nil, contracts.CodeMalformedZone},
		{"leading hyphen", "/api/comparison/-com", 400, nil, contracts.CodeMalformedZone},
		{"underscore", "/api/comparison/c_m", 400, nil, contracts.CodeMalformedZone},
		{"numeric", "/api/comparison/123", 400, nil, contracts.CodeMalformedZone},
		{"encoded slash", "/api/comparison/co%2Fuk", 400, nil, contracts.CodeMalformedZone},
		{"encoded letter", "/api/comparison/%63om", 200, com, ""},
		{"double-encoded after the encoded letter", "/api/comparison/%2563om", 400, nil, contracts.CodeMalformedZone},
		{"comparison trailing slash", "/api/comparison/.com/", 404, nil, contracts.CodeNotFound},
		{"zones trailing slash", "/api/comparison/zones/", 404, nil, contracts.CodeNotFound},
		{"unknown", "/api/comparison/.example", 404, nil, contracts.CodeUnknownZone},
		{"no route", "/api/nothing", 404, nil, contracts.CodeNotFound},
		{"trailing slash", "/api/domains/", 404, nil, contracts.CodeNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Twice: the second answer for a non-canonical form comes from
			// the response cache and must be the same.
			for range 2 {
				resp, body := get(t, p.url+tt.path)
				if resp.StatusCode != tt.wantStatus {
					t.Fatalf("status: got %d, want %d: %s", resp.StatusCode, tt.wantStatus, body)
				}
				if tt.wantBody != nil && !bytes.Equal(body, tt.wantBody) {
					t.Errorf("body: got %s, want %s", body, tt.wantBody)
				}
				if tt.wantCode != "" {
					var pr contracts.Problem
					decode(t, body, &pr)
					if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" {
						t.Errorf("content type: got %q, want application/problem+json", ct)
					}
					if pr.Code != tt.wantCode || pr.Status != tt.wantStatus || pr.Detail == "" {
						t.Errorf("problem: got %+v, want code %s status %d with a detail", pr, tt.wantCode, tt.wantStatus)
					}
					if zoneProblem := tt.wantCode == contracts.CodeMalformedZone || tt.wantCode == contracts.CodeUnknownZone; zoneProblem != (pr.Param == "zone") {
						t.Errorf("problem param: got %q, want %q only for zone problems", pr.Param, "zone")
					}
				}
			}
		})
	}
}

func TestHTTPSemantics(t *testing.T) {
	_, js := bustest.Provisioned(t)
	publish(t, js, baseEvents()...)
	p := startPod(t, js, podConfig{})

	resp, body := get(t, p.url+"/api/domains")
	etag := resp.Header.Get("ETag")
	if !strings.HasPrefix(etag, `"`) || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("got ETag %q, content type %q; want a strong ETag and application/json", etag, resp.Header.Get("Content-Type"))
	}
	resp, notModified := get(t, p.url+"/api/domains", "If-None-Match", etag)
	if resp.StatusCode != http.StatusNotModified || len(notModified) != 0 {
		t.Errorf("revalidation: got %d with %d bytes, want 304 and no body", resp.StatusCode, len(notModified))
	}
	resp, head := do(t, http.MethodHead, p.url+"/api/domains")
	if resp.StatusCode != http.StatusOK || len(head) != 0 || resp.ContentLength != int64(len(body)) {
		t.Errorf("HEAD: got %d, %d body bytes, length %d; want 200, none, %d", resp.StatusCode, len(head), resp.ContentLength, len(body))
	}
	resp, errBody := do(t, http.MethodPost, p.url+"/api/domains")
	var pr contracts.Problem
	decode(t, errBody, &pr)
	if resp.StatusCode != http.StatusMethodNotAllowed || !strings.Contains(resp.Header.Get("Allow"), "GET") || pr.Code != contracts.CodeMethodNotAllowed {
		t.Errorf("POST: got %d Allow %q %s, want 405 with Allow listing GET", resp.StatusCode, resp.Header.Get("Allow"), errBody)
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		if resp, body := get(t, p.url+path); resp.StatusCode != http.StatusOK {
			t.Errorf("%s: got %d %s, want 200", path, resp.StatusCode, body)
		}
	}
	resp, metrics := get(t, p.url+"/metrics")
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/metrics: got %d, want 200", resp.StatusCode)
	}
	for _, want := range []string{
		`zoneprice_http_requests_total{code="200",method="GET",route="/api/domains"}`,
		"zoneprice_nats_connected 1",
		"zoneprice_consumer_ready 1",
		"zoneprice_consumer_pending_messages 0",
		"zoneprice_stream_last_sequence 10",
		"zoneprice_consumer_applied_sequence 10",
		"zoneprice_index_zones 3",
		"zoneprice_snapshot_as_of_timestamp_seconds 1.795176e+09",
		`zoneprice_source_as_of_timestamp_seconds{source="test"} 1.795176e+09`,
	} {
		if !bytes.Contains(metrics, []byte(want)) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if problems, err := testutil.GatherAndLint(p.reg); err != nil || len(problems) > 0 {
		t.Errorf("metric lint: %v %v", err, problems)
	}
}

// TestBrowserHeaders checks what a browser on another origin needs: every
// answer, errors included, is readable cross-origin and carries the
// security headers of a JSON API, and the API routes answer a CORS
// preflight.
func TestBrowserHeaders(t *testing.T) {
	_, js := bustest.Provisioned(t)
	publish(t, js, baseEvents()...)
	p := startPod(t, js, podConfig{})

	want := map[string]string{
		"Access-Control-Allow-Origin":   "*",
		"Access-Control-Expose-Headers": "ETag, Last-Modified, Link, Deprecation, Sunset, WWW-Authenticate, X-Request-Id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy, Retry-After",
		"X-Content-Type-Options":        "nosniff",
		"Referrer-Policy":               "no-referrer",
		"Content-Security-Policy":       "default-src 'none'; frame-ancestors 'none'",
		"Cross-Origin-Resource-Policy":  "cross-origin",
	}
	for _, tc := range []struct{ method, path string }{
		{http.MethodGet, "/api/domains"},
		{http.MethodGet, "/api/comparison/COM"},
		{http.MethodGet, "/api/comparison/.nope"},
		{http.MethodGet, "/api/nothing-here"},
		{http.MethodPost, "/api/domains"},
		{http.MethodHead, "/api/domains/categories"},
		{http.MethodGet, "/api/comparison/COM/history"},
		{http.MethodGet, "/api/changes?kind=nope"},
	} {
		resp, _ := do(t, tc.method, p.url+tc.path, "Origin", "https://example.org")
		for k, v := range want {
			if got := resp.Header.Get(k); got != v {
				t.Errorf("%s %s (%d): %s = %q, want %q", tc.method, tc.path, resp.StatusCode, k, got, v)
			}
		}
	}
	for _, path := range []string{"/api/domains", "/api/domains/categories", "/api/comparison/zones", "/api/comparison/.com",
		"/api/comparison/.com/history", "/api/changes", "/api/registrars"} {
		resp, body := do(t, http.MethodOptions, p.url+path,
			"Origin", "https://example.org", "Access-Control-Request-Method", "GET", "Access-Control-Request-Headers", "if-none-match")
		if resp.StatusCode != http.StatusNoContent || len(body) != 0 {
			t.Errorf("preflight %s: got %d with %d bytes, want 204 and no body", path, resp.StatusCode, len(body))
		}
		if got := resp.Header.Get("Access-Control-Allow-Methods"); !strings.Contains(got, "GET") {
			t.Errorf("preflight %s: Access-Control-Allow-Methods %q, want GET among them", path, got)
		}
		if got := resp.Header.Get("Access-Control-Allow-Headers"); !strings.Contains(got, "If-None-Match") {
			t.Errorf("preflight %s: Access-Control-Allow-Headers %q, want If-None-Match among them", path, got)
		}
		if resp.Header.Get("Access-Control-Allow-Origin") != "*" || resp.Header.Get("Access-Control-Max-Age") != "86400" {
			t.Errorf("preflight %s: origin %q max-age %q", path, resp.Header.Get("Access-Control-Allow-Origin"), resp.Header.Get("Access-Control-Max-Age"))
		}
	}
}

// TestSecondPodIdentical starts a second query service on the same stream:
// it must answer byte for byte what the first answers.
func TestSecondPodIdentical(t *testing.T) {
	_, js := bustest.Provisioned(t)
	publish(t, js, baseEvents()...)
	publish(t, js, eventtest.Status("alpha", "Alpha", time.Hour, epoch, 3), eventtest.Status("delta", "Delta", 24*time.Hour, epoch, 1))
	publishHistory(t, js, historyEvents()...)
	a := startPod(t, js, podConfig{})
	a.waitHistory(t)
	// A later status of alpha, which pod b reads alone; delta, read after
	// it, says pod a has read it.
	publish(t, js, eventtest.Status("alpha", "Alpha", time.Hour, epoch.Add(time.Minute), 3), eventtest.Priced("delta", ".com", epoch, "USD", 1001, 1002, 1003))
	querytest.Until(t, "delta in pod a", func() bool {
		_, body := get(t, a.url+"/api/comparison/.com")
		return bytes.Contains(body, []byte(`"delta"`))
	})
	b := startPod(t, js, podConfig{})
	b.waitHistory(t)
	for _, path := range []string{"/api/domains", "/api/domains/categories", "/api/comparison/zones",
		"/api/comparison/.com", "/api/comparison/.co.uk", "/api/comparison/.xn--p1ai",
		"/api/comparison/.com/history", "/api/changes", "/api/changes?limit=3&kind=changed,added",
		"/api/registrars", "/api/registrars?sort=-zones"} {
		ra, ba := get(t, a.url+path)
		rb, bb := get(t, b.url+path)
		if !bytes.Equal(ba, bb) || ra.Header.Get("ETag") != rb.Header.Get("ETag") {
			t.Errorf("%s differs between pods:\n a: %s\n b: %s", path, ba, bb)
		}
	}
}

// TestGarbageCountedAndSkipped publishes malformed and invalid messages
// straight onto the stream: each is counted by reason and skipped, and the
// valid update published after them still arrives.
func TestGarbageCountedAndSkipped(t *testing.T) {
	_, js := bustest.Provisioned(t)
	publish(t, js, baseEvents()...)
	p := startPod(t, js, podConfig{})

	bad := eventtest.Priced("g3", ".com", epoch, "XYZ", 100, 100, 100)
	badBody, _ := json.Marshal(bad)
	elsewhere, _ := json.Marshal(eventtest.Priced("bravo", ".net", epoch, "USD", 100, 100, 100))
	// One subject each: the stream keeps one message per subject, so a
	// second message on a subject could replace the first before the pod
	// reads it.
	garbage := []struct{ subject, body, reason string }{
		{contracts.PriceSubject("alpha", ".com"), "{not json", "malformed_json"},
		{contracts.PriceSubject("g2", ".com"), `{"v":1,"kind":"bogus"}`, "unknown_kind"},
		{contracts.PriceSubject("g3", ".com"), string(badBody), "invalid"},
		{contracts.PriceSubject("g4", ".com"), string(elsewhere), "subject_mismatch"},
	}
	ctx := context.Background()
	for _, g := range garbage {
		if _, err := js.PublishMsg(ctx, &nats.Msg{Subject: g.subject, Data: []byte(g.body)}); err != nil {
			t.Fatalf("publish garbage: %v", err)
		}
	}
	publish(t, js, eventtest.Priced("echo", ".com", epoch, "USD", 500, 600, 700))
	querytest.Until(t, "echo's price", func() bool {
		got, reg := p.minRegister(t, ".com")
		return got == "5.00" && reg == "echo"
	})
	for _, g := range garbage {
		m := prometheusCounter(t, p.reg, "zoneprice_consumer_messages_rejected_total", "reason", g.reason)
		if m != 1 {
			t.Errorf("rejected{reason=%q}: got %v, want 1", g.reason, m)
		}
	}
	// The garbage replaced alpha's .com on the stream (one message per
	// subject), but the index kept alpha's last good price.
	_, body := get(t, p.url+"/api/comparison/.com")
	if !bytes.Contains(body, []byte(`"registrar":"alpha"`)) {
		t.Errorf("alpha's last good .com price was lost: %s", body)
	}
}

func TestWithdrawalMovesMinimum(t *testing.T) {
	_, js := bustest.Provisioned(t)
	publish(t, js, baseEvents()...)
	p := startPod(t, js, podConfig{})
	if got, reg := p.minRegister(t, ".com"); got != "9.68" || reg != "alpha" {
		t.Fatalf("before: got %s by %s, want 9.68 by alpha", got, reg)
	}
	publish(t, js, eventtest.Withdrawal("alpha", ".com", epoch.Add(time.Minute)))
	querytest.Until(t, "the minimum to move to charlie", func() bool {
		got, reg := p.minRegister(t, ".com")
		return got == "9.74" && reg == "charlie"
	})
	publish(t, js, eventtest.Withdrawal("alpha", ".co.uk", epoch.Add(time.Minute)))
	querytest.Until(t, ".co.uk to disappear", func() bool {
		resp, _ := get(t, p.url+"/api/comparison/.co.uk")
		return resp.StatusCode == http.StatusNotFound
	})
}

// TestReadyOnlyWhenCaughtUp loads a stream much larger than one pull batch:
// the moment the pod says ready, its snapshot holds every price.
func TestReadyOnlyWhenCaughtUp(t *testing.T) {
	_, js := bustest.Provisioned(t)
	const zones, registrars = 100, 60
	events := make([]contracts.Event, 0, zones*registrars)
	for z := range zones {
		zone := "." + string(rune('a'+z%26)) + string(rune('a'+z/26)) + "x"
		for r := range registrars {
			events = append(events, eventtest.Priced("r"+string(rune('a'+r%26))+string(rune('a'+r/26)), zone, epoch, "USD", int64(1000+r), 1100, 1200))
		}
	}
	publish(t, js, events...)
	p := startPod(t, js, podConfig{})
	s := p.consumer.Snapshot()
	if s.Prices != zones*registrars || s.Zones != zones {
		t.Errorf("at ready: got %d prices in %d zones, want %d in %d", s.Prices, s.Zones, zones*registrars, zones)
	}
}

// TestServesThroughOutage stops the NATS server: the pod keeps answering
// from its last snapshot, and once NATS is back it reconnects by itself and
// applies new updates.
func TestServesThroughOutage(t *testing.T) {
	srv, js := bustest.Provisioned(t)
	publish(t, js, baseEvents()...)
	nc, err := nats.Connect(srv.ClientURL(), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	pjs, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	p := startPod(t, pjs, podConfig{})
	_, before := get(t, p.url+"/api/domains")

	restart := bustest.Stop(t, srv)
	querytest.Until(t, "the pod's connection to notice the outage", func() bool { return !nc.IsConnected() })
	// While NATS is down the pod answers from its last snapshot.
	if resp, body := get(t, p.url+"/api/domains"); resp.StatusCode != http.StatusOK || !bytes.Equal(body, before) {
		t.Errorf("during outage: got %d, want the last known catalog", resp.StatusCode)
	}
	srv = restart()
	_, js2 := bustest.Connect(t, srv)
	publish(t, js2, eventtest.Priced("zulu", ".com", epoch, "USD", 100, 100, 100))
	querytest.Until(t, "zulu after reconnect", func() bool {
		got, reg := p.minRegister(t, ".com")
		return got == "1.00" && reg == "zulu"
	})
}

// TestLateAndGarbageConverge publishes a late document (observed before the
// one it replaces) and garbage: a pod that saw them arrive and a pod started
// afterwards must answer the same. The stream's order is the authority, and
// garbage is put right by its owner's next publish.
func TestLateAndGarbageConverge(t *testing.T) {
	_, js := bustest.Provisioned(t)
	publish(t, js, baseEvents()...)
	a := startPod(t, js, podConfig{})

	late := eventtest.Priced("alpha", ".com", epoch, "USD", 1, 1, 1)
	late.ObservedAt = epoch.Add(-time.Hour)
	publish(t, js, late)
	if _, err := js.Publish(context.Background(), contracts.PriceSubject("bravo", ".com"), []byte("{garbage")); err != nil {
		t.Fatal(err)
	}
	repaired := eventtest.Priced("bravo", ".com", epoch, "USD", 1099, 1199, 1099)
	repaired.ObservedAt = epoch.Add(time.Hour)
	publish(t, js, repaired)
	// A sentinel after everything: once pod a shows it, it has applied all
	// that came before (the stream is ordered).
	publish(t, js, eventtest.Priced("zulu", ".co.uk", epoch, "USD", 1, 1, 1))
	querytest.Until(t, "pod a to apply everything", func() bool {
		got, reg := a.minRegister(t, ".co.uk")
		return got == "0.01" && reg == "zulu"
	})
	if got, reg := a.minRegister(t, ".com"); got != "0.01" || reg != "alpha" {
		t.Errorf("pod a .com minimum: got %s by %s, want the late 0.01 by alpha (stream order wins)", got, reg)
	}

	b := startPod(t, js, podConfig{})
	for _, path := range []string{"/api/domains", "/api/comparison/zones", "/api/comparison/.com", "/api/comparison/.co.uk"} {
		_, ba := get(t, a.url+path)
		_, bb := get(t, b.url+path)
		if !bytes.Equal(ba, bb) {
			t.Errorf("%s differs between a running and a new pod:\n a: %s\n b: %s", path, ba, bb)
		}
	}
}
