package bus_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

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

// TestDeliveriesAttempts: a batch's attempts of one endpoint are one
// message, in their order, with none of another endpoint's, and are read
// back oldest first; no stream is no attempts.
func TestDeliveriesAttempts(t *testing.T) {
	_, bare := bustest.Connect(t, bustest.Server(t))
	ctx := context.Background()
	if got, err := bus.NewDeliveries(bare).Attempts(ctx, hook); err != nil || len(got) != 0 {
		t.Errorf("Attempts without the stream = %v, %v; want none", got, err)
	}
	_, js := bustest.Provisioned(t)
	q := bus.NewDeliveries(js)
	const other = "wh_fedcba9876543210"
	at := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	var batch []bus.Attempt
	for i := range 3 {
		a := &contracts.DeliveryAttempt{Delivery: "msg_1", Type: contracts.EventPriceChanged, Attempt: i + 1, At: at, Outcome: contracts.OutcomeFailed}
		batch = append(batch, bus.Attempt{Webhook: hook, Attempt: a})
		// The other endpoint's attempts come between this one's.
		batch = append(batch, bus.Attempt{Webhook: other, Attempt: &contracts.DeliveryAttempt{Delivery: "msg_2", Attempt: 7 + i}})
	}
	if n, err := q.RecordAll(ctx, batch); err != nil || n != 6 {
		t.Fatalf("RecordAll = %d, %v; want 6 recorded", n, err)
	}
	if got := storedAttempts(t, js, hook); !slices.EqualFunc(got, [][]int{{1, 2, 3}}, slices.Equal) {
		t.Errorf("stored for %s: %v, want one message of attempts 1, 2, 3", hook, got)
	}
	if got := storedAttempts(t, js, other); !slices.EqualFunc(got, [][]int{{7, 8, 9}}, slices.Equal) {
		t.Errorf("stored for %s: %v, want one message of attempts 7, 8, 9", other, got)
	}
	for webhook, want := range map[string][]int{hook: {1, 2, 3}, other: {7, 8, 9}} {
		got, err := q.Attempts(ctx, webhook)
		if err != nil {
			t.Fatal(err)
		}
		if numbers := attemptNumbers(got); !slices.Equal(numbers, want) {
			t.Errorf("Attempts(%s) = %v, want %v", webhook, numbers, want)
		}
	}
}

