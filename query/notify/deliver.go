package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
)

// DeliverConsumer is the durable consumer on the deliveries stream that
// the replicas' workers share: the server hands each delivery to one
// worker at a time, so no delivery is attempted twice at once.
const DeliverConsumer = "notify-deliver"

// deliverConsumerConfig is DeliverConsumer's configuration.
//
// Retries are the server's: a failed attempt is negatively acknowledged
// with the schedule's delay (NakWithDelay), and the server hands the
// delivery out again when it is due, to whichever replica asks, after a
// restart of all of them too. A delivery waiting for its retry counts as
// ack pending for the server. MaxAckPending is therefore as large as the
// stream can hold (stream.MaxDeliveryMsgs): with the server's default of
// 1,000, a thousand deliveries waiting for a retry hours away (one dead
// endpoint after a busy round, or a thousand dead endpoints) would stop
// the consumer from handing out any other delivery. How many deliveries a
// replica sends at once is bounded by its workers instead, and how many it
// holds unsent by its pull (one batch of Workers messages).
//
// AckWait (Config.AckWait, a minute) is how long a handed-out delivery
// may go unanswered before the server hands it out again. An attempt
// under way reports progress every quarter of it (inProgress), so its
// length does not matter; what must fit in it is a wait in the pull's
// buffer behind other attempts, while a replica that died mid-attempt
// delays the delivery by a minute only.
//
// MaxDeliver is unlimited: the workers give a delivery up themselves
// (Term) after its last attempt. A server-side limit would leave a
// delivery whose last hand-out found its replica dying in the stream,
// never handed out again and never removed.
func deliverConsumerConfig(cfg Config) jetstream.ConsumerConfig {
	return jetstream.ConsumerConfig{
		Durable:       DeliverConsumer,
		Description:   "zoneprice-notify workers: each webhook delivery to one worker at a time, retried by delayed redelivery",
		DeliverPolicy: jetstream.DeliverAllPolicy,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       cfg.AckWait,
		MaxDeliver:    -1,
		MaxAckPending: bus.MaxDeliveryMsgs,
	}
}

// deliver runs the workers until ctx ends. An attempt under way when it
// ends is finished (at most Timeout), so that its outcome is recorded and
// acknowledged rather than repeated; deliveries pulled but not begun are
// handed back to the server for the other replicas.
func (n *Notify) deliver(ctx context.Context) error {
	select {
	case <-n.regs.Loaded():
	case <-ctx.Done():
		return nil
	}
	cons, err := n.consumer(ctx, contracts.DeliveriesStream, deliverConsumerConfig(n.cfg))
	if err != nil {
		return nil // ctx ended
	}
	n.deliveries.Store(&cons)
	it, err := cons.Messages(jetstream.PullMaxMessages(n.cfg.Workers), jetstream.PullHeartbeat(5*time.Second))
	if err != nil {
		return fmt.Errorf("consume %s: %w", contracts.DeliveriesStream, err)
	}
	stop := context.AfterFunc(ctx, it.Drain)
	defer stop()
	defer it.Stop()
	work := context.WithoutCancel(ctx)
	var wg sync.WaitGroup
	for range n.cfg.Workers {
		wg.Go(func() {
			for {
				msg, err := it.Next()
				if errors.Is(err, jetstream.ErrMsgIteratorClosed) {
					return
				}
				if err != nil {
					n.log.Warn("reading the deliveries stream", "err", err)
					continue
				}
				if ctx.Err() != nil {
					// Not attempted; like a deferral, this hand-out is
					// counted by the server.
					handBack(msg)
					continue
				}
				n.attempt(work, msg)
			}
		})
	}
	wg.Wait()
	return nil
}

