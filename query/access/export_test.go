package access

import "time"

// SetLoadTimeout shortens how long k waits for the next record of a load,
// so that a test of a stalled load does not wait DefaultLoadTimeout. Call
// it before Run.
func (k *Keys) SetLoadTimeout(d time.Duration) { k.loadTimeout = d }
