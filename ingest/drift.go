package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// A Shape is what a site adapter knows of one JSON value of the document
// it reads, declared beside its parser, so that a document that drifted
// from it (format drift: a field the adapter has never seen, one it reads
// gone missing, an object where an array was) is loud rather than silent.
// A nil *Shape is any value, not looked into. Build shapes with Object,
// Array and Scalar; CheckFormat compares a document with one.
type Shape struct {
	kind   string            // "object", "array", "scalar"; "" for any
	fields map[string]*Shape // of an object, by name (see Object)
	elem   *Shape            // of an array: every element's
}

// Object is an object whose fields are the keys of fields, each with the
// shape of its value. A name ending in "?" is a field the object may lack
// (an error envelope's, one read where present, one never seen); every
// other one it must carry. The name "*" stands for every field not named
// otherwise, when the object's keys are data (one key per zone): the
// first of them, in key order, has that shape.
func Object(fields map[string]*Shape) *Shape { return &Shape{kind: "object", fields: fields} }

// Array is an array whose first element has the shape elem.
func Array(elem *Shape) *Shape { return &Shape{kind: "array", elem: elem} }

// Scalar is a string, number or boolean.
func Scalar() *Shape { return &Shape{kind: "scalar"} }

// Drift is how a document differs from its Shape, as paths from the top:
// "pricing.*.registrationFee" (a field of the first data key's object),
// "tlds[].currency" (of the first element). Each path is the document's
// own text; a log shows only a few, truncated (Runner).
type Drift struct {
	// Unknown are fields the shape does not name.
	Unknown []string
	// Missing are fields the shape requires that the document lacks.
	Missing []string
	// Shape are values of another kind than the shape's, each with what
	// it is and what was wanted: "pricing: array, want object".
	Shape []string
}

// Empty reports whether the document is as its shape says.
func (d Drift) Empty() bool { return len(d.Unknown)+len(d.Missing)+len(d.Shape) == 0 }

// DriftKinds are the kinds of drift, the values of the drift metric's
// kind label.
func DriftKinds() []string { return []string{"unknown", "missing", "shape"} }

// counts returns the number of paths of each kind, in DriftKinds' order.
func (d Drift) counts() [3]int { return [3]int{len(d.Unknown), len(d.Missing), len(d.Shape)} }

// A FormatError is a parser's error on a document that CheckFormat
// compared with its shape: the runner reports the drift even though
// nothing could be read (a changed shape often fails the whole parse).
type FormatError struct {
	Drift Drift
	Err   error
}

func (e *FormatError) Error() string { return e.Err.Error() }
func (e *FormatError) Unwrap() error { return e.Err }

// CheckFormat returns what a parser returned for body (list or err), with
// body's drift from shape: in list.Drift, or in a *FormatError wrapping
// err. A body that is no JSON at all (a truncated one, a proxy's HTML
// page, none) has no drift to tell, and the error is returned as it is:
// it already says what the body is.
func CheckFormat(shape *Shape, body []byte, list *List, err error) (*List, error) {
	if !json.Valid(body) {
		return list, err
	}
	var d Drift
	d.check(shape, "", body)
	if err != nil {
		return nil, &FormatError{Drift: d, Err: err}
	}
	list.Drift = &d
	return list, nil
}

// check compares one value with its shape, at path.
func (d *Drift) check(s *Shape, path string, raw json.RawMessage) {
	if s == nil {
		return
	}
	got := kindOf(raw)
	if got == "null" {
		return // a null field says nothing of its shape
	}
	if got != s.kind && (s.kind != "scalar" || got == "object" || got == "array") {
		d.Shape = append(d.Shape, orTop(path)+": "+got+", want "+s.kind)
		return
	}
	switch s.kind {
	case "object":
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) == nil {
			d.object(s, path, obj)
		}
	case "array":
		var arr []json.RawMessage
		if json.Unmarshal(raw, &arr) == nil && len(arr) > 0 {
			d.check(s.elem, path+"[]", arr[0])
		}
	}
}

