// Package replay keeps a query pod's data current: it replays the state
// stream into the authoritative cache.Index (the last message per subject,
// read through the Streams and Reader it declares, which package bus
// implements), then follows it, and after each burst of updates renders a
// new immutable cache.Snapshot and swaps it in; it loads and follows the
// history stream the same way. The HTTP API (package api) only ever asks
// it for the current snapshot and whether it is ready.
package replay

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/cache"
	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
)

// Config configures how the consumer turns events into snapshots.
type Config struct {
	// Currency is the currency prices are shown and compared in.
	Currency string
	// Quiet is how long the stream must be quiet before changes are
	// rendered: a burst of updates is rendered once, after it.
	Quiet time.Duration
	// MaxDelay bounds how long a change waits to be rendered while updates
	// keep arriving.
	MaxDelay time.Duration
	// PullBatch is how many messages one pull request asks for.
	PullBatch int
}

// DefaultConfig renders in USD within 25 ms of a change.
func DefaultConfig() Config {
	return Config{Currency: "USD", Quiet: 5 * time.Millisecond, MaxDelay: 25 * time.Millisecond, PullBatch: 2048}
}

// Validate reports a configuration that cannot work, naming the field
// (contracts.ValidationError).
func (c Config) Validate() error {
	if _, ok := contracts.CurrencyExponent(c.Currency); !ok {
		return contracts.Invalid("Currency", "unknown ISO 4217 code %q", c.Currency)
	}
	if c.Quiet <= 0 || c.MaxDelay < c.Quiet {
		return contracts.Invalid("Quiet", "must be positive and at most MaxDelay")
	}
	if c.PullBatch < 1 {
		return contracts.Invalid("PullBatch", "must be positive")
	}
	return nil
}

// Reader is one read of a stream, in stream order (bus.Reader): the last
// message on each subject, or with bus.ReaderConfig.All every message, and
// then each one stored later.
type Reader interface {
	// Next waits for the next message as long as it takes.
	Next() (bus.Msg, error)
	// NextWithin waits at most d, then returns an error that is
	// bus.ErrTimeout. An error that is bus.ErrNoMetadata comes with the
	// message's subject; the read goes on after it.
	NextWithin(d time.Duration) (bus.Msg, error)
	// CaughtUp reports whether the reader has delivered what the stream
	// held when it was opened.
	CaughtUp() bool
	// Short says why the catch-up ended short of the stream's end (its
	// messages there were lost), "" when it did not.
	Short() string
	// Health judges the stream being read.
	Health(ctx context.Context) (bus.Health, error)
	// Stop ends the read: a Next waiting returns.
	Stop()
}

// Streams is the bus as a consumer reads it (bus.Streams): it opens
// readers R of the state and history streams, and says how far a stream
// reaches and whether the connection is up. R is a type parameter because
// Go's interfaces do not match a method returning *bus.Reader to one
// returning Reader; New turns it into a Reader.
type Streams[R Reader] interface {
	// Open starts reading a stream.
	Open(ctx context.Context, stream string, cfg bus.ReaderConfig) (R, error)
	Heads
}

// Heads says how far the streams reach and whether the bus is there.
type Heads interface {
	// Health judges a stream from the server's info on it, whose LastSeq
	// is the stream's head; an error that is bus.ErrNoStream while it is
	// not provisioned.
	Health(ctx context.Context, stream string) (bus.Health, error)
	// Connected reports whether the connection to the bus is up.
	Connected() bool
}

// Consumer replays the state stream into a cache.Index with one ordered
// consumer (last message per subject), then follows live updates. After each
// burst of updates it renders a new snapshot and swaps it in atomically.
type Consumer struct {
	open  func(ctx context.Context, stream string, cfg bus.ReaderConfig) (Reader, error)
	heads Heads
	cfg   Config
	log   *slog.Logger
	now   func() time.Time
	m     *consumerMetrics
	snap  atomic.Pointer[cache.Snapshot]
	ready chan struct{}
	// sources are those the source age gauge has series for; only the
	// consumer goroutine touches it.
	sources map[string]time.Time
	// headEvery is how often the head is watched (headInterval).
	headEvery time.Duration
	// short says the catch-up ended short of the stream's end
	// (bus.Reader.Short); set before the head watch starts.
	short string
	// damaged says the stream's state last said it lost messages, logged
	// at damageLogged; only noteHealth touches them.
	damaged      bool
	damageLogged time.Time
	// hist is the price history, loaded and followed by runHistory
	// once the state is ready; histLoaded says it has been loaded.
	hist       *cache.History
	histLoaded atomic.Bool
	hm         *historyMetrics
	rejects    *rejectLog
}

