package access_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/query/access"
)

func TestCredential(t *testing.T) {
	tests := []struct {
		name      string
		header    http.Header
		want      string
		malformed bool
	}{
		{"none", http.Header{}, "", false},
		{"bearer", http.Header{"Authorization": {"Bearer zp_abc"}}, "zp_abc", false},
		{"bearer in lower case", http.Header{"Authorization": {"bearer zp_abc"}}, "zp_abc", false},
		{"bearer with spaces around", http.Header{"Authorization": {"  Bearer   zp_abc  "}}, "zp_abc", false},
		{"x-api-key", http.Header{"X-Api-Key": {"zp_abc"}}, "zp_abc", false},
		{"basic", http.Header{"Authorization": {"Basic dXNlcjpwYXNz"}}, "", true},
		{"scheme only", http.Header{"Authorization": {"Bearer"}}, "", true},
		{"key alone", http.Header{"Authorization": {"zp_abc"}}, "", true},
		{"two words", http.Header{"Authorization": {"Bearer zp_abc zp_def"}}, "", true},
		{"empty authorization", http.Header{"Authorization": {""}}, "", true},
		{"empty x-api-key", http.Header{"X-Api-Key": {" "}}, "", true},
		{"both headers", http.Header{"Authorization": {"Bearer zp_abc"}, "X-Api-Key": {"zp_abc"}}, "", true},
		{"authorization twice", http.Header{"Authorization": {"Bearer zp_abc", "Bearer zp_abc"}}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := access.Credential(tt.header)
			if errors.Is(err, access.ErrMalformedCredential) != tt.malformed || (err != nil && !tt.malformed) {
				t.Fatalf("Credential: err = %v, want malformed %v", err, tt.malformed)
			}
			if got != tt.want {
				t.Errorf("Credential = %q, want %q", got, tt.want)
			}
		})
	}
}

// FuzzCredential feeds the headers clients control: the answer is a key
// without spaces, nothing, or a malformed-credential error.
func FuzzCredential(f *testing.F) {
	for _, s := range []string{"Bearer zp_abc", "bearer  x", "Basic x", "", "Bearer", "Bearer\tx"} {
		f.Add(s, "")
		f.Add("", s)
	}
	f.Fuzz(func(t *testing.T, auth, apiKey string) {
		h := http.Header{}
		if auth != "" {
			h["Authorization"] = []string{auth}
		}
		if apiKey != "" {
			h["X-Api-Key"] = []string{apiKey}
		}
		key, err := access.Credential(h)
		switch {
		case err != nil:
			if !errors.Is(err, access.ErrMalformedCredential) || key != "" {
				t.Fatalf("Credential(%q, %q) = %q, %v", auth, apiKey, key, err)
			}
		case auth == "" && apiKey == "":
			if key != "" {
				t.Fatalf("a key from no headers: %q", key)
			}
		case key == "" || key != strings.TrimSpace(key) || (auth != "" && strings.ContainsAny(key, " \t")):
			t.Fatalf("Credential(%q, %q) = %q", auth, apiKey, key)
		}
	})
}
