package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/contracts"
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
}

// DefaultRunnerConfig is a sensible configuration for a live source.
func DefaultRunnerConfig() RunnerConfig {
	return RunnerConfig{Interval: time.Hour, Jitter: 5 * time.Minute, Timeout: time.Minute, MinKeepRatio: 0.5}
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
	}
	return nil
}

// ErrShrunk is returned when a list lost too many zones to be trusted.
var ErrShrunk = errors.New("price list shrank suspiciously")

// Runner fetches one Source on its interval and publishes what changed:
// new or changed price sets, zone metadata and rates, and withdrawals for
// zones that disappeared from a registrar's list. It remembers what it
// published as fingerprints that ignore observed_at, so an unchanged price
// observed again is not republished.
type Runner struct {
	src       Source
	pub       *Publisher
	cfg       RunnerConfig
	log       *slog.Logger
	now       func() time.Time
	m         *runnerMetrics
	last      map[string][32]byte        // subject -> fingerprint of what was published
	owned     map[string]map[string]bool // registrar -> price subjects last published
	sizes     map[string]int             // registrar -> zones in its last good list
	first     chan struct{}              // closed after Run's first round
	firstOnce sync.Once
}

type runnerMetrics struct {
	fetches     *prometheus.CounterVec
	published   prometheus.Counter
	duplicates  prometheus.Counter
	withdrawn   prometheus.Counter
	invalid     prometheus.Counter
	lastSuccess prometheus.Gauge
}

// NewRunner returns a Runner for src. Metrics are labelled with the
// source's name and registered on reg.
func NewRunner(src Source, pub *Publisher, cfg RunnerConfig, log *slog.Logger, reg prometheus.Registerer, now func() time.Time) (*Runner, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("source %s: %w", src.Name(), err)
	}
	labels := prometheus.Labels{"source": src.Name()}
	m := &runnerMetrics{
		fetches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "zoneprice_ingest_fetches_total", Help: "Price list fetches by outcome.", ConstLabels: labels,
		}, []string{"outcome"}),
		published: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "zoneprice_ingest_events_published_total", Help: "Events published and acknowledged by the stream.", ConstLabels: labels,
		}),
		duplicates: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "zoneprice_ingest_events_deduplicated_total", Help: "Events the stream dropped as duplicates.", ConstLabels: labels,
		}),
		withdrawn: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "zoneprice_ingest_withdrawals_total", Help: "Zones withdrawn because they left a registrar's list.", ConstLabels: labels,
		}),
		invalid: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "zoneprice_ingest_events_invalid_total", Help: "Events a source produced that failed validation and were skipped.", ConstLabels: labels,
		}),
		lastSuccess: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "zoneprice_ingest_last_success_timestamp_seconds", Help: "When the source last published a good list.", ConstLabels: labels,
		}),
	}
	for _, c := range []prometheus.Collector{m.fetches, m.published, m.duplicates, m.withdrawn, m.invalid, m.lastSuccess} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register metrics of source %s: %w", src.Name(), err)
		}
	}
	return &Runner{
		src: src, pub: pub, cfg: cfg, log: log.With("source", src.Name()), now: now, m: m,
		last: map[string][32]byte{}, owned: map[string]map[string]bool{}, sizes: map[string]int{},
		first: make(chan struct{}),
	}, nil
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
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
	}
}

// FirstRound is closed once Run has finished its first fetch, whether it
// published or failed. The all-in-one command waits for it before it starts
// consuming, so its first catalog is whole.
func (r *Runner) FirstRound() <-chan struct{} { return r.first }

// Once fetches the list one time and publishes what changed.
func (r *Runner) Once(ctx context.Context) error {
	fctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	list, err := r.src.Fetch(fctx)
	cancel()
	if err != nil {
		r.m.fetches.WithLabelValues("error").Inc()
		return fmt.Errorf("fetch %s: %w", r.src.Name(), err)
	}
	pl, err := r.diff(list)
	if err != nil {
		r.m.fetches.WithLabelValues("refused").Inc()
		return err
	}
	pctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	published, dups, err := r.pub.PublishAll(pctx, pl.events, 256)
	cancel()
	r.m.published.Add(float64(published - dups))
	r.m.duplicates.Add(float64(dups))
	if err != nil {
		r.m.fetches.WithLabelValues("error").Inc()
		// Nothing is committed: the next run diffs against the last
		// good baseline and publishes the same changes again. What did
		// arrive is then re-applied with the same prices, which is
		// harmless.
		return err
	}
	r.commit(list, pl)
	r.m.withdrawn.Add(float64(len(pl.withdrawn)))
	r.m.fetches.WithLabelValues("ok").Inc()
	r.m.lastSuccess.Set(float64(r.now().Unix()))
	r.log.Info("price list published", "events", published, "duplicates", dups, "withdrawn", len(pl.withdrawn), "invalid", len(pl.invalid),
		"prices", len(list.Prices), "zones", len(list.Zones))
	return nil
}

