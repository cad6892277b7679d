// Package querytest helps the read side's tests: a clock a test sets
// (Clock), a log a test reads while the code under test writes it
// (LogBuffer), and waiting for what another goroutine or process does by
// polling a condition with a deadline (Until) instead of sleeping for a
// guessed time. The JetStream servers tests run on are package bustest's,
// beside the bus.
package querytest

import (
	"testing"
	"time"
)

const (
	// Deadline is how long Until waits before it fails the test.
	Deadline = 20 * time.Second
	// Interval is how long a poll sleeps before it asks again.
	Interval = 5 * time.Millisecond
)

// Until polls cond until it holds, and fails the test naming what if it
// does not within Deadline.
func Until(t testing.TB, what string, cond func() bool) {
	t.Helper()
	Within(t, Deadline, what, cond)
}

// Within is Until with another deadline, for a wait known to take longer
// or one that must be quick.
func Within(t testing.TB, deadline time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Wait(deadline, cond) {
		t.Fatalf("timed out after %v waiting for %s", deadline, what)
	}
}

// Wait polls cond until it holds or deadline has passed, and reports
// whether it held: for a caller that says more than Until can about what
// it saw last.
func Wait(deadline time.Duration, cond func() bool) bool {
	end := time.Now().Add(deadline)
	for !cond() {
		if time.Now().After(end) {
			return false
		}
		time.Sleep(Interval)
	}
	return true
}