// TestRecordAllSplits: an endpoint's attempts of one batch are split into
// messages of at most contracts.MaxAttemptsPerMessage attempts and of no more
// bytes than the stream takes, in their order; an attempt too long for a
// message even alone is not recorded, and the others are.
func TestRecordAllSplits(t *testing.T) {
	at := time.Date(2026, 11, 28, 13, 4, 5, 123456789, time.UTC)
	next := at.Add(5 * time.Minute)
	// delivered is an attempt as notify records one that succeeded.
	delivered := func(i int) *contracts.DeliveryAttempt {
		return &contracts.DeliveryAttempt{Delivery: contracts.DeliveryID(hook, uint64(1_000_000+i)), Type: contracts.EventPriceDropped,
			Attempt: i, At: at, Outcome: contracts.OutcomeDelivered, Status: 200, DurationMS: 123.456}
	}
	// failed is an attempt whose error is size bytes long.
	failed := func(size int) func(int) *contracts.DeliveryAttempt {
		return func(i int) *contracts.DeliveryAttempt {
			a := delivered(i)
			a.Outcome, a.Status, a.NextAttempt = contracts.OutcomeFailed, 500, &next
			a.Error = "answered 500 Internal Server Error: " + strings.Repeat("x", size)
			return a
		}
	}
	tests := []struct {
		name     string
		attempts int
		attempt  func(i int) *contracts.DeliveryAttempt
		// huge is the number of an attempt too long to record, 0 if none.
		huge         int
		wantMessages []int // how many attempts each message holds
	}{
		{name: "a full message of attempts that succeeded", attempts: contracts.MaxAttemptsPerMessage, attempt: delivered,
			wantMessages: []int{contracts.MaxAttemptsPerMessage}},
		{name: "a run longer than the cap", attempts: 2*contracts.MaxAttemptsPerMessage + 8, attempt: delivered,
			wantMessages: []int{contracts.MaxAttemptsPerMessage, contracts.MaxAttemptsPerMessage, 8}},
		// An attempt of about 1,300 bytes: three fit in 4 KiB.
		{name: "long errors", attempts: 7, attempt: failed(1000), wantMessages: []int{3, 3, 1}},
		{name: "one attempt too long for a message", attempts: 3, attempt: failed(1000), huge: 2, wantMessages: []int{1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, js := bustest.Provisioned(t)
			ctx := context.Background()
			q := bus.NewDeliveries(js)
			var batch []bus.Attempt
			var want []int
			for i := 1; i <= tt.attempts; i++ {
				a := tt.attempt(i)
				if i == tt.huge {
					a.Error = strings.Repeat("x", 5000)
				} else {
					want = append(want, i)
				}
				batch = append(batch, bus.Attempt{Webhook: hook, Attempt: a})
			}
			n, err := q.RecordAll(ctx, batch)
			if n != len(want) || (err != nil) != (tt.huge != 0) {
				t.Errorf("RecordAll = %d, %v; want %d recorded and an error only for an attempt too long", n, err, len(want))
			}
			var sizes []int
			for _, m := range storedAttempts(t, js, hook) {
				sizes = append(sizes, len(m))
			}
			if !slices.Equal(sizes, tt.wantMessages) {
				t.Errorf("messages of %v attempts, want %v", sizes, tt.wantMessages)
			}
			got, err := q.Attempts(ctx, hook)
			if err != nil {
				t.Fatal(err)
			}
			if numbers := attemptNumbers(got); !slices.Equal(numbers, want) {
				t.Errorf("Attempts = %v, want %v", numbers, want)
			}
		})
	}
}

// TestRecordAllFullMessage: an attempt that fits a message of the stream
// on its own (as every record did before attempts were grouped) is
// recorded, though "[" and "]" around it would make the message too long.
func TestRecordAllFullMessage(t *testing.T) {
	limit := int(bus.AttemptsConfig(bus.Options{}).MaxMsgSize)
	for _, size := range []int{limit - 2, limit - 1, limit} {
		t.Run(fmt.Sprint(size, " bytes"), func(t *testing.T) {
			_, js := bustest.Provisioned(t)
			ctx := context.Background()
			q := bus.NewDeliveries(js)
			a := &contracts.DeliveryAttempt{Delivery: "msg_1", Attempt: 1, Outcome: contracts.OutcomeFailed, Error: "x"}
			b, err := json.Marshal(a)
			if err != nil {
				t.Fatal(err)
			}
			a.Error += strings.Repeat("x", size-len(b))
			if b, _ = json.Marshal(a); len(b) != size {
				t.Fatalf("the attempt is %d bytes, want %d", len(b), size)
			}
			if n, err := q.RecordAll(ctx, []bus.Attempt{{Webhook: hook, Attempt: a}}); n != 1 || err != nil {
				t.Errorf("RecordAll = %d, %v; want it recorded", n, err)
			}
			got, err := q.Attempts(ctx, hook)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0].Error != a.Error {
				t.Errorf("Attempts = %d attempts, want the one recorded", len(got))
			}
		})
	}
}

