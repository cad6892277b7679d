package replay

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/cache"
	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
)

// History returns the current view of the price history, and whether it
// is loaded: the history stream read to where it ended when the pod
// started reading it, which it does once the state is ready, so that
// history never delays the catalog.
func (c *Consumer) History() (*cache.HistoryView, bool) {
	return c.hist.View(), c.histLoaded.Load()
}

// historyPublishEvery bounds how many changes a live burst applies before
// it publishes them, so a long burst still shows promptly.
const historyPublishEvery = 4096

// runHistory loads the history stream into the History, then follows it,
// publishing a new view after each burst. It waits for the stream to
// exist, and outlives NATS outages like the state's reader: the last view
// keeps being served.
func (c *Consumer) runHistory(ctx context.Context) error {
	if _, ok := c.await(ctx, contracts.HistoryStream, 30*time.Second, "history stream not available yet; the history endpoints answer 503"); !ok {
		return nil
	}
	start := time.Now()
	r, err := c.open(ctx, contracts.HistoryStream, bus.ReaderConfig{All: true, Batch: c.cfg.PullBatch})
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, r.Stop)
	defer stop()
	defer r.Stop()
	l := &historyLoad{c: c, r: r, start: start, loaded: r.CaughtUp()}
	if l.loaded {
		c.historyLoaded(start)
	}
	for {
		msg, err := r.NextWithin(l.wait())
		switch {
		case err == nil:
		case errors.Is(err, bus.ErrNoMetadata):
			c.rejectChange(msg, nil, "no_metadata", err)
			continue
		case errors.Is(err, bus.ErrTimeout):
			l.quiet(ctx)
			continue
		case ctx.Err() != nil:
			return nil
		default:
			return fmt.Errorf("consume %s: %w", contracts.HistoryStream, err)
		}
		l.add(msg)
	}
}

// historyLoad is runHistory's read of the history stream: loading it
// until the reader caught up, then following it.
type historyLoad struct {
	c     *Consumer
	r     Reader
	dec   contracts.Decoder
	start time.Time
	// loaded says the history read has caught up; unpublished counts the
	// changes added since the view was last published.
	loaded      bool
	unpublished int
}

// wait is how long the next read waits: until the stream is quiet, to
// publish a burst, or else StallWait, after which a load asks whether
// the stream can still deliver what it counts.
func (l *historyLoad) wait() time.Duration {
	if l.unpublished > 0 && l.loaded {
		return l.c.cfg.Quiet
	}
	return bus.StallWait
}

// quiet is a read that waited in vain: a burst followed is published, and
// a load from a damaged stream ends with what it delivered.
func (l *historyLoad) quiet(ctx context.Context) {
	c := l.c
	if l.unpublished > 0 && l.loaded {
		c.hist.Publish()
		l.unpublished = 0
	}
	if l.loaded {
		return
	}
	// A damaged stream may count changes it can no longer deliver: what
	// arrived is all there is.
	if h, herr := l.r.Health(ctx); herr == nil && !h.Healthy() {
		c.log.Error("history stream damaged: it lost changes; serving what survived", "health", h.String(), "repair", bus.Repair)
		l.loaded = true
		c.historyLoaded(l.start)
	}
}

// add decodes and adds one change, rejecting what is not a change of its
// subject, and publishes the view once the load is done or a burst ends
// (or grows past historyPublishEvery).
func (l *historyLoad) add(msg bus.Msg) {
	c := l.c
	c.hm.lastSeq.Set(float64(msg.Seq))
	change, err := l.dec.DecodeChange(msg.Data)
	switch {
	case err != nil:
		c.rejectChange(msg, nil, rejectReason(err), err)
	case !contracts.OnSubject(change, msg.Subject):
		c.rejectChange(msg, change, "subject_mismatch", fmt.Errorf("change belongs on %s", change.Subject()))
	case future(change, msg.Stored) != nil:
		c.rejectChange(msg, change, "future", future(change, msg.Stored))
	default:
		if err := c.hist.Add(msg.Seq, change); err != nil {
			c.rejectChange(msg, change, "invalid", err)
			break
		}
		l.unpublished++
	}
	if !l.loaded {
		if l.r.CaughtUp() {
			l.loaded = true
			c.historyLoaded(l.start)
			l.unpublished = 0
		}
		return
	}
	if msg.Pending == 0 || l.unpublished >= historyPublishEvery {
		c.hist.Publish()
		l.unpublished = 0
	}
}

// future is contracts.CheckObserved for a change: judged against when the
// stream stored it, as the state's documents are.
func future(c *contracts.PriceChange, stored time.Time) error {
	return contracts.CheckObserved(c, stored)
}

// historyLoaded publishes the loaded history and says so. Loading leaves
// garbage of the size of the stream read (the client's copies of every
// message); it is returned to the system at once rather than held as
// headroom, since a pod's memory is counted in resident pages.
func (c *Consumer) historyLoaded(start time.Time) {
	c.hist.Publish()
	c.histLoaded.Store(true)
	d := time.Since(start)
	c.hm.loaded.Set(1)
	c.hm.loadSeconds.Set(d.Seconds())
	debug.FreeOSMemory()
	c.log.Info("history loaded", "took", d.Round(time.Millisecond), "changes", c.hist.Len())
}

// rejectChange counts a change the pod could not take into the history,
// and logs it as reject does.
func (c *Consumer) rejectChange(msg bus.Msg, change *contracts.PriceChange, reason string, err error) {
	c.hm.rejected.WithLabelValues(reason).Inc()
	var source string
	if change != nil {
		source = change.Source
	}
	c.rejects.warn("change rejected", msg.Subject, msg.Seq, reason, source, err)
}

// rejectReason names why a document could not be decoded.
func rejectReason(err error) string {
	switch {
	case errors.Is(err, contracts.ErrMalformedJSON):
		return "malformed_json"
	case errors.Is(err, contracts.ErrUnknownKind):
		return "unknown_kind"
	case errors.Is(err, contracts.ErrTooLarge):
		return "too_large"
	}
	return "invalid"
}

type historyMetrics struct {
	rejected    *prometheus.CounterVec
	lastSeq     prometheus.Gauge
	loaded      prometheus.Gauge
	loadSeconds prometheus.Gauge
}

func newHistoryMetrics(reg prometheus.Registerer, h *cache.History) (*historyMetrics, error) {
	m := &historyMetrics{
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "zoneprice_history_messages_rejected_total", Help: "History stream messages skipped as malformed or invalid, by reason.",
		}, []string{"reason"}),
		lastSeq: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "zoneprice_history_applied_sequence", Help: "History stream sequence of the last change read.",
		}),
		loaded: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "zoneprice_history_loaded", Help: "1 once the pod has loaded the history stream; the history endpoints answer 503 before.",
		}),
		loadSeconds: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "zoneprice_history_load_seconds", Help: "How long loading the history stream took, from when the pod started reading it.",
		}),
	}
	changes := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "zoneprice_history_changes", Help: "Changes the served history holds.",
	}, func() float64 { return float64(h.View().Len()) })
	for _, reason := range []string{"malformed_json", "unknown_kind", "too_large", "invalid", "subject_mismatch", "future", "no_metadata"} {
		m.rejected.WithLabelValues(reason)
	}
	for _, col := range []prometheus.Collector{m.rejected, m.lastSeq, m.loaded, m.loadSeconds, changes} {
		if err := reg.Register(col); err != nil {
			return nil, fmt.Errorf("register history metrics: %w", err)
		}
	}
	return m, nil
}
