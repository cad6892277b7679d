package access_test

import (
	"crypto/sha256"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/query/access"
)

// clock is a test clock that moves only when told to.
type clock struct{ ns atomic.Int64 }

var epoch = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

func (c *clock) now() time.Time          { return epoch.Add(time.Duration(c.ns.Load())) }
func (c *clock) advance(d time.Duration) { c.ns.Add(int64(d)) }

func addr(s string) *access.Key {
	k := access.AddrKey(netip.MustParseAddr(s))
	return &k
}

func mustRate(t testing.TB, s string) access.Rate {
	t.Helper()
	r, err := access.ParseRate(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestLimiterGCRA(t *testing.T) {
	type step struct {
		after        time.Duration
		allowed      bool
		remaining    int
		reset, retry time.Duration
	}
	tests := []struct {
		name  string
		rate  string
		steps []step
	}{
		{"burst of the whole limit, then one per interval", "3/m", []step{
			{0, true, 2, 20 * time.Second, 0},
			{0, true, 1, 40 * time.Second, 0},
			{0, true, 0, time.Minute, 0},
			{0, false, 0, time.Minute, 20 * time.Second},
			{10 * time.Second, false, 0, 50 * time.Second, 10 * time.Second},
			{10 * time.Second, true, 0, time.Minute, 0},
			{time.Second, false, 0, 59 * time.Second, 19 * time.Second},
			// Idle long enough, the quota is whole again and no more.
			{time.Hour, true, 2, 20 * time.Second, 0},
		}},
		{"burst smaller than the limit", "6/m;burst=2", []step{
			{0, true, 1, 10 * time.Second, 0},
			{0, true, 0, 20 * time.Second, 0},
			{0, false, 0, 20 * time.Second, 10 * time.Second},
			{5 * time.Second, false, 0, 15 * time.Second, 5 * time.Second},
			{5 * time.Second, true, 0, 20 * time.Second, 0},
			{15 * time.Second, true, 0, 15 * time.Second, 0},
		}},
		{"refused requests cost nothing", "1/s", []step{
			{0, true, 0, time.Second, 0},
			{0, false, 0, time.Second, time.Second},
			{0, false, 0, time.Second, time.Second},
			{time.Second, true, 0, time.Second, 0},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c clock
			l := access.NewLimiter(1024, c.now)
			p := access.NewPolicy("free", mustRate(t, tt.rate))
			for i, s := range tt.steps {
				c.advance(s.after)
				got := l.Allow(addr("192.0.2.1"), p)
				want := access.Decision{Allowed: s.allowed, Remaining: s.remaining, Reset: s.reset, RetryAfter: s.retry}
				if got != want {
					t.Errorf("step %d (+%v): got %+v, want %+v", i, s.after, got, want)
				}
			}
		})
	}
}

func TestLimiterClientsApart(t *testing.T) {
	sum := sha256.Sum256([]byte("zp_example"))
	subscriber := access.SubscriberKey(&sum)
	noAddr, noAddr2 := access.AddrKey(netip.Addr{}), access.AddrKey(netip.Addr{})
	empty := access.Key{}
	tests := []struct {
		name   string
		a, b   *access.Key
		shared bool
	}{
		{"two IPv4 addresses", addr("192.0.2.1"), addr("192.0.2.2"), false},
		{"one IPv6 /64", addr("2001:db8:1:2::1"), addr("2001:db8:1:2:ffff:ffff:ffff:ffff"), true},
		{"neighbouring IPv6 /64s", addr("2001:db8:1:2::1"), addr("2001:db8:1:3::1"), false},
		{"IPv4 and its mapped IPv6 form", addr("192.0.2.1"), addr("::ffff:192.0.2.1"), true},
		{"IPv4 and the IPv6 /64 holding its mapped form", addr("192.0.2.1"), addr("::"), false},
		{"an address and an API key", addr("0.0.0.0"), &subscriber, false},
		{"two clients without a readable address", &noAddr, &noAddr2, true},
		{"no readable address and the IPv6 /64 of ::", &noAddr, addr("::"), false},
		{"no readable address and the zero key of an empty entry", &noAddr, &empty, false},
		{"no readable address and 0.0.0.0", &noAddr, addr("0.0.0.0"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c clock
			l := access.NewLimiter(1024, c.now)
			p := access.NewPolicy("free", mustRate(t, "1/h"))
			if d := l.Allow(tt.a, p); !d.Allowed {
				t.Fatalf("first request of a: %+v", d)
			}
			if d := l.Allow(tt.b, p); d.Allowed == tt.shared {
				t.Errorf("b after a: allowed %v, want %v (shared quota %v)", d.Allowed, !tt.shared, tt.shared)
			}
		})
	}
}

// TestLimiterBounded fills a table of one set: a new client takes the entry
// nearest to refilled, whose client starts again with a full quota, while
// the others stay limited; refilled entries are taken before any other.
func TestLimiterBounded(t *testing.T) {
	var c clock
	l := access.NewLimiter(8, c.now)
	p := access.NewPolicy("free", mustRate(t, "1/h"))
	clients := []*access.Key{
		addr("192.0.2.1"), addr("192.0.2.2"), addr("192.0.2.3"), addr("192.0.2.4"),
		addr("192.0.2.5"), addr("192.0.2.6"), addr("192.0.2.7"), addr("192.0.2.8"),
	}
	for _, k := range clients {
		if !l.Allow(k, p).Allowed {
			t.Fatal("a first request was refused")
		}
		c.advance(time.Minute)
	}
	if !l.Allow(addr("198.51.100.1"), p).Allowed {
		t.Fatal("a new client was refused for others' traffic")
	}
	if got := l.Evicted(); got != 1 {
		t.Errorf("evicted: got %d, want 1", got)
	}
	// The first client's entry was the one nearest to refilled.
	if !l.Allow(clients[0], p).Allowed {
		t.Error("the evicted client is still limited")
	}
	if l.Allow(clients[7], p).Allowed {
		t.Error("the most recent client lost its limit")
	}
	c.advance(2 * time.Hour)
	before := l.Evicted()
	for i := range 8 {
		l.Allow(addr(netip.AddrFrom4([4]byte{203, 0, 113, byte(i)}).String()), p)
	}
	if got := l.Evicted(); got != before {
		t.Errorf("evicted %d entries that had refilled, want none counted", got-before)
	}
}

// TestLimiterConcurrent lets many goroutines spend one client's burst at
// the same instant: exactly the burst is allowed.
func TestLimiterConcurrent(t *testing.T) {
	var c clock
	l := access.NewLimiter(1024, c.now)
	p := access.NewPolicy("free", mustRate(t, "100/h"))
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if l.Allow(addr("192.0.2.1"), p).Allowed {
					allowed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if got := allowed.Load(); got != 100 {
		t.Errorf("allowed %d of 400 concurrent requests, want the burst of 100", got)
	}
}

// BenchmarkLimiter charges requests from many goroutines: one hot client
// (every request on one set's lock, as wrk from one address is), and
// clients spread over the table.
func BenchmarkLimiter(b *testing.B) {
	p := access.NewPolicy("free", mustRate(b, "1000000000/s;burst=1000"))
	b.Run("one client", func(b *testing.B) {
		l := access.NewLimiter(1<<17, time.Now)
		k := addr("192.0.2.1")
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				l.Allow(k, p)
			}
		})
	})
	b.Run("many clients", func(b *testing.B) {
		l := access.NewLimiter(1<<17, time.Now)
		var next atomic.Uint32
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			base := next.Add(1) << 16
			var i uint32
			for pb.Next() {
				n := base | i&0xffff
				k := access.AddrKey(netip.AddrFrom4([4]byte{10, byte(n >> 16), byte(n >> 8), byte(n)}))
				l.Allow(&k, p)
				i++
			}
		})
	})
}