// New returns a consumer reading streams.
func New[R Reader](streams Streams[R], cfg Config, log *slog.Logger, reg prometheus.Registerer, now func() time.Time) (*Consumer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m, err := newConsumerMetrics(reg)
	if err != nil {
		return nil, err
	}
	connected := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "zoneprice_nats_connected", Help: "1 while the NATS connection is up.",
	}, func() float64 {
		if streams.Connected() {
			return 1
		}
		return 0
	})
	if err := reg.Register(connected); err != nil {
		return nil, fmt.Errorf("register consumer metrics: %w", err)
	}
	open := func(ctx context.Context, stream string, cfg bus.ReaderConfig) (Reader, error) {
		r, err := streams.Open(ctx, stream, cfg)
		if err != nil {
			return nil, err // not a Reader holding a nil R
		}
		return r, nil
	}
	c := &Consumer{open: open, heads: streams, cfg: cfg, log: log, now: now, m: m, ready: make(chan struct{}), hist: cache.NewHistory(),
		rejects: newRejectLog(log), headEvery: headInterval}
	if c.hm, err = newHistoryMetrics(reg, c.hist); err != nil {
		return nil, err
	}
	c.snap.Store(cache.NewIndex(cfg.Currency).Snapshot())
	return c, nil
}

// Snapshot returns the current snapshot. It never blocks and never returns nil.
func (c *Consumer) Snapshot() *cache.Snapshot { return c.snap.Load() }

// Ready is closed once the consumer has applied everything the stream held
// when it started and the first full snapshot is in place.
func (c *Consumer) Ready() <-chan struct{} { return c.ready }

// IsReady reports whether Ready is closed.
func (c *Consumer) IsReady() bool {
	select {
	case <-c.ready:
		return true
	default:
		return false
	}
}

// Run consumes until ctx ends. While NATS is away the last snapshot keeps
// being served; the client reconnects and the ordered consumer resumes after
// the last sequence it delivered.
func (c *Consumer) Run(ctx context.Context) error {
	head, ok := c.await(ctx, contracts.StateStream, 5*time.Second, "state stream not available yet")
	if !ok {
		return nil
	}
	// The replay is timed on the real clock, from the moment the stream is
	// there; c.now is the data clock, which tests may fix.
	start := time.Now()
	c.m.headSeq.Set(float64(head.LastSeq))
	r, err := c.open(ctx, contracts.StateStream, bus.ReaderConfig{Batch: c.cfg.PullBatch})
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, r.Stop)
	defer stop()
	defer r.Stop()

	idx := cache.NewIndex(c.cfg.Currency)
	if !r.CaughtUp() {
		idx.Expect(int(head.Msgs))
		if done, err := c.catchUp(ctx, r, idx); done || err != nil {
			return err
		}
		idx.Expect(0)
	}
	// A catch-up short of the stream's end found messages lost there,
	// which the stream's state never tells: the pod says so for as long
	// as it runs (it cannot tell which prices are stale without
	// replaying; a restart after the repair replays).
	c.short = r.Short()
	if h, err := c.heads.Health(ctx, contracts.StateStream); err == nil {
		c.noteHealth(h)
	}
	c.publish(idx)
	c.markReady(start)
	// The stream's head is watched apart from the consumer, so that a
	// consumer that stops reading shows a growing lag instead of a frozen
	// one; the history is loaded beside it, after the state.
	wctx, stopWatch := context.WithCancel(ctx)
	var watching sync.WaitGroup
	watching.Go(func() { c.watchHead(wctx) })
	watching.Go(func() {
		if err := c.runHistory(wctx); err != nil {
			c.log.Error("history stopped; its endpoints serve what was read", "err", err)
		}
	})
	defer watching.Wait()
	defer stopWatch()
	return c.follow(ctx, r, idx)
}

