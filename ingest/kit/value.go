package kit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/zoneprice/zoneprice/ingest/money"
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
		var s string
		if err := json.Unmarshal(t, &s); err != nil {
			return "", err
		}
		return s, nil
	case t[0] == '-' || (t[0] >= '0' && t[0] <= '9'):
		var n json.Number
		if err := json.Unmarshal(t, &n); err != nil {
			return "", err
		}
		return n.String(), nil
	}
	return "", fmt.Errorf("%s is neither a string nor a number", Snippet(raw))
}

// String returns the string a JSON value holds, trimmed; ok is false for
// anything but a string (null included).
func String(raw json.RawMessage) (s string, ok bool) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '"' || json.Unmarshal(t, &s) != nil {
		return "", false
	}
	return strings.TrimSpace(s), true
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
	for _, step := range splitPath(path) {
		var ok bool
		if raw, ok = child(raw, step); !ok {
			return nil, false
		}
	}
	return raw, true
}

// child is one step into a JSON value.
func child(raw json.RawMessage, step string) (json.RawMessage, bool) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return nil, false
	}
	switch t[0] {
	case '{':
		var obj map[string]json.RawMessage
		if json.Unmarshal(t, &obj) != nil {
			return nil, false
		}
		v, ok := obj[step]
		return v, ok
	case '[':
		i, err := strconv.Atoi(step)
		if err != nil || i < 0 {
			return nil, false
		}
		var arr []json.RawMessage
		if json.Unmarshal(t, &arr) != nil || i >= len(arr) {
			return nil, false
		}
		return arr[i], true
	}
	return nil, false
}

// splitPath splits a path at its dots; "" is the value itself.
func splitPath(path string) []string {
	if path == "" {
		return nil
	}
	return strings.Split(path, ".")
}

// Message is what an error envelope says: the first of fields that
// holds a string, or "" when none does.
func Message(doc json.RawMessage, fields ...string) string {
	for _, f := range fields {
		if v, ok := Field(doc, f); ok {
			if s, ok := String(v); ok && s != "" {
				return s
			}
		}
	}
	return ""
}

// Get returns the field at path of a JSON value, nil where there is none.
func Get(raw json.RawMessage, path string) json.RawMessage {
	v, _ := Field(raw, path)
	return v
}
