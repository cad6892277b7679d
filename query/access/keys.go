package access

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
)

// Subscriber is an API key a pod accepts.
type Subscriber struct {
	ID   string
	Tier string
	// Client is the key the subscriber is limited by.
	Client Key
}

// Keys mirrors contracts.KeysBucket in memory: the SHA-256 of every key
// with what it grants. It watches the bucket, so a key created or revoked
// with the admin command takes effect on every pod within moments. It only
// ever reads the bucket, and never creates it: a pod may have read-only
// permissions. Until the bucket exists there are no keys; the pod keeps
// trying to bind it meanwhile.
//
// A bucket that exists but cannot be read (a permissions error, a
// JetStream error, a timeout, a load that stops before the bucket's end:
// anything but its not existing) does not keep the pod unready: after the
// first failed attempt the store is Unavailable, which is ready, since
// clients without a key can be served, while a key is answered 503 rather
// than called wrong. It keeps trying, logging an error at most once a
// minute, and zoneprice_api_keys_watch_up is 0 meanwhile. Waiting longer
// before going ready would gain little: a failed attempt has already
// waited the JetStream request's timeout or the load's (DefaultLoadTimeout),
// or got an answer (a permissions or API error) that waiting does not
// change; and at start the pod is unready anyway until its consumer has
// caught up, which needs the same NATS.
//
// A load stops before the bucket's end when the server cannot read one of
// its records, a corrupt message block in its file store (see
// bus.Records.List). The error logged then says how to repair the bucket.
type Keys struct {
	records KeyRecords
	tiers   Tiers
	log     *slog.Logger
	table   atomic.Pointer[map[[32]byte]*Subscriber]
	state   atomic.Int32
	ready   chan struct{}
	// loaded counts the keys in force by tier, "unknown" for tiers this
	// pod has no limit for.
	loaded *prometheus.GaugeVec
	// watchUp is 1 while the bucket is followed; updated is when its
	// keys were last loaded or changed.
	watchUp, updated prometheus.Gauge
	// retry is the longest wait between attempts to bind the bucket.
	retry time.Duration
	// loadTimeout is how long a load of the bucket waits for its next
	// record before it is given up as stalled.
	loadTimeout time.Duration
	// failures counts the failed attempts since the last error logged,
	// at lastLog. Only Run's goroutine touches them.
	failures int
	lastLog  time.Time
}

// State is what a pod knows of the subscribers' keys.
type State int32

const (
	// Loading is before the first attempt to read the bucket has ended:
	// the pod is not ready, and a key is answered 503.
	Loading State = iota
	// Loaded is the bucket's keys in force, or none when the bucket does
	// not exist. Once loaded, keys stay in force while NATS is away.
	Loaded
	// Unavailable is a bucket that could not be read, and no keys loaded
	// yet: the pod is ready, serves clients without a key, and answers a
	// key 503 until the bucket can be read.
	Unavailable
)

func (s State) String() string {
	switch s {
	case Loading:
		return "loading"
	case Loaded:
		return "loaded"
	case Unavailable:
		return "unavailable"
	}
	return "State(" + strconv.Itoa(int(s)) + ")"
}

// errorLogInterval spaces the error logged while the bucket cannot be
// read.
const errorLogInterval = time.Minute

// DefaultLoadTimeout is how long a load of the bucket waits for its next
// record before the store gives it up as stalled, goes Unavailable (ready)
// if it has no keys yet, and tries again. It bounds the wait between
// records, not the whole load, so that a large bucket on a slow link still
// loads. A healthy server sends the next record within milliseconds. Ten
// seconds is twice the JetStream API's default timeout, which a failed
// bind already waits, and as long as the watch's ordered consumer takes
// to notice two missed heartbeats and recreate itself. Giving up early
// costs little: keys loaded before stay in force, and the next attempt
// starts over.
const DefaultLoadTimeout = bus.DefaultLoadTimeout

// unknownTier labels keys whose tier this pod does not know.
const unknownTier = "unknown"

// NewKeys returns a store following records. tiers are the tiers the pod
// knows; keys of other tiers are served at the free rate, with a warning.
func NewKeys(records KeyRecords, tiers Tiers, log *slog.Logger, reg prometheus.Registerer) (*Keys, error) {
	k := &Keys{records: records, tiers: tiers, log: log, ready: make(chan struct{}), retry: 10 * time.Second, loadTimeout: DefaultLoadTimeout,
		loaded: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "zoneprice_api_keys", Help: `API keys in force by tier ("unknown": a tier this pod has no limit for).`,
		}, []string{"tier"}),
		watchUp: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "zoneprice_api_keys_watch_up",
			Help: "1 while the pod follows the API keys bucket; 0 while it cannot read it or it does not exist.",
		}),
		updated: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "zoneprice_api_keys_last_update_timestamp_seconds",
			Help: "When the pod last loaded the API keys bucket or applied a change of it; 0 before the first load.",
		}),
	}
	for _, c := range []prometheus.Collector{k.loaded, k.watchUp, k.updated} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register key metrics: %w", err)
		}
	}
	empty := map[[32]byte]*Subscriber{}
	k.publish(empty)
	return k, nil
}

// Lookup returns the subscriber whose key hashes to sum, or nil.
func (k *Keys) Lookup(sum *[32]byte) *Subscriber {
	return (*k.table.Load())[*sum]
}

// Ready is closed once the store has left Loading: the bucket's keys have
// been loaded, the bucket was found not to exist, or it could not be read.
func (k *Keys) Ready() <-chan struct{} { return k.ready }

// State says whether the keys are loaded, and if not, why.
func (k *Keys) State() State { return State(k.state.Load()) }

