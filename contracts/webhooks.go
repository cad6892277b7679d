package contracts

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Webhooks: a subscriber (an API-key holder whose tier allows it)
// registers endpoints; zoneprice-notify follows the history stream, matches
// each change against the registrations and queues one delivery per
// matching endpoint on the deliveries stream, a work queue its replicas
// share; a worker sends each delivery as Standard Webhooks
// (standard-webhooks.com, spec v1) says, and records each attempt on the
// attempts stream, which the API shows the subscriber.

// WebhooksBucket is the JetStream key-value bucket of webhook
// registrations, each a Webhook stored under WebhookKey(owner, id). Query
// pods write it (the webhook API) and notify reads it and records an
// endpoint's failures in it. It holds the signing secrets: only those two
// (and zoneprice-admin) may read it.
const WebhooksBucket = "ZONEPRICE_WEBHOOKS"

// WebhookKey is the key of owner's webhook id in WebhooksBucket. The owner
// comes first so that one owner's webhooks are listed by the filter
// owner+".*" without reading anyone else's, and so that an ID asked for
// under another owner is simply not there. IDs are random and unique
// across owners, so notify may find a webhook by its ID alone.
func WebhookKey(owner, id string) string { return owner + "." + id }

// ParseWebhookKey splits a WebhooksBucket key into owner and ID.
func ParseWebhookKey(key string) (owner, id string, ok bool) {
	owner, id, ok = strings.Cut(key, ".")
	if !ok || !validKeyID(owner) || !ValidWebhookID(id) {
		return "", "", false
	}
	return owner, id, true
}

// WebhookOwnersBucket is the JetStream key-value bucket of which webhooks
// each API key has registered: a WebhookOwner under the key's id. Query
// pods and zoneprice-admin write it with every registration and deletion.
const WebhookOwnersBucket = "ZONEPRICE_WEBHOOK_OWNERS"

// WebhookOwner is the webhooks one API key has registered, as its tier's
// limit counts them. A webhook's ID is added, by compare and set, before
// its registration is written, and only while the key has fewer than its
// limit, so that creates at once, on any number of pods, never pass it
// together; it is removed after the registration is deleted.
type WebhookOwner struct {
	Webhooks []OwnedWebhook `json:"webhooks"`
}

// OwnedWebhook is one of a key's webhooks, and since when it counts.
type OwnedWebhook struct {
	ID    string    `json:"id"`
	Since time.Time `json:"since"`
}

// Has reports whether o counts webhook id.
func (o *WebhookOwner) Has(id string) bool {
	return slices.ContainsFunc(o.Webhooks, func(w OwnedWebhook) bool { return w.ID == id })
}

// The headers of a message on DeliveriesStream. Its data is the exact body
// to send; HeaderMsgID (JetStream's own, spelled here because contracts
// imports no NATS package) and HeaderWebhookID carry the delivery's
// webhook-id (DeliveryID, or "msg_" and random hex for a ping), and
// HeaderEvent the event type, so a worker need not decode the body.
const (
	HeaderMsgID     = "Nats-Msg-Id"
	HeaderWebhookID = "Webhook-Id"
	HeaderEvent     = "Zoneprice-Event"
)

// DeliveriesStream is the work-queue stream of pending deliveries, one
// message per delivery on DeliverySubject(owner, webhook), its data the
// exact body to send (a WebhookPayload) and its Nats-Msg-Id the
// delivery's webhook-id. A message leaves the stream when a worker
// acknowledges it: delivered, given up, or its endpoint gone.
const DeliveriesStream = "ZONEPRICE_DELIVERIES"

// The caps of the deliveries waiting in DeliveriesStream, so that no one
// key, and no one endpoint, can fill it (a dead endpoint's deliveries
// wait days for their retries; a key may ping at will). Pings count like
// every other delivery.
const (
	// MaxQueuedPerEndpoint is how many deliveries may wait for one
	// endpoint: the stream's own limit per subject, which refuses the
	// next one, exactly, however many publish at once.
	MaxQueuedPerEndpoint = 10_000
	// MaxQueuedPerKey is how many may wait for one key's endpoints
	// together, a tenth of the stream: past it the webhook API refuses
	// a ping, and notify's dispatcher a change's delivery, each counting
	// what the stream holds for the key (OwnerDeliveries) before it
	// queues.
	MaxQueuedPerKey = 100_000
)

