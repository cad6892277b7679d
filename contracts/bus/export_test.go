package bus

import "github.com/nats-io/nats.go/jetstream"

// WrapIterator replaces r's iterator with wrap of it, for a test that has
// the ordered consumer fail as only an outage makes it.
func WrapIterator(r *Reader, wrap func(jetstream.MessagesContext) jetstream.MessagesContext) {
	r.it = wrap(r.it)
}
