package contracts

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// Message is an event ready to publish: validated once, encoded, with its
// subject, the stream that must store it and its content-derived message
// id (the Nats-Msg-Id the stream's DuplicateWindow drops a retry by).
type Message struct {
	Subject string
	Body    []byte
	ID      string
	Stream  string
}

// Encode validates ev and encodes it, the inverse of Decode: whatever
// holds a Message holds a valid event.
func Encode(ev Event) (Message, error) {
	if err := ev.Validate(); err != nil {
		return Message{}, fmt.Errorf("invalid event: %w", err)
	}
	return EncodeValid(ev)
}

// EncodeValid is Encode for an event its caller has just validated, so
// that nothing validates an event twice on its way to the stream (an
// ingester validates every event of a list, publishes the few that
// changed).
func EncodeValid(ev Event) (Message, error) {
	body, err := json.Marshal(ev)
	if err != nil {
		return Message{}, fmt.Errorf("encode event: %w", err)
	}
	if len(body) > MaxEventSize {
		return Message{}, fmt.Errorf("encode event: %w: %d bytes, at most %d", ErrTooLarge, len(body), MaxEventSize)
	}
	subject := ev.Subject()
	sum := sha256.Sum256(append([]byte(subject+"\n"), body...))
	m := Message{Subject: subject, Body: body, ID: hex.EncodeToString(sum[:16]), Stream: StateStream}
	if _, ok := ev.(*PriceChange); ok {
		m.Stream = HistoryStream
	}
	return m, nil
}
