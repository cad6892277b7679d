package replay

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
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
	var s jetstream.Stream
	for backoff := 100 * time.Millisecond; ; backoff = min(2*backoff, 30*time.Second) {
		var err error
		s, err = c.js.Stream(ctx, contracts.HistoryStream)
		if err == nil {
			break
		}
		c.log.Warn("history stream not available yet; the history endpoints answer 503", "stream", contracts.HistoryStream, "err", err)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(backoff):
		}
	}
	start := time.Now()
	r, err := bus.Open(ctx, s, bus.ReaderConfig{All: true, Batch: c.cfg.PullBatch})
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, r.Stop)
	defer stop()
	defer r.Stop()
	var dec contracts.Decoder
	loaded := r.CaughtUp()
	if loaded {
		c.historyLoaded(start)
	}
	unpublished := 0
	for {
		var msg bus.Msg
		var err error
		if unpublished > 0 && loaded {
			msg, err = r.NextWithin(c.cfg.Quiet)
		} else {
			msg, err = r.NextWithin(bus.StallWait)
		}
		switch {
		case err == nil:
		case errors.Is(err, bus.ErrNoMetadata):
			c.rejectChange(msg, "no_metadata", err)
			continue
		case errors.Is(err, nats.ErrTimeout):
			if unpublished > 0 && loaded {
				c.hist.Publish()
				unpublished = 0
			}
			if !loaded {
				// A damaged stream may count changes it can no longer
				// deliver: what arrived is all there is.
				if h, herr := r.Health(ctx); herr == nil && !h.Healthy() {
					c.log.Error("history stream damaged: it lost changes; serving what survived", "health", h.String(), "repair", bus.Repair)
					loaded = true
					c.historyLoaded(start)
				}
			}
			continue
		case ctx.Err() != nil:
			return nil
		default:
			return fmt.Errorf("consume %s: %w", contracts.HistoryStream, err)
		}
		c.hm.lastSeq.Set(float64(msg.Seq))
		change, err := dec.DecodeChange(msg.Data)
		switch {
		case err != nil:
			c.rejectChange(msg, rejectReason(err), err)
		case !contracts.OnSubject(change, msg.Subject):
			c.rejectChange(msg, "subject_mismatch", fmt.Errorf("change belongs on %s", change.Subject()))
		case future(change, msg.Stored) != nil:
			c.rejectChange(msg, "future", future(change, msg.Stored))
		default:
			if err := c.hist.Add(msg.Seq, change); err != nil {
				c.rejectChange(msg, "invalid", err)
				break
			}
			unpublished++
		}
		if !loaded {
			if !r.CaughtUp() {
				continue
			}
			loaded = true
			c.historyLoaded(start)
			unpublished = 0
			continue
		}
		if msg.Pending == 0 || unpublished >= historyPublishEvery {
			c.hist.Publish()
			unpublished = 0
		}
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

func (c *Consumer) rejectChange(msg bus.Msg, reason string, err error) {
	c.hm.rejected.WithLabelValues(reason).Inc()
	c.log.Warn("change rejected", "subject", msg.Subject, "seq", msg.Seq, "reason", reason, "err", err)
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
