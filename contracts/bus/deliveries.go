package bus

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/zoneprice/zoneprice/contracts"
)

// Deliveries is the webhook deliveries' two streams: contracts.DeliveriesStream,
// where each waits to be sent (DeliverConsumer hands them to the
// workers), and contracts.AttemptsStream, where every attempt is
// recorded for the subscriber to read.
type Deliveries struct{ js jetstream.JetStream }

// NewDeliveries returns the deliveries' streams on js.
func NewDeliveries(js jetstream.JetStream) *Deliveries { return &Deliveries{js: js} }

// Delivery is one delivery to queue: a webhook payload for one endpoint.
type Delivery struct {
	// Owner is the ID of the API key whose endpoint it is, and Webhook
	// the endpoint's webhook ID.
	Owner, Webhook string
	// ID is the delivery's ID: its webhook-id header, and its message
	// ID, so that a delivery queued twice within the stream's duplicate
	// window is kept once.
	ID    string
	Event contracts.EventType
	Body  []byte
}

// message is d as the deliveries stream holds it.
func (d *Delivery) message() *nats.Msg {
	m := nats.NewMsg(contracts.DeliverySubject(d.Owner, d.Webhook))
	m.Data = d.Body
	m.Header.Set(contracts.HeaderMsgID, d.ID)
	m.Header.Set(contracts.HeaderWebhookID, d.ID)
	m.Header.Set(contracts.HeaderEvent, string(d.Event))
	return m
}

// ErrEndpointFull is a delivery the stream refused because its endpoint
// has contracts.MaxQueuedPerEndpoint deliveries waiting (the stream's
// limit per subject).
var ErrEndpointFull = errors.New("the endpoint has as many deliveries waiting as the stream keeps for one")

// storeFailed is the server's error code of a message it did not store
// (JSStreamStoreFailedF), which the client library does not name.
const storeFailed jetstream.ErrorCode = 10077

// endpointFull reports whether err is the stream's refusal of a message
// past its limit per subject. The server says so only in words
// ("maximum messages per subject exceeded"): its error code is that of
// every failure to store.
func endpointFull(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && apiErr.ErrorCode == storeFailed && strings.Contains(apiErr.Description, "per subject")
}

// Queue queues one delivery, once the stream has accepted it; one its
// endpoint has no room for is ErrEndpointFull.
func (q *Deliveries) Queue(ctx context.Context, d Delivery) error {
	_, err := q.js.PublishMsg(ctx, d.message())
	if endpointFull(err) {
		return fmt.Errorf("queue delivery to %s: %w", d.Webhook, ErrEndpointFull)
	}
	if err != nil {
		return fmt.Errorf("queue delivery to %s: %w", d.Webhook, err)
	}
	return nil
}

// Queued is how many deliveries wait for owner's endpoints: one request,
// whose answer counts each of the key's subjects.
func (q *Deliveries) Queued(ctx context.Context, owner string) (int, error) {
	subjects, err := q.subjects(ctx, contracts.OwnerDeliveries(owner))
	if err != nil {
		return 0, fmt.Errorf("count the deliveries of %s: %w", owner, err)
	}
	n := 0
	for _, c := range subjects {
		n += int(c)
	}
	return n, nil
}

// Waiting is how many deliveries wait on each subject of the stream that
// has any: each endpoint's (contracts.ParseDeliverySubject reads the key
// and the webhook back). The server answers in pages of 100,000
// subjects, which the client reads on.
func (q *Deliveries) Waiting(ctx context.Context) (map[string]uint64, error) {
	subjects, err := q.subjects(ctx, contracts.DeliverySubjectPrefix+">")
	if err != nil {
		return nil, fmt.Errorf("count the deliveries waiting: %w", err)
	}
	return subjects, nil
}

