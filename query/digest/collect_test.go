package digest

import (
	"errors"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
)

// TestCollectCountsOnce fills a digest past MaxPendingDrops, each change
// delivered twice (as the consumer does after a stop or a failed write):
// every drop is kept or counted once.
func TestCollectCountsOnce(t *testing.T) {
	sub := &contracts.Subscriber{
		Confirmed: true, Interests: []contracts.Interest{contracts.InterestPriceDrops},
		Zones: []string{".com"}, MinDropPercent: 5,
	}
	const n = contracts.MaxPendingDrops + 20
	for seq := uint64(1); seq <= n; seq++ {
		drop := contracts.PendingDrop{Seq: seq, Zone: ".com", Registrar: "porkbun", Op: contracts.OpRegister, Percent: 10, ObservedAt: time.Unix(int64(seq), 0)}
		next, err := collect(sub, drop)
		if err != nil {
			t.Fatalf("drop %d: %v", seq, err)
		}
		sub = next
		if again, err := collect(sub, drop); !errors.Is(err, bus.ErrUnchanged) {
			t.Fatalf("drop %d delivered again: err %v, %d kept and %d more after it; want it unchanged", seq, err, len(again.Pending), again.PendingMore)
		}
	}
	if len(sub.Pending) != contracts.MaxPendingDrops || sub.PendingMore != n-contracts.MaxPendingDrops {
		t.Errorf("%d kept and %d more, want %d and %d", len(sub.Pending), sub.PendingMore, contracts.MaxPendingDrops, n-contracts.MaxPendingDrops)
	}
}

// TestCollectAfterDigest counts drops past the cap, sends the digest that
// tells them as "and N more", and then has the last counted change
// delivered again (it was handed back, say, when another subscriber's
// record could not be written): the next digest does not list it.
func TestCollectAfterDigest(t *testing.T) {
	sub := &contracts.Subscriber{
		Confirmed: true, Interests: []contracts.Interest{contracts.InterestPriceDrops},
		Zones: []string{".com"}, MinDropPercent: 5,
	}
	drop := func(seq uint64) contracts.PendingDrop {
		return contracts.PendingDrop{Seq: seq, Zone: ".com", Registrar: "porkbun", Op: contracts.OpRegister, Percent: 10, ObservedAt: time.Unix(int64(seq), 0)}
	}
	const n = contracts.MaxPendingDrops + 5
	for seq := uint64(1); seq <= n; seq++ {
		next, err := collect(sub, drop(seq))
		if err != nil {
			t.Fatalf("drop %d: %v", seq, err)
		}
		sub = next
	}
	// The digest's claim, as sendDigest makes it the next day.
	day := time.Unix(24*3600, 0)
	sub, batch, more := claim(sub, day, day)
	if len(batch) != contracts.MaxPendingDrops || more != n-contracts.MaxPendingDrops {
		t.Fatalf("digest of %d drops and %d more, want %d and %d", len(batch), more, contracts.MaxPendingDrops, n-contracts.MaxPendingDrops)
	}
	if again, err := collect(sub, drop(n)); !errors.Is(err, bus.ErrUnchanged) {
		t.Fatalf("drop %d, told in the digest as one more, delivered again: err %v, %d pending after it; want it unchanged", n, err, len(again.Pending))
	}
}
