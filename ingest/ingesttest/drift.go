package ingesttest

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/ingest"
)

// DriftPaths say where Drift changes an adapter's fixture, in the paths
// of ingest.Drift: "pricing.*" is the first key's value of "pricing" in
// key order, "tlds[]" the first element of "tlds", "" the document.
type DriftPaths struct {
	// Row is an object of the document (a row): Drift adds a field it
	// has never seen, and takes Field away from it. Empty for a document
	// with no object but its top (arrays read by position).
	Row, Field string
	// Shape is a value Drift turns into another kind: an object into an
	// array holding it, anything else into an object holding it.
	Shape string
}

// unknownField is the field Drift adds: no registrar sends it.
const unknownField = "zoneprice_unknown_field"

// Drift feeds a site adapter's parser its fixture with an unknown field,
// with a known field missing, and with a value of another shape, each as
// a saved response through a real runner on JetStream, and checks the
// drift metric and the round's log line. The first two rounds publish
// what they could read, as any round; the one with another shape reports
// its drift whether or not the parser could read anything.
func Drift(t *testing.T, source string, parse ingest.ParseFunc, fixture []byte, at DriftPaths) {
	t.Helper()
	for _, tc := range []struct {
		name, kind, path string
		edit             func(v any, set func(any))
	}{
		{"unknown field", "unknown", join(at.Row, unknownField), func(v any, _ func(any)) {
			row(t, v)[unknownField] = "x"
		}},
		{"missing field", "missing", join(at.Row, at.Field), func(v any, _ func(any)) {
			delete(row(t, v), at.Field)
		}},
		{"another shape", "shape", at.Shape, func(v any, set func(any)) {
			if obj, ok := v.(map[string]any); ok {
				set([]any{obj})
			} else {
				set(map[string]any{"value": v})
			}
		}},
	} {
		if at.Row == "" && tc.kind != "shape" {
			continue // a document of arrays read by position has no fields
		}
		t.Run(tc.name, func(t *testing.T) {
			path := at.Row
			if tc.kind == "shape" {
				path = at.Shape
			}
			file := filepath.Join(t.TempDir(), "drifted")
			if err := os.WriteFile(file, edited(t, fixture, path, tc.edit), 0o600); err != nil {
				t.Fatal(err)
			}
			h := New(t, ingest.NewFileSource(source, file, parse, time.Now))
			err := h.Once(t)
			if tc.kind != "shape" && err != nil {
				t.Fatalf("a round with a drifted field failed: %v", err)
			}
			for _, kind := range ingest.DriftKinds() {
				got, want := h.Gauge(t, "zoneprice_ingest_format_drift_fields", "kind", kind), 0.0
				if kind == tc.kind {
					want = 1
				}
				if got != want {
					t.Errorf("drift %s = %v, want %v", kind, got, want)
				}
			}
			if log := h.Log.String(); !strings.Contains(log, "drifted from the format") || !strings.Contains(log, tc.kind+"=") ||
				!strings.Contains(log, tc.path) {
				t.Errorf("no log line naming the %s field %s:\n%s", tc.kind, tc.path, log)
			}
		})
	}
}

// row is the object at DriftPaths.Row.
func row(t *testing.T, v any) map[string]any {
	t.Helper()
	obj, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("the row is %T, not an object", v)
	}
	return obj
}

func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

// edited returns fixture with edit applied to the value at path, handed
// the value and how to replace it; a path the fixture lacks fails the
// test.
func edited(t *testing.T, fixture []byte, path string, edit func(v any, set func(any))) []byte {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(fixture))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	v, set := doc, func(n any) { doc = n }
	for _, step := range strings.Split(path, ".") {
		if step == "" {
			continue
		}
		if i, err := strconv.Atoi(step); err == nil {
			arr, ok := v.([]any)
			if !ok || i >= len(arr) {
				t.Fatalf("fixture has no element %d of %s", i, path)
			}
			v, set = arr[i], func(n any) { arr[i] = n }
			continue
		}
		name, first := strings.CutSuffix(step, "[]")
		if name != "" {
			obj, ok := v.(map[string]any)
			if !ok || len(obj) == 0 {
				t.Fatalf("fixture has no object holding %q of %s", step, path)
			}
			if name == "*" {
				name = slices.Sorted(maps.Keys(obj))[0]
			}
			if v, ok = obj[name]; !ok {
				t.Fatalf("fixture has no %q of %s", name, path)
			}
			set = func(n any) { obj[name] = n }
		}
		if first {
			arr, ok := v.([]any)
			if !ok || len(arr) == 0 {
				t.Fatalf("fixture has no array at %q of %s", step, path)
			}
			v, set = arr[0], func(n any) { arr[0] = n }
		}
	}
	edit(v, set)
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
