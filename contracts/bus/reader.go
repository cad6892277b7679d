package bus

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Msg is one message read from a stream.
type Msg struct {
	Subject string
	Data    []byte
	// Seq is the message's stream sequence; Stored is when the stream
	// stored it: when the change became part of the data, the same for
	// every reader.
	Seq    uint64
	Stored time.Time
	// Pending is how many messages the reader has yet to deliver beyond
	// this one: its lag.
	Pending uint64
}

// The errors of reading a stream that its readers act on; anything else
// is JetStream's, wrapped with what was being done.
var (
	// ErrNoMetadata is a delivered message without readable JetStream
	// metadata. Next returns it with the message's subject; the reader
	// goes on with the next message.
	ErrNoMetadata = errors.New("message without JetStream metadata")
	// ErrTimeout is a wait that ended before a message came
	// (Reader.NextWithin). It is nats.ErrTimeout, so that errors.Is
	// finds either.
	ErrTimeout = fmt.Errorf("%w", nats.ErrTimeout)
	// ErrNoStream is a stream that has not been provisioned (yet).
	ErrNoStream = errors.New("stream does not exist")
	// ErrNoMessage is a subject that holds no message.
	ErrNoMessage = errors.New("no message on the subject")
)

// notFound is JetStream's error for a stream or a message that is not
// there, which errors.Is also finds as the bus's sentinel for it (is):
// readers test for ErrNoStream or ErrNoMessage without naming JetStream,
// and the message stays JetStream's.
type notFound struct{ err, is error }

func (e *notFound) Error() string   { return e.err.Error() }
func (e *notFound) Unwrap() []error { return []error{e.err, e.is} }

// translate makes JetStream's not-found errors the bus's sentinels.
func translate(err error) error {
	switch {
	case errors.Is(err, jetstream.ErrStreamNotFound):
		return &notFound{err: err, is: ErrNoStream}
	case errors.Is(err, jetstream.ErrMsgNotFound):
		return &notFound{err: err, is: ErrNoMessage}
	}
	return err
}

// ReaderConfig says what a Reader reads.
type ReaderConfig struct {
	// Filters are the subjects to read (wildcards allowed); none reads
	// every subject.
	Filters []string
	// Batch is how many messages one pull asks for; 0 means 1024.
	Batch int
	// All reads every message the stream holds, oldest first, instead of
	// the last on each subject: a history, not a state.
	All bool
	// InactiveThreshold is how long the server keeps the reader's
	// consumer after its reader went away without a word; 0 is the
	// client's default (5 minutes). A short read sets it short.
	InactiveThreshold time.Duration
}

// Reader reads the last message on every subject of a stream that matches
// its filters (or, with ReaderConfig.All, every message), in stream order,
// and then every message stored after them: a stream that keeps one
// message per subject is its current state, and then its changes. It reads through an ordered consumer, which recreates
// itself after a reconnect and resumes after the last message delivered,
// so a reader outlives a NATS outage. It is not safe for concurrent use.
type Reader struct {
	stream    jetstream.Stream
	cfg       ReaderConfig
	cons      jetstream.Consumer
	it        jetstream.MessagesContext
	startLast uint64
	caughtUp  bool
	last      uint64 // the stream sequence of the last message delivered
	pending   uint64 // what the server still counted with it
	// short says the read of every subject caught up short of the
	// stream's last message at open (Short).
	short string

	mu      sync.Mutex // it and stopped, between Next reopening and Stop
	stopped bool

	// wait bounds NextWithin's waits: one timer cancels wait.ctx when it
	// fires. jetstream.NextMaxWait makes and stops a timer per message
	// instead, which was 7% of a catch-up; resetting and stopping one
	// timer per message was still 3% (BenchmarkCatchUp), so the timer is
	// re-armed only once the time left on it may be short of the wait.
	wait struct {
		ctx    context.Context
		cancel context.CancelFunc
		timer  *time.Timer
		opts   []jetstream.NextOpt
		d      time.Duration // the wait the timer was armed for
		armed  time.Time     // when
	}
}

