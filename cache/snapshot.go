package cache

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/gzip"
)

// Body is one rendered response: its JSON bytes, a strong ETag derived
// from them, and when the data behind it last changed. Bodies are immutable
// once built; the compressed form is made once, on first demand.
type Body struct {
	JSON []byte
	ETag string
	// Modified is the newest observed_at of the events behind the body (its
	// Last-Modified), to the second; zero when there are none.
	Modified time.Time
	// LastModified is Modified as an HTTP date; empty when Modified is zero.
	LastModified string
	// Next is, for one page of a list, the cursor of the next page; empty
	// on the last page and for whole bodies.
	Next string

	gzipOnce sync.Once
	gzip     []byte
	gzipETag string
}

// NewBody wraps rendered bytes with their ETag: a 64-bit xxHash of the body
// and its length. It must be the same in every pod (a load balancer mixes
// them), so it is a fixed hash of the bytes alone; a cryptographic hash is
// not needed to tell versions of one URL apart and cost several times more
// over the whole catalog.
func NewBody(b []byte, modified time.Time) *Body {
	var sum [8]byte
	binary.BigEndian.PutUint64(sum[:], xxhash.Sum64(b))
	body := &Body{JSON: b, ETag: `"` + hex.EncodeToString(sum[:]) + "-" + strconv.FormatUint(uint64(len(b)), 36) + `"`}
	if !modified.IsZero() {
		body.Modified = modified.UTC().Truncate(time.Second)
		body.LastModified = body.Modified.Format(http.TimeFormat)
	}
	return body
}

// gzipLevel trades size for the time of the one compression each body
// version gets: it runs once per data version, never per request.
const gzipLevel = gzip.BestCompression

// Gzip returns the body compressed with gzip and the ETag of that
// representation (a strong ETag names one content coding). The first call
// compresses, concurrent ones wait for it, later ones are free: a body is
// compressed at most once, and only if some client asks for gzip, so
// replaying the stream never pays for it. The output depends on the bytes
// alone (no name, no time in the header), the same in every pod.
func (b *Body) Gzip() ([]byte, string) {
	b.gzipOnce.Do(func() {
		var buf bytes.Buffer
		buf.Grow(len(b.JSON)/4 + 64)
		w, _ := gzip.NewWriterLevel(&buf, gzipLevel) // the level is valid
		_, _ = w.Write(b.JSON)                       // a bytes.Buffer does not fail
		_ = w.Close()
		b.gzip = buf.Bytes()
		b.gzipETag = b.ETag[:len(b.ETag)-1] + `-gzip"`
	})
	return b.gzip, b.gzipETag
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

	style    *style
	views    []*view          // priced zones by ASCII name
	byZone   map[string]*view // by ASCII name
	rendered time.Time        // the render's now
}

// Comparison returns the /api/comparison body of a canonical zone (".co.uk").
func (s *Snapshot) Comparison(zone string) (*Body, bool) {
	v, ok := s.byZone[zone]
	if !ok {
		return nil, false
	}
	return v.body, true
}