// subjects asks the stream how many deliveries wait on each subject that
// filter matches.
func (q *Deliveries) subjects(ctx context.Context, filter string) (map[string]uint64, error) {
	s, err := q.js.Stream(ctx, contracts.DeliveriesStream)
	if err != nil {
		return nil, err
	}
	info, err := s.Info(ctx, jetstream.WithSubjectFilter(filter))
	if err != nil {
		return nil, err
	}
	return info.State.Subjects, nil
}

// Drop removes every delivery waiting for owner's webhook, those waiting
// for a retry too, and returns about how many it removed (as the stream
// counted them just before): for an endpoint that was deleted. It purges
// the endpoint's subject, and the one without the key that deliveries had
// before 2026-11-28; a subject without deliveries is left alone.
func (q *Deliveries) Drop(ctx context.Context, owner, webhook string) (uint64, error) {
	s, err := q.js.Stream(ctx, contracts.DeliveriesStream)
	if err != nil {
		return 0, fmt.Errorf("drop the deliveries of %s: %w", webhook, err)
	}
	var dropped uint64
	for _, subject := range []string{contracts.DeliverySubject(owner, webhook), contracts.DeliverySubjectPrefix + webhook} {
		info, err := s.Info(ctx, jetstream.WithSubjectFilter(subject))
		if err != nil {
			return dropped, fmt.Errorf("drop the deliveries of %s: %w", webhook, err)
		}
		n := info.State.Subjects[subject]
		if n == 0 {
			continue
		}
		if err := s.Purge(ctx, jetstream.WithPurgeSubject(subject)); err != nil {
			return dropped, fmt.Errorf("drop the deliveries of %s: %w", webhook, err)
		}
		dropped += n
	}
	return dropped, nil
}

// batchSize is how many deliveries a Batch publishes before it waits for
// their acknowledgements: below the client's limit of pending async
// publishes (4,000 by default), above which publishing stalls.
const batchSize = 1024

// ackTimeout bounds a Batch's wait for the acknowledgements of a batch.
const ackTimeout = 30 * time.Second

// Batch queues many deliveries without waiting for each: it waits for
// the stream's acknowledgements every batchSize deliveries, and in Wait.
// It is not safe for concurrent use.
type Batch struct {
	ctx     context.Context
	js      jetstream.JetStream
	futures []jetstream.PubAckFuture
	errs    []error
	full    map[contracts.EventType]int
}

// Batch starts a batch of deliveries; ctx bounds its waits.
func (q *Deliveries) Batch(ctx context.Context) *Batch {
	return &Batch{ctx: ctx, js: q.js}
}

// Add publishes d. An error is a publish that could not start; one the
// stream refuses later is Wait's.
func (b *Batch) Add(d Delivery) error {
	f, err := b.js.PublishMsgAsync(d.message())
	if err != nil {
		return fmt.Errorf("queue delivery to %s: %w", d.Webhook, err)
	}
	b.futures = append(b.futures, f)
	if len(b.futures) == batchSize {
		b.await()
	}
	return nil
}

// Wait waits for the stream to acknowledge every delivery added, and
// returns every error of the batch's publishes but ErrEndpointFull:
// those deliveries are not queued, and Full counts them.
func (b *Batch) Wait() error {
	b.await()
	return errors.Join(b.errs...)
}

// Full is how many deliveries of each event type the stream refused, as
// of the last Wait, because their endpoint had no room (ErrEndpointFull).
func (b *Batch) Full() map[contracts.EventType]int { return b.full }

// await waits for the acknowledgements of the publishes under way.
func (b *Batch) await() {
	timeout := time.NewTimer(ackTimeout)
	defer timeout.Stop()
	defer func() { b.futures = b.futures[:0] }()
	for _, f := range b.futures {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			if endpointFull(err) {
				if b.full == nil {
					b.full = map[contracts.EventType]int{}
				}
				b.full[contracts.EventType(f.Msg().Header.Get(contracts.HeaderEvent))]++
				continue
			}
			b.errs = append(b.errs, fmt.Errorf("queue delivery on %s: %w", f.Msg().Subject, err))
		case <-timeout.C:
			b.errs = append(b.errs, fmt.Errorf("the deliveries stream did not acknowledge within %v", ackTimeout))
			return
		case <-b.ctx.Done():
			b.errs = append(b.errs, b.ctx.Err())
			return
		}
	}
}