// AttemptsStream keeps each endpoint's recent delivery attempts on
// AttemptSubject(webhook): each message a JSON array of the endpoint's
// DeliveryAttempts recorded together, in their order, 1 to
// MaxAttemptsPerMessage of them (a
// single DeliveryAttempt object in records made before 2026-11-28, which
// readers still take, and in one of an attempt that fits a message only
// without the brackets). It keeps the last MaxAttemptsKept messages of each
// endpoint, so at least its last MaxAttemptsKept attempts and at most
// MaxAttemptsPerMessage times as many.
const AttemptsStream = "ZONEPRICE_ATTEMPTS"

// The webhook subject prefixes: each subject ends in a webhook ID.
const (
	DeliverySubjectPrefix = "deliveries.v1."
	AttemptSubjectPrefix  = "attempts.v1."
)

// MaxAttemptsKept is how many messages AttemptsStream keeps per endpoint
// (its limit per subject), and so the fewest of an endpoint's last
// attempts it keeps, all the API shows; with up to MaxAttemptsPerMessage
// attempts a message it may keep 800.
const MaxAttemptsKept = 100

// MaxAttemptsPerMessage is how many attempts one message of
// AttemptsStream holds at most. The stream keeps MaxAttemptsKept messages
// of each endpoint whatever they hold, so this is what bounds the
// attempts it keeps of one (800, where the API shows 100) and what a read
// of them decodes. 8 because the saving is made by then: notify's batch of
// 256 records spread over many endpoints holds a few attempts of each (4.6
// in the bench's throughput run), and a larger cap would save little and
// let each busy endpoint keep more of the stream's 1 GiB, which every
// endpoint shares (oldest dropped first): about 140 KiB of attempts that
// succeeded each, where one attempt a message kept 17 KiB. An attempt
// that succeeded is about 170 bytes of JSON, so 8 fit the stream's 4 KiB
// messages with room to spare; long errors end a message by its size.
const MaxAttemptsPerMessage = 8

// DeliverySubject is the subject of a delivery to owner's webhook. The
// key comes first, so that one filter (OwnerDeliveries) counts what
// waits for all of a key's endpoints.
func DeliverySubject(owner, webhook string) string {
	return DeliverySubjectPrefix + owner + "." + webhook
}

// OwnerDeliveries is the subject filter of every delivery to owner's
// webhooks.
func OwnerDeliveries(owner string) string { return DeliverySubjectPrefix + owner + ".>" }

// ParseDeliverySubject returns the owner and the webhook a delivery
// subject names. A delivery queued before the key was in the subject
// (deliveries.v1.<webhook>, until 2026-11-28) names no owner: "".
func ParseDeliverySubject(subject string) (owner, webhook string, ok bool) {
	rest, ok := strings.CutPrefix(subject, DeliverySubjectPrefix)
	if !ok {
		return "", "", false
	}
	owner, webhook, two := strings.Cut(rest, ".")
	if !two {
		owner, webhook = "", rest
	} else if !validKeyID(owner) {
		return "", "", false
	}
	if !ValidWebhookID(webhook) {
		return "", "", false
	}
	return owner, webhook, true
}

// AttemptSubject is the subject of webhook's recorded attempts.
func AttemptSubject(webhook string) string { return AttemptSubjectPrefix + webhook }

// EventType names what a webhook delivery tells.
type EventType string

