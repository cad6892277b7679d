package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/zoneprice/zoneprice/contracts"
)

// DispatchConsumer is the durable consumer on the history stream that the
// replicas share: each change is dispatched by one of them.
const DispatchConsumer = "notify-dispatch"

// dispatchConsumerConfig is DispatchConsumer's configuration.
//
// It starts at the changes stored after it is first created
// (DeliverNew), not at the first: the history holds years of changes, and
// an endpoint registered today wants today's. The policy applies only when
// the consumer is created; from then on the server keeps its place, so
// changes stored while every replica was down are dispatched when one
// comes back.
//
// AckWait is long enough to queue a change's fan-out to every endpoint
// (10,000 publishes, acknowledged in batches, take well under a second;
// 30 seconds leave room for a slow stream), and short, since a replica
// that dies holding changes delays them by that much. A change not
// acknowledged in time is dispatched again, which the deliveries stream's
// duplicate window turns into nothing. Changes are dispatched one at a time per
// replica, so MaxAckPending only bounds what a replica holds.
func dispatchConsumerConfig() jetstream.ConsumerConfig {
	return jetstream.ConsumerConfig{
		Durable:       DispatchConsumer,
		Description:   "zoneprice-notify: matches each change against the webhook registrations and queues its deliveries",
		DeliverPolicy: jetstream.DeliverNewPolicy,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       30 * time.Second,
		MaxDeliver:    -1,
		MaxAckPending: 256,
	}
}

// publishBatch is how many deliveries are published before waiting for
// their acknowledgements: below the client's limit of pending async
// publishes (4,000 by default), above which publishing stalls.
const publishBatch = 1024

// dispatch queues the deliveries of each change of the history stream
// until ctx ends. It starts once the registrations and the zones'
// categories are loaded, so that no change is matched against half of
// them.
func (n *Notify) dispatch(ctx context.Context) error {
	for _, ready := range []<-chan struct{}{n.regs.Loaded(), n.zones.CaughtUp()} {
		select {
		case <-ready:
		case <-ctx.Done():
			return nil
		}
	}
	cons, err := n.consumer(ctx, contracts.HistoryStream, dispatchConsumerConfig())
	if err != nil {
		return nil // ctx ended
	}
	it, err := cons.Messages(jetstream.PullMaxMessages(64), jetstream.PullHeartbeat(5*time.Second))
	if err != nil {
		return fmt.Errorf("consume %s: %w", contracts.HistoryStream, err)
	}
	stop := context.AfterFunc(ctx, it.Drain)
	defer stop()
	defer it.Stop()
	var dec contracts.Decoder
	for {
		msg, err := it.Next()
		if errors.Is(err, jetstream.ErrMsgIteratorClosed) {
			return nil
		}
		if err != nil {
			n.log.Warn("reading the history stream", "err", err)
			continue
		}
		if ctx.Err() != nil {
			handBack(msg)
			continue
		}
		n.dispatchOne(ctx, &dec, msg)
	}
}

// handBack returns a message pulled but not worked on when the replica
// stops, so that another replica gets it at once rather than after the
// consumer's AckWait.
func handBack(msg jetstream.Msg) { _ = msg.Nak() }

