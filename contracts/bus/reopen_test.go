package bus_test

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
)

// giveUp is an ordered consumer's iterator that has given up recreating
// itself: its attempts timed out, as they do while NATS is away for longer
// than they last (three of 10 s), and it reports their last error.
type giveUp struct {
	jetstream.MessagesContext
	err error
}

func (g *giveUp) Next(...jetstream.NextOpt) (jetstream.Msg, error) { return nil, g.err }

// TestNextReopensAfterGivingUp has the ordered consumer give up with a
// deadline error, and with a canceled context: the first is an outage the
// reader outlives by opening a new consumer, so NextWithin still reads the
// stream's message; the second is NextWithin's own wait, not an outage,
// and reopens nothing.
func TestNextReopensAfterGivingUp(t *testing.T) {
	_, js := bustest.Provisioned(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	publish(ctx, t, js, contracts.PriceSubject("porkbun", ".com"), "current")
	r := openState(ctx, t, js)

	var it *giveUp
	bus.WrapIterator(r, func(m jetstream.MessagesContext) jetstream.MessagesContext {
		it = &giveUp{MessagesContext: m, err: context.Canceled}
		return it
	})
	if _, err := r.Next(); err != context.Canceled {
		t.Fatalf("Next after a canceled wait: %v, want context.Canceled and no new consumer", err)
	}
	it.err = context.DeadlineExceeded
	m, err := r.NextWithin(5 * time.Second)
	if err != nil || string(m.Data) != "current" {
		t.Fatalf("NextWithin after the consumer gave up: %+v, %v; want the stream's message from a new consumer", m, err)
	}
}
