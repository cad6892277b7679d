package api_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
	"github.com/zoneprice/zoneprice/contracts/openapitest"
	"github.com/zoneprice/zoneprice/query/access"
	"github.com/zoneprice/zoneprice/query/api"
	"github.com/zoneprice/zoneprice/query/querytest"
	"github.com/zoneprice/zoneprice/query/webhooks"
)

// webhookPod is a pod with keys and webhooks on a provisioned JetStream,
// and keys of each kind the webhook API tells apart.
type webhookPod struct {
	*pod
	js    jetstream.JetStream
	cfg   *api.Config
	hooks webhooks.Config
	// pro and other are two subscribers whose tier has webhooks; free is
	// a key of a tier without.
	pro, other, free createdKey
}

// startWebhookPod starts it; endpoints is --webhook-endpoints.
func startWebhookPod(t *testing.T, endpoints string) *webhookPod {
	t.Helper()
	_, js := bustest.Provisioned(t)
	return startWebhookPodOn(t, js, endpoints, webhooks.Config{})
}

// startWebhookPodOn starts it on js, its store configured by hooks.
func startWebhookPodOn(t *testing.T, js jetstream.JetStream, endpoints string, hooks webhooks.Config) *webhookPod {
	t.Helper()
	publish(t, js, baseEvents()...)
	kv, err := js.KeyValue(context.Background(), contracts.KeysBucket)
	if err != nil {
		t.Fatal(err)
	}
	w := &webhookPod{js: js, pro: createKey(t, kv, contracts.ProTier), other: createKey(t, kv, contracts.ProTier),
		free: createKey(t, kv, contracts.StandardTier)}
	cfg := limitsConfig(t, "off", "standard=off,pro=off", "")
	if cfg.Limits.WebhookEndpoints, err = access.ParseEndpoints(endpoints); err != nil {
		t.Fatal(err)
	}
	w.cfg, w.hooks = cfg, hooks
	w.pod = startPod(t, js, podConfig{cfg: cfg, runKeys: true, webhooks: true, hooks: hooks})
	return w
}

// another starts a second pod beside w's, on the same JetStream and keys,
// logging to log (nil discards).
func (w *webhookPod) another(t *testing.T, log *slog.Logger) *pod {
	t.Helper()
	return startPod(t, w.js, podConfig{cfg: w.cfg, runKeys: true, webhooks: true, hooks: w.hooks, log: log})
}

// as makes a request with k's key.
func (w *webhookPod) as(t testing.TB, k createdKey, method, path, content string) (*http.Response, []byte) {
	t.Helper()
	return call(t, method, w.url+path, content, "Authorization", "Bearer "+k.key, "Content-Type", "application/json")
}

// wantProblem checks that resp is the problem code at status, naming
// param when it is not "".
func wantProblem(t *testing.T, resp *http.Response, body []byte, status int, code, param string) {
	t.Helper()
	var p contracts.Problem
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatalf("status %d, body %s: %v", resp.StatusCode, body, err)
	}
	if resp.StatusCode != status || p.Code != code || p.Param != param {
		t.Fatalf("got %d %s param %q (%s), want %d %s param %q", resp.StatusCode, p.Code, p.Param, p.Detail, status, code, param)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("Content-Type %q", ct)
	}
}

// webhookJSON is a webhook as the API shows it, secret included when one
// is shown.
type webhookJSON struct {
	ID      string   `json:"id"`
	URL     string   `json:"url"`
	Events  []string `json:"events"`
	Filters struct {
		Zones            []string `json:"zones"`
		Registrars       []string `json:"registrars"`
		Categories       []string `json:"categories"`
		MinChangePercent float64  `json:"min_change_percent"`
	} `json:"filters"`
	Description           string                     `json:"description"`
	Paused                bool                       `json:"paused"`
	Active                bool                       `json:"active"`
	Disabled              *contracts.WebhookDisabled `json:"disabled"`
	FailingSince          *time.Time                 `json:"failing_since"`
	PreviousSecretExpires *time.Time                 `json:"previous_secret_expires_at"`
	Secret                string                     `json:"secret"`
}

func (w *webhookPod) create(t *testing.T, k createdKey, content string) webhookJSON {
	t.Helper()
	resp, body := w.as(t, k, http.MethodPost, "/api/webhooks", content)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d %s", resp.StatusCode, body)
	}
	var got webhookJSON
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	if loc := resp.Header.Get("Location"); loc != "/api/webhooks/"+got.ID {
		t.Errorf("Location %q, want /api/webhooks/%s", loc, got.ID)
	}
	return got
}

const registration = `{"url":"https://hooks.example.com/zoneprice","events":["price.dropped","zone.added"],
	"filters":{"zones":["CO.UK","рф",".com."],"registrars":["alpha"],"categories":["idn"],"min_change_percent":5},
	"description":"price drops"}`

