package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
)

// DispatchConsumer is the durable consumer on the history stream that the
// replicas share: each change is dispatched by one of them. Its
// configuration is bus.DispatchConsumerConfig.
const DispatchConsumer = bus.DispatchConsumer

// Consumer is a durable consumer the replicas share (bus.Durable).
type Consumer interface {
	Consume(ctx context.Context, cfg bus.ConsumeConfig, handle func(bus.Job)) error
}

// Deliveries is where deliveries are queued, counted and dropped, and
// attempts recorded (bus.Deliveries).
type Deliveries interface {
	QueueCounter
	Batch(ctx context.Context) *bus.Batch
	RecordAll(ctx context.Context, attempts []bus.Attempt) (int, error)
	State(ctx context.Context) (bus.QueueState, error)
}

// dispatch queues the deliveries of each change of the history stream
// until ctx ends. It starts once the registrations and the zones'
// categories are loaded, so that no change is matched against half of
// them. Changes are dispatched one at a time, 64 pulled ahead.
func (n *Notify) dispatch(ctx context.Context) error {
	for _, ready := range []<-chan struct{}{n.regs.Loaded(), n.zones.CaughtUp()} {
		select {
		case <-ready:
		case <-ctx.Done():
			return nil
		}
	}
	var dec contracts.Decoder
	return n.bus.Dispatch.Consume(ctx, bus.ConsumeConfig{Pull: 64, Log: n.log}, func(job bus.Job) {
		n.dispatchOne(ctx, &dec, job)
	})
}

// dispatchOne queues the deliveries of one change, then acknowledges it.
// Exactly once: every delivery's message id is its DeliveryID, the same
// each time the change is dispatched, so a change dispatched again (a
// replica stopped between queueing and acknowledging) queues nothing new
// within the deliveries stream's duplicate window.
func (n *Notify) dispatchOne(ctx context.Context, dec *contracts.Decoder, job bus.Job) {
	seq := job.Seq
	n.metrics.dispatchPending.Set(float64(job.NumPending))
	c, err := dec.DecodeChange(job.Data)
	if err == nil && c.Subject() != job.Subject {
		err = fmt.Errorf("on %s, not its own subject", job.Subject)
	}
	if err != nil {
		n.log.Warn("a change that does not decode; no deliveries", "subject", job.Subject, "seq", seq, "err", err)
		_ = job.Ack()
		return
	}
	n.metrics.dispatched.Inc()
	if contracts.IsSampleRegistrar(c.Registrar) || c.Change == contracts.ChangeKnown {
		_ = job.Ack()
		return
	}
	// A fan-out to many endpoints on a slow stream may take long; the
	// change stays this replica's while it does.
	stop := inProgress(job, bus.DispatchAckWait/4)
	n.queueing.Lock()
	err = n.queue(ctx, c, job.Data, seq)
	n.queueing.Unlock()
	stop()
	if err != nil {
		n.log.Error("queueing a change's deliveries failed; dispatching it again shortly", "subject", job.Subject, "seq", seq, "err", err)
		_ = job.NakWithDelay(5 * time.Second)
		return
	}
	if err := job.DoubleAck(ctx); err != nil {
		// Dispatched again after AckWait, and deduplicated.
		n.log.Warn("acknowledging a dispatched change failed", "seq", seq, "err", err)
		return
	}
	n.metrics.dispatchLag.Set(n.now().Sub(job.Timestamp).Seconds())
}

// queue publishes a delivery of change c (its document, doc) to every
// active endpoint that wants it, and waits for the stream to accept each.
func (n *Notify) queue(ctx context.Context, c *contracts.PriceChange, doc []byte, seq uint64) error {
	bodies := map[contracts.EventType][]byte{}
	added := map[contracts.EventType]int{}
	batch := n.bus.Deliveries.Batch(ctx)
	var errs []error
	n.regs.current().match(c, n.zones.Categories, func(w *contracts.Webhook, ev contracts.EventType) {
		if !n.census.admit(ctx, w.Owner) {
			n.metrics.refused.WithLabelValues(string(ev), refusedKeyFull).Inc()
			return
		}
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
		if err := batch.Add(bus.Delivery{Owner: w.Owner, Webhook: w.ID, ID: contracts.DeliveryID(w.ID, seq), Event: ev, Body: body}); err != nil {
			errs = append(errs, err)
			return
		}
		added[ev]++
	})
	err := batch.Wait()
	// A delivery whose endpoint has no room is not queued, for good:
	// dispatching the change again would meet the same full endpoint.
	full := batch.Full()
	for ev, count := range added {
		n.metrics.queued.WithLabelValues(string(ev)).Add(float64(count - full[ev]))
		n.metrics.refused.WithLabelValues(string(ev), refusedEndpointFull).Add(float64(full[ev]))
	}
	return errors.Join(append(errs, err)...)
}

// inProgress tells the server every interval, until the returned stop is
// called, that job is being worked on, so that the server does not hand
// it to another worker while it is. Stop returns once no report is being
// sent; one that reaches the server after the message's answer is
// ignored.
func inProgress(job bus.Job, every time.Duration) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				_ = job.InProgress()
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}
