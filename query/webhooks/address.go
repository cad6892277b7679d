package webhooks

import (
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"code.dny.dev/ssrf"
	"golang.org/x/net/idna"

	"github.com/zoneprice/zoneprice/contracts"
)

// An endpoint whose host is an address, not a name, can be judged when
// it is registered: no DNS answer will ever make an internal address a
// public one. Such a URL is refused with the deny list that notify's
// guard applies when a delivery connects (code.dny.dev/ssrf's: loopback,
// private, link-local with the cloud metadata address, CGNAT, multicast,
// unspecified, documentation and the other special-purpose ranges, IPv6
// outside global unicast, which takes in IPv4-mapped and NAT64 forms). A
// host that is a name is still checked only when a delivery connects,
// after DNS resolution.

// checkAddress refuses url (already a valid endpoint URL) when its host is
// an address the service never delivers to, however it is spelt: as a
// browser or C's inet_aton reads an IPv4 address (127.1, 2130706433,
// 0x7f.0.0.1, 0177.0.0.1), with a trailing dot, in full-width digits
// (which the HTTP client maps to ASCII, as IDNA says), or as IPv6 with a
// zone.
func (s *Store) checkAddress(u string) error {
	p, err := url.Parse(u)
	if err != nil {
		return contracts.Invalid("url", "not a URL")
	}
	addr, ok := hostAddress(p.Hostname())
	if !ok {
		return nil
	}
	if s.cfg.AllowLoopback && addr.Unmap().IsLoopback() {
		return nil
	}
	if err := s.guard.SafeAddr(addr); err != nil {
		return contracts.Invalid("url", "the host %s is the address %s, which is internal: deliveries never go there", p.Hostname(), addr)
	}
	return nil
}

// newGuard is the deny list, with the networks cfg allows.
func newGuard(cfg Config) *ssrf.Guardian {
	var v4, v6 []netip.Prefix
	for _, p := range cfg.AllowPrefixes {
		if p.Addr().Is4() {
			v4 = append(v4, p)
		} else {
			v6 = append(v6, p)
		}
	}
	return ssrf.New(ssrf.WithAnyPort(), ssrf.WithAllowedV4Prefixes(v4...), ssrf.WithAllowedV6Prefixes(v6...))
}

// hostAddress is the address host spells, if it spells one.
func hostAddress(host string) (netip.Addr, bool) {
	if ascii, err := idna.Lookup.ToASCII(host); err == nil {
		host = ascii
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if a, err := netip.ParseAddr(host); err == nil {
		return a.WithZone(""), true
	}
	return inetAton(host)
}

// inetAton reads an IPv4 address as inet_aton does: one to four parts,
// each decimal, octal (a leading 0) or hexadecimal (0x), the last filling
// the bytes the others leave.
func inetAton(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var v uint64
	for i, part := range parts {
		n, ok := atonPart(part)
		if !ok {
			return netip.Addr{}, false
		}
		if i < len(parts)-1 {
			if n > 0xff {
				return netip.Addr{}, false
			}
			v |= n << (8 * (3 - i))
			continue
		}
		if n >= 1<<(8*(4-i)) {
			return netip.Addr{}, false
		}
		v |= n
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// atonPart reads one part of inetAton's address.
func atonPart(p string) (uint64, bool) {
	base := 10
	switch {
	case strings.HasPrefix(p, "0x"):
		p, base = p[2:], 16
		if p == "" {
			return 0, true // "0x" is 0 to inet_aton
		}
	case len(p) > 1 && p[0] == '0':
		p, base = p[1:], 8
	}
	n, err := strconv.ParseUint(p, base, 32)
	return n, err == nil
}
