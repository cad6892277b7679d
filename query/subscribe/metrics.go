package subscribe

import (
	"fmt"
	"sync"
	"time"

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

// clientLimit allows each client address limit submissions an hour, in
// fixed windows: enough for a person who mistypes, too few for a bot. It
// forgets every client when a window ends, and refuses new clients past
// maxClients in one window rather than grow without bound.
type clientLimit struct {
	limit int
	now   func() time.Time

	mu     sync.Mutex
	window int64
	counts map[string]int
}

const maxClients = 100_000

func newClientLimit(limit int, now func() time.Time) *clientLimit {
	return &clientLimit{limit: limit, now: now, counts: map[string]int{}}
}

// allow counts a submission of client, and reports whether it is within
// the limit, and if not, when the window ends.
func (l *clientLimit) allow(client string) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if w := now.Unix() / 3600; w != l.window {
		l.window, l.counts = w, map[string]int{}
	}
	n, known := l.counts[client]
	if n >= l.limit || !known && len(l.counts) >= maxClients {
		return false, time.Unix((l.window+1)*3600, 0).Sub(now)
	}
	l.counts[client] = n + 1
	return true, 0
}
