package digest

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics count the digests' changes by section, drops and increases
// (renewal increases), never by subscriber. The digests' mails are counted
// by their sender (package mail), with kind "digest".
type metrics struct {
	collected, mailed *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		collected: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "zoneprice_subscribe_digest_collected_total",
			Help: "Price changes added to a subscriber's next digest, one per subscriber, by section: drops, increases (renewal increases).",
		}, []string{"section"}),
		mailed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "zoneprice_subscribe_digest_mailed_total",
			Help: "Price changes told in the digests sent, by section (drops, increases), those told as \"and N more\" included.",
		}, []string{"section"}),
	}
	for _, c := range []*prometheus.CounterVec{m.collected, m.mailed} {
		for _, s := range []string{"drops", "increases"} {
			c.WithLabelValues(s)
		}
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register digest metrics: %w", err)
		}
	}
	return m, nil
}
