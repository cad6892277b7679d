package cache

import (
	"encoding/binary"
	"encoding/hex"
	"strconv"
	"time"

	"github.com/cespare/xxhash/v2"
)

// Body is one rendered response: its JSON bytes and a strong ETag derived
// from them. Bodies are immutable once built.
type Body struct {
	JSON []byte
	ETag string
}

// newBody wraps rendered bytes with their ETag: a 64-bit xxHash of the body
// and its length. It must be the same in every pod (a load balancer mixes
// them), so it is a fixed hash of the bytes alone; a cryptographic hash is
// not needed to tell versions of one URL apart and cost several times more
// over the whole catalog.
func newBody(b []byte) *Body {
	var sum [8]byte
	binary.BigEndian.PutUint64(sum[:], xxhash.Sum64(b))
	return &Body{JSON: b, ETag: `"` + hex.EncodeToString(sum[:]) + "-" + strconv.FormatUint(uint64(len(b)), 36) + `"`}
}

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
