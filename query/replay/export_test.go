package replay

import (
	"syscall"
	"time"
)

// SetHeadInterval makes c watch the stream's head every d, for tests that
// wait for the watch; before Run.
func (c *Consumer) SetHeadInterval(d time.Duration) { c.headEvery = d }

// CPUTime is the CPU the process has used, user and system: on a machine
// whose cores are shared, the part of a benchmark's cost that other work
// moves least.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
