package cmdtest

import (
	"net"
	"strconv"
	"testing"
)

// TestAddr takes ports outside the kernel's ephemeral range, where no
// outgoing connection can take them before a child listens.
func TestAddr(t *testing.T) {
	first, last := Ephemeral()
	for range 20 {
		addr, err := PortAddr()
		if err != nil {
			t.Fatal(err)
		}
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := strconv.Atoi(port); host != "127.0.0.1" || n >= first && n <= last {
			t.Fatalf("Addr = %s, want 127.0.0.1 and a port outside [%d, %d]", addr, first, last)
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatalf("listen on %s: %v", addr, err)
		}
		_ = ln.Close()
	}
}

// TestPortsOutside draws below the range, above it where it starts low,
// and leaves the choice to the kernel where neither has room.
func TestPortsOutside(t *testing.T) {
	for _, tt := range []struct{ first, last, lo, hi int }{
		{32768, 60999, 10000, 32768}, // Linux's default
		{1024, 65000, 0, 0},          // no room either side
		{1024, 50000, 50001, 65536},  // above
		{49152, 65535, 10000, 49152}, // the IANA range
	} {
		if lo, hi := portsOutside(tt.first, tt.last); lo != tt.lo || hi != tt.hi {
			t.Errorf("portsOutside(%d, %d) = [%d, %d), want [%d, %d)", tt.first, tt.last, lo, hi, tt.lo, tt.hi)
		}
	}
}