// waitSlack is the share of a wait NextWithin may cut short: a timer armed
// less than d/waitSlack ago is left running, so a wait lasts at least
// d - d/waitSlack.
const waitSlack = 16

// resetAttempts bounds how often the ordered consumer tries to recreate
// itself under one name. An R1 consumer recreated while a node is lost can
// be placed on that node before the cluster marks it offline; under the
// same name every later attempt fails too, forever. After resetAttempts the
// Reader opens a new ordered consumer, under a new name, which the cluster
// places anew.
const resetAttempts = 3

// pullHeartbeat is how often the server says an idle pull is alive.
const pullHeartbeat = 2 * time.Second

// Open starts reading s.
func Open(ctx context.Context, s jetstream.Stream, cfg ReaderConfig) (*Reader, error) {
	state := s.CachedInfo().State
	r := &Reader{stream: s, cfg: cfg, startLast: state.LastSeq}
	cons, it, err := r.open(ctx)
	if err != nil {
		return nil, err
	}
	r.cons, r.it = cons, it
	// An empty stream, or no message on the filtered subjects, has
	// nothing to catch up with.
	r.caughtUp = state.Msgs == 0 || (cons.CachedInfo() != nil && cons.CachedInfo().NumPending == 0)
	return r, nil
}

// open starts an ordered consumer: from the start (the last message of
// every subject, or with All the first message) when nothing was delivered
// yet, else after the last message delivered.
func (r *Reader) open(ctx context.Context) (jetstream.Consumer, jetstream.MessagesContext, error) {
	name := r.stream.CachedInfo().Config.Name
	cc := jetstream.OrderedConsumerConfig{
		DeliverPolicy:     jetstream.DeliverLastPerSubjectPolicy,
		FilterSubjects:    r.cfg.Filters,
		InactiveThreshold: r.cfg.InactiveThreshold,
		MaxResetAttempts:  resetAttempts,
	}
	switch {
	case r.last > 0:
		cc.DeliverPolicy, cc.OptStartSeq = jetstream.DeliverByStartSequencePolicy, r.last+1
	case r.cfg.All:
		cc.DeliverPolicy = jetstream.DeliverAllPolicy
	}
	cons, err := r.stream.OrderedConsumer(ctx, cc)
	if err != nil {
		return nil, nil, fmt.Errorf("create ordered consumer on %s: %w", name, err)
	}
	batch := r.cfg.Batch
	if batch < 1 {
		batch = 1024
	}
	// Heartbeats every 2 s: a pull whose server went away is noticed after
	// two missed ones, within a read's StallWait, instead of after the
	// client's default of 10 s, which no read waiting 5 s ever reaches.
	it, err := cons.Messages(jetstream.PullMaxMessages(batch), jetstream.PullHeartbeat(pullHeartbeat))
	if err != nil {
		return nil, nil, fmt.Errorf("consume %s: %w", name, err)
	}
	return cons, it, nil
}

// reopen replaces an ordered consumer that gave up recreating itself with
// a new one, trying until it has one or the reader is stopped.
func (r *Reader) reopen() error {
	r.it.Stop()
	for backoff := time.Second; ; backoff = min(2*backoff, 10*time.Second) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cons, it, err := r.open(ctx)
		cancel()
		r.mu.Lock()
		if r.stopped {
			r.mu.Unlock()
			if it != nil {
				it.Stop()
			}
			return jetstream.ErrMsgIteratorClosed
		}
		if err == nil {
			r.cons, r.it = cons, it
			r.mu.Unlock()
			return nil
		}
		r.mu.Unlock()
		time.Sleep(backoff)
	}
}

// CaughtUp reports whether the reader has delivered every message that was
// the last on its subject when it was opened: from then on, Next returns
// only what was stored later.
func (r *Reader) CaughtUp() bool { return r.caughtUp }

