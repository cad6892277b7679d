package replay_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
	"github.com/zoneprice/zoneprice/contracts/eventtest"
	"github.com/zoneprice/zoneprice/query/querytest"
)

// staleOf reads whether the directory of r's snapshot says registrar is
// stale; false when it does not list it.
func staleOf(t *testing.T, r *running, registrar string) (stale, listed bool) {
	t.Helper()
	var d struct {
		Registrars []struct {
			Registrar string `json:"registrar"`
			Stale     *bool  `json:"stale"`
		} `json:"registrars"`
	}
	if err := json.Unmarshal(r.c.Snapshot().Directory.JSON, &d); err != nil {
		t.Fatal(err)
	}
	for _, e := range d.Registrars {
		if e.Registrar == registrar {
			return e.Stale != nil && *e.Stale, true
		}
	}
	return false, false
}

// TestRegistrarStatuses replays registrar statuses from the state stream:
// a valid one reaches the directory, a bad one is counted by the reason
// any bad event is and ignored; and the registrar turns stale on the
// consumer's clock with nothing new on the stream.
func TestRegistrarStatuses(t *testing.T) {
	_, js := bustest.Provisioned(t)
	start := time.Now().UTC().Truncate(time.Second)
	// Hourly, last good two hours ago less a moment: stale 300 ms after
	// start on the data clock.
	good := eventtest.Status("porkbun", "Porkbun", time.Hour, start, 512)
	lastGood := start.Add(-2*time.Hour + 300*time.Millisecond)
	good.LastSuccess, good.Failure = &lastGood, contracts.FailureFetch
	nameless := eventtest.Status("nameless", "", time.Hour, start, 1)
	future := eventtest.Status("later", "Later", time.Hour, time.Date(2199, 1, 1, 0, 0, 0, 0, time.UTC), 1)
	publishRaw(t, js, good, nameless, future)
	if _, err := js.Publish(context.Background(), contracts.StatusSubject("broken"), []byte(`{"kind":"registrar_status","v":1,`)); err != nil {
		t.Fatal(err)
	}

	var clock atomic.Int64
	clock.Store(start.UnixNano())
	r := startAt(t, js, func() time.Time { return time.Unix(0, clock.Load()).UTC() })
	for reason, want := range map[string]float64{"invalid": 1, "future": 1, "malformed_json": 1} {
		if got := r.rejected(t, reason); got != want {
			t.Errorf("rejected{reason=%q} = %v, want %v", reason, got, want)
		}
	}
	for _, bad := range []string{"nameless", "later", "broken"} {
		if _, listed := staleOf(t, r, bad); listed {
			t.Errorf("the directory lists %s, whose status was refused", bad)
		}
	}
	if stale, listed := staleOf(t, r, "porkbun"); !listed || stale {
		t.Fatalf("porkbun listed %v, stale %v; want listed and fresh on the data clock at the start", listed, stale)
	}
	version := r.c.Snapshot().Version

	// The data clock passes porkbun's deadline; nothing is published.
	clock.Store(start.Add(time.Second).UnixNano())
	querytest.Until(t, "porkbun to turn stale", func() bool {
		stale, _ := staleOf(t, r, "porkbun")
		return stale
	})
	if got := r.c.Snapshot().Version; got <= version {
		t.Errorf("snapshot version %d, want a new one after %d", got, version)
	}
}