// TestWebhookLifecycle registers, lists, reads, changes, rotates, tests,
// reads the attempts of and deletes a webhook through the API, and checks
// what the bucket and the streams hold after each step.
func TestWebhookLifecycle(t *testing.T) {
	w := startWebhookPod(t, "pro=5")
	ctx := context.Background()

	created := w.create(t, w.pro, registration)
	if !strings.HasPrefix(created.Secret, contracts.WebhookSecretPrefix) || !contracts.ValidWebhookID(created.ID) {
		t.Fatalf("created %+v: want an id and a whsec_ secret", created)
	}
	if got, want := strings.Join(created.Filters.Zones, " "), ".co.uk .xn--p1ai .com"; got != want {
		t.Errorf("zones stored as %q, want the canonical %q", got, want)
	}
	if !created.Active || created.Paused || created.Disabled != nil || created.PreviousSecretExpires != nil {
		t.Errorf("a new webhook: %+v", created)
	}

	t.Run("list and get show no secret", func(t *testing.T) {
		for _, path := range []string{"/api/webhooks", "/api/webhooks/" + created.ID} {
			resp, body := w.as(t, w.pro, http.MethodGet, path, "")
			if resp.StatusCode != http.StatusOK || strings.Contains(string(body), "whsec_") || strings.Contains(string(body), `"secret"`) {
				t.Errorf("GET %s: %d %s", path, resp.StatusCode, body)
			}
			if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
				t.Errorf("GET %s: Cache-Control %q", path, cc)
			}
		}
		_, body := w.as(t, w.pro, http.MethodGet, "/api/webhooks", "")
		var list struct {
			Count    int           `json:"count"`
			Limit    int           `json:"limit"`
			Webhooks []webhookJSON `json:"webhooks"`
		}
		if err := json.Unmarshal(body, &list); err != nil {
			t.Fatal(err)
		}
		if list.Count != 1 || list.Limit != 5 || list.Webhooks[0].ID != created.ID {
			t.Errorf("list: %s", body)
		}
		_, body = w.as(t, w.other, http.MethodGet, "/api/webhooks", "")
		if got := string(body); got != `{"count":0,"limit":5,"webhooks":[]}`+"\n" {
			t.Errorf("another key's list: %s", got)
		}
	})

	t.Run("patch", func(t *testing.T) {
		resp, body := w.as(t, w.pro, http.MethodPatch, "/api/webhooks/"+created.ID,
			`{"paused":true,"filters":{"zones":["XN--P1AI"]},"description":""}`)
		var got webhookJSON
		if err := json.Unmarshal(body, &got); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("patch: %d %s", resp.StatusCode, body)
		}
		if !got.Paused || got.Active || strings.Join(got.Filters.Zones, " ") != ".xn--p1ai" || len(got.Filters.Registrars) != 0 ||
			got.Description != "" || got.URL != created.URL || len(got.Events) != 2 {
			t.Errorf("patched: %s", body)
		}
	})

	t.Run("re-enable a disabled endpoint", func(t *testing.T) {
		kv, err := w.js.KeyValue(ctx, contracts.WebhooksBucket)
		if err != nil {
			t.Fatal(err)
		}
		key := contracts.WebhookKey(w.pro.id, created.ID)
		e, err := kv.Get(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		var rec contracts.Webhook
		if err := json.Unmarshal(e.Value(), &rec); err != nil {
			t.Fatal(err)
		}
		rec.Disabled = &contracts.WebhookDisabled{At: epoch, Reason: "410 Gone"}
		rec.FailingSince = &epoch
		b, _ := json.Marshal(rec)
		if _, err := kv.Update(ctx, key, b, e.Revision()); err != nil {
			t.Fatal(err)
		}
		_, body := w.as(t, w.pro, http.MethodGet, "/api/webhooks/"+created.ID, "")
		if !strings.Contains(string(body), `"disabled":{"at":"2026-11-20T12:00:00Z","reason":"410 Gone"}`) {
			t.Errorf("disabled webhook shows %s", body)
		}
		resp, body := w.as(t, w.pro, http.MethodPatch, "/api/webhooks/"+created.ID, `{"disabled":null,"paused":false}`)
		var got webhookJSON
		if err := json.Unmarshal(body, &got); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("patch: %d %s", resp.StatusCode, body)
		}
		if got.Disabled != nil || got.FailingSince != nil || !got.Active {
			t.Errorf("re-enabled: %s", body)
		}
		resp, body = w.as(t, w.pro, http.MethodPatch, "/api/webhooks/"+created.ID, `{"disabled":{"reason":"mine"}}`)
		wantProblem(t, resp, body, http.StatusBadRequest, contracts.CodeInvalidBody, "disabled")
	})

	t.Run("rotate the secret", func(t *testing.T) {
		resp, body := w.as(t, w.pro, http.MethodPost, "/api/webhooks/"+created.ID+"/rotate-secret", "")
		var got webhookJSON
		if err := json.Unmarshal(body, &got); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("rotate: %d %s", resp.StatusCode, body)
		}
		if got.Secret == "" || got.Secret == created.Secret || got.PreviousSecretExpires == nil {
			t.Errorf("rotated: %s", body)
		}
		kv, err := w.js.KeyValue(ctx, contracts.WebhooksBucket)
		if err != nil {
			t.Fatal(err)
		}
		e, err := kv.Get(ctx, contracts.WebhookKey(w.pro.id, created.ID))
		if err != nil {
			t.Fatal(err)
		}
		var rec contracts.Webhook
		if err := json.Unmarshal(e.Value(), &rec); err != nil {
			t.Fatal(err)
		}
		if len(rec.Secrets) != 2 || rec.Secrets[0].Secret != got.Secret || rec.Secrets[0].Expires != nil ||
			rec.Secrets[1].Secret != created.Secret || !rec.Secrets[1].Expires.Equal(*got.PreviousSecretExpires) {
			t.Errorf("secrets after rotation: %+v", rec.Secrets)
		}
		// The overlap is a day from the rotation, which happened after
		// the webhook was updated last.
		if d := rec.Secrets[1].Expires.Sub(rec.UpdatedAt); d != contracts.WebhookRotationOverlap {
			t.Errorf("the old secret expires %v after the rotation, want %v", d, contracts.WebhookRotationOverlap)
		}
	})

	t.Run("test queues a ping", func(t *testing.T) {
		resp, body := w.as(t, w.pro, http.MethodPost, "/api/webhooks/"+created.ID+"/test", "")
		var got struct{ Webhook, Delivery, Type string }
		if err := json.Unmarshal(body, &got); err != nil || resp.StatusCode != http.StatusAccepted {
			t.Fatalf("test: %d %s", resp.StatusCode, body)
		}
		s, err := w.js.Stream(ctx, contracts.DeliveriesStream)
		if err != nil {
			t.Fatal(err)
		}
		msg, err := s.GetLastMsgForSubject(ctx, contracts.DeliverySubject(w.pro.id, created.ID))
		if err != nil {
			t.Fatal(err)
		}
		for h, want := range map[string]string{contracts.HeaderMsgID: got.Delivery, contracts.HeaderWebhookID: got.Delivery, contracts.HeaderEvent: "ping"} {
			if v := msg.Header.Get(h); v != want {
				t.Errorf("header %s: %q, want %q", h, v, want)
			}
		}
		var payload struct {
			Type      string             `json:"type"`
			Timestamp time.Time          `json:"timestamp"`
			Data      contracts.PingData `json:"data"`
		}
		if err := json.Unmarshal(msg.Data, &payload); err != nil {
			t.Fatal(err)
		}
		if payload.Type != "ping" || payload.Timestamp.IsZero() || payload.Data.Webhook != created.ID || payload.Data.Message == "" {
			t.Errorf("ping payload: %s", msg.Data)
		}
	})

	t.Run("deliveries, newest first", func(t *testing.T) {
		resp, body := w.as(t, w.pro, http.MethodGet, "/api/webhooks/"+created.ID+"/deliveries", "")
		if resp.StatusCode != http.StatusOK || string(body) != `{"webhook":"`+created.ID+`","count":0,"attempts":[]}`+"\n" {
			t.Errorf("no attempts yet: %d %s", resp.StatusCode, body)
		}
		next := epoch.Add(5 * time.Second)
		// msg_1's attempts as records were made before 2026-11-28, one
		// object a message.
		for i, a := range []contracts.DeliveryAttempt{
			{Delivery: "msg_1", Type: contracts.EventPing, Attempt: 1, At: epoch, Outcome: contracts.OutcomeFailed, Status: 500, DurationMS: 12.5, Error: "500 Internal Server Error", NextAttempt: &next},
			{Delivery: "msg_1", Type: contracts.EventPing, Attempt: 2, At: next, Outcome: contracts.OutcomeDelivered, Status: 204, DurationMS: 3},
		} {
			b, _ := json.Marshal(a)
			if _, err := w.js.Publish(ctx, contracts.AttemptSubject(created.ID), b); err != nil {
				t.Fatalf("attempt %d: %v", i, err)
			}
		}
		// The next as notify records them now: the endpoint's attempts of
		// a batch one message, another endpoint's, between them in the
		// batch, in a message of its own.
		batch := []bus.Attempt{
			{Webhook: created.ID, Attempt: &contracts.DeliveryAttempt{Delivery: "msg_2", Type: contracts.EventPriceDropped, Attempt: 1, At: next.Add(time.Minute), Outcome: contracts.OutcomeDelivered, Status: 200, DurationMS: 4}},
			{Webhook: "wh_0000000000000000", Attempt: &contracts.DeliveryAttempt{Delivery: "msg_x", Attempt: 1, At: next.Add(time.Hour)}},
			// A slow attempt begun before msg_2's is recorded after it:
			// attempts are listed by their own at, not by when they ended.
			{Webhook: created.ID, Attempt: &contracts.DeliveryAttempt{Delivery: "msg_3", Type: contracts.EventPriceDropped, Attempt: 1, At: next.Add(30 * time.Second), Outcome: contracts.OutcomeFailed, DurationMS: 15000, Error: "no answer within 15s"}},
		}
		if n, err := bus.NewDeliveries(w.js).RecordAll(ctx, batch); err != nil || n != len(batch) {
			t.Fatalf("RecordAll = %d, %v", n, err)
		}
		if s, err := w.js.Stream(ctx, contracts.AttemptsStream); err != nil {
			t.Fatal(err)
		} else if info, err := s.Info(ctx, jetstream.WithSubjectFilter(contracts.AttemptSubject(created.ID))); err != nil || info.State.Subjects[contracts.AttemptSubject(created.ID)] != 3 {
			t.Fatalf("the endpoint's messages: %v, %v; want msg_1's two and one of msg_2 and msg_3", info, err)
		}
		var got struct {
			Count    int `json:"count"`
			Attempts []struct {
				Delivery string  `json:"delivery"`
				Attempt  int     `json:"attempt"`
				Error    *string `json:"error"`
			} `json:"attempts"`
		}
		_, body = w.as(t, w.pro, http.MethodGet, "/api/webhooks/"+created.ID+"/deliveries?limit=2", "")
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatal(err)
		}
		if got.Count != 2 || got.Attempts[0].Delivery != "msg_2" || got.Attempts[1].Delivery != "msg_3" {
			t.Errorf("last two attempts: %s", body)
		}
		_, body = w.as(t, w.pro, http.MethodGet, "/api/webhooks/"+created.ID+"/deliveries", "")
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatal(err)
		}
		if got.Count != 4 || got.Attempts[2].Attempt != 2 || got.Attempts[2].Error != nil ||
			got.Attempts[3].Error == nil || *got.Attempts[3].Error != "500 Internal Server Error" {
			t.Errorf("every attempt: %s", body)
		}
		for _, q := range []string{"limit=0", "limit=101", "limit=x", "limit=1&limit=2", "since=1"} {
			resp, body := w.as(t, w.pro, http.MethodGet, "/api/webhooks/"+created.ID+"/deliveries?"+q, "")
			wantProblem(t, resp, body, http.StatusBadRequest, contracts.CodeInvalidParameter, strings.Split(q, "=")[0])
		}
	})

	t.Run("delete", func(t *testing.T) {
		resp, body := w.as(t, w.pro, http.MethodDelete, "/api/webhooks/"+created.ID, "")
		if resp.StatusCode != http.StatusNoContent || len(body) != 0 {
			t.Fatalf("delete: %d %s", resp.StatusCode, body)
		}
		resp, body = w.as(t, w.pro, http.MethodGet, "/api/webhooks/"+created.ID, "")
		wantProblem(t, resp, body, http.StatusNotFound, contracts.CodeUnknownWebhook, "id")
		resp, body = w.as(t, w.pro, http.MethodDelete, "/api/webhooks/"+created.ID, "")
		wantProblem(t, resp, body, http.StatusNotFound, contracts.CodeUnknownWebhook, "id")
	})
}

