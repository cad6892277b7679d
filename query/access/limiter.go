package access

import (
	"hash/maphash"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Key identifies a limited client: an address, an IPv6 /64, an API key, or
// a client whose address could not be read. Its first byte says which, so
// they can never collide, nor any of them with the zero Key, which is what
// the limiter's empty entries hold.
type Key [17]byte

const (
	kindIPv4 = 1 + iota
	kindIPv6
	kindAPIKey
	kindNoAddr
	kindIPv6Site
)

// AddrKey is the key of a client address. An IPv6 client is limited by its
// /64: that is what one subscriber line or host is given, so limiting single
// addresses would give every host 2^64 quotas. The zero Addr, a client
// whose address could not be read, has a key of its own that every such
// client shares.
func AddrKey(a netip.Addr) Key {
	var k Key
	if !a.IsValid() {
		k[0] = kindNoAddr
		return k
	}
	a = a.Unmap()
	b := a.As16()
	if a.Is4() {
		k[0] = kindIPv4
		copy(k[1:], b[12:])
		return k
	}
	k[0] = kindIPv6
	copy(k[1:9], b[:8])
	return k
}

// SiteKey is the key of an IPv6 client's /48, what a site is commonly
// given: a client that rotates through its /64s is still one site. An IPv4
// client has none (false): its address is its key.
func SiteKey(a netip.Addr) (Key, bool) {
	var k Key
	if a = a.Unmap(); !a.Is6() {
		return k, false
	}
	b := a.As16()
	k[0] = kindIPv6Site
	copy(k[1:7], b[:6])
	return k, true
}

// SubscriberKey is the key of an API key, from its SHA-256.
func SubscriberKey(sum *[32]byte) Key {
	var k Key
	k[0] = kindAPIKey
	copy(k[1:], sum[:16])
	return k
}

// Policy is a Rate in force for a tier, with the limiter's arithmetic done
// once.
type Policy struct {
	Tier string
	Rate Rate
	// interval is the refill time of one request; capacity that of a
	// whole burst. Both in nanoseconds.
	interval, capacity int64
}

// NewPolicy is r in force for tier. r must be valid and not off.
func NewPolicy(tier string, r Rate) *Policy {
	iv := int64(r.interval())
	return &Policy{Tier: tier, Rate: r, interval: iv, capacity: iv * int64(r.Burst)}
}

// Field is the policy as a RateLimit-Policy field value of
// draft-ietf-httpapi-ratelimit-headers-06: the quota, its window in
// seconds, and the burst as an extension parameter ("60;w=60;burst=60").
func (p *Policy) Field() string {
	return strconv.Itoa(p.Rate.Limit) + ";w=" + strconv.Itoa(int(p.Rate.Window/time.Second)) +
		";burst=" + strconv.Itoa(p.Rate.Burst)
}

// Decision is the limiter's answer to one request.
type Decision struct {
	Allowed bool
	// Remaining is how many more requests would be allowed right now.
	Remaining int
	// Reset is how long until the quota has refilled completely.
	Reset time.Duration
	// RetryAfter is how long until a refused request would be allowed.
	RetryAfter time.Duration
}

// ways is the associativity of the table: how many clients share a set.
const ways = 8

type entry struct {
	key Key
	// tat is GCRA's theoretical arrival time, in nanoseconds since the
	// limiter's epoch: when the client's quota will have refilled
	// completely. An entry whose tat has passed holds nothing a fresh
	// entry would not.
	tat int64
}

type set struct {
	mu sync.Mutex
	e  [ways]entry
}

// Limiter is a GCRA rate limiter over a fixed number of clients.
type Limiter struct {
	sets    []set
	mask    uint64
	seed    maphash.Seed
	now     func() time.Time
	epoch   time.Time
	evicted atomic.Uint64
}

// NewLimiter tracks up to about clients clients (rounded up to a power of
// two), on the clock now.
func NewLimiter(clients int, now func() time.Time) *Limiter {
	n := 1
	for n*ways < clients {
		n *= 2
	}
	return &Limiter{sets: make([]set, n), mask: uint64(n - 1), seed: maphash.MakeSeed(), now: now, epoch: now()}
}

// Evicted counts the clients whose quota was forgotten before it had
// refilled, to make room for others: the table is too small for the
// clients it sees.
func (l *Limiter) Evicted() uint64 { return l.evicted.Load() }

// Allow charges one request to client k under p.
func (l *Limiter) Allow(k *Key, p *Policy) Decision {
	now := int64(l.now().Sub(l.epoch))
	s := &l.sets[maphash.Bytes(l.seed, k[:])&l.mask]
	s.mu.Lock()
	slot, victim := -1, 0
	for i := range s.e {
		if s.e[i].key == *k {
			slot = i
			break
		}
		if s.e[i].tat < s.e[victim].tat {
			victim = i
		}
	}
	tat := now
	if slot >= 0 {
		tat = max(tat, s.e[slot].tat)
	}
	next := tat + p.interval
	if next-now > p.capacity {
		// The clock was read before waiting for the lock, while others
		// may have charged the client since: read it again before
		// refusing anyone for that wait.
		now = max(now, int64(l.now().Sub(l.epoch)))
		tat = max(tat, now)
		next = tat + p.interval
	}
	if next-now > p.capacity {
		s.mu.Unlock()
		return Decision{Reset: time.Duration(tat - now), RetryAfter: time.Duration(next - now - p.capacity)}
	}
	if slot < 0 {
		slot = victim
		if s.e[slot].tat > now {
			l.evicted.Add(1)
		}
		s.e[slot].key = *k
	}
	s.e[slot].tat = next
	s.mu.Unlock()
	return Decision{Allowed: true, Remaining: int((p.capacity - (next - now)) / p.interval), Reset: time.Duration(next - now)}
}