// QueueState is what the deliveries stream holds.
type QueueState struct {
	// Msgs is how many deliveries wait: to be sent, in flight, or for a
	// retry. Oldest is when the oldest of them was queued.
	Msgs   uint64
	Oldest time.Time
}

// State asks the server what the deliveries stream holds.
func (q *Deliveries) State(ctx context.Context) (QueueState, error) {
	s, err := q.js.Stream(ctx, contracts.DeliveriesStream)
	if err != nil {
		return QueueState{}, err
	}
	st := s.CachedInfo().State
	return QueueState{Msgs: st.Msgs, Oldest: st.FirstTime}, nil
}

// Attempt is one attempt of a delivery to Webhook, to record.
type Attempt struct {
	Webhook string
	Attempt *contracts.DeliveryAttempt
}

// RecordAll records attempts and waits for the stream to acknowledge
// them. Each webhook's attempts are one message on its subject, a JSON
// array of them in their order (several when there are more than
// contracts.MaxAttemptsPerMessage, or more bytes than a message may
// hold), so that the server stores, acknowledges and, once the endpoint has
// contracts.MaxAttemptsKept, removes one message per endpoint and batch,
// not one per attempt. None is waited for before the next is sent: a
// batch costs one round trip. It returns how many attempts were recorded,
// and the errors of the others.
func (q *Deliveries) RecordAll(ctx context.Context, attempts []Attempt) (int, error) {
	var errs []error
	var hooks []string // in the order they first come
	encoded := map[string][][]byte{}
	for _, a := range attempts {
		b, err := json.Marshal(a.Attempt)
		if err != nil {
			errs = append(errs, fmt.Errorf("record an attempt of %s: %w", a.Webhook, err))
			continue
		}
		if _, ok := encoded[a.Webhook]; !ok {
			hooks = append(hooks, a.Webhook)
		}
		encoded[a.Webhook] = append(encoded[a.Webhook], b)
	}
	type published struct {
		f        jetstream.PubAckFuture
		attempts int
	}
	var sent []published
	for _, hook := range hooks {
		for _, r := range records(encoded[hook]) {
			f, err := q.js.PublishMsgAsync(&nats.Msg{Subject: contracts.AttemptSubject(hook), Data: r.data})
			if err != nil {
				errs = append(errs, fmt.Errorf("record %d attempts of %s: %w", r.attempts, hook, err))
				continue
			}
			sent = append(sent, published{f: f, attempts: r.attempts})
		}
	}
	timeout := time.NewTimer(ackTimeout)
	defer timeout.Stop()
	recorded := 0
	for _, p := range sent {
		select {
		case <-p.f.Ok():
			recorded += p.attempts
		case err := <-p.f.Err():
			errs = append(errs, fmt.Errorf("record %d attempts on %s: %w", p.attempts, p.f.Msg().Subject, err))
		case <-timeout.C:
			return recorded, errors.Join(append(errs, fmt.Errorf("the attempts stream did not acknowledge within %v", ackTimeout))...)
		case <-ctx.Done():
			return recorded, errors.Join(append(errs, ctx.Err())...)
		}
	}
	return recorded, errors.Join(errs...)
}

// record is one message of the attempts stream: a JSON array of attempts.
type record struct {
	data     []byte
	attempts int
}