// await waits for stream to exist, asking again after a backoff that
// grows to maxBackoff, and returns its health then; false when ctx ended
// first.
func (c *Consumer) await(ctx context.Context, stream string, maxBackoff time.Duration, warning string) (bus.Health, bool) {
	for backoff := 100 * time.Millisecond; ; backoff = min(2*backoff, maxBackoff) {
		h, err := c.heads.Health(ctx, stream)
		if err == nil {
			return h, true
		}
		c.log.Warn(warning, "stream", stream, "err", err)
		select {
		case <-ctx.Done():
			return bus.Health{}, false
		case <-time.After(backoff):
		}
	}
}

// headInterval is how often a pod asks the stream for its last sequence.
const headInterval = 15 * time.Second

// watchHead exports the stream's last sequence until ctx ends. Lag is that
// minus zoneprice_consumer_applied_sequence.
func (c *Consumer) watchHead(ctx context.Context) {
	tick := time.NewTicker(c.headEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		ictx, cancel := context.WithTimeout(ctx, 5*time.Second)
		h, err := c.heads.Health(ictx, contracts.StateStream)
		cancel()
		if err != nil {
			continue // NATS away: the gauge keeps its last value, nats_connected says why
		}
		c.m.headSeq.Set(float64(h.LastSeq))
		c.noteHealth(h)
	}
}

// healthLogInterval spaces the error logged while the stream stays damaged.
const healthLogInterval = 10 * time.Minute

// noteHealth exports what the stream's state says about whether it holds
// every message it counts, and logs an error when it does not: the pod
// then serves what survived, which is not the whole catalog. It stays
// ready, since serving the surviving prices beats serving nothing; the
// metric and its alert say the catalog is incomplete. Only the goroutine
// that reads the stream calls it, first during catch-up, then from the
// head watch.
func (c *Consumer) noteHealth(h bus.Health) {
	if c.short != "" {
		h.Problems = append(h.Problems, c.short)
	}
	missing := float64(h.LostMsgs)
	if h.Subjects > h.Msgs {
		missing += float64(h.Subjects - h.Msgs)
	}
	c.m.streamMissing.Set(missing)
	if h.Healthy() {
		c.m.streamHealthy.Set(1)
		if c.damaged {
			c.log.Info("state stream whole again", "stream", h.Stream, "health", h.String())
		}
		c.damaged, c.damageLogged = false, time.Time{}
		return
	}
	c.m.streamHealthy.Set(0)
	c.damaged = true
	if !c.damageLogged.IsZero() && time.Since(c.damageLogged) < healthLogInterval {
		return
	}
	c.damageLogged = time.Now()
	c.log.Error("state stream damaged: it lost messages, so the catalog served is incomplete", "stream", h.Stream,
		"health", h.String(), "repair", bus.Repair)
}

// item is one message read from the stream, decoded. A price set or a
// withdrawal is decoded into the item's slot, which the next use of the
// item overwrites: catch-up recycles its batches once applied, so a
// replay allocates no event per message.
type item struct {
	msg  bus.Msg
	ev   contracts.Event
	err  error
	slot contracts.Slot
}

// catchBatch is how many messages catch-up decodes at once across cores.
// Smaller batches overlap the three stages more finely: `make bench`'s
// catch-up (bin/zoneprice-bench -only catchup -runs 5, six runs of each,
// alternating, quiet machine) gave a median real/bare of 1.18 with 256
// against 1.20 with 1024.
const catchBatch = 256

// batch is catchBatch messages of a catch-up, or the error that ended it;
// last marks the batch that caught up.
type batch struct {
	items []item
	last  bool
	err   error
}

// catchUp replays the stream until the reader has caught up with what it
// held at start. Three stages overlap: a reader collects batches of
// messages (collect), a decoder decodes each batch on every core
// (decodeBatches), and this goroutine applies them in stream order. It
// reports done when ctx ended.
func (c *Consumer) catchUp(ctx context.Context, r Reader, idx *cache.Index) (done bool, err error) {
	batches := make(chan batch, 2)
	// free holds applied batches for reuse: at most the two in the
	// channels, one being decoded, one being applied and one being read
	// are in use at once.
	free := make(chan []item, 5)
	go c.collect(ctx, r, batches, free)
	decoded := make(chan batch, 1)
	go decodeBatches(batches, decoded)
	// Both stages end after the last batch or an error; wait for them
	// either way, so that follow owns the reader alone.
	defer func() {
		for range decoded {
		}
	}()
	for b := range decoded {
		if b.err != nil {
			if ctx.Err() != nil {
				return true, nil
			}
			return false, fmt.Errorf("consume %s: %w", contracts.StateStream, b.err)
		}
		// Counted once per batch: a counter's atomic add per message was a
		// measurable share of a replay (BenchmarkCatchUp).
		var n tally
		for i := range b.items {
			c.apply(idx, &b.items[i], &n)
		}
		if len(b.items) > 0 {
			c.m.lastSeq.Set(float64(b.items[len(b.items)-1].msg.Seq))
		}
		c.m.count(&n)
		if b.last {
			return false, nil
		}
		select {
		case free <- b.items:
		default:
		}
	}
	return ctx.Err() != nil, nil
}