// The event types. A change is delivered to an endpoint at most once, as
// the most specific type the endpoint asked for: a drop is price.dropped
// to an endpoint that asked for it, and price.changed to one that asked
// only for that.
const (
	// EventPriceChanged: what a registrar charges for a zone changed.
	EventPriceChanged EventType = "price.changed"
	// EventPriceDropped: a change that made registering or renewing
	// cheaper (PriceChange.Dropped).
	EventPriceDropped EventType = "price.dropped"
	// EventZoneAdded: a registrar started offering a zone.
	EventZoneAdded EventType = "zone.added"
	// EventZoneWithdrawn: a registrar stopped offering a zone.
	EventZoneWithdrawn EventType = "zone.withdrawn"
	// EventPing: a test delivery the subscriber asked for.
	EventPing EventType = "ping"
)

// EventTypes lists the event types an endpoint can subscribe to, in the
// order the documentation gives them.
func EventTypes() []EventType {
	return []EventType{EventPriceChanged, EventPriceDropped, EventZoneAdded, EventZoneWithdrawn, EventPing}
}

// EventFor is the event type of change c for an endpoint subscribed to
// events, and false when the endpoint wants none of it. A first known
// period (ChangeKnown) is no event: nothing happened.
func EventFor(c *PriceChange, events []EventType) (EventType, bool) {
	var candidates []EventType
	switch c.Change {
	case ChangeAdded:
		candidates = []EventType{EventZoneAdded}
	case ChangeWithdrawn:
		candidates = []EventType{EventZoneWithdrawn}
	case ChangeChanged:
		if c.Dropped() {
			candidates = append(candidates, EventPriceDropped)
		}
		candidates = append(candidates, EventPriceChanged)
	}
	for _, t := range candidates {
		if slices.Contains(events, t) {
			return t, true
		}
	}
	return "", false
}

// WebhookPayload is the body of every delivery, as Standard Webhooks
// suggests: the event type, when the event happened, and its data (for a
// price event the change document; for ping a short message).
type WebhookPayload struct {
	Type      EventType `json:"type"`
	Timestamp time.Time `json:"timestamp"`
	Data      any       `json:"data"`
}

// PingData is a ping's data.
type PingData struct {
	Webhook string `json:"webhook"`
	Message string `json:"message"`
}

// MaxPayloadSize bounds a delivery's body: a change document is bounded by
// MaxEventSize, and the envelope adds little.
const MaxPayloadSize = MaxEventSize + 1024

// Webhook is a registered endpoint.
type Webhook struct {
	ID string `json:"id"`
	// Owner is the ID of the API key that registered it; only that key
	// sees it.
	Owner   string         `json:"owner"`
	URL     string         `json:"url"`
	Events  []EventType    `json:"events"`
	Filters WebhookFilters `json:"filters"`
	// Description is the subscriber's own note.
	Description string `json:"description,omitempty"`
	// Paused endpoints get no deliveries; changes while paused are not
	// kept for later.
	Paused bool `json:"paused"`
	// Disabled is set when the service stopped delivering: the endpoint
	// answered 410 Gone, or every delivery failed for
	// WebhookFailureLimit. The subscriber re-enables it with PATCH.
	Disabled *WebhookDisabled `json:"disabled,omitempty"`
	// FailingSince is when the first of the endpoint's unbroken run of
	// failed attempts happened; nil after a success.
	FailingSince *time.Time `json:"failing_since,omitempty"`
	// Secrets sign deliveries: the first is current; a rotated-out one
	// stays, with its Expires, for WebhookRotationOverlap, and deliveries
	// carry a signature by each.
	Secrets   []WebhookSecret `json:"secrets"`
	CreatedAt time.Time       `json:"created_at"`
	UpdatedAt time.Time       `json:"updated_at"`
}

// WebhookDisabled says when and why the service stopped delivering.
type WebhookDisabled struct {
	At     time.Time `json:"at"`
	Reason string    `json:"reason"`
}

// WebhookSecret is a signing secret ("whsec_" and base64 of random bytes).
type WebhookSecret struct {
	Secret  string     `json:"secret"`
	Expires *time.Time `json:"expires,omitempty"`
}