// TestWebhookAccess: a webhook is its key's alone, behind a key whose tier
// has webhooks.
func TestWebhookAccess(t *testing.T) {
	w := startWebhookPod(t, "pro=5")
	created := w.create(t, w.pro, registration)
	id := "/api/webhooks/" + created.ID
	routes := []struct{ method, path, content string }{
		{http.MethodPost, "/api/webhooks", registration},
		{http.MethodGet, "/api/webhooks", ""},
		{http.MethodGet, id, ""},
		{http.MethodPatch, id, `{"paused":true}`},
		{http.MethodDelete, id, ""},
		{http.MethodPost, id + "/test", ""},
		{http.MethodPost, id + "/rotate-secret", ""},
		{http.MethodGet, id + "/deliveries", ""},
	}
	for _, r := range routes {
		t.Run(r.method+" "+r.path, func(t *testing.T) {
			resp, body := call(t, r.method, w.url+r.path, r.content, "Content-Type", "application/json")
			wantProblem(t, resp, body, http.StatusUnauthorized, contracts.CodeAPIKeyRequired, "")
			if !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("WWW-Authenticate %q", resp.Header.Get("WWW-Authenticate"))
			}
			resp, body = call(t, r.method, w.url+r.path, r.content, "Authorization", "Bearer zp_unknownunknownunknownunknown1234")
			wantProblem(t, resp, body, http.StatusUnauthorized, contracts.CodeInvalidAPIKey, "")
			resp, body = w.as(t, w.free, r.method, r.path, r.content)
			wantProblem(t, resp, body, http.StatusForbidden, contracts.CodeWebhooksNotAllowed, "")
			if r.path != "/api/webhooks" {
				resp, body = w.as(t, w.other, r.method, r.path, r.content)
				wantProblem(t, resp, body, http.StatusNotFound, contracts.CodeUnknownWebhook, "id")
				resp, body = w.as(t, w.pro, r.method, strings.Replace(r.path, created.ID, "not-an-id", 1), r.content)
				wantProblem(t, resp, body, http.StatusNotFound, contracts.CodeUnknownWebhook, "id")
			}
		})
	}
	// None of the others' requests changed it.
	resp, body := w.as(t, w.pro, http.MethodGet, id, "")
	if resp.StatusCode != http.StatusOK || strings.Contains(string(body), `"paused":true`) {
		t.Errorf("after the others' requests: %d %s", resp.StatusCode, body)
	}
	// Methods a path does not take, and no preflight: browsers are not
	// the webhook API's clients.
	for _, r := range []struct{ method, path, allow string }{
		{http.MethodPut, id, "DELETE, GET, PATCH"},
		{http.MethodGet, id + "/test", "POST"},
	} {
		resp, body := w.as(t, w.pro, r.method, r.path, "")
		wantProblem(t, resp, body, http.StatusMethodNotAllowed, contracts.CodeMethodNotAllowed, "")
		for _, m := range strings.Split(r.allow, ", ") {
			if !strings.Contains(resp.Header.Get("Allow"), m) {
				t.Errorf("%s %s: Allow %q lacks %s", r.method, r.path, resp.Header.Get("Allow"), m)
			}
		}
	}
	resp, _ = call(t, http.MethodOptions, w.url+"/api/webhooks", "", "Origin", "https://example.org", "Access-Control-Request-Method", "POST")
	if resp.Header.Get("Access-Control-Allow-Methods") != "" {
		t.Errorf("a preflight of the webhook API was allowed: %v", resp.Header)
	}
}