// dispatchOne queues the deliveries of one change, then acknowledges it.
// Exactly once: every delivery's message id is its DeliveryID, the same
// each time the change is dispatched, so a change dispatched again (a
// replica stopped between queueing and acknowledging) queues nothing new
// within the deliveries stream's duplicate window.
func (n *Notify) dispatchOne(ctx context.Context, dec *contracts.Decoder, msg jetstream.Msg) {
	meta, err := msg.Metadata()
	if err != nil {
		n.log.Error("a history message without metadata; skipped", "subject", msg.Subject(), "err", err)
		_ = msg.Term()
		return
	}
	seq := meta.Sequence.Stream
	n.metrics.dispatchPending.Set(float64(meta.NumPending))
	c, err := dec.DecodeChange(msg.Data())
	if err == nil && c.Subject() != msg.Subject() {
		err = fmt.Errorf("on %s, not its own subject", msg.Subject())
	}
	if err != nil {
		n.log.Warn("a change that does not decode; no deliveries", "subject", msg.Subject(), "seq", seq, "err", err)
		_ = msg.Ack()
		return
	}
	n.metrics.dispatched.Inc()
	if contracts.IsSampleRegistrar(c.Registrar) || c.Change == contracts.ChangeKnown {
		_ = msg.Ack()
		return
	}
	// A fan-out to many endpoints on a slow stream may take long; the
	// change stays this replica's while it does.
	stop := inProgress(msg, dispatchConsumerConfig().AckWait/4)
	err = n.queue(ctx, c, msg.Data(), seq)
	stop()
	if err != nil {
		n.log.Error("queueing a change's deliveries failed; dispatching it again shortly", "subject", msg.Subject(), "seq", seq, "err", err)
		_ = msg.NakWithDelay(5 * time.Second)
		return
	}
	if err := msg.DoubleAck(ctx); err != nil {
		// Dispatched again after AckWait, and deduplicated.
		n.log.Warn("acknowledging a dispatched change failed", "seq", seq, "err", err)
		return
	}
	n.metrics.dispatchLag.Set(n.now().Sub(meta.Timestamp).Seconds())
}

// queue publishes a delivery of change c (its document, doc) to every
// active endpoint that wants it, and waits for the stream to accept each.
func (n *Notify) queue(ctx context.Context, c *contracts.PriceChange, doc []byte, seq uint64) error {
	bodies := map[contracts.EventType][]byte{}
	var futures []jetstream.PubAckFuture
	var errs []error
	wait := func() {
		errs = append(errs, awaitAcks(ctx, futures))
		futures = futures[:0]
	}
	n.regs.current().match(c, n.zones.Categories, func(w *contracts.Webhook, ev contracts.EventType) {
		body, ok := bodies[ev]
		if !ok {
			var err error
			body, err = json.Marshal(contracts.WebhookPayload{Type: ev, Timestamp: c.ObservedAt, Data: json.RawMessage(doc)})
			if err != nil {
				errs = append(errs, err)
				return
			}
			bodies[ev] = body
		}
		id := contracts.DeliveryID(w.ID, seq)
		m := nats.NewMsg(contracts.DeliverySubject(w.ID))
		m.Data = body
		m.Header.Set(contracts.HeaderMsgID, id)
		m.Header.Set(contracts.HeaderWebhookID, id)
		m.Header.Set(contracts.HeaderEvent, string(ev))
		f, err := n.js.PublishMsgAsync(m)
		if err != nil {
			errs = append(errs, fmt.Errorf("queue delivery to %s: %w", w.ID, err))
			return
		}
		futures = append(futures, f)
		n.metrics.queued.WithLabelValues(string(ev)).Inc()
		if len(futures) == publishBatch {
			wait()
		}
	})
	wait()
	return errors.Join(errs...)
}

// awaitAcks waits for the stream to acknowledge each publish.
func awaitAcks(ctx context.Context, futures []jetstream.PubAckFuture) error {
	timeout := time.NewTimer(30 * time.Second)
	defer timeout.Stop()
	var errs []error
	for _, f := range futures {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			errs = append(errs, fmt.Errorf("queue delivery on %s: %w", f.Msg().Subject, err))
		case <-timeout.C:
			return errors.Join(append(errs, errors.New("the deliveries stream did not acknowledge within 30s"))...)
		case <-ctx.Done():
			return errors.Join(append(errs, ctx.Err())...)
		}
	}
	return errors.Join(errs...)
}

// consumer creates or updates the durable consumer cfg on the named
// stream, waiting for the stream to be provisioned; it fails only when
// ctx ends.
func (n *Notify) consumer(ctx context.Context, name string, cfg jetstream.ConsumerConfig) (jetstream.Consumer, error) {
	for backoff := 200 * time.Millisecond; ; backoff = min(2*backoff, 5*time.Second) {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		cons, err := n.js.CreateOrUpdateConsumer(cctx, name, cfg)
		cancel()
		if err == nil {
			return cons, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		n.log.Warn("cannot create the consumer; retrying", "stream", name, "consumer", cfg.Durable, "err", err, "in", backoff)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(backoff):
		}
	}
}
