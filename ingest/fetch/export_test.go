package fetch

import (
	"context"
	"time"
)

// RecordWaits makes c record the waits between attempts instead of
// spending them.
func RecordWaits(c *Client) *[]time.Duration {
	var waits []time.Duration
	c.sleep = func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		return ctx.Err()
	}
	return &waits
}

// RetryAfter exposes the header's reading to tests.
var RetryAfter = retryAfter
