package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v5"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/query/access"
	"github.com/zoneprice/zoneprice/query/webhooks"
)

// The webhook API: a subscriber's own endpoints, behind its API key. These
// are the only routes that write, and the only ones that take content: a
// JSON object of at most maxWebhookBody bytes, which must arrive within
// the server's ReadTimeout like the rest of the request. Its answers are
// the subscriber's alone and may hold a secret: never stored by any cache.

// maxWebhookBody bounds a webhook request's content: a registration with
// every filter list full of the longest zones still fits.
const maxWebhookBody = 64 << 10

// webhookTimeout bounds the store's work for one request.
const webhookTimeout = 10 * time.Second

// queueFullRetryAfter is the Retry-After, in seconds, of a ping refused
// for the deliveries waiting: a minute, in which a working endpoint
// takes thousands; a failing one's wait for their retries, which its
// deliveries page shows.
const queueFullRetryAfter = 60

// subscriberKey is where limit leaves the subscriber of a request with a
// valid key.
const subscriberKey = "subscriber"

var (
	noStore        = []string{"no-store"}
	bearerRequired = []string{`Bearer realm="zoneprice"`}
)

// webhookOwner returns the subscriber a webhook request is made for, and
// how many endpoints its tier may register, or the problem: 401 without a
// key (limit has already refused a wrong one), 403 for a tier without
// webhooks.
func (s *Server) webhookOwner(c *echo.Context) (*access.Subscriber, int, error) {
	h := c.Response().Header()
	h["Cache-Control"] = noStore
	sub, _ := c.Get(subscriberKey).(*access.Subscriber)
	if sub == nil {
		h["Www-Authenticate"] = bearerRequired
		return nil, 0, problem(http.StatusUnauthorized, contracts.CodeAPIKeyRequired, "API key required",
			"webhooks belong to an API key: send it as Authorization: Bearer <key> or X-API-Key: <key>")
	}
	limit := s.cfg.Limits.WebhookEndpoints.Of(sub.Tier)
	if limit == 0 {
		return nil, 0, problem(http.StatusForbidden, contracts.CodeWebhooksNotAllowed, "Webhooks not in your tier",
			"keys of the "+sub.Tier+" tier cannot register webhooks")
	}
	if s.hooks == nil {
		return nil, 0, problem(http.StatusServiceUnavailable, contracts.CodeNotReady, "Not ready",
			"webhooks are not available on this server")
	}
	return sub, limit, nil
}

// webhookRoute makes a handler of the webhook API: it checks the key,
// bounds the store's work, and writes the status and body do returns (no
// body: none). do gets the owner's key id and how many endpoints it may
// have.
func (s *Server) webhookRoute(do func(ctx context.Context, c *echo.Context, owner string, limit int) (int, any, error)) echo.HandlerFunc {
	return func(c *echo.Context) error {
		sub, limit, err := s.webhookOwner(c)
		if err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(c.Request().Context(), webhookTimeout)
		defer cancel()
		status, body, err := do(ctx, c, sub.ID, limit)
		if err != nil {
			return s.webhookError(c, err)
		}
		if body == nil {
			return c.NoContent(status)
		}
		return c.JSON(status, body)
	}
}

// webhookError turns the store's errors into problems. JetStream's own
// (an outage, a timeout) are a 503 to retry, and logged.
func (s *Server) webhookError(c *echo.Context, err error) error {
	var ve *contracts.ValidationError
	var le *webhooks.LimitError
	var qe *webhooks.QueueFullError
	var pe *problemError
	var he *echo.HTTPError
	switch {
	case errors.As(err, &pe) || errors.As(err, &he):
		return err
	case errors.Is(err, webhooks.ErrNotFound):
		return paramProblem(http.StatusNotFound, contracts.CodeUnknownWebhook, "Unknown webhook", "id",
			"no webhook "+truncate(c.Param("id"), 40)+" is registered with this key; GET /api/webhooks lists yours")
	case errors.As(err, &ve):
		return paramProblem(http.StatusBadRequest, contracts.CodeInvalidBody, "Invalid request content", ve.Field, ve.Problem)
	case errors.As(err, &le):
		return problem(http.StatusConflict, contracts.CodeWebhookLimit, "Webhook limit reached",
			le.Error()+"; delete one first")
	case errors.As(err, &qe):
		c.Response().Header().Set("Retry-After", strconv.Itoa(queueFullRetryAfter))
		return problem(http.StatusTooManyRequests, contracts.CodeDeliveryQueueFull, "Too many deliveries waiting",
			qe.Error()+"; they leave the queue as they are delivered or given up (GET /api/webhooks/{id}/deliveries shows how they fare)")
	case errors.Is(err, webhooks.ErrConflict):
		return problem(http.StatusConflict, contracts.CodeConflict, "Conflict",
			"the webhook was changed by others while this request changed it; retry")
	}
	// The request's id is in its answer's header from the start
	// (instrument); the context has it only once an error leaves the
	// handler.
	s.log.Error("webhook store", "path", c.Request().URL.Path, "request_id", c.Response().Header().Get(echo.HeaderXRequestID), "err", err)
	return problem(http.StatusServiceUnavailable, contracts.CodeNotReady, "Not ready",
		"webhooks cannot be read or changed right now; retry shortly")
}

