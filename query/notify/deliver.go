package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
)

// DeliverConsumer is the durable consumer on the deliveries stream that
// the replicas' workers share: the server hands each delivery to one
// worker at a time, so no delivery is attempted twice at once. Its
// configuration is bus.DeliverConsumerConfig, with Config.AckWait.
const DeliverConsumer = bus.DeliverConsumer

// WorkQueue is the workers' consumer (bus.Durable), which the replica
// also asks how many deliveries it holds.
type WorkQueue interface {
	Consumer
	Info(ctx context.Context) (bus.ConsumerInfo, error)
}

// deliver runs the workers until ctx ends. An attempt under way when it
// ends is finished (at most Timeout), so that its outcome is recorded and
// acknowledged rather than repeated; deliveries pulled but not begun are
// handed back to the server for the other replicas. The pull holds one
// delivery per worker. Once every attempt has ended, the recorder
// publishes the records it holds and answers for them (record.go).
func (n *Notify) deliver(ctx context.Context) error {
	defer n.recorder.close()
	select {
	case <-n.regs.Loaded():
	case <-ctx.Done():
		return nil
	}
	work := context.WithoutCancel(ctx)
	cfg := bus.ConsumeConfig{Pull: n.cfg.Workers, Workers: n.cfg.Workers, Log: n.log}
	return n.bus.Deliver.Consume(ctx, cfg, func(job bus.Job) { n.attempt(work, job) })
}

// attempt makes one attempt of a delivery and hands its record to the
// recorder, which then tells the server what follows: done (Ack), again
// after a delay (NakWithDelay), or given up (Term).
func (n *Notify) attempt(ctx context.Context, job bus.Job) {
	owner, hook, ok := contracts.ParseDeliverySubject(job.Subject)
	if !ok {
		n.log.Error("a delivery on no webhook's subject; dropped", "subject", job.Subject)
		_ = job.Term()
		return
	}
	id, event := delivery(job)
	token := n.recorder.track(job)
	w, ok := n.lookup(ctx, owner, hook)
	// A ping is sent whatever the endpoint's state: the subscriber asked
	// for it, perhaps to see whether a disabled endpoint works again.
	if !ok || (!w.Active() && event != contracts.EventPing) {
		n.metrics.finish(event, "dropped").Inc()
		n.forget(id)
		_ = job.Ack()
		n.recorder.untrack(token)
		return
	}
	if !n.busy.acquire(hook) {
		n.metrics.deferred.Inc()
		n.deferrals(id, 1)
		_ = job.NakWithDelay(jitter(n.cfg.BusyDelay))
		n.recorder.untrack(token)
		return
	}
	now := n.now()
	res := n.sender.send(ctx, w, id, job.Data, now)
	n.busy.release(hook)
	n.metrics.attempt(event, res.outcome).Inc()
	n.metrics.attemptDuration.Observe(res.duration.Seconds())

	// The attempt's number: how often the server handed the delivery
	// out, less the times this replica put it back unsent. After a
	// restart those are forgotten, and the delivery goes on a step
	// further along its schedule than it should: it never gets more
	// attempts than the schedule's.
	number := max(int(job.NumDelivered)-n.deferrals(id, 0), 1)
	rec := &contracts.DeliveryAttempt{
		Delivery: id, Type: event, Attempt: number, At: now, Outcome: res.outcome,
		Status: res.status, DurationMS: float64(res.duration.Microseconds()) / 1000, Error: res.err,
	}
	v := n.decide(ctx, hook, w, &res, event, number, now)
	if v.answer == retry {
		next := now.Add(v.delay)
		rec.NextAttempt = &next
	}
	n.recorder.finish(recording{token: token, attempt: bus.Attempt{Webhook: hook, Attempt: rec}, answer: func() {
		if err := v.send(job); err != nil {
			// The server hands the delivery out again after AckWait.
			n.log.Warn("answering the server about a delivery failed", "webhook", hook, "delivery", id, "err", err)
		}
		if v.result != "" {
			n.forget(id)
			n.metrics.finish(event, v.result).Inc()
		}
	}})
}

