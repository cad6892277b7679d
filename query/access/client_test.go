package access_test

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/query/access"
)

func TestClientAddr(t *testing.T) {
	tests := []struct {
		name    string
		trusted string
		peer    string
		xff     string // field lines separated by "\n"; "" is no field
		want    string // "" is the zero Addr
		fell    bool
	}{
		{"no proxies: the peer", "", "192.0.2.1:1000", "198.51.100.1", "192.0.2.1", false},
		{"untrusted peer: the header is not read", "10.0.0.0/8", "192.0.2.1:1000", "198.51.100.1", "192.0.2.1", false},
		{"trusted peer: the forwarded address", "10.0.0.0/8", "10.0.0.1:1000", "198.51.100.1", "198.51.100.1", false},
		{"the right-most untrusted address, not what the client wrote", "10.0.0.0/8", "10.0.0.1:1000", "203.0.113.9, 198.51.100.1", "198.51.100.1", false},
		{"through a chain of trusted proxies", "10.0.0.0/8", "10.0.0.1:1000", "203.0.113.9, 198.51.100.1, 10.0.0.7, 10.0.0.8", "198.51.100.1", false},
		{"several field lines, walked from the last", "10.0.0.0/8", "10.0.0.1:1000", "203.0.113.9, 198.51.100.1\n10.0.0.7\n10.0.0.8", "198.51.100.1", false},
		{"IPv4 with a port", "10.0.0.0/8", "10.0.0.1:1000", "198.51.100.7:5555", "198.51.100.7", false},
		{"IPv6 with a port", "10.0.0.0/8", "10.0.0.1:1000", "[2001:db8::1]:5555", "2001:db8::1", false},
		{"bracketed IPv6 without a port", "10.0.0.0/8", "10.0.0.1:1000", "[2001:db8::1]", "2001:db8::1", false},
		{"IPv6 with a zone", "10.0.0.0/8", "10.0.0.1:1000", "fe80::1%eth0", "fe80::1", false},
		{"IPv6 with a zone and a port", "10.0.0.0/8", "10.0.0.1:1000", "[2001:db8::1%eth0]:5555", "2001:db8::1", false},
		{"an IPv6 peer with a zone", "fe80::/10", "[fe80::1%eth0]:1000", "198.51.100.7", "198.51.100.7", false},
		{"IPv4-mapped IPv6", "10.0.0.0/8", "10.0.0.1:1000", "::ffff:198.51.100.7", "198.51.100.7", false},
		{"a trusted proxy with a port", "10.0.0.0/8", "10.0.0.1:1000", "198.51.100.7, 10.0.0.9:80", "198.51.100.7", false},
		{"IPv4-mapped peer in an IPv4 range", "10.0.0.0/8", "[::ffff:10.0.0.1]:1000", "198.51.100.7", "198.51.100.7", false},
		{"IPv6 peer and proxies", "2001:db8:ffff::/48", "[2001:db8:ffff::1]:1000", "2001:db8:1:2::1, 2001:db8:ffff::2", "2001:db8:1:2::1", false},
		{"empty entries are skipped", "10.0.0.0/8", "10.0.0.1:1000", "198.51.100.7, , 10.0.0.9,", "198.51.100.7", false},
		{"a trusted peer without the header", "10.0.0.0/8", "10.0.0.1:1000", "", "10.0.0.1", false},
		{"unknown from the peer: the peer", "10.0.0.0/8", "10.0.0.1:1000", "unknown", "10.0.0.1", true},
		{"garbage from a proxy: that proxy", "10.0.0.0/8", "10.0.0.1:1000", "198.51.100.7, garbage, 10.0.0.5", "10.0.0.5", true},
		{"garbage in an earlier line: the proxy after it", "10.0.0.0/8", "10.0.0.1:1000", "198.51.100.7, unknown\n10.0.0.5", "10.0.0.5", true},
		{"garbage left of the client is never read", "10.0.0.0/8", "10.0.0.1:1000", "garbage, 198.51.100.7", "198.51.100.7", false},
		{"a hostname is not an address", "10.0.0.0/8", "10.0.0.1:1000", "client.example", "10.0.0.1", true},
		{"every hop trusted: the left-most", "10.0.0.0/8", "10.0.0.1:1000", "10.0.0.7, 10.0.0.8", "10.0.0.7", false},
		{"every hop trusted, garbage left of them: the left-most read", "10.0.0.0/8", "10.0.0.1:1000", "unknown, 10.0.0.7, 10.0.0.8", "10.0.0.7", true},
		{"an unreadable peer", "10.0.0.0/8", "@", "198.51.100.7", "", false},
		{"a peer without a port", "", "192.0.2.1", "", "192.0.2.1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			trusted, err := access.ParsePrefixes(tt.trusted)
			if err != nil {
				t.Fatal(err)
			}
			var xff []string
			if tt.xff != "" {
				xff = strings.Split(tt.xff, "\n")
			}
			got, fell := access.ClientAddr(tt.peer, xff, trusted)
			var want netip.Addr
			if tt.want != "" {
				want = netip.MustParseAddr(tt.want)
			}
			if got != want || fell != tt.fell {
				t.Errorf("ClientAddr(%q, %q) = %v, fell back %v; want %v, %v", tt.peer, xff, got, fell, want, tt.fell)
			}
		})
	}
}

// BenchmarkClientAddr reads a client behind two proxies, as every request
// without a key does.
func BenchmarkClientAddr(b *testing.B) {
	trusted, err := access.ParsePrefixes("10.0.0.0/8,2001:db8:ffff::/48")
	if err != nil {
		b.Fatal(err)
	}
	xff := []string{"203.0.113.9, 198.51.100.1, 10.0.0.7"}
	b.ReportAllocs()
	for b.Loop() {
		access.ClientAddr("10.0.0.1:1000", xff, trusted)
	}
}
