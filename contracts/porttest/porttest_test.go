package porttest

import (
	"net"
	"strconv"
	"testing"
)

// TestAddr takes ports below the kernel's ephemeral range, where no
// outgoing connection can take them before a child listens.
func TestAddr(t *testing.T) {
	low := EphemeralLow()
	for range 20 {
		addr, err := Addr()
		if err != nil {
			t.Fatal(err)
		}
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := strconv.Atoi(port); host != "127.0.0.1" || n < 10000 || n >= low {
			t.Fatalf("Addr = %s, want 127.0.0.1 and a port in [10000, %d)", addr, low)
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatalf("listen on %s: %v", addr, err)
		}
		_ = ln.Close()
	}
}