// WebhookFilters narrow which changes an endpoint gets; an empty list
// lets every value through. All given filters must match.
type WebhookFilters struct {
	// Zones in canonical ASCII form (".co.uk", ".xn--p1ai").
	Zones      []string `json:"zones,omitempty"`
	Registrars []string `json:"registrars,omitempty"`
	Categories []string `json:"categories,omitempty"`
	// MinChangePercent: a price.changed or price.dropped change must move
	// the register or renew price by at least this much, in percent of
	// the price before (0 lets every change through).
	MinChangePercent float64 `json:"min_change_percent,omitempty"`
}

// Limits of a registration.
const (
	// MaxWebhookURLLen bounds an endpoint's URL, in bytes.
	MaxWebhookURLLen = 2048
	// MaxWebhookFilterValues bounds each filter list.
	MaxWebhookFilterValues = 500
	// MaxWebhookDescriptionLen bounds a description, in bytes.
	MaxWebhookDescriptionLen = MaxNoteLen
	// WebhookRotationOverlap is how long a rotated-out secret still
	// signs deliveries, so that receivers can switch without losing one.
	WebhookRotationOverlap = 24 * time.Hour
	// WebhookFailureLimit is how long an endpoint may fail every
	// delivery before it is disabled.
	WebhookFailureLimit = 5 * 24 * time.Hour
	// WebhookSecretPrefix starts every signing secret.
	WebhookSecretPrefix = "whsec_"
	// webhookSecretBytes is the random length of a new secret (the
	// spec allows 24 to 64).
	webhookSecretBytes = 32
)

var secretPattern = regexp.MustCompile(`^whsec_[A-Za-z0-9+/]{32,88}={0,2}$`)

// ValidWebhookID reports whether id can name a webhook: wh_ and 16
// lower-case hex digits. It is written out rather than a regular
// expression, since notify reads one back from every delivery's subject.
func ValidWebhookID(id string) bool {
	hex, ok := strings.CutPrefix(id, "wh_")
	return ok && len(hex) == 16 && allBytes(hex, func(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' })
}

// allBytes reports whether every byte of s is ok.
func allBytes(s string, ok func(byte) bool) bool {
	for i := range len(s) {
		if !ok(s[i]) {
			return false
		}
	}
	return true
}

// NewWebhookID returns a random webhook ID.
func NewWebhookID() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("random webhook id: %w", err)
	}
	return "wh_" + hex.EncodeToString(b[:]), nil
}

// NewWebhookSecret returns a new signing secret.
func NewWebhookSecret() (string, error) {
	var b [webhookSecretBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("random webhook secret: %w", err)
	}
	return WebhookSecretPrefix + base64.StdEncoding.EncodeToString(b[:]), nil
}

// DeliveryID is the webhook-id of the delivery of the history stream's
// message seq to webhook: stable across retries, and the same if notify
// queues the delivery twice (the deliveries stream drops the second).
func DeliveryID(webhook string, seq uint64) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%d", webhook, seq))
	return "msg_" + hex.EncodeToString(sum[:12])
}

// NewPingDeliveryID returns the webhook-id of a test delivery: "msg_" and
// random hex, the shape of DeliveryID's, so that no two pings share one.
func NewPingDeliveryID() (string, error) {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("random delivery id: %w", err)
	}
	return "msg_" + hex.EncodeToString(b[:]), nil
}

// SigningSecrets are the secrets that sign a delivery at now: the current
// one and any rotated-out one not yet expired.
func (w *Webhook) SigningSecrets(now time.Time) []string {
	var out []string
	for _, s := range w.Secrets {
		if s.Expires == nil || now.Before(*s.Expires) {
			out = append(out, s.Secret)
		}
	}
	return out
}

// Active reports whether the endpoint gets deliveries.
func (w *Webhook) Active() bool { return !w.Paused && w.Disabled == nil }

