package bus

import (
	"context"
	"fmt"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/zoneprice/zoneprice/contracts"
)

// Publisher validates events and publishes them on their subjects with a
// content-derived Nats-Msg-Id (contracts.Encode), so a retried publish of
// the same document is dropped by the server's duplicate window.
type Publisher struct {
	js jetstream.JetStream
}

// NewPublisher returns a Publisher on js.
func NewPublisher(js jetstream.JetStream) *Publisher {
	return &Publisher{js: js}
}

// natsMsg is m as JetStream publishes it.
func natsMsg(m contracts.Message) *nats.Msg {
	msg := &nats.Msg{Subject: m.Subject, Data: m.Body, Header: nats.Header{}}
	msg.Header.Set(jetstream.MsgIDHeader, m.ID)
	return msg
}

// Publish publishes one event and waits for the stream's acknowledgement.
// It reports whether the server dropped it as a duplicate.
func (p *Publisher) Publish(ctx context.Context, ev contracts.Event) (duplicate bool, err error) {
	m, err := contracts.Encode(ev)
	if err != nil {
		return false, err
	}
	ack, err := p.js.PublishMsg(ctx, natsMsg(m), jetstream.WithExpectStream(m.Stream))
	if err != nil {
		return false, fmt.Errorf("publish %s: %w", m.Subject, err)
	}
	return ack.Duplicate, nil
}

// maxWindow keeps Send under the JetStream client's default limit of
// 4,000 unacknowledged asynchronous publishes, past which a publish fails
// ("too many outstanding") instead of waiting: a replicated stream
// acknowledges slowly enough to reach it.
const maxWindow = 2048

// PublishAll encodes events and sends them (Send). It is how a large list
// is loaded without a round trip per event.
func (p *Publisher) PublishAll(ctx context.Context, events []contracts.Event, window int) (published, duplicates int, err error) {
	msgs := make([]contracts.Message, len(events))
	for i, ev := range events {
		if msgs[i], err = contracts.Encode(ev); err != nil {
			return 0, 0, err
		}
	}
	return p.Send(ctx, msgs, window)
}

// Send publishes encoded events asynchronously, keeping at most window
// (at most maxWindow) in flight, and waits for every acknowledgement.
func (p *Publisher) Send(ctx context.Context, msgs []contracts.Message, window int) (published, duplicates int, err error) {
	if window < 1 {
		window = 256
	}
	window = min(window, maxWindow)
	pending := make([]jetstream.PubAckFuture, 0, window)
	drain := func() error {
		for _, f := range pending {
			select {
			case ack := <-f.Ok():
				published++
				if ack.Duplicate {
					duplicates++
				}
			case err := <-f.Err():
				return fmt.Errorf("publish %s: %w", f.Msg().Subject, err)
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		pending = pending[:0]
		return nil
	}
	for _, m := range msgs {
		f, err := p.js.PublishMsgAsync(natsMsg(m), jetstream.WithExpectStream(m.Stream))
		if err != nil {
			return published, duplicates, fmt.Errorf("publish %s: %w", m.Subject, err)
		}
		pending = append(pending, f)
		if len(pending) == window {
			if err := drain(); err != nil {
				return published, duplicates, err
			}
		}
	}
	return published, duplicates, drain()
}