// object compares an object's fields with the shape's.
func (d *Drift) object(s *Shape, path string, obj map[string]json.RawMessage) {
	prefix := path
	if prefix != "" {
		prefix += "."
	}
	known := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(s.fields)) {
		field := strings.TrimSuffix(name, "?")
		if field == "*" {
			continue
		}
		known[field] = true
		raw, ok := obj[field]
		if !ok {
			if field == name {
				d.Missing = append(d.Missing, prefix+field)
			}
			continue
		}
		d.check(s.fields[name], prefix+field, raw)
	}
	rest, data := s.fields["*"]
	var first string
	for _, key := range slices.Sorted(maps.Keys(obj)) {
		switch {
		case known[key]:
		case !data:
			d.Unknown = append(d.Unknown, prefix+key)
		case first == "":
			first = key
		}
	}
	switch {
	case data && first == "":
		d.Missing = append(d.Missing, prefix+"*")
	case data:
		d.check(rest, prefix+"*", obj[first])
	}
}

// kindOf names a JSON value's kind by its first byte.
func kindOf(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "null"
	}
	switch t[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case 'n':
		return "null"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	}
	return "number"
}

func orTop(path string) string {
	if path == "" {
		return "the document"
	}
	return path
}

// maxDriftNames is how many paths of each kind a round's log line shows,
// and maxDriftPath how much of each: they are the document's text.
const (
	maxDriftNames = 5
	maxDriftPath  = 60
)

// reportDrift sets the drift metric from a fetch's answer, a list or a
// *FormatError, and logs the drift once, naming a few paths. A fetch that
// read no document (a network error) or whose source declares no format
// leaves the metric as the last document set it.
func (r *Runner) reportDrift(list *List, err error) {
	var d *Drift
	var fe *FormatError
	switch {
	case err == nil:
		d = list.Drift
	case errors.As(err, &fe):
		d = &fe.Drift
	}
	if d == nil {
		return
	}
	counts := d.counts()
	for i, kind := range DriftKinds() {
		r.m.drift.WithLabelValues(kind).Set(float64(counts[i]))
	}
	if d.Empty() {
		return
	}
	args := make([]any, 0, 6)
	for i, paths := range [][]string{d.Unknown, d.Missing, d.Shape} {
		if len(paths) > 0 {
			args = append(args, DriftKinds()[i], driftNames(paths))
		}
	}
	r.log.Warn("the document drifted from the format its adapter knows", args...)
}

// driftNames is a log's view of paths: the first few, each truncated.
func driftNames(paths []string) string {
	shown := make([]string, 0, maxDriftNames+1)
	for _, p := range paths[:min(len(paths), maxDriftNames)] {
		if len(p) > maxDriftPath {
			p = strings.ToValidUTF8(p[:maxDriftPath], "") + "…"
		}
		shown = append(shown, p)
	}
	if n := len(paths) - maxDriftNames; n > 0 {
		shown = append(shown, "and "+strconv.Itoa(n)+" more")
	}
	return strings.Join(shown, "; ")
}

// FirstOf returns the first page of saved pages (a JSON array of page
// bodies, each a JSON document or, for a page that is none, such as an
// HTML one, a JSON string holding it), or body when it is one page: the
// page a paged source's format is checked on.
func FirstOf(body []byte) []byte {
	t := bytes.TrimSpace(body)
	if len(t) == 0 || t[0] != '[' || !json.Valid(t) {
		return body
	}
	// The first element only: decoding the array would copy every page.
	dec := json.NewDecoder(bytes.NewReader(t))
	var first json.RawMessage
	if _, err := dec.Token(); err != nil || !dec.More() || dec.Decode(&first) != nil {
		return body
	}
	var text string
	if json.Unmarshal(first, &text) == nil {
		return []byte(text) // a page that is no JSON (HTML), saved as a JSON string
	}
	return first
}

// CheckFirstPage runs a paged source's fetch, which keeps its first page
// in first, and checks that page's format (CheckFormat).
func CheckFirstPage(shape *Shape, fetch func(first *[]byte) (*List, error)) (*List, error) {
	var first []byte
	list, err := fetch(&first)
	return CheckFormat(shape, first, list, err)
}