// collect is catch-up's first stage: it reads the stream into batches,
// reusing those free hands back, until one is the last or fails.
func (c *Consumer) collect(ctx context.Context, r Reader, batches chan<- batch, free <-chan []item) {
	defer close(batches)
	for {
		var items []item
		select {
		case items = <-free:
		default:
			items = make([]item, 0, catchBatch)
		}
		b := c.fill(ctx, r, items[:0])
		batches <- b
		if b.last || b.err != nil {
			return
		}
	}
}

// fill reads up to catchBatch messages into items, fewer when the reader
// catches up with them (the batch is then the last).
func (c *Consumer) fill(ctx context.Context, r Reader, items []item) batch {
	b := batch{items: items}
	for len(b.items) < catchBatch && !b.last {
		msg, err := r.NextWithin(bus.StallWait)
		if errors.Is(err, bus.ErrNoMetadata) {
			c.reject(msg.Subject, 0, nil, "no_metadata", err)
			continue
		}
		if errors.Is(err, bus.ErrTimeout) {
			// A damaged stream may count messages it can no longer
			// deliver: what arrived is all there is.
			if h, herr := r.Health(ctx); herr == nil && !h.Healthy() {
				c.noteHealth(h)
				b.last = true
			}
			continue
		}
		if err != nil {
			return batch{err: err}
		}
		// A recycled item's slot is left as it is: decoding resets what
		// it uses.
		if n := len(b.items); n < cap(b.items) {
			b.items = b.items[:n+1]
		} else {
			b.items = append(b.items, item{})
		}
		it := &b.items[len(b.items)-1]
		it.msg, it.ev, it.err = msg, nil, nil
		b.last = r.CaughtUp()
		if b.last || len(b.items) == catchBatch {
			c.m.pending.Set(float64(msg.Pending))
		}
	}
	return b
}

// decodeBatches is catch-up's second stage: it decodes each batch while
// the one before is applied.
func decodeBatches(batches <-chan batch, decoded chan<- batch) {
	defer close(decoded)
	decoders := make([]*contracts.Decoder, runtime.GOMAXPROCS(0))
	for i := range decoders {
		decoders[i] = &contracts.Decoder{}
	}
	for b := range batches {
		if b.err == nil {
			decodeAll(b.items, decoders)
		}
		decoded <- b
	}
}

// decodeAll decodes a batch on every core: decoding dominates replay, and
// each message decodes independently.
// Each worker has its own decoder, whose shared strings it keeps across
// batches.
func decodeAll(batch []item, decoders []*contracts.Decoder) {
	workers := min(len(decoders), max(len(batch)/32, 1)) // up to 8 on a batch of 256
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*len(batch)/workers, (w+1)*len(batch)/workers
		d := decoders[w]
		wg.Go(func() {
			for i := lo; i < hi; i++ {
				it := &batch[i]
				it.ev, it.err = d.DecodeInto(it.msg.Data, &it.slot)
			}
		})
	}
	wg.Wait()
}