// delivery is a delivery's ID and event type, from its headers, or for
// the type, from its payload.
func delivery(job bus.Job) (string, contracts.EventType) {
	id := job.Header.Get(contracts.HeaderWebhookID)
	if id == "" {
		id = job.Header.Get(contracts.HeaderMsgID)
	}
	event := contracts.EventType(job.Header.Get(contracts.HeaderEvent))
	if event == "" {
		var p struct {
			Type contracts.EventType `json:"type"`
		}
		_ = json.Unmarshal(job.Data, &p)
		event = p.Type
	}
	return id, event
}

// answer is what the server is told of an attempted delivery.
type answer int

const (
	done   answer = iota // Ack
	giveUp               // Term
	retry                // NakWithDelay
)

// verdict is what follows an attempt: the server's answer (retry after
// delay) and, for a delivery that leaves the queue, its result, the label
// of zoneprice_notify_deliveries_total.
type verdict struct {
	answer answer
	delay  time.Duration
	result string
}

// send tells the server v's answer about job.
func (v verdict) send(job bus.Job) error {
	switch v.answer {
	case done:
		return job.Ack()
	case giveUp:
		return job.Term()
	}
	return job.NakWithDelay(v.delay)
}

// decide judges attempt number of a delivery of event to endpoint hook,
// registered as w, whose outcome was res at now, and records what it means
// for the endpoint: only one in service has its failures counted (a ping
// to a paused or disabled one tells the subscriber, and changes nothing).
func (n *Notify) decide(ctx context.Context, hook string, w *contracts.Webhook, res *result, event contracts.EventType, number int, now time.Time) verdict {
	account := w.Active()
	switch {
	case res.outcome == contracts.OutcomeDelivered:
		if account && w.FailingSince != nil {
			n.setFailing(ctx, hook, nil)
		}
		return verdict{answer: done, result: "delivered"}
	case res.outcome == contracts.OutcomeGone:
		if account {
			n.disable(ctx, hook, "gone", fmt.Sprintf("the endpoint answered 410 Gone at %s; update it to receive deliveries again", now.UTC().Format(time.RFC3339)), nil)
		}
		return verdict{answer: done, result: "gone"}
	case account && w.FailingSince != nil && now.Sub(*w.FailingSince) >= contracts.WebhookFailureLimit:
		since := *w.FailingSince
		n.disable(ctx, hook, "failing", fmt.Sprintf("every delivery failed from %s to %s (the last: %s); update it to receive deliveries again",
			since.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339), res.err), &since)
		return verdict{answer: giveUp, result: "given_up"}
	case number >= n.cfg.attempts(event):
		if account && w.FailingSince == nil {
			n.setFailing(ctx, hook, &now)
		}
		return verdict{answer: giveUp, result: "given_up"}
	}
	if account && w.FailingSince == nil {
		n.setFailing(ctx, hook, &now)
	}
	return verdict{answer: retry, delay: n.retryDelay(event, number, res.retryAfter)}
}

// retryDelay is how long to wait after failed attempt number of a
// delivery of event: its schedule's delay with ±10% jitter, so that
// deliveries that failed together do not all come back at once, or the
// receiver's Retry-After when that is longer (bounded by MaxRetryAfter,
// and for a ping by its schedule's longest delay: a ping is not kept
// for hours).
func (n *Notify) retryDelay(event contracts.EventType, number int, retryAfter time.Duration) time.Duration {
	schedule := n.cfg.schedule(event)
	limit := n.cfg.MaxRetryAfter
	if event == contracts.EventPing {
		limit = min(limit, slices.Max(schedule))
	}
	return max(jitter(schedule[min(number, len(schedule))-1]), min(retryAfter, limit))
}

// jitter returns d changed by up to 10% either way.
func jitter(d time.Duration) time.Duration {
	return d + time.Duration((rand.Float64()*0.2-0.1)*float64(d))
}

// lookup returns owner's webhook id's registration. One created a moment
// ago may not have reached this replica's mirror yet (another replica
// queued the delivery): the bucket itself is asked before the webhook is
// taken for deleted. owner is "" for a delivery queued before the key was
// in its subject.
func (n *Notify) lookup(ctx context.Context, owner, id string) (*contracts.Webhook, bool) {
	if w, ok := n.regs.Lookup(id); ok {
		return w, true
	}
	w, err := n.regs.fetch(ctx, owner, id)
	if err != nil {
		n.log.Warn("looking a webhook up in the bucket failed; taking it for deleted", "webhook", id, "err", err)
	}
	return w, w != nil
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
