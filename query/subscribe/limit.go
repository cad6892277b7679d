package subscribe

import (
	"net/netip"
	"time"

	"github.com/zoneprice/zoneprice/query/access"
)

// formLimit bounds how often one client may post the subscription form:
// PerClientLimit an hour for an IPv4 address or an IPv6 /64 (one host, one
// line: limiting single IPv6 addresses would give every host 2^64
// quotas), and siteFactor times that for an IPv6 /48, so that a site
// rotating through its /64s is still one site. Quota refills smoothly
// (access.Limiter, GCRA): a person who mistypes is not held for an hour.
//
// Its memory is a fixed table of formClients clients. A flood of distinct
// clients does not lock anyone out: past the table's size a new client
// takes the entry nearest to refilled, so the flood can at worst lift
// other clients' limits, never refuse a client for someone else's posts
// (zoneprice_subscribe_limit_evictions_total counts it).
type formLimit struct {
	lim          *access.Limiter
	client, site *access.Policy
}

const (
	// formClients is the clients the table tracks: about 1.6 MB.
	formClients = 1 << 16
	// siteFactor is how many /64s' worth of posts a /48 may send.
	siteFactor = 4
)

func newFormLimit(perHour int, now func() time.Time) *formLimit {
	rate := func(n int) access.Rate { return access.Rate{Limit: n, Window: time.Hour, Burst: n} }
	return &formLimit{lim: access.NewLimiter(formClients, now),
		client: access.NewPolicy("form", rate(perHour)), site: access.NewPolicy("form-site", rate(siteFactor*perHour))}
}

// allow charges a post of the client at address ip (as echo's RealIP has
// it; one that does not parse shares a key with every such client), and
// reports whether it is within the limits, and if not, how long until it
// would be.
func (l *formLimit) allow(ip string) (bool, time.Duration) {
	a, _ := netip.ParseAddr(ip)
	k := access.AddrKey(a)
	if d := l.lim.Allow(&k, l.client); !d.Allowed {
		return false, d.RetryAfter
	}
	if sk, ok := access.SiteKey(a); ok {
		if d := l.lim.Allow(&sk, l.site); !d.Allowed {
			return false, d.RetryAfter
		}
	}
	return true, 0
}

// evicted counts the clients forgotten before their quota had refilled.
func (l *formLimit) evicted() float64 { return float64(l.lim.Evicted()) }
