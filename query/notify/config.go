package notify

import (
	"net/netip"
	"slices"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
)

// Config is what a notify replica may be told.
type Config struct {
	// Workers is how many deliveries one replica sends at once.
	Workers int
	// Timeout bounds one attempt: connecting, sending, and the answer's
	// status and headers.
	Timeout time.Duration
	// AckWait is how long the server waits to hear about a delivery it
	// handed out before it hands it out again. While an attempt runs, the
	// sender tells the server every quarter of it that the delivery is in
	// progress, so an attempt of any length (a bucket lookup, the whole
	// Timeout, the attempt's record) is never handed to another sender
	// while it runs; AckWait bounds how long a sender that died holds a
	// delivery, and a delivery's wait in the pull's buffer before a worker
	// takes it.
	AckWait time.Duration
	// RetrySchedule is the delay before each attempt after the first;
	// after the last the delivery is given up. Tests shorten it.
	RetrySchedule []time.Duration
	// PingRetrySchedule is RetrySchedule for a ping.
	PingRetrySchedule []time.Duration
	// MaxRetryAfter bounds how long a receiver's Retry-After (on 429 or
	// 503) may postpone the next attempt.
	MaxRetryAfter time.Duration
	// EndpointConcurrency is how many attempts to one endpoint a replica
	// makes at once; a delivery beyond it waits in the stream for
	// BusyDelay, so a slow endpoint holds at most this many workers.
	EndpointConcurrency int
	// BusyDelay is how long a delivery to a busy endpoint waits.
	BusyDelay time.Duration
	// AllowHTTP lets deliveries go to plain http URLs; off, only https.
	AllowHTTP bool
	// AllowLoopback lets deliveries reach loopback addresses on any port,
	// for tests and local development. Never in production: it lets a
	// subscriber reach services on the notify host.
	AllowLoopback bool
	// AllowPrefixes lets deliveries reach addresses in these networks
	// although the guard refuses them (private, link-local …), on the
	// allowed Ports only: for a test whose receiver is on a private
	// container network, as the failure suite's is. Never in production.
	// An IPv4 prefix must be /16 or narrower, an IPv6 one /48 or
	// narrower, so that it cannot switch the guard off.
	AllowPrefixes []netip.Prefix
	// Ports are the destination ports a delivery may connect to.
	Ports []uint16
	// UserAgent names the service in every delivery.
	UserAgent string
	// StatsInterval is how often the queue's depth and age are polled,
	// and what waits for each key counted.
	StatsInterval time.Duration
	// MaxQueuedPerKey is how many deliveries may wait for one key's
	// endpoints before the dispatcher queues no more for it.
	MaxQueuedPerKey int
	// RecordInterval is how long at most an attempt's record waits to be
	// published with others (record.go); the server hears of the
	// attempt's outcome once its record is stored.
	RecordInterval time.Duration
}

// DefaultConfig returns the production settings.
func DefaultConfig() Config {
	return Config{
		Workers:             64,
		Timeout:             15 * time.Second,
		AckWait:             time.Minute,
		RetrySchedule:       contracts.RetrySchedule(),
		PingRetrySchedule:   contracts.PingRetrySchedule(),
		MaxRetryAfter:       6 * time.Hour,
		EndpointConcurrency: 4,
		BusyDelay:           2 * time.Second,
		Ports:               []uint16{443, 80},
		UserAgent:           "zoneprice-webhooks/1 (+https://github.com/zoneprice/zoneprice)",
		StatsInterval:       15 * time.Second,
		MaxQueuedPerKey:     contracts.MaxQueuedPerKey,
		RecordInterval:      250 * time.Millisecond,
	}
}

// Validate reports the first setting that cannot work, naming the field.
func (c *Config) Validate() error {
	switch {
	case c.Workers < 1 || c.Workers > 4096:
		return contracts.Invalid("Workers", "%d is not between 1 and 4096", c.Workers)
	case c.Timeout < time.Second || c.Timeout > 2*time.Minute:
		return contracts.Invalid("Timeout", "%v is not between 1s and 2m", c.Timeout)
	case c.AckWait < time.Second:
		return contracts.Invalid("AckWait", "%v is less than 1s", c.AckWait)
	case len(c.RetrySchedule) == 0:
		return contracts.Invalid("RetrySchedule", "empty")
	case slices.ContainsFunc(c.RetrySchedule, notPositive):
		return contracts.Invalid("RetrySchedule", "has a delay that is not positive")
	case len(c.PingRetrySchedule) == 0:
		return contracts.Invalid("PingRetrySchedule", "empty")
	case slices.ContainsFunc(c.PingRetrySchedule, notPositive):
		return contracts.Invalid("PingRetrySchedule", "has a delay that is not positive")
	case c.MaxRetryAfter < 0:
		return contracts.Invalid("MaxRetryAfter", "negative")
	case c.EndpointConcurrency < 1:
		return contracts.Invalid("EndpointConcurrency", "%d is less than 1", c.EndpointConcurrency)
	case c.BusyDelay <= 0:
		return contracts.Invalid("BusyDelay", "must be positive")
	case len(c.Ports) == 0:
		return contracts.Invalid("Ports", "empty: no receiver could be reached")
	case slices.Contains(c.Ports, 0):
		return contracts.Invalid("Ports", "0 is not a port")
	case slices.ContainsFunc(c.AllowPrefixes, tooWide):
		i := slices.IndexFunc(c.AllowPrefixes, tooWide)
		return contracts.Invalid("AllowPrefixes", "%s is not a valid network of at most /16 (IPv4) or /48 (IPv6)", c.AllowPrefixes[i])
	case c.UserAgent == "":
		return contracts.Invalid("UserAgent", "empty")
	case c.StatsInterval <= 0:
		return contracts.Invalid("StatsInterval", "must be positive")
	case c.MaxQueuedPerKey < 1:
		return contracts.Invalid("MaxQueuedPerKey", "%d is less than 1", c.MaxQueuedPerKey)
	case c.RecordInterval <= 0:
		return contracts.Invalid("RecordInterval", "must be positive")
	}
	return nil
}

// tooWide reports whether p is invalid or wider than AllowPrefixes allows.
func tooWide(p netip.Prefix) bool {
	switch {
	case !p.IsValid():
		return true
	case p.Addr().Is4():
		return p.Bits() < 16
	}
	return p.Bits() < 48
}

func notPositive(d time.Duration) bool { return d <= 0 }

// schedule is the retry schedule of a delivery of event.
func (c *Config) schedule(event contracts.EventType) []time.Duration {
	if event == contracts.EventPing {
		return c.PingRetrySchedule
	}
	return c.RetrySchedule
}

// attempts is how many times a delivery of event is tried: once, then
// once after each delay of its schedule.
func (c *Config) attempts(event contracts.EventType) int { return len(c.schedule(event)) + 1 }
