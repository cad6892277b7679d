package access

import (
	"net/netip"
	"strings"
)

// ClientAddr finds the address of the client a request comes from. The
// client is the TCP peer (remoteAddr, as http.Request.RemoteAddr has it),
// unless the peer is a trusted proxy: then the X-Forwarded-For field lines
// (forwarded, in the order received) are walked from the right, and the
// first address that is not a trusted proxy's is the client. Proxies only
// ever append, so everything right of that address was written by proxies
// the pod trusts, and whatever the client wrote itself lies left of it,
// unread.
//
// An entry may be an address ("198.51.100.7", "2001:db8::1"), with a port
// ("198.51.100.7:5555", "[2001:db8::1]:5555", as some proxies write it) or
// bracketed; a zone is dropped and an IPv4-mapped address is read as IPv4.
// Empty entries are skipped. An entry that is none of these ("unknown",
// an obfuscated identifier, garbage) ends the walk: nothing left of it can
// be believed, so the client is the last address read, the proxy that
// wrote it, and fellBack reports that. When every entry is a trusted
// proxy's, the client is the left-most of them. A peer whose address
// cannot be read gives the zero Addr, which AddrKey keys apart.
func ClientAddr(remoteAddr string, forwarded []string, trusted Prefixes) (client netip.Addr, fellBack bool) {
	peer, ok := parseHop(remoteAddr)
	if !ok {
		return netip.Addr{}, false
	}
	if !trusted.Contains(peer) {
		return peer, false
	}
	client = peer
	for i := len(forwarded) - 1; i >= 0; i-- {
		line := forwarded[i]
		for line != "" {
			entry := line
			if j := strings.LastIndexByte(line, ','); j >= 0 {
				entry, line = line[j+1:], line[:j]
			} else {
				line = ""
			}
			entry = strings.TrimSpace(entry)
			if entry == "" {
				continue
			}
			a, ok := parseHop(entry)
			if !ok {
				return client, true
			}
			if !trusted.Contains(a) {
				return a, false
			}
			client = a
		}
	}
	return client, false
}

// parseHop reads one address as peers and proxies write it: bare, with a
// port, or bracketed (IPv6), without its zone, IPv4-mapped as IPv4. Each
// form is told by its shape first, so that a valid one is parsed once and
// without allocating an error.
func parseHop(s string) (netip.Addr, bool) {
	var a netip.Addr
	var err error
	switch {
	case len(s) > 2 && s[0] == '[' && s[len(s)-1] == ']':
		a, err = netip.ParseAddr(s[1 : len(s)-1])
	case strings.HasPrefix(s, "[") || strings.Count(s, ":") == 1:
		var ap netip.AddrPort
		ap, err = netip.ParseAddrPort(s)
		a = ap.Addr()
	default:
		a, err = netip.ParseAddr(s)
	}
	if err != nil {
		return netip.Addr{}, false
	}
	return a.WithZone("").Unmap(), true
}