// follow applies live updates as they arrive. A burst is rendered once it
// has been quiet for Quiet, or after MaxDelay at the latest; a promotion's
// end, or a registrar of the directory turning stale (cache.Index.NextExpiry),
// triggers a render too.
func (c *Consumer) follow(ctx context.Context, r Reader, idx *cache.Index) error {
	dec := &contracts.Decoder{}
	nextExpiry := idx.NextExpiry()
	var dirtySince time.Time
	for {
		var msg bus.Msg
		var err error
		if wait, ok := c.wait(dirtySince, nextExpiry); ok {
			msg, err = r.NextWithin(wait)
		} else {
			msg, err = r.Next()
		}
		switch {
		case err == nil:
		case errors.Is(err, bus.ErrNoMetadata):
			c.reject(msg.Subject, 0, nil, "no_metadata", err)
			continue
		case errors.Is(err, bus.ErrTimeout):
			idx.Expire(c.now())
			nextExpiry = c.publish(idx)
			dirtySince = time.Time{}
			continue
		case ctx.Err() != nil:
			return nil
		default:
			return fmt.Errorf("consume %s: %w", contracts.StateStream, err)
		}
		c.m.pending.Set(float64(msg.Pending))
		in := item{msg: msg}
		in.ev, in.err = dec.Decode(msg.Data)
		var n tally
		dirty := c.apply(idx, &in, &n)
		c.m.lastSeq.Set(float64(msg.Seq))
		c.m.count(&n)
		if dirty && dirtySince.IsZero() {
			dirtySince = time.Now()
		}
		now := c.now()
		expired := !nextExpiry.IsZero() && !now.Before(nextExpiry)
		if expired {
			// Updates that keep arriving must not hold back a promotion's end.
			idx.Expire(now)
		}
		if expired || (!dirtySince.IsZero() && time.Since(dirtySince) >= c.cfg.MaxDelay) {
			nextExpiry = c.publish(idx)
			dirtySince = time.Time{}
		}
	}
}

// wait returns how long the next read may block before something must be
// rendered: a pending change, a promotion about to end or a registrar about
// to turn stale. Coalescing is timed on the real clock; promotions and
// staleness on the data clock (c.now), which tests may set.
func (c *Consumer) wait(dirtySince, nextExpiry time.Time) (time.Duration, bool) {
	var wait time.Duration
	ok := false
	if !dirtySince.IsZero() {
		wait = max(min(c.cfg.Quiet, c.cfg.MaxDelay-time.Since(dirtySince)), time.Millisecond)
		ok = true
	}
	if !nextExpiry.IsZero() {
		until := max(nextExpiry.Sub(c.now()), time.Millisecond)
		if !ok || until < wait {
			wait, ok = until, true
		}
	}
	return wait, ok
}

// apply applies one decoded message, reporting whether the index has
// changes to render; n counts its outcome, for the caller to add to the
// metrics. A message that cannot be applied is counted by reason, logged
// with its subject and sequence, and skipped.
func (c *Consumer) apply(idx *cache.Index, in *item, n *tally) bool {
	if in.err != nil {
		reason := "invalid"
		switch {
		case errors.Is(in.err, contracts.ErrMalformedJSON):
			reason = "malformed_json"
		case errors.Is(in.err, contracts.ErrUnknownKind):
			reason = "unknown_kind"
		case errors.Is(in.err, contracts.ErrTooLarge):
			reason = "too_large"
		}
		c.reject(in.msg.Subject, in.msg.Seq, nil, reason, in.err)
		return idx.Dirty()
	}
	if !contracts.OnSubject(in.ev, in.msg.Subject) {
		c.reject(in.msg.Subject, in.msg.Seq, in.ev, "subject_mismatch", fmt.Errorf("event belongs on %s", in.ev.Subject()))
		return idx.Dirty()
	}
	// Judged against when the stream stored it, not this pod's clock, so
	// that every pod judges the document alike whenever it reads it.
	if err := contracts.CheckObserved(in.ev, in.msg.Stored); err != nil {
		c.reject(in.msg.Subject, in.msg.Seq, in.ev, "future", err)
		return idx.Dirty()
	}
	out := idx.Apply(in.msg.Seq, in.msg.Stored, in.ev)
	switch out {
	case cache.Refused:
		c.reject(in.msg.Subject, in.msg.Seq, in.ev, "zone_full", fmt.Errorf("the zone already has %d registrars", contracts.MaxRegistrarsPerZone))
		return idx.Dirty()
	case cache.SourceFull:
		c.reject(in.msg.Subject, in.msg.Seq, in.ev, "source_full", fmt.Errorf("the source already prices %d registrars of the zone", contracts.MaxRegistrarsPerSource))
		return idx.Dirty()
	}
	n[out]++
	return idx.Dirty()
}