// TestWebhookRequests: what a registration or a change may not be.
func TestWebhookRequests(t *testing.T) {
	w := startWebhookPod(t, "pro=5")
	created := w.create(t, w.pro, registration)
	tests := []struct {
		name, method, path, content string
		header                      []string
		status                      int
		code, param                 string
	}{
		{"an unknown field", http.MethodPost, "/api/webhooks", `{"url":"https://a.example","events":["ping"],"secret":"mine"}`, nil, 400, contracts.CodeInvalidBody, "secret"},
		{"an unknown filter", http.MethodPost, "/api/webhooks", `{"url":"https://a.example","events":["ping"],"filters":{"zone":".com"}}`, nil, 400, contracts.CodeInvalidBody, "filters.zone"},
		{"http", http.MethodPost, "/api/webhooks", `{"url":"http://a.example","events":["ping"]}`, nil, 400, contracts.CodeInvalidBody, "url"},
		{"user information", http.MethodPost, "/api/webhooks", `{"url":"https://me:pw@a.example","events":["ping"]}`, nil, 400, contracts.CodeInvalidBody, "url"},
		{"no url", http.MethodPost, "/api/webhooks", `{"events":["ping"]}`, nil, 400, contracts.CodeInvalidBody, "url"},
		{"no events", http.MethodPost, "/api/webhooks", `{"url":"https://a.example"}`, nil, 400, contracts.CodeInvalidBody, "events"},
		{"an unknown event", http.MethodPost, "/api/webhooks", `{"url":"https://a.example","events":["ping","price.up"]}`, nil, 400, contracts.CodeInvalidBody, "events[1]"},
		{"events not a list", http.MethodPost, "/api/webhooks", `{"url":"https://a.example","events":"ping"}`, nil, 400, contracts.CodeInvalidBody, "events"},
		{"a bad zone", http.MethodPost, "/api/webhooks", `{"url":"https://a.example","events":["ping"],"filters":{"zones":[".com","exa_mple"]}}`, nil, 400, contracts.CodeInvalidBody, "filters.zones[1]"},
		{"a bad category", http.MethodPost, "/api/webhooks", `{"url":"https://a.example","events":["ping"],"filters":{"categories":["nope"]}}`, nil, 400, contracts.CodeInvalidBody, "filters.categories[0]"},
		{"a bad percentage", http.MethodPost, "/api/webhooks", `{"url":"https://a.example","events":["ping"],"filters":{"min_change_percent":101}}`, nil, 400, contracts.CodeInvalidBody, "filters.min_change_percent"},
		{"disabled at registration", http.MethodPost, "/api/webhooks", `{"url":"https://a.example","events":["ping"],"disabled":null}`, nil, 400, contracts.CodeInvalidBody, "disabled"},
		{"not JSON", http.MethodPost, "/api/webhooks", `url=https://a.example`, nil, 400, contracts.CodeInvalidBody, "body"},
		{"not an object", http.MethodPost, "/api/webhooks", `["https://a.example"]`, nil, 400, contracts.CodeInvalidBody, "body"},
		{"two objects", http.MethodPost, "/api/webhooks", `{"url":"https://a.example","events":["ping"]} {}`, nil, 400, contracts.CodeInvalidBody, "body"},
		{"no content", http.MethodPost, "/api/webhooks", ``, nil, 400, contracts.CodeInvalidBody, "body"},
		{"too large", http.MethodPost, "/api/webhooks", `{"description":"` + strings.Repeat("a", 64<<10) + `"}`, nil, 413, "http-413", ""},
		{"not JSON by its type", http.MethodPost, "/api/webhooks", `{}`, []string{"Content-Type", "text/plain"}, 415, "http-415", ""},
		{"patch: http", http.MethodPatch, "/api/webhooks/" + created.ID, `{"url":"http://a.example"}`, nil, 400, contracts.CodeInvalidBody, "url"},
		{"patch: a bad zone", http.MethodPatch, "/api/webhooks/" + created.ID, `{"filters":{"zones":["a..b"]}}`, nil, 400, contracts.CodeInvalidBody, "filters.zones[0]"},
		{"patch: no events", http.MethodPatch, "/api/webhooks/" + created.ID, `{"events":[]}`, nil, 400, contracts.CodeInvalidBody, "events"},
		{"patch: paused not a boolean", http.MethodPatch, "/api/webhooks/" + created.ID, `{"paused":"yes"}`, nil, 400, contracts.CodeInvalidBody, "paused"},
		{"patch: an unknown field", http.MethodPatch, "/api/webhooks/" + created.ID, `{"id":"wh_0000000000000000"}`, nil, 400, contracts.CodeInvalidBody, "id"},
		{"content on a route without", http.MethodPost, "/api/webhooks/" + created.ID + "/test", `{}`, nil, 413, "http-413", ""},
		{"content on a GET", http.MethodGet, "/api/webhooks", `{}`, nil, 413, "http-413", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			header := append([]string{"Authorization", "Bearer " + w.pro.key, "Content-Type", "application/json"}, tt.header...)
			resp, body := call(t, tt.method, w.url+tt.path, tt.content, header...)
			wantProblem(t, resp, body, tt.status, tt.code, tt.param)
		})
	}
	// Nothing above changed the registration.
	_, body := w.as(t, w.pro, http.MethodGet, "/api/webhooks", "")
	if !strings.Contains(string(body), `"count":1,`) || !strings.Contains(string(body), `"url":"https://hooks.example.com/zoneprice"`) {
		t.Errorf("after the refused requests: %s", body)
	}
}

