package replay

import (
	"log/slog"
	"sync"
	"time"
)

// rejectLog logs the messages a pod rejects: at most one line per kind of
// message, reason and source every rejectLogEvery, saying how many like
// it went unlogged since the last. A flood of bad messages (49,000 in half
// a second, and again at every restart, which replays them) is then a few
// lines, while zoneprice_consumer_messages_rejected_total and its history
// twin count each one. Safe for the state and history goroutines at once.
type rejectLog struct {
	log *slog.Logger
	now func() time.Time

	mu   sync.Mutex
	seen map[rejectKey]*rejectCount
}

// rejectLogEvery is how often one kind of rejection is logged.
const rejectLogEvery = time.Minute

// maxRejectKeys bounds the kinds of rejection rejectLog tells apart: the
// source is a message's own word, and a flood may bring any number of
// them. Past it, rejections share one key per reason.
const maxRejectKeys = 64

type rejectKey struct{ msg, reason, source string }

type rejectCount struct {
	logged   time.Time
	unlogged int
}

func newRejectLog(log *slog.Logger) *rejectLog {
	return &rejectLog{log: log, now: time.Now, seen: map[rejectKey]*rejectCount{}}
}

// warn logs msg ("event rejected") for the message on subject at seq,
// unless one like it was logged within rejectLogEvery. source is the
// document's, "" when it could not be read.
func (l *rejectLog) warn(msg, subject string, seq uint64, reason, source string, err error) {
	l.mu.Lock()
	k := rejectKey{msg: msg, reason: reason, source: source}
	c, ok := l.seen[k]
	if !ok && len(l.seen) >= maxRejectKeys {
		k.source = "(others)"
		c, ok = l.seen[k]
	}
	if !ok {
		c = &rejectCount{}
		l.seen[k] = c
	}
	now := l.now()
	if !c.logged.IsZero() && now.Sub(c.logged) < rejectLogEvery {
		c.unlogged++
		l.mu.Unlock()
		return
	}
	unlogged := c.unlogged
	c.logged, c.unlogged = now, 0
	l.mu.Unlock()
	attrs := []any{"subject", subject, "seq", seq, "reason", reason, "source", source, "err", err}
	if unlogged > 0 {
		attrs = append(attrs, "unlogged_since_last", unlogged)
	}
	l.log.Warn(msg, attrs...)
}