// Validate reports the first problem with the registration, naming the
// field. allowHTTP says whether the operator allows plain http URLs.
func (w *Webhook) Validate(allowHTTP bool) error {
	switch {
	case !ValidWebhookID(w.ID):
		return invalid("id", "%q is not wh_ and 16 hex digits", truncate(w.ID, 30))
	case !validKeyID(w.Owner):
		return invalid("owner", "%q is not an API key id", truncate(w.Owner, 70))
	case w.CreatedAt.IsZero():
		return invalid("created_at", "missing")
	case len(w.Secrets) == 0:
		return invalid("secrets", "a webhook needs a signing secret")
	}
	for i, s := range w.Secrets {
		if !secretPattern.MatchString(s.Secret) {
			return invalid(fmt.Sprintf("secrets[%d]", i), "not whsec_ and base64 of 24 to 64 bytes")
		}
	}
	if err := ValidateWebhookURL(w.URL, allowHTTP); err != nil {
		return err
	}
	if err := ValidateWebhookEvents(w.Events); err != nil {
		return err
	}
	if err := w.Filters.Validate(); err != nil {
		return err
	}
	if len(w.Description) > MaxWebhookDescriptionLen {
		return invalid("description", "longer than %d bytes", MaxWebhookDescriptionLen)
	}
	return ValidateNote(w.Description)
}

// ValidateWebhookURL reports whether u can be an endpoint's URL: absolute
// https (or http when allowHTTP), a host, no user information and no
// fragment. Whether the host is a public address is decided when a
// delivery connects (after DNS resolution), not here.
func ValidateWebhookURL(u string, allowHTTP bool) error {
	if len(u) > MaxWebhookURLLen {
		return invalid("url", "longer than %d bytes", MaxWebhookURLLen)
	}
	p, err := url.Parse(u)
	if err != nil {
		return invalid("url", "not a URL: %s", truncate(err.Error(), 200))
	}
	switch {
	case p.Scheme == "http" && !allowHTTP:
		return invalid("url", "must be https (this service does not deliver over plain http)")
	case p.Scheme != "https" && p.Scheme != "http":
		return invalid("url", "must be an https URL")
	case p.Host == "" || p.Hostname() == "":
		return invalid("url", "has no host")
	case p.User != nil:
		return invalid("url", "must not carry user information (use the signature to authenticate deliveries)")
	case p.Fragment != "" || strings.Contains(u, "#"):
		return invalid("url", "must not have a fragment")
	}
	return nil
}

// ValidateWebhookEvents reports whether events is a non-empty list of
// known event types without repeats.
func ValidateWebhookEvents(events []EventType) error {
	if len(events) == 0 {
		return invalid("events", "empty: name at least one of %s", eventTypeList())
	}
	for i, e := range events {
		if !slices.Contains(EventTypes(), e) {
			return invalid(fmt.Sprintf("events[%d]", i), "%q is not one of %s", truncate(string(e), 40), eventTypeList())
		}
		if slices.Contains(events[:i], e) {
			return invalid(fmt.Sprintf("events[%d]", i), "%q is listed twice", e)
		}
	}
	return nil
}

func eventTypeList() string {
	var s []string
	for _, e := range EventTypes() {
		s = append(s, string(e))
	}
	return strings.Join(s, ", ")
}

// Validate reports the first problem with the filters. Zones must already
// be canonical (the API normalises what subscribers type).
func (f *WebhookFilters) Validate() error {
	for _, l := range []struct {
		field  string
		values []string
		valid  func(string) error
	}{
		{"filters.zones", f.Zones, func(z string) error {
			if !IsCanonicalZone(z) {
				return fmt.Errorf("%q is not a canonical zone", truncate(z, 70))
			}
			return nil
		}},
		{"filters.registrars", f.Registrars, func(r string) error {
			if !ValidRegistrar(r) {
				return fmt.Errorf("%q is not a registrar id", truncate(r, 70))
			}
			return nil
		}},
		{"filters.categories", f.Categories, func(c string) error {
			if _, ok := CategoryByID(c); !ok {
				return fmt.Errorf("%q is not a category", truncate(c, 70))
			}
			return nil
		}},
	} {
		if len(l.values) > MaxWebhookFilterValues {
			return invalid(l.field, "more than %d values", MaxWebhookFilterValues)
		}
		for i, v := range l.values {
			if err := l.valid(v); err != nil {
				return invalid(fmt.Sprintf("%s[%d]", l.field, i), "%s", err)
			}
		}
	}
	if f.MinChangePercent < 0 || f.MinChangePercent > 100 || f.MinChangePercent != f.MinChangePercent {
		return invalid("filters.min_change_percent", "must be between 0 and 100")
	}
	return nil
}

