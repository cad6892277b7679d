package contracts

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// KindRegistrarStatus is a RegistrarStatus document.
const KindRegistrarStatus Kind = "registrar_status"

// StatusSubjectPrefix starts the subject of a registrar's status:
// status.v1.<registrar>, on StateStream, the last one per subject.
const StatusSubjectPrefix = "status.v1."

// StatusSubject is where registrar's status lives.
func StatusSubject(registrar string) string { return StatusSubjectPrefix + registrar }

// SourceKind says what kind of document speaks for a registrar.
type SourceKind string

// The kinds of source.
const (
	// SourceAPI is the registrar's own API, read with or without a key.
	SourceAPI SourceKind = "api"
	// SourceSite is a document of the registrar's own site: the price
	// list its pages load, or the page itself.
	SourceSite SourceKind = "site"
	// SourceList is a third party's list of the registrar's prices.
	SourceList SourceKind = "list"
	// SourceSheet is a price sheet an operator keeps (ingest/sheet).
	SourceSheet SourceKind = "sheet"
	// SourceSample is the invented sample of a machine that reaches no
	// registrar.
	SourceSample SourceKind = "sample"
)

// SourceKinds lists every kind of source.
func SourceKinds() []SourceKind {
	return []SourceKind{SourceAPI, SourceSite, SourceList, SourceSheet, SourceSample}
}

// The failure classes of a round (RegistrarStatus.Failure): what an
// operator looks at first, without the error's text, which may hold what
// a registrar's server said.
const (
	// FailureFetch: the document could not be fetched (the network, a
	// timeout, an HTTP status).
	FailureFetch = "fetch"
	// FailureParse: the document was fetched but could not be read.
	FailureParse = "parse"
	// FailureShrunk: the list had shrunk too much to be trusted, and the
	// last good prices stay.
	FailureShrunk = "shrunk"
	// FailurePublish: the prices could not be published.
	FailurePublish = "publish"
)

var failureClasses = map[string]bool{FailureFetch: true, FailureParse: true, FailureShrunk: true, FailurePublish: true}

// The reasons the root-zone guard keeps a name a registrar's list prices
// out of the catalog (RegistrarStatus.Skipped, and the ingesters' metric
// zoneprice_ingest_names_outside_root_total).
const (
	// SkipNotInRoot: the name's top-level label is not delegated in the
	// DNS root (a Handshake name such as .0db or .8888, a typo, a test
	// label, a retired TLD).
	SkipNotInRoot = "not-in-root"
	// SkipUnknownSecondLevel: the name is under a delegated TLD but is no
	// second-level zone any list knows (the IANA catalog's, or the Public
	// Suffix List's).
	SkipUnknownSecondLevel = "unknown-second-level"
)

// SkipReasons are the root-zone guard's reasons, in the order they are
// shown.
func SkipReasons() []string { return []string{SkipNotInRoot, SkipUnknownSecondLevel} }

// The bounds of a RegistrarStatus.
const (
	// MaxSkippedNames is how many of the names the root-zone guard
	// skipped a status lists; Skipped counts them all.
	MaxSkippedNames = 500
	// maxSkipReasons bounds the reasons Skipped counts.
	maxSkipReasons = 8
	maxNameLen     = 80
	maxURLLen      = 300
)

// RegistrarStatus is what an ingester last knew of one registrar it speaks
// for: who the registrar is, the source that speaks for it and the document
// it reads, and how that source's rounds went. The runner publishes one per
// registrar after each round, so that every query pod serves the same
// directory of registrars without keeping any state of its own.
type RegistrarStatus struct {
	V         int    `json:"v"`
	Kind      Kind   `json:"kind"`
	Registrar string `json:"registrar"`
	// Name is the registrar's name as people know it ("Porkbun"), and
	// Website its home page, an https URL ("" for an invented one).
	Name    string `json:"name"`
	Website string `json:"website"`
	// Source is the source that speaks for the registrar, SourceKind what
	// kind of document it reads, and Document where (a URL; "" for a
	// sheet read from a file, or the sample).
	Source     string     `json:"source"`
	SourceKind SourceKind `json:"source_kind"`
	Document   string     `json:"document"`
	// Currency is what the source prices in; "" when its rows each say.
	Currency string `json:"currency"`
	// Tax is what the source declares of tax in its prices.
	Tax Tax `json:"tax"`
	// IntervalSeconds is how often the source fetches.
	IntervalSeconds int64 `json:"interval_seconds"`
	// LastAttempt is when the source last tried, and LastSuccess when it
	// last published a good list (nil before its first). Failure is the
	// class of the last attempt's failure, "" when it succeeded.
	LastAttempt time.Time  `json:"last_attempt"`
	LastSuccess *time.Time `json:"last_success"`
	Failure     string     `json:"failure"`
	// Zones are the zones the registrar's last good list priced.
	Zones int `json:"zones"`
	// Skipped counts, by reason, the names of the last list that the
	// root-zone guard kept from the catalog (names that are no zone of
	// the DNS root), and SkippedNames lists the first MaxSkippedNames.
	Skipped      map[string]int `json:"skipped"`
	SkippedNames []string       `json:"skipped_names"`
	ObservedAt   time.Time      `json:"observed_at"`
}