// plan is what one run publishes.
type plan struct {
	events    []contracts.Event
	withdrawn []string            // price subjects withdrawn
	invalid   map[string]struct{} // subjects whose listed event failed validation
}

// diff returns the events that differ from what was last published, plus a
// withdrawal for every price subject a registrar no longer lists. It refuses
// the list if a registrar shrank below MinKeepRatio of its last good size.
// An event that fails validation is skipped and counted; its zone still
// counts as listed, so a bad row never withdraws a good price.
func (r *Runner) diff(list *List) (*plan, error) {
	now := r.now()
	pl := &plan{invalid: map[string]struct{}{}}
	current := map[string]map[string]bool{}
	for i := range list.Prices {
		p := &list.Prices[i]
		if !contracts.ValidRegistrar(p.Registrar) || !contracts.IsCanonicalZone(p.Zone) {
			continue
		}
		if current[p.Registrar] == nil {
			current[p.Registrar] = map[string]bool{}
		}
		current[p.Registrar][p.Subject()] = true
	}
	for reg, subjects := range current {
		if prev := r.sizes[reg]; prev > 0 && float64(len(subjects)) < r.cfg.MinKeepRatio*float64(prev) {
			return nil, fmt.Errorf("%w: registrar %s lists %d zones, last good list had %d", ErrShrunk, reg, len(subjects), prev)
		}
	}
	add := func(ev contracts.Event) {
		if err := ev.Validate(); err != nil {
			pl.invalid[ev.Subject()] = struct{}{}
			r.m.invalid.Inc()
			r.log.Warn("event skipped: invalid", "subject", ev.Subject(), "err", err)
			return
		}
		if fp := fingerprint(ev); r.last[ev.Subject()] != fp {
			pl.events = append(pl.events, ev)
		}
	}
	for i := range list.Prices {
		add(&list.Prices[i])
	}
	for i := range list.Zones {
		add(&list.Zones[i])
	}
	for i := range list.Rates {
		add(&list.Rates[i])
	}
	for reg, subjects := range r.owned {
		cur, listed := current[reg]
		if !listed {
			// A registrar missing entirely is a broken list, not a
			// registrar that stopped selling everything.
			continue
		}
		for subject := range subjects {
			if cur[subject] {
				continue
			}
			zone := contracts.ZoneFromToken(subject[len(contracts.PriceSubjectPrefix)+len(reg)+1:])
			pl.events = append(pl.events, &contracts.Withdrawal{
				V: contracts.SchemaVersion, Kind: contracts.KindWithdrawal, Registrar: reg, Zone: zone,
				ObservedAt: now, Source: r.src.Name(),
			})
			pl.withdrawn = append(pl.withdrawn, subject)
		}
	}
	return pl, nil
}

// commit records a published list as the new baseline.
func (r *Runner) commit(list *List, pl *plan) {
	for _, subject := range pl.withdrawn {
		// Forget the withdrawn price so that relisting it, even at the
		// same price, publishes it again.
		delete(r.last, subject)
	}
	// Only registrars present in the list are replaced; one missing from it
	// keeps its subjects so they can still be withdrawn later.
	for i := range list.Prices {
		if reg := list.Prices[i].Registrar; r.owned[reg] == nil {
			r.owned[reg] = map[string]bool{}
		}
	}
	for i := range list.Prices {
		clear(r.owned[list.Prices[i].Registrar])
	}
	record := func(ev contracts.Event) {
		if _, bad := pl.invalid[ev.Subject()]; !bad {
			r.last[ev.Subject()] = fingerprint(ev)
		}
	}
	for i := range list.Prices {
		p := &list.Prices[i]
		if _, bad := pl.invalid[p.Subject()]; bad {
			// Keep the last good price owned, so it can be withdrawn.
			if _, had := r.last[p.Subject()]; had {
				r.owned[p.Registrar][p.Subject()] = true
			}
			continue
		}
		record(p)
		r.owned[p.Registrar][p.Subject()] = true
	}
	for reg, subjects := range r.owned {
		if len(subjects) > 0 {
			r.sizes[reg] = len(subjects)
		}
	}
	for i := range list.Zones {
		record(&list.Zones[i])
	}
	for i := range list.Rates {
		record(&list.Rates[i])
	}
}

// fingerprint hashes an event without its observed_at, so that the same
// prices observed again compare equal.
func fingerprint(ev contracts.Event) [32]byte {
	var v any = ev
	switch e := ev.(type) {
	case *contracts.PriceSet:
		c := *e
		c.ObservedAt = time.Time{}
		v = &c
	case *contracts.ZoneMeta:
		c := *e
		c.ObservedAt = time.Time{}
		v = &c
	case *contracts.Rates:
		c := *e
		c.ObservedAt = time.Time{}
		v = &c
	}
	b, _ := json.Marshal(v)
	return sha256.Sum256(b)
}
