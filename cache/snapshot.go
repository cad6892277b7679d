package cache

import (
	"slices"
	"time"
)

// Snapshot is an immutable, fully rendered view of the index at one data
// version. Requests read one snapshot from start to end, so a response never
// mixes two versions.
type Snapshot struct {
	// Version increases with every build.
	Version uint64
	// AsOf is the newest observed_at in the data.
	AsOf time.Time
	// Sources is the newest observed_at of each source's live prices: how
	// fresh each source is.
	Sources map[string]time.Time
	// Domains, Categories, ComparisonZones and Directory are the bodies of
	// /api/domains, /api/domains/categories, /api/comparison/zones and
	// /api/registrars. The directory is rendered again only when it
	// changed: its body is the same from one snapshot to the next until
	// then.
	Domains, Categories, ComparisonZones, Directory *Body
	// Zones, Registrars and Prices count what the snapshot holds.
	Zones, Registrars, Prices int
	// BodyBytes is the size of the bodies rendered with the snapshot
	// (the catalog, categories, comparison zones and directory);
	// comparisons are rendered when first asked for, and not counted.
	BodyBytes int64

	style  *style
	global time.Time        // when a change touching every zone (rates, the sample rule) was stored
	views  []*view          // priced zones by ASCII name
	byZone map[string]*view // by ASCII name
	lists  listCache        // catalog lists computed for options
	dir    []*dirEntry      // the directory's registrars, by id
}

// Comparison returns the /api/comparison body of a canonical zone (".co.uk").
func (s *Snapshot) Comparison(zone string) (*Body, bool) {
	v, ok := s.byZone[zone]
	if !ok {
		return nil, false
	}
	return v.comparison(), true
}

// Currency is the currency the snapshot's own bodies show prices in.
func (s *Snapshot) Currency() string { return s.style.currency }

// Converts reports whether the snapshot can show prices in currency.
func (s *Snapshot) Converts(currency string) bool {
	return currency == s.style.currency || s.style.table.Has(currency)
}

// Currencies lists the currencies the snapshot can show prices in.
func (s *Snapshot) Currencies() []string {
	codes := s.style.table.Currencies()
	if !slices.Contains(codes, s.style.currency) {
		codes = append(codes, s.style.currency)
		slices.Sort(codes)
	}
	return codes
}