// Subject implements Event.
func (s *RegistrarStatus) Subject() string { return StatusSubject(s.Registrar) }

// Validate implements Event.
func (s *RegistrarStatus) Validate() error {
	if err := validateHeader(s.V, s.Kind, KindRegistrarStatus); err != nil {
		return err
	}
	if !ValidRegistrar(s.Registrar) {
		return invalid("registrar", "%q is not lower-case letters, digits and inner hyphens", truncate(s.Registrar, 70))
	}
	if err := validateText("name", s.Name, true); err != nil {
		return err
	}
	if err := validateURL("website", s.Website); err != nil {
		return err
	}
	if !slices.Contains(SourceKinds(), s.SourceKind) {
		return invalid("source_kind", "%q is not api, site, list, sheet or sample", truncate(string(s.SourceKind), 20))
	}
	if err := validateURL("document", s.Document); err != nil {
		return err
	}
	if _, ok := CurrencyExponent(s.Currency); s.Currency != "" && !ok {
		return invalid("currency", "unknown currency %q", truncate(s.Currency, 10))
	}
	switch s.Tax {
	case TaxExcluded, TaxIncluded, TaxUnknown:
	default:
		return invalid("tax", "%q is not excluded, included or unknown", truncate(string(s.Tax), 20))
	}
	if s.IntervalSeconds <= 0 {
		return invalid("interval_seconds", "must be above 0")
	}
	return s.validateRounds()
}

// validateRounds checks what the status says of the source's rounds.
func (s *RegistrarStatus) validateRounds() error {
	if err := validateObserved(s.LastAttempt, s.Source); err != nil {
		return fieldOf("last_attempt", err)
	}
	if s.LastSuccess != nil && s.LastSuccess.After(s.LastAttempt) {
		return invalid("last_success", "is after last_attempt")
	}
	if s.Failure != "" && !failureClasses[s.Failure] {
		return invalid("failure", "%q is not fetch, parse, shrunk or publish", truncate(s.Failure, 20))
	}
	if s.Zones < 0 {
		return invalid("zones", "must not be negative")
	}
	if len(s.Skipped) > maxSkipReasons {
		return invalid("skipped", "more than %d reasons", maxSkipReasons)
	}
	for reason, n := range s.Skipped {
		if !ValidSource(reason) || n < 0 {
			return invalid("skipped", "%q: %d is not a reason id with a count", truncate(reason, 20), n)
		}
	}
	if len(s.SkippedNames) > MaxSkippedNames {
		return invalid("skipped_names", "more than %d names", MaxSkippedNames)
	}
	for i, n := range s.SkippedNames {
		if err := validateText(fmt.Sprintf("skipped_names[%d]", i), n, true); err != nil {
			return err
		}
	}
	return validateObserved(s.ObservedAt, s.Source)
}

// fieldOf puts err, a validation error of observed_at, on field.
func fieldOf(field string, err error) error {
	if ve, ok := err.(*ValidationError); ok && ve.Field == "observed_at" {
		return &ValidationError{Field: field, Problem: ve.Problem}
	}
	return err
}

// validateText checks a short line of text a page will show: UTF-8, no
// control characters, at most maxNameLen bytes.
func validateText(field, s string, required bool) error {
	switch {
	case s == "" && required:
		return invalid(field, "must not be empty")
	case len(s) > maxNameLen:
		return invalid(field, "longer than %d bytes", maxNameLen)
	case !utf8.ValidString(s):
		return invalid(field, "is not UTF-8")
	case strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f }):
		return invalid(field, "holds a control character")
	}
	return nil
}

// validateURL checks an absolute https (or http) URL, or "".
func validateURL(field, s string) error {
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || len(s) > maxURLLen || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
		return invalid(field, "%q is not an http or https URL of at most %d bytes", truncate(s, 60), maxURLLen)
	}
	return nil
}
