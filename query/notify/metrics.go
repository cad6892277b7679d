package notify

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/contracts"
)

// metrics are a replica's. Queue depth and age are the stream's, the same
// on every replica: alerts take their max.
type metrics struct {
	attempts        *prometheus.CounterVec
	attemptDuration prometheus.Histogram
	finished        *prometheus.CounterVec
	deferred        prometheus.Counter
	refused         *prometheus.CounterVec
	purged          prometheus.Counter
	purgeFailures   prometheus.Counter
	disabled        *prometheus.CounterVec
	registrations   *prometheus.GaugeVec
	queued          *prometheus.CounterVec
	dispatched      prometheus.Counter
	dispatchLag     prometheus.Gauge
	dispatchPending prometheus.Gauge
	queueDepth      prometheus.Gauge
	queueOldest     prometheus.Gauge
	queuePending    prometheus.Gauge
	queueRedelivery prometheus.Gauge

	// The series of attempts and finished for every known event type,
	// outcome and result, looked up once per attempt rather than hashed
	// from their labels.
	attemptsBy map[labelPair]prometheus.Counter
	finishedBy map[labelPair]prometheus.Counter
}

// labelPair is the values of a two-label series.
type labelPair struct{ a, b string }

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		attempts: newCounterVec("zoneprice_notify_attempts_total",
			"Delivery attempts by event type and outcome: delivered (2xx), failed (any other answer or none), refused (the address is not public), gone (410).", "event", "outcome"),
		attemptDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "zoneprice_notify_attempt_duration_seconds",
			Help:    "How long a delivery attempt took, from connecting to the answer's headers.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 15},
		}),
		finished: newCounterVec("zoneprice_notify_deliveries_total",
			"Deliveries that left the queue, by event type and result: delivered, gone (410), given_up (every attempt failed), dropped (the endpoint was deleted, paused or disabled before it was sent).", "event", "result"),
		refused: newCounterVec("zoneprice_notify_deliveries_refused_total",
			"Deliveries of changes not queued, by event type and reason: endpoint_full (the endpoint had contracts.MaxQueuedPerEndpoint waiting), key_full (its key's endpoints had contracts.MaxQueuedPerKey).", "event", "reason"),
		purged: newCounter("zoneprice_notify_deliveries_purged_total",
			"Deliveries removed from the queue, before they were sent or retried, because their endpoint was deleted."),
		purgeFailures: newCounter("zoneprice_notify_purge_failures_total",
			"Failures to remove a deleted endpoint's deliveries from the queue (the NATS user may not purge the deliveries stream, or the stream did not answer)."),
		deferred: newCounter("zoneprice_notify_deliveries_deferred_total",
			"Deliveries put back for a moment because their endpoint already had as many attempts in flight as a replica makes to one."),
		disabled: newCounterVec("zoneprice_notify_endpoints_disabled_total",
			"Endpoints this replica disabled, by reason: gone (410) or failing (every delivery failed for five days).", "reason"),
		registrations: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "zoneprice_notify_registrations",
			Help: "Webhook registrations loaded, by state: active, paused, disabled."}, []string{"state"}),
		queued: newCounterVec("zoneprice_notify_deliveries_queued_total",
			"Deliveries of changes this replica queued, by event type.", "event"),
		dispatched: newCounter("zoneprice_notify_changes_dispatched_total",
			"Changes of the history stream this replica matched against the registrations."),
		dispatchLag: newGauge("zoneprice_notify_dispatch_lag_seconds",
			"From the history stream storing the last change dispatched to its deliveries being queued."),
		dispatchPending: newGauge("zoneprice_notify_dispatch_pending_changes",
			"Changes of the history stream not yet dispatched, as of the last one this replica dispatched."),
		queueDepth: newGauge("zoneprice_notify_queue_deliveries",
			"Deliveries waiting in the deliveries stream: to be sent, in flight, or waiting for a retry."),
		queueOldest: newGauge("zoneprice_notify_queue_oldest_age_seconds",
			"Age of the oldest delivery in the deliveries stream; 0 when it is empty."),
		queuePending: newGauge("zoneprice_notify_queue_unsent_deliveries",
			"Deliveries the workers' consumer has not handed out yet (its num_pending)."),
		queueRedelivery: newGauge("zoneprice_notify_queue_in_flight_deliveries",
			"Deliveries handed out and not yet acknowledged: being sent, or waiting for their retry (the consumer's ack pending)."),
	}
	// Every event type and outcome is exported from the start, at 0, so
	// that a rate over them (the failing-share alert) has its series
	// before the first failure.
	m.attemptsBy, m.finishedBy = map[labelPair]prometheus.Counter{}, map[labelPair]prometheus.Counter{}
	for _, ev := range contracts.EventTypes() {
		for _, o := range []contracts.DeliveryOutcome{contracts.OutcomeDelivered, contracts.OutcomeFailed, contracts.OutcomeRefused, contracts.OutcomeGone} {
			m.attemptsBy[labelPair{string(ev), string(o)}] = m.attempts.WithLabelValues(string(ev), string(o))
		}
		for _, r := range []string{"delivered", "gone", "given_up", "dropped"} {
			m.finishedBy[labelPair{string(ev), r}] = m.finished.WithLabelValues(string(ev), r)
		}
		m.queued.WithLabelValues(string(ev))
		for _, r := range []string{refusedEndpointFull, refusedKeyFull} {
			m.refused.WithLabelValues(string(ev), r)
		}
	}
	for _, r := range []string{"gone", "failing"} {
		m.disabled.WithLabelValues(r)
	}
	for _, state := range []string{"active", "paused", "disabled"} {
		m.registrations.WithLabelValues(state)
	}
	reg.MustRegister(m.attempts, m.attemptDuration, m.finished, m.refused, m.purged, m.purgeFailures, m.deferred, m.disabled, m.registrations, m.queued,
		m.dispatched, m.dispatchLag, m.dispatchPending, m.queueDepth, m.queueOldest, m.queuePending, m.queueRedelivery)
	return m
}

// attempt is the series of attempts of event with outcome.
func (m *metrics) attempt(event contracts.EventType, outcome contracts.DeliveryOutcome) prometheus.Counter {
	if c, ok := m.attemptsBy[labelPair{string(event), string(outcome)}]; ok {
		return c
	}
	return m.attempts.WithLabelValues(string(event), string(outcome))
}

// finish is the series of deliveries of event that left the queue with
// result.
func (m *metrics) finish(event contracts.EventType, result string) prometheus.Counter {
	if c, ok := m.finishedBy[labelPair{string(event), result}]; ok {
		return c
	}
	return m.finished.WithLabelValues(string(event), result)
}

// The reasons of zoneprice_notify_deliveries_refused_total.
const (
	refusedEndpointFull = "endpoint_full"
	refusedKeyFull      = "key_full"
)

func newCounter(name, help string) prometheus.Counter {
	return prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
}

func newCounterVec(name, help string, labels ...string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
}

func newGauge(name, help string) prometheus.Gauge {
	return prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help})
}
