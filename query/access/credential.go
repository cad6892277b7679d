package access

import (
	"errors"
	"net/http"
	"strings"
)

// ErrMalformedCredential is a request whose API key headers cannot be
// read: an Authorization that is not "Bearer <key>", an empty key, or a
// key given twice.
var ErrMalformedCredential = errors.New("malformed credential")

// malformed wraps ErrMalformedCredential with what a client must change.
type malformed string

func (m malformed) Error() string { return string(m) }
func (m malformed) Unwrap() error { return ErrMalformedCredential }

// Credential returns the API key a request presents, in
// "Authorization: Bearer <key>" or "X-API-Key: <key>", or "" when it
// presents none.
func Credential(h http.Header) (string, error) {
	auth, apiKey := h["Authorization"], h["X-Api-Key"]
	if auth == nil && apiKey == nil {
		return "", nil
	}
	if len(auth)+len(apiKey) > 1 {
		return "", malformed("send the API key once, in either Authorization: Bearer or X-API-Key")
	}
	if apiKey != nil {
		key := strings.TrimSpace(apiKey[0])
		if key == "" {
			return "", malformed("X-API-Key is empty")
		}
		return key, nil
	}
	scheme, key, _ := strings.Cut(strings.TrimSpace(auth[0]), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", malformed("Authorization must be Bearer followed by the API key")
	}
	key = strings.TrimSpace(key)
	if key == "" || strings.ContainsAny(key, " \t") {
		return "", malformed("Authorization must be Bearer followed by the API key")
	}
	return key, nil
}
