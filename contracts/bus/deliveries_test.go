package bus_test

import (
	"context"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
)

const hook = "wh_0123456789abcdef"

// TestDeliveriesBatch: a batch queues each delivery once, with the headers
// a worker reads, and a delivery queued again within the duplicate window
// is kept once.
func TestDeliveriesBatch(t *testing.T) {
	_, js := bustest.Provisioned(t)
	ctx := context.Background()
	q := bus.NewDeliveries(js)
	b := q.Batch(ctx)
	for i := range 3000 { // past a batch, and twice each
		id := contracts.DeliveryID(hook, uint64(i%1500))
		if err := b.Add(bus.Delivery{Webhook: hook, ID: id, Event: contracts.EventPriceChanged, Body: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Wait(); err != nil {
		t.Fatal(err)
	}
	st, err := q.State(ctx)
	if err != nil || st.Msgs != 1500 || st.Oldest.IsZero() {
		t.Fatalf("State = %+v, %v; want 1500 deliveries", st, err)
	}
	s, err := js.Stream(ctx, contracts.DeliveriesStream)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.GetMsg(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := contracts.DeliveryID(hook, 0)
	if m.Subject != contracts.DeliverySubject(hook) || m.Header.Get(contracts.HeaderWebhookID) != want ||
		m.Header.Get(contracts.HeaderMsgID) != want || m.Header.Get(contracts.HeaderEvent) != string(contracts.EventPriceChanged) {
		t.Errorf("queued %s %v", m.Subject, m.Header)
	}
}

// TestDeliveriesAttempts: an endpoint's attempts are read back oldest
// first, none of another's; no stream is no attempts.
func TestDeliveriesAttempts(t *testing.T) {
	_, bare := bustest.Connect(t, bustest.Server(t))
	ctx := context.Background()
	if got, err := bus.NewDeliveries(bare).Attempts(ctx, hook); err != nil || len(got) != 0 {
		t.Errorf("Attempts without the stream = %v, %v; want none", got, err)
	}
	_, js := bustest.Provisioned(t)
	q := bus.NewDeliveries(js)
	at := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	for i := range 3 {
		a := &contracts.DeliveryAttempt{Delivery: "msg_1", Type: contracts.EventPriceChanged, Attempt: i + 1, At: at, Outcome: contracts.OutcomeFailed}
		if err := q.Record(ctx, hook, a); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.Record(ctx, "wh_fedcba9876543210", &contracts.DeliveryAttempt{Attempt: 9}); err != nil {
		t.Fatal(err)
	}
	got, err := q.Attempts(ctx, hook)
	if err != nil || len(got) != 3 {
		t.Fatalf("Attempts = %v, %v; want 3", got, err)
	}
	for i, a := range got {
		if a.Attempt != i+1 {
			t.Errorf("attempt %d is number %d", i, a.Attempt)
		}
	}
}
