package ingest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
)

// RunnerConfig configures a Runner.
type RunnerConfig struct {
	// Interval between fetches; zero means fetch once and return.
	Interval time.Duration
	// Jitter is the largest random delay added to each interval, so that
	// sources started together do not fetch in lockstep.
	Jitter time.Duration
	// Timeout bounds one fetch.
	Timeout time.Duration
	// MinKeepRatio refuses a list in which a registrar has fewer than this
	// share of the zones of its last good list: nothing is withdrawn.
	MinKeepRatio float64
	// Refresh republishes an unchanged document once the stream's copy is
	// this old, so that observed_at (and every freshness measure built on
	// it) says when a price was last confirmed, not only when it last
	// changed. Zero never refreshes.
	Refresh time.Duration
	// StatedInterval is the fetch interval a one-round run (Interval
	// zero) states in its registrars' statuses: the interval the source
	// runs at when it runs on. Zero states an hour.
	StatedInterval time.Duration
}

// DefaultRunnerConfig is a sensible configuration for a live source.
func DefaultRunnerConfig() RunnerConfig {
	return RunnerConfig{Interval: time.Hour, Jitter: 5 * time.Minute, Timeout: time.Minute, MinKeepRatio: 0.5, Refresh: 24 * time.Hour}
}

// Validate reports a configuration that cannot work.
func (c RunnerConfig) Validate() error {
	switch {
	case c.Interval < 0:
		return errors.New("interval must not be negative")
	case c.Jitter < 0:
		return errors.New("jitter must not be negative")
	case c.Timeout <= 0:
		return errors.New("timeout must be positive")
	case c.MinKeepRatio < 0 || c.MinKeepRatio > 1:
		return errors.New("min keep ratio must be between 0 and 1")
	case c.Refresh < 0:
		return errors.New("refresh must not be negative")
	case c.StatedInterval < 0:
		return errors.New("stated interval must not be negative")
	}
	return nil
}

// ErrShrunk is returned when a list lost too many zones to be trusted.
var ErrShrunk = errors.New("price list shrank suspiciously")

// LastReader reads the last message on every subject of a stream that
// matches cfg.Filters (bus.Streams): how a runner learns what the state
// and history streams hold, and the stand-ins whether someone else
// publishes. It returns an error that is bus.ErrNoStream when the stream
// is not provisioned, and one that is bus.ErrIncomplete when the stream
// lost messages it still counts (fn has then had what survived).
type LastReader interface {
	ReadLast(ctx context.Context, stream string, cfg bus.ReaderConfig, fn func(bus.Msg) bool) error
}

// Sender publishes encoded events and waits for the streams'
// acknowledgements, keeping at most window in flight (bus.Publisher.Send).
type Sender interface {
	Send(ctx context.Context, msgs []contracts.Message, window int) (published, duplicates int, err error)
}

// Runner fetches one Source on its interval and publishes what changed:
// new or changed price sets, zone metadata and rates, and withdrawals for
// zones that disappeared from a registrar's list. Each round compares the
// list with what the stream holds, by fingerprints that ignore observed_at,
// so an unchanged price observed again is not republished, and a restart
// needs no memory of earlier rounds.
type Runner struct {
	src       Source
	streams   LastReader
	pub       Sender
	cfg       RunnerConfig
	log       *slog.Logger
	now       func() time.Time
	m         *runnerMetrics
	first     chan struct{} // closed after Run's first round
	firstOnce sync.Once
	wake      chan struct{} // a buffered request for an early round
	// republish asks the next round to publish the whole list, changed
	// or not (Republish).
	republish atomic.Bool
	after     []func(*List)
	root      Root // the root-zone guard (Guard); nil skips nothing
	// beforeState, when set (by tests), runs between recording a
	// round's changes and publishing its prices; an error ends the round
	// there, as a crash would.
	beforeState func() error
	// reconciled says the runner has reconciled the state with the
	// history (reconcileOnce); Once runs on one goroutine at a time.
	reconciled bool
}

type runnerMetrics struct {
	fetches     *prometheus.CounterVec
	fetchTime   prometheus.Histogram
	published   prometheus.Counter
	duplicates  prometheus.Counter
	withdrawn   prometheus.Counter
	invalid     prometheus.Counter
	refused     *prometheus.CounterVec
	skipped     prometheus.Counter
	outside     *prometheus.CounterVec
	drift       *prometheus.GaugeVec
	lastSuccess prometheus.Gauge
	interval    prometheus.Gauge
	changes     *prometheus.CounterVec
}

