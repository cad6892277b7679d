package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// Body is one rendered response: its JSON bytes and a strong ETag derived
// from them. Bodies are immutable once built.
type Body struct {
	JSON []byte
	ETag string
}

func newBody(b []byte) *Body {
	sum := sha256.Sum256(b)
	return &Body{JSON: b, ETag: `"` + hex.EncodeToString(sum[:12]) + `"`}
}

// Snapshot is an immutable, fully rendered view of the index at one data
// version. Requests read one snapshot from start to end, so a response never
// mixes two versions.
type Snapshot struct {
	// Version increases with every build.
	Version uint64
	// AsOf is the newest observed_at in the data.
	AsOf time.Time
	// Domains, Categories and ComparisonZones are the bodies of
	// /api/domains, /api/domains/categories and /api/comparison/zones.
	Domains, Categories, ComparisonZones *Body
	// Zones, Registrars and Prices count what the snapshot holds.
	Zones, Registrars, Prices int
	// BodyBytes is the size of every rendered body.
	BodyBytes int64

	comparison map[string]*Body
}

// Comparison returns the /api/comparison body of a canonical zone (".co.uk").
func (s *Snapshot) Comparison(zone string) (*Body, bool) {
	b, ok := s.comparison[zone]
	return b, ok
}