// Match reports whether change c passes the filters; categories gives a
// zone's category IDs.
func (f *WebhookFilters) Match(c *PriceChange, categories func(zone string) []string) bool {
	if len(f.Zones) > 0 && !slices.Contains(f.Zones, c.Zone) {
		return false
	}
	if len(f.Registrars) > 0 && !slices.Contains(f.Registrars, c.Registrar) {
		return false
	}
	if len(f.Categories) > 0 && !slices.ContainsFunc(categories(c.Zone), func(id string) bool {
		return slices.Contains(f.Categories, id)
	}) {
		return false
	}
	if f.MinChangePercent > 0 && c.Change == ChangeChanged {
		return ChangePercent(c) >= f.MinChangePercent
	}
	return true
}

// ChangePercent is how much change c moved the register or renew price,
// whichever moved more, in percent of the price before: the prices a
// customer paid at the time (promotions included), in the same currency.
// A price that appeared or went, or changed currency, counts as 100.
func ChangePercent(c *PriceChange) float64 {
	if c.Change != ChangeChanged {
		return 100
	}
	var most float64
	for _, op := range []Op{OpRegister, OpRenew} {
		a, b := c.Before.Ops()[op], c.After.Ops()[op]
		switch {
		case a == nil && b == nil:
			continue
		case a == nil || b == nil:
			return 100
		}
		was, is := a.Current(c.ObservedAt), b.Current(c.ObservedAt)
		if was.Currency != is.Currency || was.Amount == 0 {
			if was != is {
				return 100
			}
			continue
		}
		diff := float64(is.Amount - was.Amount)
		if diff < 0 {
			diff = -diff
		}
		most = max(most, diff*100/float64(was.Amount))
	}
	return most
}

// DeliveryOutcome is how one attempt ended.
type DeliveryOutcome string

// The outcomes of an attempt.
const (
	// OutcomeDelivered: a 2xx answer.
	OutcomeDelivered DeliveryOutcome = "delivered"
	// OutcomeFailed: any other answer, or none; retried on the schedule.
	OutcomeFailed DeliveryOutcome = "failed"
	// OutcomeRefused: the URL resolved to an address the service does
	// not deliver to (SSRF guard); retried, since DNS may change.
	OutcomeRefused DeliveryOutcome = "refused"
	// OutcomeGone: 410, and the endpoint was disabled.
	OutcomeGone DeliveryOutcome = "gone"
)

// DeliveryAttempt records one attempt of one delivery.
type DeliveryAttempt struct {
	Delivery string          `json:"delivery"`
	Type     EventType       `json:"type"`
	Attempt  int             `json:"attempt"`
	At       time.Time       `json:"at"`
	Outcome  DeliveryOutcome `json:"outcome"`
	// Status is the HTTP status, 0 when there was no answer.
	Status int `json:"status"`
	// DurationMS is how long the attempt took, in milliseconds.
	DurationMS float64 `json:"duration_ms"`
	// Error says what went wrong, when something did.
	Error string `json:"error,omitempty"`
	// NextAttempt is when the delivery is tried again, when it is.
	NextAttempt *time.Time `json:"next_attempt,omitempty"`
}

// RetrySchedule is Standard Webhooks' suggested schedule: the delay before
// each attempt after the first (which is immediate). After the last, the
// delivery is given up.
func RetrySchedule() []time.Duration {
	return []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour,
		5 * time.Hour, 10 * time.Hour, 14 * time.Hour, 20 * time.Hour, 24 * time.Hour}
}

// PingRetrySchedule is RetrySchedule for a ping: a few minutes in all. A
// subscriber who asked for a test watches for it now, and a failing test
// is not worth days of the queue every subscriber shares.
func PingRetrySchedule() []time.Duration {
	return []time.Duration{5 * time.Second, 30 * time.Second, 2 * time.Minute}
}