// TestWebhookLimit: a key registers as many endpoints as its tier allows.
func TestWebhookLimit(t *testing.T) {
	w := startWebhookPod(t, "pro=2")
	first := w.create(t, w.pro, registration)
	w.create(t, w.pro, registration)
	resp, body := w.as(t, w.pro, http.MethodPost, "/api/webhooks", registration)
	wantProblem(t, resp, body, http.StatusConflict, contracts.CodeWebhookLimit, "")
	// Another key has its own allowance, and a deletion makes room.
	w.create(t, w.other, registration)
	if resp, _ := w.as(t, w.pro, http.MethodDelete, "/api/webhooks/"+first.ID, ""); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("delete: %d", resp.StatusCode)
	}
	w.create(t, w.pro, registration)
}

// TestWebhookInternalAddressesRefused: a URL whose host is an internal
// address, however it is spelt, is refused at registration and in a
// change, naming url; a public address, and any name, are taken (a name
// is checked when a delivery connects, after DNS resolution).
func TestWebhookInternalAddressesRefused(t *testing.T) {
	w := startWebhookPod(t, "pro=100")
	body := func(url string) string { return `{"url":"` + url + `","events":["ping"]}` }
	for _, url := range []string{
		"https://127.0.0.1/", "https://127.0.0.1./", "https://127.1/", "https://2130706433/", "https://0x7f000001/",
		"https://0177.0.0.1/", "https://0x7f.0.0.1/", "https://１２７.０.０.１/", "https://127.0.0.1:443/hook",
		"https://10.0.0.5/", "https://172.16.0.1/", "https://192.168.1.1/", "https://100.64.0.1/",
		"https://169.254.169.254/latest/meta-data/", "https://0.0.0.0/", "https://0/", "https://224.0.0.1/",
		"https://255.255.255.255/", "https://192.0.2.1/",
		"https://[::1]/", "https://[::]/", "https://[::ffff:127.0.0.1]/", "https://[::ffff:a9fe:a9fe]/",
		"https://[fe80::1%25eth0]/", "https://[fc00::1]/", "https://[fd12:3456::1]/", "https://[64:ff9b::a9fe:a9fe]/",
		"https://[2002:a9fe:a9fe::1]/", "https://[2001:db8::1]/", "https://[ff02::1]/",
	} {
		resp, b := w.as(t, w.pro, http.MethodPost, "/api/webhooks", body(url))
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), `"param":"url"`) {
			t.Errorf("%s: %d %s, want 400 naming url", url, resp.StatusCode, b)
		}
	}
	var kept webhookJSON
	for _, url := range []string{"https://93.184.216.34/hook", "https://[2606:4700:4700::1111]/", "https://hooks.example.com/",
		"https://127.0.0.1.nip.io/", "https://0x7f.example/", "https://1.1.1.1:443/"} {
		kept = w.create(t, w.pro, body(url))
	}
	resp, b := w.as(t, w.pro, http.MethodPatch, "/api/webhooks/"+kept.ID, `{"url":"https://[::ffff:10.0.0.1]/"}`)
	wantProblem(t, resp, b, http.StatusBadRequest, contracts.CodeInvalidBody, "url")
}

