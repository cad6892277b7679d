package contracts

// Problem is the one error body the API answers with (RFC 9457 problem
// details, media type application/problem+json). Code is a stable,
// machine-readable name for Type; Param names the request parameter that was
// wrong, when one was.
type Problem struct {
	Type     string `json:"type"`
	Title    string `json:"title"`
	Status   int    `json:"status"`
	Detail   string `json:"detail,omitempty"`
	Instance string `json:"instance,omitempty"`
	Code     string `json:"code"`
	Param    string `json:"param,omitempty"`
}

// ProblemTypePrefix starts every problem type URI; the code completes it.
const ProblemTypePrefix = "urn:zoneprice:problem:"

// The API's error codes. Clients switch on these, never on titles or details.
const (
	CodeMalformedZone    = "malformed-zone"
	CodeUnknownZone      = "unknown-zone"
	CodeNotFound         = "not-found"
	CodeMethodNotAllowed = "method-not-allowed"
	CodeNotReady         = "not-ready"
	CodeInternal         = "internal"
	// CodeInvalidParameter is a query parameter with a value the endpoint
	// does not take; Param names it and Detail lists what it takes.
	CodeInvalidParameter = "invalid-parameter"
	// CodeInvalidAPIKey is an API key that is unknown or revoked. No key at
	// all is never an error: it is the free tier.
	CodeInvalidAPIKey = "invalid-api-key"
	// CodeRateLimited is a client over its request limit; Retry-After says
	// when to come back.
	CodeRateLimited = "rate-limited"
	// CodeAPIKeyRequired is a request without a key to a route that needs
	// one (the webhook API); WWW-Authenticate says how to send it.
	CodeAPIKeyRequired = "api-key-required"
	// CodeWebhooksNotAllowed is a key whose tier has no webhooks.
	CodeWebhooksNotAllowed = "webhooks-not-allowed"
	// CodeWebhookLimit is a new webhook over the number of endpoints the
	// key's tier may register.
	CodeWebhookLimit = "webhook-limit"
	// CodeUnknownWebhook is a webhook ID that the key has not registered
	// (another key's is unknown too).
	CodeUnknownWebhook = "unknown-webhook"
	// CodeInvalidBody is request content that is not the JSON object the
	// route takes, or holds a field with a value it does not take; Param
	// names the field ("url", "filters.zones[2]").
	CodeInvalidBody = "invalid-body"
	// CodeConflict is an update that kept meeting concurrent updates of the
	// same resource; retrying the request is safe.
	CodeConflict = "conflict"
	// CodeDeliveryQueueFull is a test delivery refused because as many
	// deliveries wait for the endpoint (MaxQueuedPerEndpoint), or for
	// all of the key's endpoints (MaxQueuedPerKey), as may; Retry-After
	// says when to try again.
	CodeDeliveryQueueFull = "delivery-queue-full"
)

// NewProblem returns the problem for code with its type URI filled in.
func NewProblem(status int, code, title, detail string) Problem {
	return Problem{Type: ProblemTypePrefix + code, Title: title, Status: status, Detail: detail, Code: code}
}