// NewRunner returns a Runner for src that reads what the streams hold
// from streams and publishes with pub. Metrics are labelled with the
// source's name and registered on reg.
func NewRunner(src Source, streams LastReader, pub Sender, cfg RunnerConfig, log *slog.Logger, reg prometheus.Registerer, now func() time.Time) (*Runner, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("source %s: %w", src.Name(), err)
	}
	m, err := newRunnerMetrics(src.Name(), cfg, reg)
	if err != nil {
		return nil, err
	}
	return &Runner{
		src: src, streams: streams, pub: pub, cfg: cfg, log: log.With("source", src.Name()), now: now, m: m,
		first: make(chan struct{}),
		wake:  make(chan struct{}, 1),
	}, nil
}

// newRunnerMetrics makes a source's metrics, every series of a label
// present at zero from the start, and registers them on reg.
func newRunnerMetrics(source string, cfg RunnerConfig, reg prometheus.Registerer) (*runnerMetrics, error) {
	labels := prometheus.Labels{"source": source}
	counter := func(name, help string) prometheus.Counter {
		return prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: labels})
	}
	m := &runnerMetrics{
		fetches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "zoneprice_ingest_fetches_total", Help: "Price list fetches by outcome.", ConstLabels: labels,
		}, []string{"outcome"}),
		fetchTime: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "zoneprice_ingest_fetch_duration_seconds", Help: "Time to fetch and parse a price list.", ConstLabels: labels,
			Buckets: prometheus.ExponentialBuckets(0.01, 3, 9),
		}),
		published:  counter("zoneprice_ingest_events_published_total", "Events published and acknowledged by the stream."),
		duplicates: counter("zoneprice_ingest_events_deduplicated_total", "Events the stream dropped as duplicates."),
		withdrawn:  counter("zoneprice_ingest_withdrawals_total", "Zones withdrawn because they left a registrar's list."),
		invalid:    counter("zoneprice_ingest_events_invalid_total", "Events a source produced that failed validation and were skipped."),
		skipped:    counter("zoneprice_ingest_rows_skipped_total", "Rows of a fetched list the source could not read; their last good prices stay."),
		lastSuccess: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "zoneprice_ingest_last_success_timestamp_seconds", Help: "When the source last published a good list.", ConstLabels: labels,
		}),
		interval: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "zoneprice_ingest_interval_seconds", ConstLabels: labels,
			Help: "The source's fetch interval (0 for one round): how old its last success may be before it is late.",
		}),
	}
	m.interval.Set(cfg.Interval.Seconds())
	for _, outcome := range []string{"ok", "error", "refused"} {
		m.fetches.WithLabelValues(outcome) // present at zero from the start
	}
	m.refused = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "zoneprice_ingest_events_refused_total", ConstLabels: labels,
		Help: "Valid events a source produced that the runner would not publish, by reason: future (observed_at ahead of now), rate_jump (a rate moved by more than contracts.MaxRateJump), older_rates (older than the stream's).",
	}, []string{"reason"})
	for _, reason := range []string{"future", "rate_jump", "older_rates"} {
		m.refused.WithLabelValues(reason) // present at zero from the start
	}
	m.outside = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "zoneprice_ingest_names_outside_root_total", ConstLabels: labels,
		Help: "Names of fetched lists that the root-zone guard skipped as no zone of the DNS root, by reason: not-in-root (the TLD is not delegated: Handshake names, typos), unknown-second-level; never published.",
	}, []string{"reason"})
	for _, reason := range contracts.SkipReasons() {
		m.outside.WithLabelValues(reason)
	}
	m.drift = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "zoneprice_ingest_format_drift_fields", ConstLabels: labels,
		Help: "Fields of the last document the source read that differ from the format its adapter declares, by kind: unknown (a field it has never seen), missing (one it reads is gone), shape (a value of another kind: an object where an array was); the log names them.",
	}, []string{"kind"})
	for _, kind := range DriftKinds() {
		m.drift.WithLabelValues(kind)
	}
	m.changes = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "zoneprice_ingest_changes_total", ConstLabels: labels,
		Help: "Price changes recorded on the history stream, by change: added, changed, withdrawn, known (a price first recorded as history started).",
	}, []string{"change"})
	for _, c := range []contracts.Change{contracts.ChangeAdded, contracts.ChangeChanged, contracts.ChangeWithdrawn, contracts.ChangeKnown} {
		m.changes.WithLabelValues(string(c))
	}
	for _, c := range []prometheus.Collector{m.fetches, m.fetchTime, m.published, m.duplicates, m.withdrawn, m.invalid, m.refused, m.skipped, m.outside, m.drift, m.lastSuccess, m.interval, m.changes} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register metrics of source %s: %w", source, err)
		}
	}
	return m, nil
}

