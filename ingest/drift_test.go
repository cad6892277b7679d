package ingest_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/zoneprice/zoneprice/ingest"
)

// TestCheckFormat compares documents with a shape in the style of
// Porkbun's: an envelope whose "pricing" object is keyed by zone.
func TestCheckFormat(t *testing.T) {
	shape := ingest.Object(map[string]*ingest.Shape{
		"status": ingest.Scalar(), "message?": nil,
		"pricing": ingest.Object(map[string]*ingest.Shape{
			"*": ingest.Object(map[string]*ingest.Shape{"registration": ingest.Scalar(), "coupons?": nil}),
		}),
		"tlds?": ingest.Array(ingest.Object(map[string]*ingest.Shape{"tld": nil})),
	})
	for _, tc := range []struct {
		name string
		body string
		want ingest.Drift
	}{
		{"as declared", `{"status":"SUCCESS","pricing":{"com":{"registration":"1","coupons":[]}}}`, ingest.Drift{}},
		{"null is any shape", `{"status":null,"pricing":{"com":{"registration":null}}}`, ingest.Drift{}},
		{"unknown fields", `{"status":"SUCCESS","extra":1,"pricing":{"com":{"registration":"1","icann":"0.2"}}}`,
			ingest.Drift{Unknown: []string{"pricing.*.icann", "extra"}}},
		{"missing fields", `{"pricing":{"com":{}}}`, ingest.Drift{Missing: []string{"pricing.*.registration", "status"}}},
		{"no data key", `{"status":"SUCCESS","pricing":{}}`, ingest.Drift{Missing: []string{"pricing.*"}}},
		{"first data key in key order", `{"status":"x","pricing":{"net":{"registration":"1"},"com":{"registration":{}}}}`,
			ingest.Drift{Shape: []string{"pricing.*.registration: object, want scalar"}}},
		{"array where an object was", `{"status":"x","pricing":[{"registration":"1"}]}`,
			ingest.Drift{Shape: []string{"pricing: array, want object"}}},
		{"array elements", `{"status":"x","pricing":{"com":{"registration":"1"}},"tlds":[{"tld":"com","fee":1},{"x":1}]}`,
			ingest.Drift{Unknown: []string{"tlds[].fee"}}},
		{"another top", `[1,2]`, ingest.Drift{Shape: []string{"the document: array, want object"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			list, err := ingest.CheckFormat(shape, []byte(tc.body), &ingest.List{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := *list.Drift; !reflect.DeepEqual(got, tc.want) {
				t.Errorf("drift = %+v, want %+v", got, tc.want)
			}
			parseErr := errors.New("no usable zone")
			_, err = ingest.CheckFormat(shape, []byte(tc.body), nil, parseErr)
			var fe *ingest.FormatError
			if !errors.As(err, &fe) || !errors.Is(err, parseErr) || !reflect.DeepEqual(fe.Drift, tc.want) {
				t.Errorf("error = %#v, want a FormatError with the drift wrapping the parser's", err)
			}
		})
	}
}

// TestCheckFormatNoJSON: a body that is no JSON (a proxy's page, a
// truncated list) has no drift to tell; the parser's error stands alone.
func TestCheckFormatNoJSON(t *testing.T) {
	shape := ingest.Object(map[string]*ingest.Shape{"status": nil})
	for _, body := range []string{"<html>", `{"status":"SUC`, ""} {
		parseErr := errors.New("decode")
		list, err := ingest.CheckFormat(shape, []byte(body), nil, parseErr)
		if list != nil || err != parseErr {
			t.Errorf("%q: %v, %v; want the parser's error as it is", body, list, err)
		}
		list, err = ingest.CheckFormat(shape, []byte(body), &ingest.List{}, nil)
		if err != nil || list.Drift != nil {
			t.Errorf("%q: drift %v, %v; want none", body, list.Drift, err)
		}
	}
}

// TestFirstOf finds the page a paged source's format is checked on: the
// first of saved JSON pages, the HTML of the first of saved HTML pages
// (each a JSON string), or the body itself.
func TestFirstOf(t *testing.T) {
	for _, tt := range []struct{ name, body, want string }{
		{"one page", `{"rows":[]}`, `{"rows":[]}`},
		{"saved JSON pages", `[{"page":1},{"page":2}]`, `{"page":1}`},
		{"saved HTML pages", `["<html><p>\"1\"</p></html>","<html>2</html>"]`, `<html><p>"1"</p></html>`},
		{"one HTML page", `<html>1</html>`, `<html>1</html>`},
		{"an empty array", `[]`, `[]`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(ingest.FirstOf([]byte(tt.body))); got != tt.want {
				t.Errorf("FirstOf = %q, want %q", got, tt.want)
			}
		})
	}
}