// TestWebhookLimitUnderConcurrency: 200 creates at once with a key that
// may have 5, spread over two pods, make exactly 5 webhooks; every other
// create is the tier's problem, and leaves nothing behind: no record, no
// consumer of the bucket.
func TestWebhookLimitUnderConcurrency(t *testing.T) {
	w := startWebhookPod(t, "pro=5")
	pods := []*pod{w.pod, w.another(t, nil)}
	const creates = 200
	statuses := make([]int, creates)
	codes := make([]string, creates)
	var wg sync.WaitGroup
	for i := range creates {
		wg.Go(func() {
			resp, body := call(t, http.MethodPost, pods[i%len(pods)].url+"/api/webhooks", registration,
				"Authorization", "Bearer "+w.pro.key, "Content-Type", "application/json")
			var p contracts.Problem
			_ = json.Unmarshal(body, &p)
			statuses[i], codes[i] = resp.StatusCode, p.Code
		})
	}
	wg.Wait()
	created, refused := 0, 0
	for i := range creates {
		switch {
		case statuses[i] == http.StatusCreated:
			created++
		case statuses[i] == http.StatusConflict && codes[i] == contracts.CodeWebhookLimit:
			refused++
		default:
			t.Errorf("create %d: %d %s", i, statuses[i], codes[i])
		}
	}
	if created != 5 || refused != creates-5 {
		t.Errorf("%d created and %d refused; want 5 and %d", created, refused, creates-5)
	}
	kv, err := w.js.KeyValue(context.Background(), contracts.WebhooksBucket)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := kv.ListKeysFiltered(context.Background(), contracts.WebhookKey(w.pro.id, "*"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for range keys.Keys() {
		n++
	}
	if n != 5 {
		t.Errorf("the bucket holds %d of the key's webhooks, want 5", n)
	}
	// The bucket's stream has no consumer a create left behind (the list
	// above deleted its own when it ended).
	waitConsumers(t, w.js, "KV_"+contracts.WebhooksBucket, 0)
}

// TestWebhookPingsCapped: pings at once to one endpoint queue exactly as
// many as the stream keeps for one, pings to the key's other endpoint
// exactly as many as the key may still have waiting; every other ping is
// 429 delivery-queue-full with Retry-After, and queues nothing.
func TestWebhookPingsCapped(t *testing.T) {
	_, js := bustest.Provisioned(t)
	cfg := bus.DeliveriesConfig(bus.Options{})
	cfg.MaxMsgsPerSubject = 3
	if _, err := js.UpdateStream(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	w := startWebhookPodOn(t, js, "pro=5", webhooks.Config{MaxQueuedPerKey: 5})
	a, b := w.create(t, w.pro, registration), w.create(t, w.pro, registration)
	doc := openapitest.Load(t)
	refusal, err := doc.Response(http.MethodPost, "/api/webhooks/{id}/test", http.StatusTooManyRequests)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		webhook  string
		accepted int
	}{{a.ID, 3}, {b.ID, 2}} {
		const pings = 20
		statuses := make([]int, pings)
		var wg sync.WaitGroup
		for i := range pings {
			wg.Go(func() {
				resp, body := w.as(t, w.pro, http.MethodPost, "/api/webhooks/"+tt.webhook+"/test", "")
				statuses[i] = resp.StatusCode
				if resp.StatusCode == http.StatusTooManyRequests {
					var p contracts.Problem
					if err := json.Unmarshal(body, &p); err != nil || p.Code != contracts.CodeDeliveryQueueFull || resp.Header.Get("Retry-After") != "60" {
						t.Errorf("a refused ping: %s, Retry-After %q", body, resp.Header.Get("Retry-After"))
					}
					for _, err := range doc.Validate(refusal, resp, body, openapitest.Check{}) {
						t.Errorf("a refused ping against the OpenAPI document: %v", err)
					}
				}
			})
		}
		wg.Wait()
		accepted := 0
		for _, st := range statuses {
			switch st {
			case http.StatusAccepted:
				accepted++
			case http.StatusTooManyRequests:
			default:
				t.Errorf("a ping: %d", st)
			}
		}
		if accepted != tt.accepted {
			t.Errorf("%d pings of %d to %s accepted, want %d", accepted, pings, tt.webhook, tt.accepted)
		}
	}
	if n, err := bus.NewDeliveries(js).Queued(context.Background(), w.pro.id); err != nil || n != 5 {
		t.Errorf("the key has %d deliveries waiting (%v), want 5", n, err)
	}
}

// waitConsumers waits until stream has want consumers.
func waitConsumers(t *testing.T, js jetstream.JetStream, stream string, want int) {
	t.Helper()
	querytest.Until(t, "stream "+stream+" to have "+strconv.Itoa(want)+" consumers", func() bool {
		s, err := js.Stream(context.Background(), stream)
		return err == nil && s.CachedInfo().State.Consumers == want
	})
}

// TestWebhookStoreDownLogged: a webhook request the store cannot answer
// is a 503 to retry, logged with the request's id.
func TestWebhookStoreDownLogged(t *testing.T) {
	w := startWebhookPod(t, "pro=5")
	var logs querytest.LogBuffer
	p := w.another(t, slog.New(slog.NewJSONHandler(&logs, nil)))
	if err := w.js.DeleteKeyValue(context.Background(), contracts.WebhooksBucket); err != nil {
		t.Fatal(err)
	}
	resp, body := call(t, http.MethodPost, p.url+"/api/webhooks", registration,
		"Authorization", "Bearer "+w.pro.key, "Content-Type", "application/json", "X-Request-Id", "req-webhook-down")
	wantProblem(t, resp, body, http.StatusServiceUnavailable, contracts.CodeNotReady, "")
	if !strings.Contains(logs.String(), `"request_id":"req-webhook-down"`) {
		t.Errorf("the log does not name the request:\n%s", logs.String())
	}
}

// TestOpenAPIWebhooks validates every answer of the webhook API the pod can
// be made to give against contracts/openapi.json, and checks that every
// field documented for the responses of its GETs validated here was seen.
func TestOpenAPIWebhooks(t *testing.T) {
	w := startWebhookPod(t, "pro=1")
	d := openapitest.Load(t)
	created := w.create(t, w.pro, registration)
	id := "/api/webhooks/" + created.ID
	next := epoch.Add(time.Minute)
	for _, a := range []contracts.DeliveryAttempt{
		{Delivery: "msg_1", Type: contracts.EventPriceDropped, Attempt: 1, At: epoch, Outcome: contracts.OutcomeFailed, Status: 503, DurationMS: 20, Error: "503 Service Unavailable", NextAttempt: &next},
		{Delivery: "msg_1", Type: contracts.EventPriceDropped, Attempt: 2, At: next, Outcome: contracts.OutcomeDelivered, Status: 200, DurationMS: 5},
	} {
		b, _ := json.Marshal(a)
		if _, err := w.js.Publish(context.Background(), contracts.AttemptSubject(created.ID), b); err != nil {
			t.Fatal(err)
		}
	}
	pro, other, free := w.pro, w.other, w.free
	none := createdKey{}
	tests := []struct {
		name, method, target, path, content string
		key                                 createdKey
		status                              int
	}{
		{"list", http.MethodGet, "/api/webhooks", "/api/webhooks", "", pro, 200},
		{"get", http.MethodGet, id, "/api/webhooks/{id}", "", pro, 200},
		{"deliveries", http.MethodGet, id + "/deliveries?limit=5", "/api/webhooks/{id}/deliveries", "", pro, 200},
		{"patch", http.MethodPatch, id, "/api/webhooks/{id}", `{"paused":true}`, pro, 200},
		{"rotate", http.MethodPost, id + "/rotate-secret", "/api/webhooks/{id}/rotate-secret", "", pro, 200},
		{"get rotated", http.MethodGet, id, "/api/webhooks/{id}", "", pro, 200},
		{"test", http.MethodPost, id + "/test", "/api/webhooks/{id}/test", "", pro, 202},
		{"over the limit", http.MethodPost, "/api/webhooks", "/api/webhooks", registration, pro, 409},
		{"create by another", http.MethodPost, "/api/webhooks", "/api/webhooks", registration, other, 201},
		{"bad content", http.MethodPost, "/api/webhooks", "/api/webhooks", `{"url":"http://a.example"}`, other, 400},
		{"bad parameter", http.MethodGet, id + "/deliveries?limit=0", "/api/webhooks/{id}/deliveries", "", pro, 400},
		{"list without a key", http.MethodGet, "/api/webhooks", "/api/webhooks", "", none, 401},
		{"get without a key", http.MethodGet, id, "/api/webhooks/{id}", "", none, 401},
		{"deliveries without a key", http.MethodGet, id + "/deliveries", "/api/webhooks/{id}/deliveries", "", none, 401},
		{"list, tier without webhooks", http.MethodGet, "/api/webhooks", "/api/webhooks", "", free, 403},
		{"get, tier without webhooks", http.MethodGet, id, "/api/webhooks/{id}", "", free, 403},
		{"deliveries, tier without webhooks", http.MethodGet, id + "/deliveries", "/api/webhooks/{id}/deliveries", "", free, 403},
		{"get another's", http.MethodGet, id, "/api/webhooks/{id}", "", other, 404},
		{"deliveries of another's", http.MethodGet, id + "/deliveries", "/api/webhooks/{id}/deliveries", "", other, 404},
		{"too large", http.MethodPatch, id, "/api/webhooks/{id}", `{"description":"` + strings.Repeat("a", 70<<10) + `"}`, pro, 413},
		{"delete", http.MethodDelete, id, "/api/webhooks/{id}", "", pro, 204},
		{"get deleted", http.MethodGet, id, "/api/webhooks/{id}", "", pro, 404},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			header := []string{"Content-Type", "application/json"}
			if tt.key.key != "" {
				header = append(header, "Authorization", "Bearer "+tt.key.key)
			}
			resp, body := call(t, tt.method, w.url+tt.target, tt.content, header...)
			if resp.StatusCode != tt.status {
				t.Fatalf("got %d, want %d: %s", resp.StatusCode, tt.status, body)
			}
			r, err := d.Response(tt.method, tt.path, tt.status)
			if err != nil {
				t.Fatal(err)
			}
			for _, err := range d.Validate(r, resp, body, openapitest.Check{}) {
				t.Errorf("%s %s (%d): %v", tt.method, tt.target, tt.status, err)
			}
			if tt.method == http.MethodGet {
				noteFields(t, seen, "GET "+tt.path+" "+strconv.Itoa(tt.status)+" ", body)
			}
		})
	}
	wantAllSeen(t, d, seen, func(f string) bool {
		// A webhook's disabled state needs notify, or an operator; no
		// problem but a 404 names a parameter.
		field := strings.Fields(f)[3]
		return strings.HasPrefix(field, "disabled.") || strings.Contains(field, ".disabled.") ||
			field == "param" && !strings.Contains(f, " 404 ")
	})
}
