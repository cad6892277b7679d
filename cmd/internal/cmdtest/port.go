package cmdtest

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
)

// PortAddr returns a loopback address whose port was free a moment ago. The
// port is drawn outside the kernel's ephemeral range (ip_local_port_range,
// below it or, where it starts low, above it), where outgoing connections
// get theirs: a port of that range found free by listening on :0 was once
// taken by one of the bench's own connections to NATS before its child
// could listen on it. Another process could still take the port in
// between; the child then fails to listen, visibly. Where the range leaves
// no room, the kernel picks the port, as before.
func PortAddr() (string, error) {
	lo, hi := portsOutside(Ephemeral())
	for range 100 {
		port := 0 // the kernel's choice
		if hi > lo {
			port = lo + rand.IntN(hi-lo)
		}
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			continue // taken: draw again
		}
		addr := ln.Addr().String()
		return addr, ln.Close()
	}
	return "", fmt.Errorf("no free port on 127.0.0.1 in [%d, %d)", lo, hi)
}

// FreePort is PortAddr, failing the test when there is none.
func FreePort(t testing.TB) string {
	t.Helper()
	addr, err := PortAddr()
	if err != nil {
		t.Fatal(err)
	}
	return addr
}

// portsOutside is the ports [lo, hi) PortAddr draws from for an ephemeral
// range [first, last]: from 10000 (above the ports of well-known services)
// to the range, or from past it to 65535 when that leaves more room, or
// none when neither leaves 1,000.
func portsOutside(first, last int) (lo, hi int) {
	below, above := first-10000, 65535-last
	switch {
	case below >= 1000 && below >= above:
		return 10000, first
	case above >= 1000:
		return last + 1, 65536
	}
	return 0, 0
}

// Ephemeral is the range of ports the kernel hands out to outgoing
// connections, [first, last]: Linux's default when it cannot be read.
func Ephemeral() (first, last int) {
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			first, err1 := strconv.Atoi(f[0])
			last, err2 := strconv.Atoi(f[1])
			if err1 == nil && err2 == nil && 0 < first && first <= last && last <= 65535 {
				return first, last
			}
		}
	}
	return 32768, 60999
}
