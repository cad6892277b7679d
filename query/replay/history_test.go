package replay_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
	"github.com/zoneprice/zoneprice/contracts/eventtest"
	"github.com/zoneprice/zoneprice/query/querytest"
)

// addedChange is a registrar's first price for a zone, as a change.
func addedChange(reg, zone string, at time.Time, amount int64) *contracts.PriceChange {
	return &contracts.PriceChange{
		V: contracts.SchemaVersion, Kind: contracts.KindPriceChange, Change: contracts.ChangeAdded,
		Registrar: reg, Zone: zone, After: eventtest.RegisterOnly(reg, zone, at, "USD", amount).Offer(),
		ObservedAt: at, Source: eventtest.Source,
	}
}

func publishChanges(t *testing.T, js jetstream.JetStream, cs ...*contracts.PriceChange) {
	t.Helper()
	evs := make([]contracts.Event, len(cs))
	for i, c := range cs {
		evs[i] = c
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, _, err := bus.NewPublisher(js).PublishAll(ctx, evs, 256); err != nil {
		t.Fatal(err)
	}
}

func (r *running) historyLen() int {
	v, _ := r.c.History()
	return v.Len()
}

func (r *running) historyLoaded() bool {
	_, loaded := r.c.History()
	return loaded
}

// TestHistoryLoadsAndFollows loads the changes the stream holds, then
// shows each new one, and rejects and counts what is not a change of its
// subject.
func TestHistoryLoadsAndFollows(t *testing.T) {
	_, js := bustest.Provisioned(t)
	now := time.Now().UTC().Truncate(time.Second)
	publishChanges(t, js, addedChange("porkbun", ".com", now.Add(-time.Hour), 1000), addedChange("porkbun", ".net", now.Add(-time.Hour), 1200))
	// What a pod must survive is whatever the stream holds.
	garbage := map[string][]byte{
		contracts.ChangeSubject("porkbun", ".org"): []byte("{not json"),
		contracts.ChangeSubject("porkbun", ".io"):  mustJSON(t, addedChange("porkbun", ".dev", now, 1)), // another zone's
		contracts.ChangeSubject("porkbun", ".app"): mustJSON(t, eventtest.RegisterOnly("porkbun", ".app", now, "USD", 1)),
	}
	for subject, data := range garbage {
		if _, err := js.Publish(context.Background(), subject, data); err != nil {
			t.Fatal(err)
		}
	}

	r := start(t, js)
	querytest.Until(t, "the history to load", r.historyLoaded)
	if n := r.historyLen(); n != 2 {
		t.Fatalf("history holds %d changes, want the 2 valid ones", n)
	}
	for reason, want := range map[string]float64{"malformed_json": 1, "subject_mismatch": 1, "unknown_kind": 1} {
		if got := value(t, r.reg, "zoneprice_history_messages_rejected_total", reason); got != want {
			t.Errorf("history rejected{reason=%q} = %v, want %v", reason, got, want)
		}
	}
	if got := value(t, r.reg, "zoneprice_history_loaded", ""); got != 1 {
		t.Errorf("zoneprice_history_loaded = %v, want 1", got)
	}

	publishChanges(t, js, addedChange("namecheap", ".com", now, 999))
	querytest.Until(t, "the new change to show", func() bool { return r.historyLen() == 3 })
	v, _ := r.c.History()
	if !v.HasZone(".com") || v.HasZone(".org") {
		t.Errorf("HasZone: .com %v, .org %v; want true, false", v.HasZone(".com"), v.HasZone(".org"))
	}
}

// TestHistoryAfterState starts a pod on a stream without history: the
// state is ready at once, and the history follows once its stream exists.
func TestHistoryAfterState(t *testing.T) {
	_, js := bustest.Provisioned(t)
	if err := js.DeleteStream(context.Background(), contracts.HistoryStream); err != nil {
		t.Fatal(err)
	}
	publishRaw(t, js, eventtest.RegisterOnly("porkbun", ".com", time.Now(), "USD", 1000))
	r := start(t, js) // returns once ready
	if r.historyLoaded() {
		t.Fatal("history loaded without a history stream")
	}
	if _, err := js.CreateStream(context.Background(), bus.HistoryConfig(bus.Options{})); err != nil {
		t.Fatal(err)
	}
	querytest.Until(t, "the history to load once its stream exists", r.historyLoaded)
}

// TestHistoryThroughOutage keeps serving the history while NATS is away,
// and shows changes published after it came back.
func TestHistoryThroughOutage(t *testing.T) {
	srv, js := bustest.Provisioned(t)
	now := time.Now().UTC().Truncate(time.Second)
	publishChanges(t, js, addedChange("porkbun", ".com", now, 1000))
	r := start(t, js)
	querytest.Until(t, "the history to load", r.historyLoaded)
	reconnects := js.Conn().Stats().Reconnects
	restart := bustest.Stop(t, srv)
	if n := r.historyLen(); n != 1 || !r.historyLoaded() {
		t.Fatalf("during the outage: %d changes, loaded %v; want the 1 read before", n, r.historyLoaded())
	}
	restart()
	// Connected again after a reconnect: IsConnected alone can still be
	// the connection the client has not yet seen drop.
	querytest.Until(t, "the connection to come back", func() bool {
		return js.Conn().Stats().Reconnects > reconnects && js.Conn().IsConnected()
	})
	publishChanges(t, js, addedChange("porkbun", ".net", now, 1000))
	querytest.Until(t, "the change published after the outage to show", func() bool { return r.historyLen() == 2 })
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
