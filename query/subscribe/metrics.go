package subscribe

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics count what happens, never to whom: no label holds an address
// or a key.
type metrics struct {
	submissions *prometheus.CounterVec
	changes     *prometheus.CounterVec
	mails       *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		submissions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "zoneprice_subscribe_submissions_total",
			Help: "Subscription form posts by outcome: accepted, honeypot, invalid, csrf, client_limited, unavailable.",
		}, []string{"outcome"}),
		changes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "zoneprice_subscribe_changes_total",
			Help: "Subscriptions changed by action: created, confirmed, updated, unsubscribed.",
		}, []string{"action"}),
		mails: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "zoneprice_subscribe_mails_total",
			Help: "Mails by kind (form, digest, announce) and result (sent, failed).",
		}, []string{"kind", "result"}),
	}
	for _, c := range []prometheus.Collector{m.submissions, m.changes, m.mails} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register subscribe metrics: %w", err)
		}
	}
	return m, nil
}