// reject counts a message the pod could not apply, and logs it (rejects
// keeps a flood to a few lines). ev is the document, nil when it could
// not be read.
func (c *Consumer) reject(subject string, seq uint64, ev contracts.Event, reason string, err error) {
	c.m.rejected.WithLabelValues(reason).Inc()
	c.rejects.warn("event rejected", subject, seq, reason, contracts.SourceOf(ev), err)
}

// publish renders what changed and swaps the new snapshot in. It returns
// when the next promotion it shows ends, which must then be re-rendered.
func (c *Consumer) publish(idx *cache.Index) time.Time {
	if !idx.Dirty() && c.snap.Load().Version == idx.Version() {
		return idx.NextExpiry()
	}
	t := time.Now()
	s := idx.Build(c.now())
	c.m.buildSeconds.Observe(time.Since(t).Seconds())
	c.snap.Store(s)
	c.m.zones.Set(float64(s.Zones))
	c.m.prices.Set(float64(s.Prices))
	c.m.registrars.Set(float64(s.Registrars))
	c.m.bodyBytes.Set(float64(s.BodyBytes))
	c.m.version.Set(float64(s.Version))
	if !s.AsOf.IsZero() {
		c.m.asOf.Set(float64(s.AsOf.UnixNano()) / 1e9)
	}
	ages := sourceAges(s.Sources)
	for src, t := range ages {
		c.m.sourceAsOf.WithLabelValues(src).Set(float64(t.UnixNano()) / 1e9)
	}
	// A source whose prices are all gone has no age. Only those series
	// go: clearing all and setting them again would let a scrape see none.
	for src := range c.sources {
		if _, ok := ages[src]; !ok {
			c.m.sourceAsOf.DeleteLabelValues(src)
		}
	}
	c.sources = ages
	return idx.NextExpiry()
}

// maxSourceSeries bounds the series of zoneprice_source_as_of_timestamp_seconds:
// source ids are short and well formed (contracts.ValidSource), but a
// publisher could still invent thousands of them.
const maxSourceSeries = 64

// otherSources labels the sources beyond maxSourceSeries, together.
const otherSources = "other"

// sourceAges is each source's age as the metric labels it: the first
// maxSourceSeries sources by name under their own, and the newest of the
// rest under "other". The sample always has its own series: the alert that
// the sample is served reads it.
func sourceAges(sources map[string]time.Time) map[string]time.Time {
	if len(sources) <= maxSourceSeries {
		return sources
	}
	names := slices.Sorted(maps.Keys(sources))
	ages := make(map[string]time.Time, maxSourceSeries+2)
	n := 0
	for _, name := range names {
		label := name
		switch {
		case name == contracts.SampleSource:
		case n < maxSourceSeries:
			n++
		default:
			label = otherSources
		}
		if t := sources[name]; t.After(ages[label]) {
			ages[label] = t
		}
	}
	return ages
}

func (c *Consumer) markReady(start time.Time) {
	d := time.Since(start)
	c.m.catchup.Set(d.Seconds())
	c.m.ready.Set(1)
	close(c.ready)
	s := c.Snapshot()
	if c.damaged {
		c.log.Error("caught up with a damaged state stream; ready, serving what survived", "took", d.Round(time.Millisecond),
			"zones", s.Zones, "prices", s.Prices, "registrars", s.Registrars)
		return
	}
	c.log.Info("caught up; ready", "took", d.Round(time.Millisecond), "zones", s.Zones, "prices", s.Prices, "registrars", s.Registrars)
}

type consumerMetrics struct {
	applied      *prometheus.CounterVec
	outcomes     [cache.NumOutcomes]prometheus.Counter // applied, by cache.Outcome
	rejected     *prometheus.CounterVec
	lastSeq      prometheus.Gauge
	ready        prometheus.Gauge
	catchup      prometheus.Gauge
	buildSeconds prometheus.Histogram
	pending      prometheus.Gauge
	headSeq      prometheus.Gauge
	asOf         prometheus.Gauge
	sourceAsOf   *prometheus.GaugeVec
	zones        prometheus.Gauge
	prices       prometheus.Gauge
	registrars   prometheus.Gauge
	bodyBytes    prometheus.Gauge
	version      prometheus.Gauge
	// streamHealthy and streamMissing say whether the state stream holds
	// every message it counts (stream.Health).
	streamHealthy, streamMissing prometheus.Gauge
}