// truncate shortens what a client sent before it is echoed back.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// webhookRequest is the content of POST /api/webhooks and PATCH
// /api/webhooks/{id}. Filters and disabled are decoded on their own so
// that an unknown field inside filters is named with its place, and so
// that "disabled": null (re-enable) differs from no "disabled" at all.
type webhookRequest struct {
	URL         *string               `json:"url"`
	Events      []contracts.EventType `json:"events"`
	Filters     json.RawMessage       `json:"filters"`
	Description *string               `json:"description"`
	Paused      *bool                 `json:"paused"`
	Disabled    json.RawMessage       `json:"disabled"`
}

type filtersRequest struct {
	Zones            []string `json:"zones"`
	Registrars       []string `json:"registrars"`
	Categories       []string `json:"categories"`
	MinChangePercent float64  `json:"min_change_percent"`
}

// readWebhookRequest reads and decodes the request's content.
func readWebhookRequest(c *echo.Context) (*webhookRequest, *contracts.WebhookFilters, error) {
	req := c.Request()
	if ct := req.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && mt != "application/merge-patch+json") {
			return nil, nil, echo.NewHTTPError(http.StatusUnsupportedMediaType, "send the content as application/json")
		}
	}
	body, err := io.ReadAll(http.MaxBytesReader(c.Response(), req.Body, maxWebhookBody))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		c.Response().Header().Set(echo.HeaderConnection, "close")
		return nil, nil, echo.NewHTTPError(http.StatusRequestEntityTooLarge,
			"the content is over "+strconv.Itoa(maxWebhookBody>>10)+" KiB")
	}
	if err != nil {
		return nil, nil, paramProblem(http.StatusBadRequest, contracts.CodeInvalidBody, "Invalid request content", "body",
			"the content could not be read")
	}
	var r webhookRequest
	if err := decodeStrict(body, &r, ""); err != nil {
		return nil, nil, err
	}
	if len(r.Filters) == 0 || bytes.Equal(r.Filters, []byte("null")) {
		return &r, nil, nil
	}
	var f filtersRequest
	if err := decodeStrict(r.Filters, &f, "filters."); err != nil {
		return nil, nil, err
	}
	return &r, &contracts.WebhookFilters{Zones: f.Zones, Registrars: f.Registrars, Categories: f.Categories,
		MinChangePercent: f.MinChangePercent}, nil
}

// decodeStrict decodes one JSON object into v, refusing unknown fields
// and anything after it; a problem names the field, after prefix.
func decodeStrict(data []byte, v any, prefix string) error {
	bad := func(param, detail string) error {
		return paramProblem(http.StatusBadRequest, contracts.CodeInvalidBody, "Invalid request content", param, detail)
	}
	field := "body"
	if prefix != "" {
		field = prefix[:len(prefix)-1]
	}
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' {
		return bad(field, "must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case err == nil:
		if dec.More() {
			return bad(field, "holds more than one JSON value")
		}
		return nil
	case errors.As(err, &te):
		return bad(prefix+te.Field, "must be "+jsonType(te.Type.Kind().String()))
	case errors.As(err, &se):
		return bad(field, "is not JSON: "+se.Error())
	}
	if name, ok := unknownField(err); ok {
		return bad(prefix+name, "is not a field this request takes")
	}
	return bad(field, "is not a JSON object this request takes: "+truncate(err.Error(), 200))
}

// unknownField reads the field name out of encoding/json's error for an
// unknown field (it has no type of its own).
func unknownField(err error) (string, bool) {
	const pre = `json: unknown field "`
	msg := err.Error()
	if len(msg) <= len(pre)+1 || msg[:len(pre)] != pre {
		return "", false
	}
	return msg[len(pre) : len(msg)-1], true
}

// jsonType names a Go kind as the JSON value a client should send.
func jsonType(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "slice", "array":
		return "an array"
	case "struct", "map":
		return "an object"
	case "float64", "int", "int64":
		return "a number"
	}
	return "of another type"
}