// checkEnd notes, when a read of the last message of every subject has
// caught up, whether it got the stream's last message at open. That one
// is the newest of its subject, so no later message can have replaced
// it: a read that caught up without it shows messages lost at the
// stream's end, as a crash that cut a message block leaves them, and which
// nothing in the stream's own state tells (it counts them as deleted).
// The removals of the older messages those replaced may have been lost
// with them, so those older messages show again, as current. A read that
// reached the stream's last message with more pending than the stream
// has stored since shows messages the server skipped (undelivered).
func (r *Reader) checkEnd(pending uint64) {
	if r.cfg.All {
		return
	}
	if pending > 0 {
		if lost := r.undeliveredAtEnd(pending); lost > 0 {
			r.short = undelivered(lost, r.last)
		}
		return
	}
	if len(r.cfg.Filters) > 0 || r.last >= r.startLast {
		return
	}
	r.short = fmt.Sprintf("caught up at sequence %d while the stream ended at %d when the read began: the messages after %d were lost, "+
		"and older messages on their subjects may show again as current", r.last, r.startLast, r.last)
}

// undeliveredAtEnd is how many of the pending messages the server still
// counted with the stream's last message at open cannot be messages
// stored since (which the read goes on to deliver): the stream's last
// sequence now bounds those. A stream that cannot say is taken as whole.
func (r *Reader) undeliveredAtEnd(pending uint64) uint64 {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	info, err := r.stream.Info(ctx)
	if err != nil {
		return 0
	}
	since := info.State.LastSeq - min(info.State.LastSeq, r.last)
	if pending <= since {
		return 0
	}
	return pending - since
}

// undelivered is the problem of a read that ended with pending messages
// the server counted and did not deliver: a message whose checksum fails
// (bit rot, a torn write) keeps its place in the stream's counts, and the
// server skips it. The subject's older message may show again as current.
func undelivered(pending, last uint64) string {
	return fmt.Sprintf("the server counted %d more message(s) than it delivered by sequence %d: a damaged message it can no longer "+
		"read, whose subject may show an older message as current", pending, last)
}

// exhausted notes, for a read not caught up whose wait for the next
// message ran out, whether the server has nothing more to deliver to it:
// then the messages still counted are ones it cannot read (undelivered),
// and the read is over. A slow server still has messages pending, or has
// sent past the last one delivered.
func (r *Reader) exhausted(ctx context.Context) error {
	if r.caughtUp || r.cfg.All {
		return nil
	}
	info, err := r.cons.Info(ctx)
	if err != nil {
		return fmt.Errorf("consumer info: %w", err)
	}
	if info.NumPending > 0 || info.Delivered.Stream != r.last {
		return nil
	}
	r.caughtUp = true
	r.short = undelivered(max(r.pending, 1), r.last)
	return nil
}

// Short says why the read of every subject caught up short of the
// stream's end, "" when it did not (checkEnd).
func (r *Reader) Short() string { return r.short }

// Next returns the next message, waiting for one as long as it takes.
// After Stop it returns jetstream.ErrMsgIteratorClosed.
func (r *Reader) Next() (Msg, error) { return r.next() }

// next is Next, with opts bounding the wait (NextWithin's context).
func (r *Reader) next(opts ...jetstream.NextOpt) (Msg, error) {
	msg, err := r.it.Next(opts...)
	for err != nil && !errors.Is(err, nats.ErrTimeout) && !errors.Is(err, jetstream.ErrMsgIteratorClosed) &&
		!errors.Is(err, jetstream.ErrInvalidOption) && !errors.Is(err, context.Canceled) {
		// (context.Canceled is NextWithin's wait ending. DeadlineExceeded
		// is not: it is what the ordered consumer returns when its
		// attempts to recreate itself time out, as when NATS is away
		// longer than they last.)
		// The ordered consumer gave up recreating itself (resetAttempts).
		if rerr := r.reopen(); rerr != nil {
			return Msg{}, rerr
		}
		msg, err = r.it.Next(opts...)
	}
	if err != nil {
		if errors.Is(err, nats.ErrTimeout) {
			err = ErrTimeout // a wait the client bounded itself
		}
		return Msg{}, err
	}
	meta, err := msg.Metadata()
	if err != nil {
		return Msg{Subject: msg.Subject()}, fmt.Errorf("%w: %v", ErrNoMetadata, err)
	}
	r.last, r.pending = meta.Sequence.Stream, meta.NumPending
	if !r.caughtUp && (meta.NumPending == 0 || meta.Sequence.Stream >= r.startLast) {
		r.caughtUp = true
		r.checkEnd(meta.NumPending)
	}
	return Msg{Subject: msg.Subject(), Data: msg.Data(), Seq: meta.Sequence.Stream, Stored: meta.Timestamp, Pending: meta.NumPending}, nil
}