// Run fetches and publishes until ctx ends, or once when the interval is
// zero. A failed fetch is logged and counted; the last published prices stay.
func (r *Runner) Run(ctx context.Context) error {
	for round := 0; ; round++ {
		err := r.Once(ctx)
		if round == 0 {
			r.firstOnce.Do(func() { close(r.first) })
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			r.log.Error("price list not published; last good prices stay", "err", err)
			if r.cfg.Interval == 0 {
				return err
			}
		}
		if r.cfg.Interval == 0 {
			return nil
		}
		wait := r.cfg.Interval
		if r.cfg.Jitter > 0 {
			wait += rand.N(r.cfg.Jitter)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		case <-r.wake:
			t.Stop()
		}
	}
}

// Wake asks a running Run for its next round now rather than at the end of
// its interval. Requests made while a round runs fold into one.
func (r *Runner) Wake() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Republish asks for a round now that publishes the whole list, whether
// or not the stream already holds it: the repair after the stream lost
// messages (the runner's diff would otherwise skip what the stream still
// counts as held).
func (r *Runner) Republish() {
	r.republish.Store(true)
	r.Wake()
}

// AfterSuccess registers f to be called with the list after every round
// that published it whole. It must be called before Run.
func (r *Runner) AfterSuccess(f func(*List)) { r.after = append(r.after, f) }

// FirstRound is closed once Run has finished its first fetch, whether it
// published or failed. The all-in-one command waits for it before it starts
// consuming, so its first catalog is whole.
func (r *Runner) FirstRound() <-chan struct{} { return r.first }

// Once fetches the list one time and publishes what changed, then, when
// the source describes itself (Describer), the status of every registrar
// it speaks for: how the round went.
func (r *Runner) Once(ctx context.Context) error {
	out := &outcome{at: r.now()}
	err := r.round(ctx, out)
	if err != nil && out.failure == "" {
		out.failure = contracts.FailurePublish
	}
	r.report(ctx, out)
	return err
}

// outcome is what one round did, for the registrars' statuses.
type outcome struct {
	at time.Time
	// list is the round's list, less the names the root-zone guard
	// skipped, once it was published; nil after a failure.
	list  *List
	skips []Skip
	// failure is the class of the round's failure
	// (contracts.FailureFetch, ...), "" when it published.
	failure string
}

// round is Once but the statuses: fetch, guard, compare with the
// streams, record the changes and publish the prices.
func (r *Runner) round(ctx context.Context, out *outcome) error {
	list, err := r.fetch(ctx)
	if err != nil {
		out.failure = failureOf(err)
		r.reconcileOnce(ctx)
		return err
	}
	list, skips, inRoot, err := r.guard(ctx, list)
	if err != nil {
		r.m.fetches.WithLabelValues("error").Inc()
		return err
	}
	r.reportSkips(skips)
	pl, err := r.plan(ctx, list, inRoot)
	if err != nil {
		switch {
		case errors.Is(err, ErrShrunk):
			out.failure = contracts.FailureShrunk
		case errors.Is(err, errRefused):
			out.failure = contracts.FailureParse
		}
		return err
	}
	if err := r.publish(ctx, pl); err != nil {
		return err
	}
	out.list, out.skips = list, skips
	r.m.withdrawn.Add(float64(pl.withdrawn))
	r.m.fetches.WithLabelValues("ok").Inc()
	r.m.lastSuccess.Set(float64(r.now().Unix()))
	r.log.Info("price list published", "events", len(pl.messages), "changes", len(pl.changes), "withdrawn", pl.withdrawn, "invalid", pl.invalid,
		"prices", len(list.Prices), "zones", len(list.Zones), "retired", len(list.Retired))
	for _, f := range r.after {
		f(list)
	}
	return nil
}

// fetch fetches the source's list, and counts and logs the rows it could
// not read.
func (r *Runner) fetch(ctx context.Context) (*List, error) {
	fctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	start := time.Now()
	list, err := r.src.Fetch(fctx)
	r.m.fetchTime.Observe(time.Since(start).Seconds())
	cancel()
	r.reportDrift(list, err)
	if err != nil {
		r.m.fetches.WithLabelValues("error").Inc()
		return nil, fmt.Errorf("fetch %s: %w", r.src.Name(), err)
	}
	if list.Skipped > 0 {
		r.m.skipped.Add(float64(list.Skipped))
		r.log.Warn("rows of the list could not be read; their last good prices stay", "skipped", list.Skipped)
	}
	return list, nil
}

// errRefused marks a list the runner would not publish as it is (one that
// both lists and retires a registrar); ErrShrunk is one too.
var errRefused = errors.New("price list refused")

