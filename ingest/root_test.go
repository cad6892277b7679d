package ingest_test

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/iana"
)

// TestRunnerGuardWithdrawsMostOfAList is the real Namecheap list's case:
// more than half of what an unguarded round published are Handshake
// names. The guarded round withdraws them, and the list, which lost
// nothing but names outside the root, is not refused as shrunk. A kept
// subject outside the root is withdrawn too, an unknown second-level zone
// is skipped with its reason, and a source's own Outside counts with a
// bounded reason whatever it says.
func TestRunnerGuardWithdrawsMostOfAList(t *testing.T) {
	h := newHarness(t)
	real := []string{".com", ".net", ".org"}
	handshake := []string{".0db", ".4k", ".abo", ".0x", ".9ja"}
	full := func() *ingest.List {
		var l ingest.List
		for i, z := range append(append([]string{}, real...), handshake...) {
			l.Prices = append(l.Prices, set("a", z, int64(100+i)))
		}
		return &l
	}
	if err := h.once(t, full(), nil); err != nil {
		t.Fatal(err)
	}
	for _, z := range handshake {
		if _, ok := h.current(t, "a", z).(*contracts.PriceSet); !ok {
			t.Fatalf("the unguarded round did not publish %s", z)
		}
	}

	h.r.Guard(iana.NewRoot(bus.NewStreams(h.js)))
	l := full()
	l.Prices = append(l.Prices, set("a", ".example.com", 300))
	l.Keep = []string{contracts.PriceSubject("a", ".0db"), contracts.PriceSubject("a", ".de")}
	l.Outside = []ingest.Skip{{Registrar: "a", Name: ".8888", Reason: "made-up"}}
	if err := h.once(t, l, nil); err != nil {
		t.Fatalf("guarded round: %v, want the list published", err)
	}
	for _, z := range append(handshake, ".example.com") {
		if _, ok := h.current(t, "a", z).(*contracts.PriceSet); ok {
			t.Errorf("%s is still priced after the guarded round", z)
		}
	}
	for _, z := range handshake {
		if _, ok := h.current(t, "a", z).(*contracts.Withdrawal); !ok {
			t.Errorf("%s: %v, want a withdrawal", z, h.current(t, "a", z))
		}
	}
	for _, z := range real {
		if _, ok := h.current(t, "a", z).(*contracts.PriceSet); !ok {
			t.Errorf("%s is not priced after the guarded round", z)
		}
	}
	if got := h.current(t, "a", ".example.com"); got != nil {
		t.Errorf(".example.com: %v, want nothing ever published", got)
	}
	wants := map[string]float64{contracts.SkipNotInRoot: 6, contracts.SkipUnknownSecondLevel: 1}
	for reason, want := range wants {
		if got := counter(t, h.reg, "zoneprice_ingest_names_outside_root_total", "reason", reason); got != want {
			t.Errorf("names outside the root (%s) = %v, want %v", reason, got, want)
		}
	}
	if n, err := testutil.GatherAndCount(h.reg, "zoneprice_ingest_names_outside_root_total"); err != nil || n != 2 {
		t.Errorf("%d series of zoneprice_ingest_names_outside_root_total (err %v), want one per reason", n, err)
	}
}
