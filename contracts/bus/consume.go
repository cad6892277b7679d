package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The durable consumers the replicas of a service share, so that the
// server hands each message to one of them: their names, which the NATS
// permissions name too, and their configurations.
const (
	// DispatchConsumer is zoneprice-notify's on contracts.HistoryStream:
	// each change is matched against the webhook registrations once.
	DispatchConsumer = "notify-dispatch"
	// DeliverConsumer is zoneprice-notify's workers' on
	// contracts.DeliveriesStream: each delivery goes to one worker at a
	// time, so no delivery is attempted twice at once.
	DeliverConsumer = "notify-deliver"
	// AlertsConsumer is the price-drop digests' on
	// contracts.HistoryStream: each change is collected once.
	AlertsConsumer = "zoneprice-alerts"
)

// DispatchAckWait is how long DispatchConsumer waits to hear about a
// change it handed out. It is long enough to queue a change's fan-out to
// every endpoint (10,000 publishes, acknowledged in batches, take well
// under a second; 30 seconds leave room for a slow stream), and short,
// since a replica that dies holding changes delays them by that much. A
// change not acknowledged in time is dispatched again, which the
// deliveries stream's duplicate window turns into nothing.
const DispatchAckWait = 30 * time.Second

// DispatchConsumerConfig is DispatchConsumer's configuration.
//
// It starts at the changes stored after it is first created
// (DeliverNew), not at the first: the history holds years of changes, and
// an endpoint registered today wants today's. The policy applies only when
// the consumer is created; from then on the server keeps its place, so
// changes stored while every replica was down are dispatched when one
// comes back. Changes are dispatched one at a time per replica, so
// MaxAckPending only bounds what a replica holds.
func DispatchConsumerConfig() jetstream.ConsumerConfig {
	return jetstream.ConsumerConfig{
		Durable:       DispatchConsumer,
		Description:   "zoneprice-notify: matches each change against the webhook registrations and queues its deliveries",
		DeliverPolicy: jetstream.DeliverNewPolicy,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       DispatchAckWait,
		MaxDeliver:    -1,
		MaxAckPending: 256,
	}
}

// DeliverConsumerConfig is DeliverConsumer's configuration, with the
// workers' ackWait.
//
// Retries are the server's: a failed attempt is negatively acknowledged
// with the schedule's delay (NakWithDelay), and the server hands the
// delivery out again when it is due, to whichever replica asks, after a
// restart of all of them too. A delivery waiting for its retry counts as
// ack pending for the server. MaxAckPending is therefore as large as the
// stream can hold (MaxDeliveryMsgs): with the server's default of 1,000, a
// thousand deliveries waiting for a retry hours away (one dead endpoint
// after a busy round, or a thousand dead endpoints) would stop the
// consumer from handing out any other delivery. How many deliveries a
// replica sends at once is bounded by its workers instead, and how many it
// holds unsent by its pull (one batch of workers' messages).
//
// ackWait (zoneprice-notify's, a minute) is how long a handed-out delivery
// may go unanswered before the server hands it out again. An attempt
// under way reports progress every quarter of it (Job.InProgress), so its
// length does not matter; what must fit in it is a wait in the pull's
// buffer behind other attempts, while a replica that died mid-attempt
// delays the delivery by ackWait only.
//
// MaxDeliver is unlimited: the workers give a delivery up themselves
// (Term) after its last attempt. A server-side limit would leave a
// delivery whose last hand-out found its replica dying in the stream,
// never handed out again and never removed.
func DeliverConsumerConfig(ackWait time.Duration) jetstream.ConsumerConfig {
	return jetstream.ConsumerConfig{
		Durable:       DeliverConsumer,
		Description:   "zoneprice-notify workers: each webhook delivery to one worker at a time, retried by delayed redelivery",
		DeliverPolicy: jetstream.DeliverAllPolicy,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       ackWait,
		MaxDeliver:    -1,
		MaxAckPending: MaxDeliveryMsgs,
	}
}

