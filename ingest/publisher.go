package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/zoneprice/zoneprice/contracts"
)

// Publisher validates events and publishes them on their subjects with a
// content-derived Nats-Msg-Id, so a retried publish of the same document is
// dropped by the server's duplicate window.
type Publisher struct {
	js jetstream.JetStream
}

// NewPublisher returns a Publisher on js.
func NewPublisher(js jetstream.JetStream) *Publisher {
	return &Publisher{js: js}
}

// Encode validates ev and returns its subject, body and message id.
func Encode(ev contracts.Event) (subject string, body []byte, msgID string, err error) {
	if err := ev.Validate(); err != nil {
		return "", nil, "", fmt.Errorf("invalid event: %w", err)
	}
	body, err = json.Marshal(ev)
	if err != nil {
		return "", nil, "", fmt.Errorf("encode event: %w", err)
	}
	subject = ev.Subject()
	sum := sha256.Sum256(append([]byte(subject+"\n"), body...))
	return subject, body, hex.EncodeToString(sum[:16]), nil
}

// Publish publishes one event and waits for the stream's acknowledgement.
// It reports whether the server dropped it as a duplicate.
func (p *Publisher) Publish(ctx context.Context, ev contracts.Event) (duplicate bool, err error) {
	subject, body, id, err := Encode(ev)
	if err != nil {
		return false, err
	}
	msg := &nats.Msg{Subject: subject, Data: body, Header: nats.Header{}}
	msg.Header.Set(jetstream.MsgIDHeader, id)
	ack, err := p.js.PublishMsg(ctx, msg, jetstream.WithExpectStream(contracts.StateStream))
	if err != nil {
		return false, fmt.Errorf("publish %s: %w", subject, err)
	}
	return ack.Duplicate, nil
}

// maxWindow keeps PublishAll under the JetStream client's default limit of
// 4,000 unacknowledged asynchronous publishes, past which a publish fails
// ("too many outstanding") instead of waiting: a replicated stream
// acknowledges slowly enough to reach it.
const maxWindow = 2048

// PublishAll publishes events asynchronously, keeping at most window (at
// most maxWindow) in flight, and waits for every acknowledgement. It is how
// a large list is loaded without a round trip per event.
func (p *Publisher) PublishAll(ctx context.Context, events []contracts.Event, window int) (published, duplicates int, err error) {
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
	for _, ev := range events {
		subject, body, id, err := Encode(ev)
		if err != nil {
			return published, duplicates, err
		}
		msg := &nats.Msg{Subject: subject, Data: body, Header: nats.Header{}}
		msg.Header.Set(jetstream.MsgIDHeader, id)
		f, err := p.js.PublishMsgAsync(msg, jetstream.WithExpectStream(contracts.StateStream))
		if err != nil {
			return published, duplicates, fmt.Errorf("publish %s: %w", subject, err)
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
