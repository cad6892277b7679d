package contracts

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// ChangelogURL is where the API changelog (CHANGELOG.md in this package) is
// published: a deprecation's Link points at its entry there.
const ChangelogURL = "https://github.com/zoneprice/zoneprice/blob/main/contracts/CHANGELOG.md"

// SunsetNotice is the least time, in months, between announcing that
// something in the API goes away (Deprecated) and its going (Sunset): the
// compatibility promise of CHANGELOG.md.
const SunsetNotice = 6

// Deprecation announces that a route, or something a route answers with,
// is removed or changed. While it is listed, every response of the route
// carries Deprecation (RFC 9745), Sunset (RFC 8594) and a Link to the
// changelog entry (rel="deprecation").
type Deprecation struct {
	// Path is the route as the OpenAPI document names it
	// ("/api/comparison/{zone}").
	Path string
	// What says what goes away or changes, for people.
	What string
	// Deprecated is when it is deprecated: the Deprecation header.
	Deprecated time.Time
	// Sunset is when it goes away, at least SunsetNotice months after
	// Deprecated: the Sunset header.
	Sunset time.Time
	// Link is the absolute URL of the changelog entry that announces it,
	// usually ChangelogURL with a fragment.
	Link string
}

// Deprecations returns what the API is deprecating, for the query service
// to announce. It is empty: nothing has been removed or changed since the
// API's first changelog entry. An entry here comes with one in
// CHANGELOG.md, and the thing it names stays documented in openapi.json
// until its sunset.
func Deprecations() []Deprecation {
	return []Deprecation{}
}

// Validate reports a deprecation that would break the compatibility
// promise or that the headers cannot express.
func (d Deprecation) Validate() error {
	if !strings.HasPrefix(d.Path, "/") {
		return fmt.Errorf("path %q: must start with /", d.Path)
	}
	if d.What == "" {
		return errors.New("what: must say what goes away")
	}
	if d.Deprecated.IsZero() {
		return errors.New("deprecated: must be set")
	}
	if earliest := d.Deprecated.AddDate(0, SunsetNotice, 0); d.Sunset.Before(earliest) {
		return fmt.Errorf("sunset %s: must be at least %d months after the deprecation, %s or later",
			d.Sunset.Format(time.DateOnly), SunsetNotice, earliest.Format(time.DateOnly))
	}
	u, err := url.Parse(d.Link)
	if err != nil || !u.IsAbs() || strings.ContainsAny(d.Link, "<> ") {
		return fmt.Errorf("link %q: must be an absolute URL", d.Link)
	}
	return nil
}
