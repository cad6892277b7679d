// Package rawjson finds the fields of a JSON document by scanning its
// bytes, which json.Valid has checked, rather than decoding it into maps:
// a field is a slice of the document, and reading a list (the kit's rows,
// the drift check's fields) costs about what decoding it once does.
package rawjson

import (
	"bytes"
	"encoding/json"
)

// skipSpace returns the index of the first byte at or after i that is no
// JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index just after the valid JSON value starting
// at i.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		for i++; i < len(b); i++ {
			switch b[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
		return i
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = skipValue(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\n' && b[i] != '\t' && b[i] != '\r' {
		i++
	}
	return i
}

// EachField calls fn with every key (its raw JSON string) and value of
// the JSON object raw, until fn returns false; it reports whether raw is
// an object.
func EachField(raw []byte, fn func(key, value []byte) bool) bool {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	for i = skipSpace(raw, i+1); i < len(raw) && raw[i] == '"'; {
		k := skipValue(raw, i)
		key := raw[i:k]
		v := skipSpace(raw, skipSpace(raw, k)+1) // past the colon
		e := skipValue(raw, v)
		if !fn(key, raw[v:e]) {
			return true
		}
		i = skipSpace(raw, e)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return true
}

// EachElem calls fn with every element of the JSON array raw; it reports
// whether raw is an array.
func EachElem(raw []byte, fn func(value []byte)) bool {
	return elems(raw, func(v []byte) bool { fn(v); return true })
}

// elems calls fn with every element of the JSON array raw, until fn
// returns false; it reports whether raw is an array.
func elems(raw []byte, fn func(value []byte) bool) bool {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return false
	}
	for i = skipSpace(raw, i+1); i < len(raw) && raw[i] != ']'; {
		e := skipValue(raw, i)
		if e == i {
			break // no JSON
		}
		if !fn(raw[i:e]) {
			return true
		}
		i = skipSpace(raw, e)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return true
}

// keyIs reports whether a raw JSON key is name.
func keyIs(key []byte, name string) bool {
	if bytes.IndexByte(key, '\\') < 0 {
		// No escape: the key is its text, and comparing needs no copy.
		return len(key) == len(name)+2 && string(key[1:len(key)-1]) == name
	}
	s, err := Unquote(key)
	return err == nil && s == name
}

// Member returns the value of the field name of the JSON object raw, or
// of the element name (a number) of the array raw.
func Member(raw []byte, name string) ([]byte, bool) {
	var out []byte
	found := false
	if EachField(raw, func(k, v []byte) bool {
		if keyIs(k, name) {
			out, found = v, true
			return false
		}
		return true
	}) {
		return out, found
	}
	n, ok := index(name)
	if !ok {
		return nil, false
	}
	// An element is found without scanning the rest of the array.
	elems(raw, func(v []byte) bool {
		if n == 0 {
			out, found = v, true
			return false
		}
		n--
		return true
	})
	return out, found
}

// index reads an array index.
func index(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// Unquote reads a JSON string: one without escapes as it is, which a
// document's parse has already checked, any other through encoding/json.
func Unquote(t []byte) (string, error) {
	if len(t) >= 2 && t[len(t)-1] == '"' && bytes.IndexByte(t, '\\') < 0 {
		return string(t[1 : len(t)-1]), nil
	}
	var s string
	err := json.Unmarshal(t, &s)
	return s, err
}