// webhookView is a webhook as the API shows it: every field, lists never
// null, and never a secret.
type webhookView struct {
	ID          string                `json:"id"`
	URL         string                `json:"url"`
	Events      []contracts.EventType `json:"events"`
	Filters     filtersView           `json:"filters"`
	Description string                `json:"description"`
	Paused      bool                  `json:"paused"`
	// Active: deliveries are sent (neither paused nor disabled).
	Active       bool                       `json:"active"`
	Disabled     *contracts.WebhookDisabled `json:"disabled"`
	FailingSince *time.Time                 `json:"failing_since"`
	// PreviousSecretExpires is when the secret replaced by the last
	// rotation stops signing deliveries; null when none does.
	PreviousSecretExpires *time.Time `json:"previous_secret_expires_at"`
	CreatedAt             time.Time  `json:"created_at"`
	UpdatedAt             time.Time  `json:"updated_at"`
}

type filtersView struct {
	Zones            []string `json:"zones"`
	Registrars       []string `json:"registrars"`
	Categories       []string `json:"categories"`
	MinChangePercent float64  `json:"min_change_percent"`
}

// withSecret is a webhook with its new signing secret, shown this once.
type withSecret struct {
	webhookView
	Secret string `json:"secret"`
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func viewOf(w *contracts.Webhook, now time.Time) webhookView {
	v := webhookView{ID: w.ID, URL: w.URL, Events: nonNil(w.Events), Description: w.Description, Paused: w.Paused,
		Active: w.Active(), Disabled: w.Disabled, FailingSince: w.FailingSince, CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt,
		Filters: filtersView{Zones: nonNil(w.Filters.Zones), Registrars: nonNil(w.Filters.Registrars),
			Categories: nonNil(w.Filters.Categories), MinChangePercent: w.Filters.MinChangePercent}}
	for _, s := range w.Secrets {
		if s.Expires != nil && now.Before(*s.Expires) && (v.PreviousSecretExpires == nil || s.Expires.After(*v.PreviousSecretExpires)) {
			v.PreviousSecretExpires = s.Expires
		}
	}
	return v
}

// handleCreateWebhook serves POST /api/webhooks: 201 with the webhook, its
// secret and its Location.
func (s *Server) handleCreateWebhook() echo.HandlerFunc {
	return s.webhookRoute(func(ctx context.Context, c *echo.Context, owner string, limit int) (int, any, error) {
		r, filters, err := readWebhookRequest(c)
		if err != nil {
			return 0, nil, err
		}
		switch {
		case r.URL == nil:
			return 0, nil, contracts.Invalid("url", "missing: give the https URL to deliver to")
		case r.Disabled != nil:
			return 0, nil, contracts.Invalid("disabled", "is set by the service, not at registration")
		}
		reg := webhooks.Registration{URL: *r.URL, Events: r.Events}
		if filters != nil {
			reg.Filters = *filters
		}
		if r.Description != nil {
			reg.Description = *r.Description
		}
		if r.Paused != nil {
			reg.Paused = *r.Paused
		}
		created, err := s.hooks.Create(ctx, owner, reg, limit)
		if err != nil {
			return 0, nil, err
		}
		c.Response().Header().Set("Location", "/api/webhooks/"+created.Webhook.ID)
		return http.StatusCreated, withSecret{viewOf(&created.Webhook, time.Now()), created.Secret}, nil
	})
}

// webhookList is GET /api/webhooks's body.
type webhookList struct {
	Count    int           `json:"count"`
	Limit    int           `json:"limit"`
	Webhooks []webhookView `json:"webhooks"`
}

// handleListWebhooks serves GET /api/webhooks: the key's webhooks, oldest
// first, and how many it may have.
func (s *Server) handleListWebhooks() echo.HandlerFunc {
	return s.webhookRoute(func(ctx context.Context, _ *echo.Context, owner string, limit int) (int, any, error) {
		list, err := s.hooks.List(ctx, owner)
		if err != nil {
			return 0, nil, err
		}
		now := time.Now()
		body := webhookList{Count: len(list), Limit: limit, Webhooks: make([]webhookView, len(list))}
		for i := range list {
			body.Webhooks[i] = viewOf(&list[i], now)
		}
		return http.StatusOK, body, nil
	})
}

// handleGetWebhook serves GET /api/webhooks/{id}.
func (s *Server) handleGetWebhook() echo.HandlerFunc {
	return s.webhookRoute(func(ctx context.Context, c *echo.Context, owner string, _ int) (int, any, error) {
		w, err := s.hooks.Get(ctx, owner, c.Param("id"))
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, viewOf(&w, time.Now()), nil
	})
}

// handlePatchWebhook serves PATCH /api/webhooks/{id}: the fields given
// replace the stored ones (filters as a whole); "disabled": null
// re-enables an endpoint the service disabled.
func (s *Server) handlePatchWebhook() echo.HandlerFunc {
	return s.webhookRoute(func(ctx context.Context, c *echo.Context, owner string, _ int) (int, any, error) {
		r, filters, err := readWebhookRequest(c)
		if err != nil {
			return 0, nil, err
		}
		p := webhooks.Patch{URL: r.URL, Events: r.Events, Filters: filters, Description: r.Description, Paused: r.Paused}
		switch {
		case r.Disabled == nil:
		case bytes.Equal(bytes.TrimSpace(r.Disabled), []byte("null")):
			p.Enable = true
		default:
			return 0, nil, contracts.Invalid("disabled", "only null, which re-enables the endpoint, may be sent; to stop deliveries, set paused")
		}
		w, err := s.hooks.Patch(ctx, owner, c.Param("id"), p)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, viewOf(&w, time.Now()), nil
	})
}

// handleDeleteWebhook serves DELETE /api/webhooks/{id}: 204.
func (s *Server) handleDeleteWebhook() echo.HandlerFunc {
	return s.webhookRoute(func(ctx context.Context, c *echo.Context, owner string, _ int) (int, any, error) {
		return http.StatusNoContent, nil, s.hooks.Delete(ctx, owner, c.Param("id"))
	})
}

// handleRotateWebhookSecret serves POST /api/webhooks/{id}/rotate-secret:
// the webhook with its new secret, shown this once.
func (s *Server) handleRotateWebhookSecret() echo.HandlerFunc {
	return s.webhookRoute(func(ctx context.Context, c *echo.Context, owner string, _ int) (int, any, error) {
		rotated, err := s.hooks.RotateSecret(ctx, owner, c.Param("id"))
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, withSecret{viewOf(&rotated.Webhook, time.Now()), rotated.Secret}, nil
	})
}

// pingQueued is POST /api/webhooks/{id}/test's body.
type pingQueued struct {
	Webhook  string              `json:"webhook"`
	Delivery string              `json:"delivery"`
	Type     contracts.EventType `json:"type"`
}

// handleTestWebhook serves POST /api/webhooks/{id}/test: a ping queued,
// 202; its attempts show in the endpoint's deliveries.
func (s *Server) handleTestWebhook() echo.HandlerFunc {
	return s.webhookRoute(func(ctx context.Context, c *echo.Context, owner string, _ int) (int, any, error) {
		id := c.Param("id")
		delivery, err := s.hooks.Ping(ctx, owner, id)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusAccepted, pingQueued{Webhook: id, Delivery: delivery, Type: contracts.EventPing}, nil
	})
}

// attemptView is a delivery attempt as the API shows it, every field
// present.
type attemptView struct {
	Delivery    string                    `json:"delivery"`
	Type        contracts.EventType       `json:"type"`
	Attempt     int                       `json:"attempt"`
	At          time.Time                 `json:"at"`
	Outcome     contracts.DeliveryOutcome `json:"outcome"`
	Status      int                       `json:"status"`
	DurationMS  float64                   `json:"duration_ms"`
	Error       *string                   `json:"error"`
	NextAttempt *time.Time                `json:"next_attempt"`
}

// attemptList is GET /api/webhooks/{id}/deliveries's body.
type attemptList struct {
	Webhook  string        `json:"webhook"`
	Count    int           `json:"count"`
	Attempts []attemptView `json:"attempts"`
}

// handleWebhookDeliveries serves GET /api/webhooks/{id}/deliveries: the
// endpoint's last attempts, newest first, limit of them (default 50).
func (s *Server) handleWebhookDeliveries() echo.HandlerFunc {
	return s.webhookRoute(func(ctx context.Context, c *echo.Context, owner string, _ int) (int, any, error) {
		n := webhooks.DefaultAttempts
		for name, values := range c.QueryParams() {
			if name != "limit" {
				return 0, nil, paramProblem(http.StatusBadRequest, contracts.CodeInvalidParameter, "Invalid parameter", name,
					"not a parameter of this endpoint; it takes limit")
			}
			v, err := strconv.Atoi(values[0])
			if err != nil || v < 1 || v > webhooks.MaxAttempts || len(values) > 1 {
				return 0, nil, paramProblem(http.StatusBadRequest, contracts.CodeInvalidParameter, "Invalid parameter", "limit",
					"takes one whole number from 1 to "+strconv.Itoa(webhooks.MaxAttempts))
			}
			n = v
		}
		id := c.Param("id")
		if _, err := s.hooks.Get(ctx, owner, id); err != nil {
			return 0, nil, err
		}
		attempts, err := s.hooks.Attempts(ctx, id, n)
		if err != nil {
			return 0, nil, err
		}
		body := attemptList{Webhook: id, Count: len(attempts), Attempts: make([]attemptView, len(attempts))}
		for i, a := range attempts {
			v := attemptView{Delivery: a.Delivery, Type: a.Type, Attempt: a.Attempt, At: a.At, Outcome: a.Outcome,
				Status: a.Status, DurationMS: a.DurationMS, NextAttempt: a.NextAttempt}
			if a.Error != "" {
				v.Error = &attempts[i].Error
			}
			body.Attempts[i] = v
		}
		return http.StatusOK, body, nil
	})
}