// attempt makes one attempt of a delivery and tells the server what
// follows: done (Ack), again after a delay (NakWithDelay), or given up
// (Term).
func (n *Notify) attempt(ctx context.Context, msg jetstream.Msg) {
	meta, err := msg.Metadata()
	hook, ok := contracts.WebhookFromSubject(msg.Subject())
	if err != nil || !ok {
		n.log.Error("a delivery without metadata or webhook; dropped", "subject", msg.Subject(), "err", err)
		_ = msg.Term()
		return
	}
	id := msg.Headers().Get(contracts.HeaderWebhookID)
	if id == "" {
		id = msg.Headers().Get(contracts.HeaderMsgID)
	}
	event := contracts.EventType(msg.Headers().Get(contracts.HeaderEvent))
	if event == "" {
		var p struct {
			Type contracts.EventType `json:"type"`
		}
		_ = json.Unmarshal(msg.Data(), &p)
		event = p.Type
	}
	defer inProgress(msg, n.cfg.AckWait/4)()
	w, ok := n.lookup(ctx, hook)
	// A ping is sent whatever the endpoint's state: the subscriber asked
	// for it, perhaps to see whether a disabled endpoint works again.
	if !ok || (!w.Active() && event != contracts.EventPing) {
		n.metrics.finished.WithLabelValues(string(event), "dropped").Inc()
		n.forget(id)
		_ = msg.Ack()
		return
	}
	if !n.busy.acquire(hook) {
		n.metrics.deferred.Inc()
		n.deferrals(id, 1)
		_ = msg.NakWithDelay(jitter(n.cfg.BusyDelay))
		return
	}
	now := n.now()
	res := n.sender.send(ctx, w, id, msg.Data(), now)
	n.busy.release(hook)
	n.metrics.attempts.WithLabelValues(string(event), string(res.outcome)).Inc()
	n.metrics.attemptDuration.Observe(res.duration.Seconds())

	// The attempt's number: how often the server handed the delivery
	// out, less the times this replica put it back unsent. After a
	// restart those are forgotten, and the delivery goes on a step
	// further along its schedule than it should: it never gets more
	// attempts than the schedule's.
	number := max(int(meta.NumDelivered)-n.deferrals(id, 0), 1)
	rec := contracts.DeliveryAttempt{
		Delivery: id, Type: event, Attempt: number, At: now, Outcome: res.outcome,
		Status: res.status, DurationMS: float64(res.duration.Microseconds()) / 1000, Error: res.err,
	}
	// Only an endpoint in service has its failures counted: a ping to a
	// paused or disabled one tells the subscriber, and changes nothing.
	account := w.Active()
	var finish func() error
	result := ""
	switch {
	case res.outcome == contracts.OutcomeDelivered:
		finish, result = msg.Ack, "delivered"
		if account && w.FailingSince != nil {
			n.setFailing(ctx, hook, nil)
		}
	case res.outcome == contracts.OutcomeGone:
		finish, result = msg.Ack, "gone"
		if account {
			n.disable(ctx, hook, "gone", fmt.Sprintf("the endpoint answered 410 Gone at %s; update it to receive deliveries again", now.UTC().Format(time.RFC3339)), nil)
		}
	case account && w.FailingSince != nil && now.Sub(*w.FailingSince) >= contracts.WebhookFailureLimit:
		since := *w.FailingSince
		n.disable(ctx, hook, "failing", fmt.Sprintf("every delivery failed from %s to %s (the last: %s); update it to receive deliveries again",
			since.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339), res.err), &since)
		finish, result = msg.Term, "given_up"
	case number >= n.cfg.attempts():
		finish, result = msg.Term, "given_up"
		if account && w.FailingSince == nil {
			n.setFailing(ctx, hook, &now)
		}
	default:
		delay := n.retryDelay(number, res.retryAfter)
		next := now.Add(delay)
		rec.NextAttempt = &next
		finish = func() error { return msg.NakWithDelay(delay) }
		if account && w.FailingSince == nil {
			n.setFailing(ctx, hook, &now)
		}
	}
	n.record(ctx, hook, &rec)
	if err := finish(); err != nil {
		// The server hands the delivery out again after AckWait.
		n.log.Warn("answering the server about a delivery failed", "webhook", hook, "delivery", id, "err", err)
	}
	if result != "" {
		n.forget(id)
		n.metrics.finished.WithLabelValues(string(event), result).Inc()
	}
}

// inProgress tells the server every interval, until the returned stop is
// called, that msg is being worked on, so that the server does not hand
// it to another worker while it is. Stop returns once no report is being
// sent; one that reaches the server after the message's answer is
// ignored.
func inProgress(msg jetstream.Msg, every time.Duration) (stop func()) {
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
				_ = msg.InProgress()
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}

