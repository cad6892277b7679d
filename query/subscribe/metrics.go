package subscribe

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics count what happens, never to whom: no label holds an address
// or a key. The mails are counted by their sender (package mail).
type metrics struct {
	submissions *prometheus.CounterVec
	changes     *prometheus.CounterVec
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
	}
	for _, c := range []prometheus.Collector{m.submissions, m.changes} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register subscribe metrics: %w", err)
		}
	}
	return m, nil
}
