package digest

import (
	"errors"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
)

// follower follows .com's drops of 5% and more, and its renewal
// increases when increases is set.
func follower(increases bool) *contracts.Subscriber {
	sub := &contracts.Subscriber{
		Confirmed: true, Interests: []contracts.Interest{contracts.InterestPriceDrops},
		Zones: []string{".com"}, MinDropPercent: 5,
	}
	if increases {
		sub.Interests = append(sub.Interests, contracts.InterestRenewalIncreases)
	}
	return sub
}

// dropAt is a 10% drop of .com's register price, recorded at seq.
func dropAt(seq uint64) news {
	return news{drop: &contracts.PendingChange{Seq: seq, Zone: ".com", Registrar: "porkbun", Op: contracts.OpRegister, Percent: 10, ObservedAt: time.Unix(int64(seq), 0)}}
}

// bothAt is a change at seq that lowered .com's register price by 10%
// and raised its renewal by 50%.
func bothAt(seq uint64) news {
	n := dropAt(seq)
	n.increase = &contracts.PendingChange{Seq: seq, Zone: ".com", Registrar: "porkbun", Op: contracts.OpRenew, Percent: 50, ObservedAt: time.Unix(int64(seq), 0)}
	return n
}

// TestCollectCountsOnce fills a digest past its caps, each change
// delivered twice (as the consumer does after a stop or a failed write):
// every drop and increase is kept or counted once, and a subscriber who
// follows drops alone is given no increase.
func TestCollectCountsOnce(t *testing.T) {
	for _, tc := range []struct {
		name          string
		sub           *contracts.Subscriber
		wantIncreases int
	}{
		{"drops", follower(false), 0},
		{"drops and increases", follower(true), contracts.MaxPendingIncreases},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sub := tc.sub
			const n = contracts.MaxPendingDrops + 20
			for seq := uint64(1); seq <= n; seq++ {
				next, _, err := collect(sub, bothAt(seq))
				if err != nil {
					t.Fatalf("change %d: %v", seq, err)
				}
				sub = next
				if again, _, err := collect(sub, bothAt(seq)); !errors.Is(err, bus.ErrUnchanged) {
					t.Fatalf("change %d delivered again: err %v, %d kept and %d more after it; want it unchanged", seq, err, len(again.Pending), again.PendingMore)
				}
			}
			if len(sub.Pending) != contracts.MaxPendingDrops || sub.PendingMore != n-contracts.MaxPendingDrops {
				t.Errorf("%d drops kept and %d more, want %d and %d", len(sub.Pending), sub.PendingMore, contracts.MaxPendingDrops, n-contracts.MaxPendingDrops)
			}
			wantMore := 0
			if tc.wantIncreases > 0 {
				wantMore = n - tc.wantIncreases
			}
			if len(sub.Increases) != tc.wantIncreases || sub.IncreasesMore != wantMore {
				t.Errorf("%d increases kept and %d more, want %d and %d", len(sub.Increases), sub.IncreasesMore, tc.wantIncreases, wantMore)
			}
		})
	}
}

// TestCollectIncreaseAlone: a subscriber who follows renewal increases
// alone is given a change's increase, and not its drop; one who follows
// neither of a change's news is left unchanged.
func TestCollectIncreaseAlone(t *testing.T) {
	sub := follower(true)
	sub.Interests = []contracts.Interest{contracts.InterestRenewalIncreases}
	next, added, err := collect(sub, bothAt(1))
	if err != nil || added.drop != nil || added.increase == nil || len(next.Pending) != 0 || len(next.Increases) != 1 {
		t.Fatalf("collected %+v (%v): %d drops, %d increases; want the increase alone", added, err, len(next.Pending), len(next.Increases))
	}
	if _, _, err := collect(sub, dropAt(2)); !errors.Is(err, bus.ErrUnchanged) {
		t.Errorf("a drop given to a subscriber of increases alone: %v", err)
	}
}

// TestCollectAfterDigest counts drops and increases past the caps, sends
// the digest that tells them as "and N more", and then has the last
// counted change delivered again (it was handed back, say, when another
// subscriber's record could not be written): the next digest does not list
// it.
func TestCollectAfterDigest(t *testing.T) {
	sub := follower(true)
	const n = contracts.MaxPendingDrops + 5
	for seq := uint64(1); seq <= n; seq++ {
		next, _, err := collect(sub, bothAt(seq))
		if err != nil {
			t.Fatalf("change %d: %v", seq, err)
		}
		sub = next
	}
	// The digest's claim, as sendDigest makes it the next day.
	day := time.Unix(24*3600, 0)
	sub, b := claim(sub, day, day)
	if len(b.drops.items) != contracts.MaxPendingDrops || b.drops.more != n-contracts.MaxPendingDrops ||
		len(b.increases.items) != contracts.MaxPendingIncreases || b.increases.more != n-contracts.MaxPendingIncreases {
		t.Fatalf("digest of %d drops and %d more, %d increases and %d more; want %d and %d, %d and %d", len(b.drops.items), b.drops.more,
			len(b.increases.items), b.increases.more, contracts.MaxPendingDrops, n-contracts.MaxPendingDrops, contracts.MaxPendingIncreases, n-contracts.MaxPendingIncreases)
	}
	if again, _, err := collect(sub, bothAt(n)); !errors.Is(err, bus.ErrUnchanged) {
		t.Fatalf("change %d, told in the digest as one more, delivered again: err %v, %d and %d pending after it; want it unchanged", n, err, len(again.Pending), len(again.Increases))
	}
}