// retryDelay is how long to wait after failed attempt number: the
// schedule's delay with ±10% jitter, so that deliveries that failed
// together do not all come back at once, or the receiver's Retry-After
// when that is longer (bounded by MaxRetryAfter).
func (n *Notify) retryDelay(number int, retryAfter time.Duration) time.Duration {
	d := jitter(n.cfg.RetrySchedule[min(number, len(n.cfg.RetrySchedule))-1])
	return max(d, min(retryAfter, n.cfg.MaxRetryAfter))
}

// jitter returns d changed by up to 10% either way.
func jitter(d time.Duration) time.Duration {
	return d + time.Duration((rand.Float64()*0.2-0.1)*float64(d))
}

// lookup returns webhook id's registration. One created a moment ago may
// not have reached this replica's mirror yet (another replica queued the
// delivery): the bucket itself is asked before the webhook is taken for
// deleted.
func (n *Notify) lookup(ctx context.Context, id string) (*contracts.Webhook, bool) {
	if w, ok := n.regs.Lookup(id); ok {
		return w, true
	}
	w, err := n.regs.fetch(ctx, id)
	if err != nil {
		n.log.Warn("looking a webhook up in the bucket failed; taking it for deleted", "webhook", id, "err", err)
	}
	return w, w != nil
}

// record publishes an attempt where the API shows it to the subscriber. A
// record that cannot be published is logged, and the delivery goes on.
func (n *Notify) record(ctx context.Context, hook string, rec *contracts.DeliveryAttempt) {
	b, err := json.Marshal(rec)
	if err == nil {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, err = n.js.Publish(ctx, contracts.AttemptSubject(hook), b)
		cancel()
	}
	if err != nil {
		n.log.Warn("recording a delivery attempt failed", "webhook", hook, "delivery", rec.Delivery, "err", err)
	}
}

// setFailing records when an endpoint's run of failures began (nil: it
// ended).
func (n *Notify) setFailing(ctx context.Context, hook string, since *time.Time) {
	_, err := n.regs.update(ctx, hook, func(w *contracts.Webhook) bool {
		if (since == nil) == (w.FailingSince == nil) {
			return false
		}
		w.FailingSince = since
		return true
	})
	if err != nil {
		n.log.Warn("recording an endpoint's failures failed", "webhook", hook, "err", err)
	}
}

// disable stops deliveries to an endpoint, saying why. For a failing one,
// since is the FailingSince the decision was made on: a success recorded
// meanwhile by another replica keeps the endpoint in service.
func (n *Notify) disable(ctx context.Context, hook, reason, why string, since *time.Time) {
	now := n.now()
	w, err := n.regs.update(ctx, hook, func(w *contracts.Webhook) bool {
		if w.Disabled != nil || (since != nil && (w.FailingSince == nil || !w.FailingSince.Equal(*since))) {
			return false
		}
		w.Disabled = &contracts.WebhookDisabled{At: now, Reason: why}
		// The reason says since when it failed; a subscriber who
		// enables it again starts a new run.
		w.FailingSince = nil
		w.UpdatedAt = now
		return true
	})
	if err != nil {
		n.log.Error("disabling an endpoint failed", "webhook", hook, "reason", reason, "err", err)
		return
	}
	if w != nil {
		n.metrics.disabled.WithLabelValues(reason).Inc()
		n.log.Info("endpoint disabled", "webhook", hook, "owner", w.Owner, "reason", reason)
	}
}

// deferrals adds add to the times this replica put delivery id back
// unsent, and returns the sum.
func (n *Notify) deferrals(id string, add int) int {
	n.deferredMu.Lock()
	defer n.deferredMu.Unlock()
	if add > 0 {
		if len(n.deferredBy) >= maxDeferralsKept {
			clear(n.deferredBy)
		}
		n.deferredBy[id] += add
	}
	return n.deferredBy[id]
}

func (n *Notify) forget(id string) {
	n.deferredMu.Lock()
	delete(n.deferredBy, id)
	n.deferredMu.Unlock()
}

// maxDeferralsKept bounds the deferral counts a replica remembers.
const maxDeferralsKept = 100_000

// slots counts the attempts in flight to each endpoint.
type slots struct {
	mu    sync.Mutex
	limit int
	busy  map[string]int
}

func (s *slots) acquire(hook string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.busy[hook] >= s.limit {
		return false
	}
	s.busy[hook]++
	return true
}

func (s *slots) release(hook string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.busy[hook]--; s.busy[hook] <= 0 {
		delete(s.busy, hook)
	}
}