// plan compares the list with what the streams hold: the changes to
// record and the messages to publish, or a refusal.
func (r *Runner) plan(ctx context.Context, list *List, inRoot func(string) string) (*plan, error) {
	stored, err := r.stored(ctx, list)
	if errors.Is(err, bus.ErrIncomplete) {
		// What the stream still delivers is all there is: diffing
		// against it republishes what was lost.
		r.log.Error("the state stream lost messages; publishing what it no longer holds", "err", err, "repair", bus.Repair)
		err = nil
	}
	if err != nil {
		r.m.fetches.WithLabelValues("error").Inc()
		return nil, fmt.Errorf("read current state of %s: %w", r.src.Name(), err)
	}
	recorded, err := r.recorded(ctx, list)
	if err != nil {
		r.m.fetches.WithLabelValues("error").Inc()
		return nil, fmt.Errorf("read history of %s: %w", r.src.Name(), err)
	}
	pl, err := r.diff(list, stored, recorded, inRoot, r.republish.Swap(false))
	if err != nil {
		r.m.fetches.WithLabelValues("refused").Inc()
		return nil, err
	}
	if recorded != nil {
		if err := r.changes(pl, stored, recorded); err != nil {
			return nil, err
		}
	}
	return pl, nil
}

// publish records a plan's changes on the history stream, then publishes
// its messages to the state stream.
func (r *Runner) publish(ctx context.Context, pl *plan) error {
	// Changes first: a change is recorded before the price it leads to,
	// so that a crash between the two leaves the history ahead of the
	// state, and the next round, which compares the list with the
	// history's last word, records nothing twice and publishes the state.
	pctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	defer cancel()
	if _, _, err := r.pub.Send(pctx, pl.changes, 256); err != nil {
		r.m.fetches.WithLabelValues("error").Inc()
		// Nothing of the state was published: the next round finds the
		// same changes, less those the history now holds.
		return fmt.Errorf("record changes: %w", err)
	}
	for change, n := range pl.changeCounts {
		r.m.changes.WithLabelValues(string(change)).Add(float64(n))
	}
	if r.beforeState != nil {
		if err := r.beforeState(); err != nil {
			return err
		}
	}
	published, dups, err := r.pub.Send(pctx, pl.messages, 256)
	r.m.published.Add(float64(published - dups))
	r.m.duplicates.Add(float64(dups))
	if err != nil {
		r.m.fetches.WithLabelValues("error").Inc()
		// The next round diffs against what the stream then holds, so
		// whatever did not arrive is published again.
		return err
	}
	return nil
}

// storedEvent is what the stream holds on one subject: a fingerprint of
// the document (zero when it does not decode), whether it is a live price
// set or a withdrawal, and when it was observed.
type storedEvent struct {
	fp        [32]byte
	live      bool
	withdrawn bool
	observed  time.Time
	ratesDate string           // of a rates document
	rates     *contracts.Rates // the rates document itself
	source    string           // of a rates document or a price set
	offer     *contracts.Offer // of a live price set
}

// stored reads the stream's current message on every subject the list
// speaks for: the price subjects of its registrars, and zone metadata and
// rates when it has them. Diffing against the stream rather than against
// memory means a restarted runner neither republishes everything nor forgets
// to withdraw, and a document someone else overwrote is put right.
func (r *Runner) stored(ctx context.Context, list *List) (map[string]storedEvent, error) {
	var filters []string
	seen := map[string]bool{}
	for i := range list.Prices {
		if reg := list.Prices[i].Registrar; !seen[reg] && contracts.ValidRegistrar(reg) {
			seen[reg] = true
			filters = append(filters, contracts.RegistrarPriceFilter(reg))
		}
	}
	for _, reg := range list.Retired {
		if !seen[reg] && contracts.ValidRegistrar(reg) {
			seen[reg] = true
			filters = append(filters, contracts.RegistrarPriceFilter(reg))
		}
	}
	if len(list.Zones) > 0 {
		filters = append(filters, contracts.ZoneSubjectPrefix+"*")
	}
	if len(list.Rates) > 0 {
		filters = append(filters, contracts.RatesSubjectPrefix+"*")
	}
	out := map[string]storedEvent{}
	if len(filters) == 0 {
		return out, nil
	}
	ctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	defer cancel()
	err := r.streams.ReadLast(ctx, contracts.StateStream, bus.ReaderConfig{Filters: filters}, func(msg bus.Msg) bool {
		var st storedEvent
		if ev, err := contracts.Decode(msg.Data); err == nil && contracts.OnSubject(ev, msg.Subject) {
			st.fp = fingerprint(ev)
			switch e := ev.(type) {
			case *contracts.PriceSet:
				st.live, st.observed, st.source, st.offer = true, e.ObservedAt, e.Source, e.Offer()
			case *contracts.Withdrawal:
				st.withdrawn = true
			case *contracts.ZoneMeta:
				st.observed = e.ObservedAt
			case *contracts.Rates:
				st.observed, st.ratesDate, st.source, st.rates = e.ObservedAt, e.Date, e.Source, e
			}
		}
		out[msg.Subject] = st
		return true
	})
	if errors.Is(err, bus.ErrIncomplete) {
		return out, err // what survived, and why it is not all
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}
