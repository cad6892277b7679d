package bus_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
)

const (
	hook      = "wh_0123456789abcdef"
	hookOwner = "4d930e71934acb20"
)

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
		if err := b.Add(bus.Delivery{Owner: hookOwner, Webhook: hook, ID: id, Event: contracts.EventPriceChanged, Body: []byte(`{}`)}); err != nil {
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
	if m.Subject != contracts.DeliverySubject(hookOwner, hook) || m.Header.Get(contracts.HeaderWebhookID) != want ||
		m.Header.Get(contracts.HeaderMsgID) != want || m.Header.Get(contracts.HeaderEvent) != string(contracts.EventPriceChanged) {
		t.Errorf("queued %s %v", m.Subject, m.Header)
	}
}

// TestDeliveriesEndpointCap: the stream keeps at most its limit of
// deliveries for one endpoint, exactly, however many are queued at once,
// and refuses the rest as ErrEndpointFull, in a batch too, where they are
// counted and are no error; Queued counts what waits for a key's
// endpoints, and no other key's.
func TestDeliveriesEndpointCap(t *testing.T) {
	_, js := bustest.Provisioned(t)
	ctx := context.Background()
	cfg := bus.DeliveriesConfig(bus.Options{})
	cfg.MaxMsgsPerSubject = 5
	if _, err := js.UpdateStream(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	q := bus.NewDeliveries(js)
	delivery := func(owner, webhook string, i int) bus.Delivery {
		return bus.Delivery{Owner: owner, Webhook: webhook, ID: fmt.Sprintf("msg_%s%d", webhook, i), Event: contracts.EventPing, Body: []byte(`{}`)}
	}
	var queued, full atomic.Int32
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			switch err := q.Queue(ctx, delivery(hookOwner, hook, i)); {
			case err == nil:
				queued.Add(1)
			case errors.Is(err, bus.ErrEndpointFull):
				full.Add(1)
			default:
				t.Errorf("queue %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	if queued.Load() != 5 || full.Load() != 45 {
		t.Errorf("%d queued and %d refused, want 5 and 45", queued.Load(), full.Load())
	}
	b := q.Batch(ctx)
	for i := range 10 {
		if err := b.Add(delivery(hookOwner, "wh_00000000000000b2", 100+i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Wait(); err != nil || b.Full()[contracts.EventPing] != 5 {
		t.Errorf("a batch past the limit: %v, %v refused; want no error and 5", err, b.Full())
	}
	if err := q.Queue(ctx, delivery("0123456789abcdef", "wh_00000000000000c3", 0)); err != nil {
		t.Fatal(err)
	}
	if n, err := q.Queued(ctx, hookOwner); err != nil || n != 10 {
		t.Errorf("Queued = %d, %v; want the key's 10", n, err)
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
	var batch []bus.Attempt
	for i := range 3 {
		a := &contracts.DeliveryAttempt{Delivery: "msg_1", Type: contracts.EventPriceChanged, Attempt: i + 1, At: at, Outcome: contracts.OutcomeFailed}
		batch = append(batch, bus.Attempt{Webhook: hook, Attempt: a})
	}
	batch = append(batch, bus.Attempt{Webhook: "wh_fedcba9876543210", Attempt: &contracts.DeliveryAttempt{Attempt: 9}})
	if n, err := q.RecordAll(ctx, batch); err != nil || n != 4 {
		t.Fatalf("RecordAll = %d, %v; want 4 recorded", n, err)
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
