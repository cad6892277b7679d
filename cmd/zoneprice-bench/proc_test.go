package main

import (
	"net"
	"strconv"
	"testing"
)

// TestFreeAddr takes ports below the kernel's ephemeral range, where no
// outgoing connection of the bench can take them before a child listens.
func TestFreeAddr(t *testing.T) {
	low := ephemeralLow()
	for range 20 {
		addr, err := freeAddr()
		if err != nil {
			t.Fatal(err)
		}
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := strconv.Atoi(port); host != "127.0.0.1" || n < 10000 || n >= low {
			t.Fatalf("freeAddr = %s, want 127.0.0.1 and a port in [10000, %d)", addr, low)
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatalf("listen on %s: %v", addr, err)
		}
		_ = ln.Close()
	}
}
