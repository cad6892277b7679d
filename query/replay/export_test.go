package replay

import "time"

// SetHeadInterval makes c watch the stream's head every d, for tests that
// wait for the watch; before Run.
func (c *Consumer) SetHeadInterval(d time.Duration) { c.headEvery = d }