func newConsumerMetrics(reg prometheus.Registerer) (*consumerMetrics, error) {
	m := &consumerMetrics{
		applied: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "zoneprice_consumer_messages_total", Help: "State stream messages read, by what applying them did.",
		}, []string{"outcome"}),
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "zoneprice_consumer_messages_rejected_total", Help: "State stream messages skipped as malformed or invalid, by reason.",
		}, []string{"reason"}),
		lastSeq: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "zoneprice_consumer_applied_sequence", Help: "Stream sequence of the last message read.",
		}),
		ready: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "zoneprice_consumer_ready", Help: "1 once the pod has caught up with the stream.",
		}),
		catchup: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "zoneprice_consumer_catchup_seconds", Help: "How long the initial replay of the state stream took.",
		}),
		buildSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "zoneprice_snapshot_build_seconds", Help: "Time to render a new snapshot.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 9),
		}),
		pending: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "zoneprice_consumer_pending_messages", Help: "Messages the stream held beyond the last one read (consumer lag).",
		}),
		headSeq: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "zoneprice_stream_last_sequence", Help: "The state stream's last sequence, asked every 15s; minus the applied sequence it is the lag.",
		}),
		asOf: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "zoneprice_snapshot_as_of_timestamp_seconds", Help: "Newest observed_at in the served data; time() minus it is the data's age.",
		}),
		sourceAsOf: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "zoneprice_source_as_of_timestamp_seconds", Help: "Newest observed_at of each source's live prices; time() minus it is the source's age.",
		}, []string{"source"}),
		zones:      prometheus.NewGauge(prometheus.GaugeOpts{Name: "zoneprice_index_zones", Help: "Zones with at least one price."}),
		prices:     prometheus.NewGauge(prometheus.GaugeOpts{Name: "zoneprice_index_prices", Help: "Current registrar price sets."}),
		registrars: prometheus.NewGauge(prometheus.GaugeOpts{Name: "zoneprice_index_registrars", Help: "Registrars with at least one price."}),
		bodyBytes:  prometheus.NewGauge(prometheus.GaugeOpts{Name: "zoneprice_snapshot_body_bytes", Help: "Bytes of the response bodies rendered with the current snapshot (comparisons are rendered when first asked for, and not counted)."}),
		version:    prometheus.NewGauge(prometheus.GaugeOpts{Name: "zoneprice_snapshot_version", Help: "Data version of the current snapshot."}),
		streamHealthy: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "zoneprice_stream_healthy",
			Help: "1 while the state stream holds every message it counts; 0 when it lost messages to damaged storage, and the catalog served is incomplete (see zoneprice-admin stream check).",
		}),
		streamMissing: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "zoneprice_stream_missing_messages",
			Help: "Messages the state stream counts (one per subject) but no longer holds, or reports lost.",
		}),
	}
	for o := range m.outcomes {
		if o := cache.Outcome(o); o == cache.Refused || o == cache.SourceFull {
			continue // counted as rejected, reasons zone_full and source_full
		}
		m.outcomes[o] = m.applied.WithLabelValues(cache.Outcome(o).String())
	}
	// Every reason exists from the start at zero, so rate() and increase()
	// see the first rejection.
	for _, reason := range []string{"malformed_json", "unknown_kind", "too_large", "invalid", "subject_mismatch", "future", "zone_full", "source_full", "no_metadata"} {
		m.rejected.WithLabelValues(reason)
	}
	for _, col := range []prometheus.Collector{m.applied, m.rejected, m.lastSeq, m.pending, m.headSeq, m.asOf, m.sourceAsOf, m.ready, m.catchup, m.buildSeconds, m.zones, m.prices, m.registrars, m.bodyBytes, m.version, m.streamHealthy, m.streamMissing} {
		if err := reg.Register(col); err != nil {
			return nil, fmt.Errorf("register consumer metrics: %w", err)
		}
	}
	return m, nil
}

// tally counts apply outcomes between two updates of the metrics.
type tally [cache.NumOutcomes]int

// count adds n to the applied counters.
func (m *consumerMetrics) count(n *tally) {
	for o, k := range n {
		if k > 0 && m.outcomes[o] != nil {
			m.outcomes[o].Add(float64(k))
		}
	}
}