// AlertsConsumerConfig is AlertsConsumer's configuration. It starts at the
// changes stored after it is first created (DeliverNew): a subscriber
// wants today's drops, not three years of them; from then on the server
// keeps its place, so changes stored while no process ran are collected
// when one comes back. One change at a time (MaxAckPending 1), in stream
// order, so that a subscriber's DigestedThrough says which changes its
// digests have seen: a change at or below it is never collected again.
// A process that stops hands back the change it holds (taken, not yet
// acknowledged), so the next takes it at once; one killed with a change
// in hand holds the others back until AckWait has passed and the change
// is delivered again: half a minute at most.
func AlertsConsumerConfig() jetstream.ConsumerConfig {
	return jetstream.ConsumerConfig{
		Durable:       AlertsConsumer,
		Description:   "price-drop digests: collects each drop for the subscribers who follow its zone",
		DeliverPolicy: jetstream.DeliverNewPolicy,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       30 * time.Second,
		MaxDeliver:    -1,
		MaxAckPending: 1,
	}
}

// Durable is a durable pull consumer of one stream, which the processes
// that consume it share.
type Durable struct {
	js     jetstream.JetStream
	stream string
	cfg    jetstream.ConsumerConfig

	cons atomic.Pointer[jetstream.Consumer]
}

// NewDurable returns the durable consumer cfg of the named stream on js.
// Consume creates it, or updates it to cfg.
func NewDurable(js jetstream.JetStream, stream string, cfg jetstream.ConsumerConfig) *Durable {
	return &Durable{js: js, stream: stream, cfg: cfg}
}

// ConsumeConfig says how Consume pulls and works.
type ConsumeConfig struct {
	// Pull is how many messages one pull asks for: they wait in the
	// client until a worker takes them. Below 1 is Workers.
	Pull int
	// Workers is how many handle calls run at once; below 1 is 1.
	Workers int
	// Log is told what Consume recovers from: a consumer that cannot be
	// created yet, a message that cannot be read. nil discards it.
	Log *slog.Logger
}

// Consume creates or updates the consumer, trying again until the stream
// exists, then hands each message it pulls to handle, from cfg.Workers
// goroutines, until ctx ends. Then it stops pulling, and hands back
// (negatively acknowledges) the messages pulled and not yet given to
// handle, so that another process gets them at once rather than after
// the consumer's AckWait; such a hand-out is counted by the server like
// any other. It returns nil once every handle call has returned: a
// message begun is finished, and answered by handle.
//
// A message without JetStream metadata is terminated and logged, never
// handed to handle.
func (d *Durable) Consume(ctx context.Context, cfg ConsumeConfig, handle func(Job)) error {
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	workers := max(cfg.Workers, 1)
	pull := cfg.Pull
	if pull < 1 {
		pull = workers
	}
	cons, err := d.create(ctx, log)
	if err != nil {
		return nil // ctx ended
	}
	it, err := cons.Messages(jetstream.PullMaxMessages(pull), jetstream.PullHeartbeat(5*time.Second))
	if err != nil {
		return fmt.Errorf("consume %s: %w", d.stream, err)
	}
	stop := context.AfterFunc(ctx, it.Drain)
	defer stop()
	defer it.Stop()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() { d.work(ctx, it, log, handle) })
	}
	wg.Wait()
	return nil
}

// missedHeartbeats is how many heartbeats in a row the server may miss
// before a worker warns. The iterator recovers from a missed one by itself
// (it pulls again), and an idle all-in-one missed one ten seconds after
// start: alone, it is not worth a warning.
const missedHeartbeats = 3

