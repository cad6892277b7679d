package kit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/zoneprice/zoneprice/ingest/money"
	"github.com/zoneprice/zoneprice/ingest/rawjson"
)

// IsNull reports a JSON value that says nothing: absent or null.
func IsNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

// IsObject reports a JSON object.
func IsObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '{'
}

// DecimalText returns the decimal a JSON string or number holds, as text:
// a number by its literal digits, never through a float64, which would
// round them. Absent and null give money.ErrNoPrice.
func DecimalText(raw json.RawMessage) (string, error) {
	if IsNull(raw) {
		return "", money.ErrNoPrice
	}
	switch t := bytes.TrimSpace(raw); {
	case t[0] == '"':
		return rawjson.Unquote(t)
	case t[0] == '-' || (t[0] >= '0' && t[0] <= '9'):
		// The literal, as a document's parse has checked it.
		if !json.Valid(t) {
			return "", fmt.Errorf("%s is not a number", Snippet(raw))
		}
		return string(t), nil
	}
	return "", fmt.Errorf("%s is neither a string nor a number", Snippet(raw))
}

// String returns the string a JSON value holds, trimmed; ok is false for
// anything but a string (null included).
func String(raw json.RawMessage) (string, bool) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '"' {
		return "", false
	}
	s, err := rawjson.Unquote(t)
	return strings.TrimSpace(s), err == nil
}

// Snippet shows a raw value in an error: shortened, valid UTF-8,
// "(absent)" for nothing.
func Snippet(raw json.RawMessage) string {
	const most = 80
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "(absent)"
	}
	if len(t) > most {
		return string(bytes.ToValidUTF8(t[:most], []byte("?"))) + "…"
	}
	return string(bytes.ToValidUTF8(t, []byte("?")))
}

// MinusOne reports "-1" (or "-1.00"), which several registrars write for
// an operation they do not offer.
func MinusOne(text string) bool {
	t := strings.TrimSpace(text)
	return t == "-1" || (strings.HasPrefix(t, "-1.") && strings.Trim(t[3:], "0") == "")
}

// Field returns the value at path in a JSON document: field names
// separated by dots, a number for an element of an array ("prices.0").
// ok is false where the path leads nowhere.
func Field(raw json.RawMessage, path string) (json.RawMessage, bool) {
	for path != "" {
		var step string
		step, path, _ = strings.Cut(path, ".")
		var ok bool
		if raw, ok = rawjson.Member(raw, step); !ok {
			return nil, false
		}
	}
	return raw, true
}

// A Doc is a JSON document read once: its top-level fields are found
// without scanning it again.
type Doc struct {
	Raw json.RawMessage
	top map[string]json.RawMessage // nil for a document that is no object
}

// NewDoc reads raw's top level; raw must be valid JSON.
func NewDoc(raw json.RawMessage) *Doc {
	d := &Doc{Raw: raw}
	if IsObject(raw) {
		d.top = map[string]json.RawMessage{}
		rawjson.EachField(raw, func(k, v []byte) bool {
			if s, err := rawjson.Unquote(k); err == nil {
				d.top[s] = v
			}
			return true
		})
	}
	return d
}

// Get returns the value at path in the document (Field's paths), nil
// where there is none.
func (d *Doc) Get(path string) json.RawMessage {
	if d.top == nil || path == "" {
		return Get(d.Raw, path)
	}
	first, rest, _ := strings.Cut(path, ".")
	return Get(d.top[first], rest)
}

// Message is what an error envelope says: the first of fields that
// holds a string, or "" when none does.
func Message(doc *Doc, fields ...string) string {
	for _, f := range fields {
		if s, ok := String(doc.Get(f)); ok && s != "" {
			return s
		}
	}
	return ""
}

// Get returns the field at path of a JSON value, nil where there is none.
func Get(raw json.RawMessage, path string) json.RawMessage {
	v, _ := Field(raw, path)
	return v
}
