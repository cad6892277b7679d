package bus_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
)

// testDurable is a durable consumer of a stream TEST of subjects test.*,
// created by the test, and the JetStream it is on.
func testDurable(t *testing.T) (*bus.Durable, jetstream.JetStream) {
	t.Helper()
	_, js := bustest.Connect(t, bustest.Server(t))
	if _, err := js.CreateStream(context.Background(), jetstream.StreamConfig{Name: "TEST", Subjects: []string{"test.*"}}); err != nil {
		t.Fatal(err)
	}
	return bus.NewDurable(js, "TEST", jetstream.ConsumerConfig{Durable: "work", AckPolicy: jetstream.AckExplicitPolicy, AckWait: 30 * time.Second}), js
}

func publishN(t *testing.T, js jetstream.JetStream, n int) {
	t.Helper()
	for i := range n {
		if _, err := js.Publish(context.Background(), fmt.Sprintf("test.%d", i), []byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
}

// consumed runs Consume until the returned stop is called, and records
// the sequence of each message handled.
type consumed struct {
	mu   sync.Mutex
	seqs []uint64
}

// ack records j and acknowledges it.
func (c *consumed) ack(_ context.CancelFunc, j bus.Job) {
	c.mu.Lock()
	c.seqs = append(c.seqs, j.Seq)
	c.mu.Unlock()
	_ = j.Ack()
}

func (c *consumed) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.seqs)
}

func consume(t *testing.T, d *bus.Durable, cfg bus.ConsumeConfig, handle func(context.CancelFunc, bus.Job)) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Consume(ctx, cfg, func(j bus.Job) { handle(cancel, j) }) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Consume: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

// waitUntil waits for cond, failing the test after a minute: a bound for
// a consumer that never delivers, not a speed to meet. It was ten
// seconds, which is also how long the iterator waits (two missed
// heartbeats, 5 s apart) before it pulls again when a pull goes
// unanswered, and a loaded CI machine once failed TestDurableConsume
// there (20 messages not all handled; 30 runs alone and 100 beside three
// busy loops passed).
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestDurableConsume: every message once, to several workers, with its
// metadata; the consumer answers Info once created.
func TestDurableConsume(t *testing.T) {
	d, js := testDurable(t)
	if _, err := d.Info(context.Background()); !errors.Is(err, bus.ErrNotCreated) {
		t.Errorf("Info before Consume: %v, want ErrNotCreated", err)
	}
	publishN(t, js, 20)
	var got consumed
	consume(t, d, bus.ConsumeConfig{Workers: 4}, func(_ context.CancelFunc, j bus.Job) {
		if j.Seq == 0 || j.NumDelivered != 1 || j.Timestamp.IsZero() || len(j.Data) != 1 || j.Subject != fmt.Sprintf("test.%d", j.Data[0]) {
			t.Errorf("job %+v", j)
		}
		got.ack(nil, j)
	})
	waitUntil(t, "20 messages", func() bool { return got.count() == 20 })
	waitUntil(t, "nothing pending", func() bool {
		info, err := d.Info(context.Background())
		return err == nil && info.Pending == 0 && info.AckPending == 0
	})
	seen := map[uint64]bool{}
	for _, s := range got.seqs {
		if seen[s] {
			t.Errorf("message %d handled twice", s)
		}
		seen[s] = true
	}
}

// TestDurableHandsBack: messages pulled but not begun when ctx ends are
// handed back, so the next Consume gets them at once, not after AckWait.
func TestDurableHandsBack(t *testing.T) {
	d, js := testDurable(t)
	publishN(t, js, 10)
	var first consumed
	stop := consume(t, d, bus.ConsumeConfig{Pull: 10}, func(cancel context.CancelFunc, j bus.Job) {
		// The first message stops the consumer while the pull holds the
		// others; it is finished all the same.
		cancel()
		first.ack(nil, j)
	})
	waitUntil(t, "the first message", func() bool { return first.count() > 0 })
	stop()
	var rest consumed
	consume(t, d, bus.ConsumeConfig{}, rest.ack)
	// Well within the consumer's AckWait of 30 s.
	waitUntil(t, "the other messages", func() bool { return first.count()+rest.count() == 10 })
}

// TestDurableWaitsForStream: a consumer of a stream not provisioned yet
// is created once it is.
func TestDurableWaitsForStream(t *testing.T) {
	_, js := bustest.Connect(t, bustest.Server(t))
	d := bus.NewDurable(js, "LATER", jetstream.ConsumerConfig{Durable: "work", AckPolicy: jetstream.AckExplicitPolicy})
	var got consumed
	consume(t, d, bus.ConsumeConfig{}, got.ack)
	time.Sleep(300 * time.Millisecond) // a failed attempt or two
	if _, err := js.CreateStream(context.Background(), jetstream.StreamConfig{Name: "LATER", Subjects: []string{"later"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(context.Background(), "later", nil); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the message", func() bool { return got.count() == 1 })
}