// records joins one endpoint's encoded attempts, in their order, into
// messages of at most contracts.MaxAttemptsPerMessage attempts and
// maxAttemptsRecordSize bytes. An attempt that fits a message only
// without the brackets is a message of its own as one object, the shape
// of before (Attempts reads both); one too long even so is a message of
// its own, which the stream refuses, as it did before attempts were
// grouped.
func records(encoded [][]byte) []record {
	var out []record
	var cur record
	end := func() {
		if cur.attempts == 1 && len(cur.data)+1 > maxAttemptsRecordSize {
			out = append(out, record{data: cur.data[1:], attempts: 1})
		} else {
			out = append(out, record{data: append(cur.data, ']'), attempts: cur.attempts})
		}
		cur = record{}
	}
	for _, e := range encoded {
		// With e, the message would end in ",e]".
		if cur.attempts > 0 && (cur.attempts == contracts.MaxAttemptsPerMessage || len(cur.data)+len(e)+2 > maxAttemptsRecordSize) {
			end()
		}
		if cur.attempts == 0 {
			cur.data = append(make([]byte, 0, min(maxAttemptsRecordSize, (len(e)+1)*contracts.MaxAttemptsPerMessage+1)), '[')
		} else {
			cur.data = append(cur.data, ',')
		}
		cur.data = append(cur.data, e...)
		cur.attempts++
	}
	if cur.attempts > 0 {
		end()
	}
	return out
}

// attemptsWait bounds a read of an endpoint's attempts.
const attemptsWait = 5 * time.Second

// Attempts returns the recorded attempts of deliveries to webhook, oldest
// first: the last contracts.MaxAttemptsKept recorded, as many as the API
// shows. A message that does not decode is not one of notify's, and is
// skipped. No stream is no attempts.
func (q *Deliveries) Attempts(ctx context.Context, webhook string) ([]contracts.DeliveryAttempt, error) {
	// An ephemeral consumer of the endpoint's subject, which reads every
	// message the stream holds for it (at most contracts.MaxAttemptsKept)
	// in one fetch.
	cons, err := q.js.CreateConsumer(ctx, contracts.AttemptsStream, jetstream.ConsumerConfig{
		FilterSubject:     contracts.AttemptSubject(webhook),
		DeliverPolicy:     jetstream.DeliverAllPolicy,
		AckPolicy:         jetstream.AckNonePolicy,
		MemoryStorage:     true,
		Replicas:          1,
		InactiveThreshold: time.Minute,
	})
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read attempts of %s: %w", webhook, err)
	}
	defer func() {
		// The consumer goes by itself after InactiveThreshold if this
		// fails.
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), attemptsWait)
		defer cancel()
		_ = q.js.DeleteConsumer(dctx, contracts.AttemptsStream, cons.CachedInfo().Name)
	}()
	pending := int(cons.CachedInfo().NumPending)
	if pending == 0 {
		return nil, nil
	}
	batch, err := cons.Fetch(pending, jetstream.FetchMaxWait(attemptsWait))
	if err != nil {
		return nil, fmt.Errorf("read attempts of %s: %w", webhook, err)
	}
	all := make([]contracts.DeliveryAttempt, 0, pending)
	for msg := range batch.Messages() {
		all = appendRecord(all, msg.Data())
	}
	if err := batch.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) {
		return nil, fmt.Errorf("read attempts of %s: %w", webhook, err)
	}
	return all[max(len(all)-contracts.MaxAttemptsKept, 0):], nil
}

// appendRecord appends the attempts of one message of the attempts stream
// to all: a JSON array is several (RecordAll's), an object one (every
// record before 2026-11-28). A message that does not decode adds none.
func appendRecord(all []contracts.DeliveryAttempt, data []byte) []contracts.DeliveryAttempt {
	if data = bytes.TrimLeft(data, " \t\r\n"); len(data) > 0 && data[0] == '[' {
		var several []contracts.DeliveryAttempt
		if err := json.Unmarshal(data, &several); err != nil {
			return all
		}
		return append(all, several...)
	}
	var one contracts.DeliveryAttempt
	if err := json.Unmarshal(data, &one); err != nil {
		return all
	}
	return append(all, one)
}