// NextWithin is Next waiting at most d (and at least d - d/16), after
// which it returns ErrTimeout; it allocates nothing while messages arrive
// in time.
func (r *Reader) NextWithin(d time.Duration) (Msg, error) {
	w := &r.wait
	start := time.Now()
	switch {
	case w.ctx == nil || done(w.ctx):
		// The first call, or the timer fired since the last one: a new
		// context, and a timer of its own to cancel it.
		w.ctx, w.cancel = context.WithCancel(context.Background())
		w.timer = time.AfterFunc(d, w.cancel)
		w.opts = []jetstream.NextOpt{jetstream.NextContext(w.ctx)}
		w.d, w.armed = d, start
	case d != w.d || start.Sub(w.armed) > d/waitSlack:
		w.timer.Reset(d)
		w.d, w.armed = d, start
	}
	msg, err := r.next(w.opts...)
	if err == nil || !errors.Is(err, context.Canceled) || !done(w.ctx) {
		return msg, err
	}
	if time.Since(start) < d-d/waitSlack {
		// The timer fired between the check above and its reset: this
		// wait has not had its time.
		w.ctx = nil
		return r.NextWithin(d)
	}
	return msg, fmt.Errorf("no message within %v: %w", d, ErrTimeout)
}

// done reports whether ctx has ended, without the lock ctx.Err takes.
func done(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return true
	default:
		return false
	}
}

// Health judges the stream being read (Check). Asked while the read has
// not caught up, after a wait for a message ran out, it also asks the
// server whether anything is left to deliver: when nothing is, the read
// is over (CaughtUp) and short of what the stream counts (Short).
func (r *Reader) Health(ctx context.Context) (Health, error) {
	h, err := checkStream(ctx, r.stream)
	if err == nil {
		err = r.exhausted(ctx)
	}
	if err == nil && r.short != "" {
		h.Problems = append(h.Problems, r.short)
	}
	return h, err
}

// Stop ends the read: a Next waiting returns, and the consumer is left
// for the server to remove once it is inactive.
func (r *Reader) Stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopped = true
	r.it.Stop()
}

// Close is Stop, and removes the consumer from the server at once.
func (r *Reader) Close() {
	r.Stop()
	info := r.cons.CachedInfo()
	if info == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = r.stream.DeleteConsumer(ctx, info.Name) // else the inactive threshold removes it
}

// Streams is the service's streams on one JetStream connection, as their
// readers see them: a Reader of one (Open), the last message on each of
// its subjects (ReadLast) or on one (LastMsg), its health, and whether the
// connection is up. Query pods, ingesters and the stand-in sources read
// through it; the Publisher writes.
type Streams struct {
	js jetstream.JetStream
}

// NewStreams returns the streams on js.
func NewStreams(js jetstream.JetStream) *Streams { return &Streams{js: js} }

// stream binds the named stream, asking the server for its info.
func (s *Streams) stream(ctx context.Context, name string) (jetstream.Stream, error) {
	st, err := s.js.Stream(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("stream %s: %w", name, translate(err))
	}
	return st, nil
}

// Open starts reading the named stream (Reader); ErrNoStream when it is
// not provisioned.
func (s *Streams) Open(ctx context.Context, stream string, cfg ReaderConfig) (*Reader, error) {
	st, err := s.stream(ctx, stream)
	if err != nil {
		return nil, err
	}
	return Open(ctx, st, cfg)
}