// TestAttemptsBothShapes: a message of one attempt, as every record was
// before attempts were grouped, and one of several are read together, in
// the order they were recorded; a message that does not decode is
// skipped.
func TestAttemptsBothShapes(t *testing.T) {
	_, js := bustest.Provisioned(t)
	ctx := context.Background()
	q := bus.NewDeliveries(js)
	publish := func(data string) {
		t.Helper()
		if _, err := js.Publish(ctx, contracts.AttemptSubject(hook), []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	record := func(numbers ...int) {
		t.Helper()
		var batch []bus.Attempt
		for _, i := range numbers {
			batch = append(batch, bus.Attempt{Webhook: hook, Attempt: &contracts.DeliveryAttempt{Delivery: "msg_1", Attempt: i}})
		}
		if n, err := q.RecordAll(ctx, batch); err != nil || n != len(numbers) {
			t.Fatalf("RecordAll = %d, %v", n, err)
		}
	}
	publish(`{"delivery":"msg_1","type":"price.changed","attempt":1,"at":"2026-11-27T10:00:00Z","outcome":"failed","status":500,"duration_ms":12.5,"error":"answered 500 Internal Server Error","next_attempt":"2026-11-27T10:00:05Z"}`)
	record(2, 3)
	publish(`not json`)
	publish(` {"delivery":"msg_1","attempt":4}`)
	publish(`[{"delivery":"msg_1","attempt":99},`)
	record(5)
	got, err := q.Attempts(ctx, hook)
	if err != nil {
		t.Fatal(err)
	}
	if numbers := attemptNumbers(got); !slices.Equal(numbers, []int{1, 2, 3, 4, 5}) {
		t.Errorf("Attempts = %v, want 1 to 5", numbers)
	}
	if old := got[0]; old.Status != 500 || old.Error == "" || old.NextAttempt == nil || old.At.IsZero() {
		t.Errorf("the record of before: %+v", old)
	}
}

// TestAttemptsAtMostKept: the stream keeps an endpoint's last
// contracts.MaxAttemptsKept messages, and so more attempts; Attempts
// returns the last contracts.MaxAttemptsKept of them.
func TestAttemptsAtMostKept(t *testing.T) {
	_, js := bustest.Provisioned(t)
	ctx := context.Background()
	q := bus.NewDeliveries(js)
	const total = 2000
	var batch []bus.Attempt
	for i := 1; i <= total; i++ {
		batch = append(batch, bus.Attempt{Webhook: hook, Attempt: &contracts.DeliveryAttempt{Delivery: "msg_1", Attempt: i}})
	}
	if n, err := q.RecordAll(ctx, batch); err != nil || n != total {
		t.Fatalf("RecordAll = %d, %v", n, err)
	}
	stored := storedAttempts(t, js, hook)
	if len(stored) != contracts.MaxAttemptsKept || len(slices.Concat(stored...)) != contracts.MaxAttemptsKept*contracts.MaxAttemptsPerMessage {
		t.Errorf("stored %d messages of %d attempts, want %d of %d", len(stored), len(slices.Concat(stored...)),
			contracts.MaxAttemptsKept, contracts.MaxAttemptsKept*contracts.MaxAttemptsPerMessage)
	}
	got, err := q.Attempts(ctx, hook)
	if err != nil {
		t.Fatal(err)
	}
	numbers := attemptNumbers(got)
	if len(numbers) != contracts.MaxAttemptsKept || numbers[0] != total-contracts.MaxAttemptsKept+1 || numbers[len(numbers)-1] != total {
		t.Errorf("Attempts = %d attempts, %v; want the last %d", len(numbers), numbers, contracts.MaxAttemptsKept)
	}
}

// storedAttempts returns the attempts' numbers of each message the
// attempts stream holds for webhook, in the stream's order, each of which
// must be an array (RecordAll's) no longer than the stream takes.
func storedAttempts(t *testing.T, js jetstream.JetStream, webhook string) [][]int {
	t.Helper()
	ctx := context.Background()
	s, err := js.Stream(ctx, contracts.AttemptsStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]int
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq && info.State.Msgs > 0; seq++ {
		m, err := s.GetMsg(ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if m.Subject != contracts.AttemptSubject(webhook) {
			continue
		}
		if len(m.Data) > int(bus.AttemptsConfig(bus.Options{}).MaxMsgSize) {
			t.Errorf("message %d is %d bytes", seq, len(m.Data))
		}
		var several []contracts.DeliveryAttempt
		if err := json.Unmarshal(m.Data, &several); err != nil {
			t.Fatalf("message %d is not an array of attempts: %v: %s", seq, err, m.Data)
		}
		out = append(out, attemptNumbers(several))
	}
	return out
}

func attemptNumbers(attempts []contracts.DeliveryAttempt) []int {
	out := make([]int, 0, len(attempts))
	for _, a := range attempts {
		out = append(out, a.Attempt)
	}
	return out
}