// work hands the iterator's messages to handle until it is drained.
func (d *Durable) work(ctx context.Context, it jetstream.MessagesContext, log *slog.Logger, handle func(Job)) {
	missed := 0
	for {
		msg, err := it.Next()
		if errors.Is(err, jetstream.ErrMsgIteratorClosed) {
			return
		}
		if errors.Is(err, jetstream.ErrNoHeartbeat) {
			if missed++; missed%missedHeartbeats != 0 {
				log.Debug("a heartbeat missed; pulling again", "stream", d.stream, "consumer", d.cfg.Durable)
				continue
			}
		}
		if err != nil {
			log.Warn("reading the stream", "stream", d.stream, "consumer", d.cfg.Durable, "err", err, "missed_heartbeats", missed)
			continue
		}
		missed = 0
		if ctx.Err() != nil {
			_ = msg.Nak() // handed back
			continue
		}
		meta, err := msg.Metadata()
		if err != nil {
			log.Error("a message without metadata; dropped", "stream", d.stream, "subject", msg.Subject(), "err", err)
			_ = msg.Term()
			continue
		}
		handle(Job{Subject: msg.Subject(), Data: msg.Data(), Header: Header(msg.Headers()),
			Seq: meta.Sequence.Stream, NumDelivered: meta.NumDelivered, NumPending: meta.NumPending, Timestamp: meta.Timestamp, msg: msg})
	}
}

// create creates or updates the consumer, waiting for the stream to be
// provisioned; it fails only when ctx ends.
func (d *Durable) create(ctx context.Context, log *slog.Logger) (jetstream.Consumer, error) {
	for backoff := 200 * time.Millisecond; ; backoff = min(2*backoff, 5*time.Second) {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		cons, err := d.js.CreateOrUpdateConsumer(cctx, d.stream, d.cfg)
		cancel()
		if err == nil {
			d.cons.Store(&cons)
			return cons, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		log.Warn("cannot create the consumer; retrying", "stream", d.stream, "consumer", d.cfg.Durable, "err", err, "in", backoff)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(backoff):
		}
	}
}

// ErrNotCreated is Info before Consume created the consumer.
var ErrNotCreated = errors.New("the consumer is not created yet")

// ConsumerInfo is what the server says of a durable consumer's messages.
type ConsumerInfo struct {
	// Pending is how many it has not handed out yet; AckPending, how
	// many it handed out that are not acknowledged yet (being worked on,
	// or waiting for a delayed redelivery).
	Pending, AckPending uint64
}

// Info asks the server about the consumer this Durable created.
func (d *Durable) Info(ctx context.Context) (ConsumerInfo, error) {
	c := d.cons.Load()
	if c == nil {
		return ConsumerInfo{}, ErrNotCreated
	}
	info, err := (*c).Info(ctx)
	if err != nil {
		return ConsumerInfo{}, err
	}
	return ConsumerInfo{Pending: info.NumPending, AckPending: uint64(info.NumAckPending)}, nil
}

// Header is a message's headers.
type Header map[string][]string

// Get returns the first value of key, "" when there is none.
func (h Header) Get(key string) string { return nats.Header(h).Get(key) }

// Job is one message a Durable handed out, until it is answered: Ack,
// DoubleAck, Nak, NakWithDelay or Term. Unanswered, the server hands it
// out again after the consumer's AckWait, unless told InProgress.
type Job struct {
	Subject string
	Data    []byte
	Header  Header
	// Seq is the message's stream sequence; Timestamp, when the stream
	// stored it.
	Seq       uint64
	Timestamp time.Time
	// NumDelivered is how often the server handed the message out, this
	// time included; NumPending, how many messages the consumer has yet
	// to hand out after it.
	NumDelivered, NumPending uint64

	msg jetstream.Msg
}

// Ack says the message is done with.
func (j Job) Ack() error { return j.msg.Ack() }

// DoubleAck is Ack, waiting for the server to confirm it.
func (j Job) DoubleAck(ctx context.Context) error { return j.msg.DoubleAck(ctx) }

// Nak hands the message back, to be handed out again at once.
func (j Job) Nak() error { return j.msg.Nak() }

// NakWithDelay hands the message back, to be handed out again after
// delay.
func (j Job) NakWithDelay(delay time.Duration) error { return j.msg.NakWithDelay(delay) }

// Term gives the message up: it is never handed out again.
func (j Job) Term() error { return j.msg.Term() }

// InProgress tells the server the message is being worked on, which
// starts its AckWait again.
func (j Job) InProgress() error { return j.msg.InProgress() }