// LastMsg returns the last message on subject in the named stream;
// ErrNoMessage when the subject holds none, ErrNoStream when there is no
// such stream. Its Pending is 0.
func (s *Streams) LastMsg(ctx context.Context, stream, subject string) (Msg, error) {
	st, err := s.stream(ctx, stream)
	if err != nil {
		return Msg{}, err
	}
	m, err := st.GetLastMsgForSubject(ctx, subject)
	if err != nil {
		return Msg{}, fmt.Errorf("read %s: %w", subject, translate(err))
	}
	return Msg{Subject: m.Subject, Data: m.Data, Seq: m.Sequence, Stored: m.Time}, nil
}

// Health asks the server for the named stream's info and judges it
// (CheckState); its LastSeq is the stream's head. ErrNoStream when there
// is no such stream.
func (s *Streams) Health(ctx context.Context, stream string) (Health, error) {
	st, err := s.stream(ctx, stream)
	if err != nil {
		return Health{}, err
	}
	return CheckState(st.CachedInfo()), nil // fetched just now, by binding it
}

// Connected reports whether the connection is up: while it is not, readers
// wait and serve what they read.
func (s *Streams) Connected() bool { return s.js.Conn().IsConnected() }

// readTimeout bounds ReadLast when its context has no deadline.
const readTimeout = time.Minute

// StallWait is how long a read waits for the next message, while it has
// not caught up, before it asks whether the stream can still deliver what
// it counts (Reader.Health): on a healthy stream the messages of a read
// follow each other within milliseconds.
const StallWait = 5 * time.Second

// ErrIncomplete is a read that ended early because the stream lost
// messages it still counts (Health): what was read is all there is.
var ErrIncomplete = errors.New("the stream lost messages it still counts")

// ReadLast calls fn with the last message on every subject of the named
// stream that matches cfg.Filters, in stream order, until fn returns false
// or every one of them has been read; it does not wait for new messages.
// Messages whose metadata cannot be read are skipped. A message replaced
// while it runs is skipped by the server and its replacement read instead.
// It returns an error that is ErrNoStream when there is no such stream, and
// ErrIncomplete when the stream lost messages it still counts.
func (s *Streams) ReadLast(ctx context.Context, name string, cfg ReaderConfig, fn func(Msg) bool) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, readTimeout)
		defer cancel()
	}
	st, err := s.stream(ctx, name)
	if err != nil {
		return err
	}
	if cfg.InactiveThreshold == 0 {
		cfg.InactiveThreshold = time.Minute
	}
	r, err := Open(ctx, st, cfg)
	if err != nil {
		return err
	}
	defer r.Close()
	stop := context.AfterFunc(ctx, r.Stop)
	defer stop()
	for !r.CaughtUp() {
		msg, err := r.NextWithin(StallWait)
		switch {
		case errors.Is(err, ErrNoMetadata):
			continue
		case errors.Is(err, ErrTimeout):
			// A damaged stream may count messages it cannot deliver;
			// waiting for them would only end at the deadline.
			if h, herr := r.Health(ctx); herr == nil && !h.Healthy() && r.Short() == "" {
				return fmt.Errorf("read %s: %w: %s", name, ErrIncomplete, h)
			}
			continue
		case err != nil && ctx.Err() != nil:
			return fmt.Errorf("read %s: %w", name, ctx.Err())
		case err != nil:
			return fmt.Errorf("read %s: %w", name, err)
		}
		if !fn(msg) {
			return nil
		}
	}
	if r.Short() != "" {
		return &shortError{stream: name, problem: r.Short()}
	}
	return nil
}

// shortError is a read of every subject that caught up short of the
// stream's end (Reader.Short): ErrIncomplete.
type shortError struct{ stream, problem string }

func (e *shortError) Error() string {
	return "read " + e.stream + ": " + ErrIncomplete.Error() + ": " + e.problem
}

func (e *shortError) Unwrap() error { return ErrIncomplete }

// ReadLast is Streams.ReadLast on js's streams.
func ReadLast(ctx context.Context, js jetstream.JetStream, name string, cfg ReaderConfig, fn func(Msg) bool) error {
	return NewStreams(js).ReadLast(ctx, name, cfg, fn)
}
