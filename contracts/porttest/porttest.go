// Package porttest finds a loopback port for a process that must be told
// its port before it listens: a child process of a test or of the bench.
package porttest

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Addr returns a loopback address whose port was free a moment ago. The
// port is drawn below the kernel's ephemeral range (ip_local_port_range),
// where outgoing connections get theirs: a port of that range found free
// by listening on :0 was once taken by one of the bench's own connections
// to NATS before its child could listen on it. Another process could still
// take the port in between; the child then fails to listen, visibly.
func Addr() (string, error) {
	low := EphemeralLow()
	for range 100 {
		port := 10000 + rand.IntN(max(low-10000, 1))
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			continue // taken: draw again
		}
		addr := ln.Addr().String()
		return addr, ln.Close()
	}
	return "", fmt.Errorf("no free port on 127.0.0.1 between 10000 and %d", low)
}

// Free is Addr, failing the test when there is none.
func Free(t testing.TB) string {
	t.Helper()
	addr, err := Addr()
	if err != nil {
		t.Fatal(err)
	}
	return addr
}

// EphemeralLow is the first port the kernel hands out to outgoing
// connections: Linux's default when it cannot be read.
func EphemeralLow() int {
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil && n > 10000 {
				return n
			}
		}
	}
	return 32768
}