// IsReady reports whether Ready is closed.
func (k *Keys) IsReady() bool {
	select {
	case <-k.ready:
		return true
	default:
		return false
	}
}

// setState moves the store to s and, leaving Loading, makes it ready.
func (k *Keys) setState(s State) {
	k.state.Store(int32(s))
	if s != Loading && !k.IsReady() {
		close(k.ready)
	}
}

// KeyRecords is the bucket of API keys as the store reads it
// (bus.Keys): followed, never written.
type KeyRecords interface {
	Follow(ctx context.Context, cfg bus.FollowConfig, f bus.Follower[contracts.APIKey]) error
}

// Run follows the bucket until ctx ends. While NATS is away the last keys
// stay in force.
func (k *Keys) Run(ctx context.Context) error {
	return k.records.Follow(ctx, bus.FollowConfig{LoadTimeout: k.loadTimeout, MaxBackoff: k.retry}, &follower{k: k})
}

// follower is the bus.Follower that keeps a Keys in step with the bucket.
// Follow calls it from one goroutine, Run's.
type follower struct {
	k *Keys
	// byID and table are the keys in force, as the last load and the
	// changes since made them; table is published whole on each change.
	byID  map[string][32]byte
	table map[[32]byte]*Subscriber
	// following is a load done and no failure since; missing, the
	// bucket found not to exist and no load since.
	following, missing bool
}

// Loaded puts the bucket's keys in force, in place of any before.
func (f *follower) Loaded(all []bus.Entry[contracts.APIKey]) {
	f.byID, f.table = map[string][32]byte{}, map[[32]byte]*Subscriber{}
	f.following, f.missing = true, false
	f.Changed(all)
}

// Changed applies a batch of changes that arrived together, as one new
// table.
func (f *follower) Changed(batch []bus.Entry[contracts.APIKey]) {
	k := f.k
	for _, e := range batch {
		k.apply(e, f.byID, f.table)
	}
	k.publish(maps.Clone(f.table))
	k.updated.SetToCurrentTime()
	k.watchUp.Set(1)
	k.setState(Loaded)
	k.lastLog, k.failures = time.Time{}, 0
}

// Down is a failed attempt to read the bucket, or the end of a watch that
// had loaded it. A bucket that does not exist holds no keys.
func (f *follower) Down(err error) {
	k := f.k
	k.watchUp.Set(0)
	switch {
	case errors.Is(err, bus.ErrNoBucket):
		if !f.missing {
			k.log.Warn("api keys bucket does not exist yet: no keys are accepted until it does", "bucket", contracts.KeysBucket)
			f.missing = true
		}
		k.publish(map[[32]byte]*Subscriber{})
		k.setState(Loaded)
	case f.following:
		k.log.Warn("api keys watch ended; binding again", "err", err)
	default:
		k.fail(err)
	}
	f.following = false
}

// fail records a failed attempt to read the bucket. Before any keys were
// loaded it makes the store Unavailable, which is ready; loaded keys stay
// in force. The error is logged at most once every errorLogInterval.
func (k *Keys) fail(err error) {
	if k.State() == Loading {
		k.setState(Unavailable)
	}
	k.failures++
	now := time.Now()
	if !k.lastLog.IsZero() && now.Sub(k.lastLog) < errorLogInterval {
		return
	}
	msg := "api keys bucket cannot be read: keys are answered 503 until it can; retrying"
	if k.State() == Loaded {
		msg = "api keys bucket cannot be read: the last keys loaded stay in force; retrying"
	}
	attrs := []any{"bucket", contracts.KeysBucket, "err", err, "failed_attempts", k.failures}
	if stall := (*bus.StalledError)(nil); errors.As(err, &stall) {
		attrs = append(attrs, "repair", stall.Repair())
	}
	k.log.Error(msg, attrs...)
	k.lastLog, k.failures = now, 0
}

// apply makes one bucket change in the working maps. A record that does not
// validate is a key nobody can use: it is dropped, and the key it replaces
// with it.
func (k *Keys) apply(e bus.Entry[contracts.APIKey], byID map[string][32]byte, table map[[32]byte]*Subscriber) {
	id := e.Key
	if sum, ok := byID[id]; ok {
		delete(table, sum)
		delete(byID, id)
	}
	if e.Err != nil {
		k.log.Warn("api key record is not JSON; the key is refused", "id", id, "err", e.Err)
		return
	}
	rec := e.Value
	if rec == nil {
		return
	}
	if err := rec.Validate(); err != nil {
		k.log.Warn("invalid api key record; the key is refused", "id", id, "err", err)
		return
	}
	if rec.ID != id {
		k.log.Warn("api key record stored under another id; the key is refused", "id", id, "record_id", rec.ID)
		return
	}
	sum, _ := rec.Sum()
	if _, known := k.tiers[rec.Tier]; !known && rec.Tier != contracts.FreeTier {
		k.log.Warn("api key of a tier this pod has no limit for: served at the free limit", "id", id, "tier", rec.Tier)
	}
	byID[id] = sum
	table[sum] = &Subscriber{ID: id, Tier: rec.Tier, Client: SubscriberKey(&sum)}
}

// publish puts table in force and counts its keys.
func (k *Keys) publish(table map[[32]byte]*Subscriber) {
	k.table.Store(&table)
	counts := map[string]int{contracts.FreeTier: 0, unknownTier: 0}
	for name := range k.tiers {
		counts[name] = 0
	}
	for _, s := range table {
		if _, known := counts[s.Tier]; known && s.Tier != unknownTier {
			counts[s.Tier]++
		} else {
			counts[unknownTier]++
		}
	}
	for tier, n := range counts {
		k.loaded.WithLabelValues(tier).Set(float64(n))
	}
}
