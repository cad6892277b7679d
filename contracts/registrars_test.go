package contracts

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func validStatus() *RegistrarStatus {
	at := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	ok := at.Add(-time.Hour)
	return &RegistrarStatus{V: SchemaVersion, Kind: KindRegistrarStatus, Registrar: "porkbun", Name: "Porkbun",
		Website: "https://porkbun.com", Source: "porkbun", SourceKind: SourceAPI,
		Document: "https://api.porkbun.com/api/json/v3/pricing/get", Currency: "USD", Tax: TaxExcluded,
		IntervalSeconds: 3600, LastAttempt: at, LastSuccess: &ok, Failure: FailureFetch, Zones: 512,
		Skipped: map[string]int{"not-in-root": 2}, SkippedNames: []string{".0db", ".8888"}, ObservedAt: at}
}

func TestRegistrarStatusRoundTrip(t *testing.T) {
	want := validStatus()
	doc, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := Decode(doc)
	if err != nil {
		t.Fatalf("Decode(%s): %v", doc, err)
	}
	if !reflect.DeepEqual(ev, want) {
		t.Errorf("Decode = %#v, want %#v", ev, want)
	}
	if got := ev.Subject(); got != "status.v1.porkbun" || !OnSubject(ev, got) {
		t.Errorf("Subject() = %q", got)
	}
}

func TestRegistrarStatusRejects(t *testing.T) {
	for _, tc := range []struct {
		name, field string
		edit        func(*RegistrarStatus)
	}{
		{"no name", "name", func(s *RegistrarStatus) { s.Name = "" }},
		{"markup is text, control characters are not", "name", func(s *RegistrarStatus) { s.Name = "<b>x</b>\n" }},
		{"a long name", "name", func(s *RegistrarStatus) { s.Name = strings.Repeat("n", 81) }},
		{"a javascript website", "website", func(s *RegistrarStatus) { s.Website = "javascript:alert(1)" }},
		{"a website with a password", "website", func(s *RegistrarStatus) { s.Website = "https://u:p@example.com" }},
		{"an unknown kind of source", "source_kind", func(s *RegistrarStatus) { s.SourceKind = "rumour" }},
		{"an unknown currency", "currency", func(s *RegistrarStatus) { s.Currency = "XYZ" }},
		{"no tax declaration", "tax", func(s *RegistrarStatus) { s.Tax = "" }},
		{"no interval", "interval_seconds", func(s *RegistrarStatus) { s.IntervalSeconds = 0 }},
		{"no attempt", "last_attempt", func(s *RegistrarStatus) { s.LastAttempt = time.Time{} }},
		{"success after the attempt", "last_success", func(s *RegistrarStatus) { t := s.LastAttempt.Add(time.Second); s.LastSuccess = &t }},
		{"an unknown failure", "failure", func(s *RegistrarStatus) { s.Failure = "bad luck" }},
		{"too many names", "skipped_names", func(s *RegistrarStatus) { s.SkippedNames = make([]string, MaxSkippedNames+1) }},
		{"a bad registrar", "registrar", func(s *RegistrarStatus) { s.Registrar = "Pork Bun" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := validStatus()
			tc.edit(s)
			var ve *ValidationError
			if err := s.Validate(); !errors.As(err, &ve) || ve.Field != tc.field {
				t.Errorf("Validate() = %v, want an error of %s", err, tc.field)
			}
		})
	}
	s := validStatus()
	s.Website, s.Document, s.Currency, s.LastSuccess, s.Failure, s.Skipped, s.SkippedNames = "", "", "", nil, "", nil, nil
	s.Name = "<script>x</script>"
	if err := s.Validate(); err != nil {
		t.Errorf("a status of a sample registrar before its first success: %v", err)
	}
}

// TestRegistrarStatusDocumented holds the directory's schema in the OpenAPI
// document to the status it shows: the same kinds of source and failure
// classes.
func TestRegistrarStatusDocumented(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Enum       []any `json:"enum"`
				Properties map[string]struct {
					Enum []any `json:"enum"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	var kinds []any
	for _, k := range SourceKinds() {
		kinds = append(kinds, string(k))
	}
	if got := doc.Components.Schemas["SourceKind"].Enum; !reflect.DeepEqual(got, kinds) {
		t.Errorf("SourceKind documents %v, want %v", got, kinds)
	}
	entry := doc.Components.Schemas["DirectoryEntry"].Properties
	if got := entry["kind"].Enum; !reflect.DeepEqual(got, append(kinds, nil)) {
		t.Errorf("DirectoryEntry.kind documents %v, want %v and null", got, kinds)
	}
	var failures []string
	for _, f := range entry["failure"].Enum {
		if f != nil {
			failures = append(failures, f.(string))
		}
	}
	if len(failures) != len(failureClasses) {
		t.Errorf("DirectoryEntry.failure documents %v, want the failure classes %v", failures, failureClasses)
	}
	for _, f := range failures {
		if !failureClasses[f] {
			t.Errorf("DirectoryEntry.failure documents %q, no failure class", f)
		}
	}
}
