package replay

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/query/querytest"
)

// TestRejectLogFlood: a flood of one kind of bad message is one line a
// minute, the next saying how many went unlogged; another reason or
// source has its line; and a flood of made-up sources cannot make the log,
// nor the table behind it, grow without bound.
func TestRejectLogFlood(t *testing.T) {
	var buf querytest.LogBuffer
	clk := querytest.NewClock(time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC))
	l := newRejectLog(slog.New(slog.NewTextHandler(&buf, nil)))
	l.now = clk.Now
	bad := errors.New("bad")
	for i := range 49_000 {
		l.warn("event rejected", "prices.v1.junk.com", uint64(i), "invalid", "junk", bad)
	}
	l.warn("event rejected", "prices.v1.junk.com", 1, "future", "junk", bad)
	if got := strings.Count(buf.String(), "event rejected"); got != 2 {
		t.Fatalf("%d lines for 49,000 rejections of one kind and one of another, want 2:\n%s", got, buf.String())
	}
	clk.Advance(rejectLogEvery)
	l.warn("event rejected", "prices.v1.junk.com", 49_000, "invalid", "junk", bad)
	if !strings.Contains(buf.String(), "unlogged_since_last=48999") {
		t.Errorf("the next minute's line does not count the unlogged ones:\n%s", buf.String())
	}
	before := strings.Count(buf.String(), "\n")
	for i := range 1000 {
		l.warn("event rejected", "prices.v1.x.com", 1, "invalid", fmt.Sprintf("made-up-%d", i), bad)
	}
	if got := strings.Count(buf.String(), "\n") - before; got > maxRejectKeys {
		t.Errorf("%d lines for 1,000 made-up sources, want at most %d", got, maxRejectKeys)
	}
	if len(l.seen) > maxRejectKeys+3 {
		t.Errorf("the log remembers %d kinds of rejection, want at most %d", len(l.seen), maxRejectKeys+3)
	}
}
