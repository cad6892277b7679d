package subscribe

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/query/querytest"
)

func repeat(a string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = a
	}
	return out
}

// posts posts once from each address and returns how many were allowed.
func posts(l *formLimit, addrs ...string) int {
	n := 0
	for _, a := range addrs {
		if ok, _ := l.allow(a); ok {
			n++
		}
	}
	return n
}

func TestFormLimit(t *testing.T) {
	clk := querytest.NewClock(time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC))
	many := func(format string, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf(format, i+1)
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		addrs []string
		want  int
	}{
		// One host rotating through the addresses of its /64.
		{"fifteen addresses of one /64", many("2001:db8:1:1::%x", 15), 10},
		// One site rotating through its /64s: four /64s' worth.
		{"fifty /64s of one /48", many("2001:db8:2:%x::1", 50), 40},
		{"one IPv4 address", repeat("192.0.2.1", 15), 10},
		{"fifteen IPv4 addresses", many("198.51.100.%d", 15), 15},
		// An IPv4 client seen through an IPv6 socket is the same client.
		{"IPv4 and its mapped form", append(repeat("203.0.113.7", 6), repeat("::ffff:203.0.113.7", 6)...), 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newFormLimit(10, clk.Now)
			if got := posts(l, tc.addrs...); got != tc.want {
				t.Errorf("%d of %d posts allowed, want %d", got, len(tc.addrs), tc.want)
			}
		})
	}
}

// TestFormLimitRefills: quota comes back smoothly, one post every
// six minutes at ten an hour, not at the top of the hour.
func TestFormLimitRefills(t *testing.T) {
	clk := querytest.NewClock(time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC))
	l := newFormLimit(10, clk.Now)
	for range 10 {
		if ok, _ := l.allow("192.0.2.1"); !ok {
			t.Fatal("a post within the limit refused")
		}
	}
	ok, wait := l.allow("192.0.2.1")
	if ok || wait <= 0 || wait > 6*time.Minute {
		t.Fatalf("the eleventh post: allowed %v, retry after %v; want refused for at most 6 minutes", ok, wait)
	}
	clk.Advance(wait)
	if ok, _ := l.allow("192.0.2.1"); !ok {
		t.Error("refused after waiting what it was told")
	}
}

// TestFormLimitFlood: a flood of distinct clients, each posting once,
// never locks a new client out (it once did, after 100,000 clients, for
// the rest of the hour), and is counted as evictions.
func TestFormLimitFlood(t *testing.T) {
	clk := querytest.NewClock(time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC))
	l := newFormLimit(10, clk.Now)
	for i := range 100_010 {
		a := netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
		l.allow(a.String())
	}
	for _, a := range []string{"192.0.2.1", "2001:db8:9::1"} {
		if ok, _ := l.allow(a); !ok {
			t.Errorf("a new client %s refused after the flood", a)
		}
	}
	if l.evicted() == 0 {
		t.Error("the flood evicted no client: the table holds more than it should")
	}
}
