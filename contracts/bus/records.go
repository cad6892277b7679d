package bus

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/zoneprice/zoneprice/contracts"
)

// The errors of Records; anything else is JetStream's, wrapped with what
// was being done.
var (
	// ErrNoBucket is a bucket that has not been provisioned yet. The
	// error returned says which (*NoBucketError).
	ErrNoBucket = errors.New("bucket does not exist yet")
	// ErrConflict is a change that met another writer's change of the same
	// record on every attempt.
	ErrConflict = errors.New("the record kept changing under the update")
	// ErrUnchanged is what an edit returns to write nothing.
	ErrUnchanged = errors.New("nothing to change")
	// ErrExists is a create of a record that is already there.
	ErrExists = errors.New("the record exists already")
	// ErrUndecodable is a record that is not the JSON of the bucket's
	// records: Get and Change return it, saying which record; Delete
	// removes such a record all the same.
	ErrUndecodable = errors.New("does not decode")
)

// NoBucketError is ErrNoBucket for one bucket.
type NoBucketError struct{ Bucket string }

func (e *NoBucketError) Error() string { return "the bucket " + e.Bucket + " does not exist yet" }

// Is makes errors.Is(err, ErrNoBucket) true.
func (e *NoBucketError) Is(target error) bool { return target == ErrNoBucket }

// changeAttempts is how many times Change reads, edits and writes a record
// before it gives up with ErrConflict. The writers of a record are few (a
// subscriber's own requests, notify's failure records, a digest): ten
// conflicts in a row is a storm, not bad luck.
const changeAttempts = 10

// Records is one key-value bucket whose values are JSON records of type T:
// the one place where a record is read, compared and set, listed and
// followed. Its zero value is not usable; make one with NewRecords or the
// constructors of the record kinds (Keys, Webhooks, Subscribers).
type Records[T any] struct {
	js     jetstream.JetStream
	bucket string
	// purge deletes a record with every earlier revision (a purge), not
	// with a delete marker that keeps them.
	purge bool
	// rebuild says how the records come back after the bucket is
	// deleted, for StalledError.Repair.
	rebuild string

	mu sync.Mutex
	kv jetstream.KeyValue
}

// NewRecords returns the records of bucket on js. It binds the bucket when
// first used, so it can be made before the bucket is provisioned.
func NewRecords[T any](js jetstream.JetStream, bucket string) *Records[T] {
	return &Records[T]{js: js, bucket: bucket, rebuild: "write its records again"}
}

// Keys is contracts.KeysBucket: subscribers' API keys under their ids.
// Query pods follow it; zoneprice-admin writes it.
func Keys(js jetstream.JetStream) *Records[contracts.APIKey] {
	r := NewRecords[contracts.APIKey](js, contracts.KeysBucket)
	r.rebuild = "issue new keys (zoneprice-admin keys create)"
	return r
}

// Webhooks is contracts.WebhooksBucket: webhook registrations under
// contracts.WebhookKey(owner, id).
func Webhooks(js jetstream.JetStream) *Records[contracts.Webhook] {
	r := NewRecords[contracts.Webhook](js, contracts.WebhooksBucket)
	r.rebuild = "have subscribers register their webhooks again"
	return r
}

// WebhookOwners is contracts.WebhookOwnersBucket: which webhooks each API
// key has registered, under the key's id, which the webhook store changes
// with every registration and deletion.
func WebhookOwners(js jetstream.JetStream) *Records[contracts.WebhookOwner] {
	r := NewRecords[contracts.WebhookOwner](js, contracts.WebhookOwnersBucket)
	r.rebuild = "let the webhook store count each key's webhooks again from the registrations (it does so for a key it finds no record of)"
	return r
}

// Subscribers is contracts.SubscribersBucket: email subscribers under the
// hash of their address. A deleted subscriber is purged, so that no
// earlier revision keeps the address.
func Subscribers(js jetstream.JetStream) *Records[contracts.Subscriber] {
	r := NewRecords[contracts.Subscriber](js, contracts.SubscribersBucket)
	r.purge, r.rebuild = true, "have people subscribe again"
	return r
}

// Bucket is the bucket's name.
func (r *Records[T]) Bucket() string { return r.bucket }

// bind binds the bucket once.
func (r *Records[T]) bind(ctx context.Context) (jetstream.KeyValue, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.kv != nil {
		return r.kv, nil
	}
	kv, err := r.js.KeyValue(ctx, r.bucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, &NoBucketError{Bucket: r.bucket}
	}
	if err != nil {
		return nil, fmt.Errorf("bind %s: %w", r.bucket, err)
	}
	r.kv = kv
	return kv, nil
}

// unbind has the next use bind the bucket again: after a failed follow,
// which may be a bucket deleted (and perhaps created anew) under it.
func (r *Records[T]) unbind() {
	r.mu.Lock()
	r.kv = nil
	r.mu.Unlock()
}

// Get returns the record under key and its revision; nil and 0 when there
// is none, as under a key the bucket cannot hold (jetstream's invalid
// key): no record can be there.
func (r *Records[T]) Get(ctx context.Context, key string) (*T, uint64, error) {
	kv, err := r.bind(ctx)
	if err != nil {
		return nil, 0, err
	}
	return r.get(ctx, kv, key)
}

func (r *Records[T]) get(ctx context.Context, kv jetstream.KeyValue, key string) (*T, uint64, error) {
	e, err := kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrInvalidKey) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("read %s record %s: %w", r.bucket, key, err)
	}
	v, err := r.decode(e)
	return v, e.Revision(), err
}

func (r *Records[T]) decode(e jetstream.KeyValueEntry) (*T, error) {
	v := new(T)
	if err := json.Unmarshal(e.Value(), v); err != nil {
		return nil, fmt.Errorf("%s record %s at revision %d: %w: %w", r.bucket, e.Key(), e.Revision(), ErrUndecodable, err)
	}
	return v, nil
}

// Change reads the record under key and writes what edit makes of it,
// compare-and-set on the revision it read, starting over from a fresh
// read when another writer got there first. edit gets nil when there is
// no record; it returns the record to write, nil to delete it, or
// ErrUnchanged (perhaps wrapped) to write nothing. Change returns the
// record as it is now: what was written, nil after a deletion, or the
// record edit left unchanged. An error of edit's own ends it at once.
func (r *Records[T]) Change(ctx context.Context, key string, edit func(cur *T) (*T, error)) (*T, error) {
	return r.change(ctx, key, r.get, edit)
}

// change is Change reading the record with read.
func (r *Records[T]) change(ctx context.Context, key string, read func(context.Context, jetstream.KeyValue, string) (*T, uint64, error),
	edit func(cur *T) (*T, error)) (*T, error) {
	kv, err := r.bind(ctx)
	if err != nil {
		return nil, err
	}
	for range changeAttempts {
		cur, rev, err := read(ctx, kv, key)
		if err != nil {
			return nil, err
		}
		next, err := edit(cur)
		if errors.Is(err, ErrUnchanged) {
			return cur, nil
		}
		if err != nil {
			return nil, err
		}
		err = r.write(ctx, kv, key, cur, next, rev)
		if conflict(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("write %s record %s: %w", r.bucket, key, err)
		}
		return next, nil
	}
	return nil, ErrConflict
}

// write puts next in place of cur, which was read at revision rev.
func (r *Records[T]) write(ctx context.Context, kv jetstream.KeyValue, key string, cur, next *T, rev uint64) error {
	switch {
	case next == nil && cur == nil:
		return nil
	case next == nil && r.purge:
		return kv.Purge(ctx, key, jetstream.LastRevision(rev))
	case next == nil:
		return kv.Delete(ctx, key, jetstream.LastRevision(rev))
	}
	body, err := json.Marshal(next)
	if err != nil {
		return err
	}
	if cur == nil {
		_, err = kv.Create(ctx, key, body)
	} else {
		_, err = kv.Update(ctx, key, body, rev)
	}
	return err
}

// conflict reports a write that lost to another: the record changed since
// it was read, or appeared, for a create. The server says so in two ways:
// the client's ErrKeyExists, and the stream's wrong-last-sequence errors.
func conflict(err error) bool {
	var apiErr *jetstream.APIError
	return errors.Is(err, jetstream.ErrKeyExists) ||
		errors.As(err, &apiErr) && (apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
			apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant)
}

// Create writes v under key unless a record is there already (ErrExists).
func (r *Records[T]) Create(ctx context.Context, key string, v *T) error {
	_, err := r.Change(ctx, key, func(cur *T) (*T, error) {
		if cur != nil {
			return nil, ErrExists
		}
		return v, nil
	})
	return err
}

// Delete removes the record under key, whether or not it decodes; a key
// with no record is not an error.
func (r *Records[T]) Delete(ctx context.Context, key string) error {
	_, err := r.change(ctx, key, r.present, func(*T) (*T, error) { return nil, nil })
	return err
}

// present is get for a deletion, which need not decode what it deletes:
// a record that does not decode is there all the same.
func (r *Records[T]) present(ctx context.Context, kv jetstream.KeyValue, key string) (*T, uint64, error) {
	v, rev, err := r.get(ctx, kv, key)
	if errors.Is(err, ErrUndecodable) {
		return new(T), rev, nil
	}
	return v, rev, err
}

// Entry is one record as a load or a watch read it: Value is nil for a
// deleted record, and for one that does not decode, with Err saying why.
type Entry[T any] struct {
	Key      string
	Value    *T
	Revision uint64
	Err      error
}

func (r *Records[T]) entry(e jetstream.KeyValueEntry) Entry[T] {
	out := Entry[T]{Key: e.Key(), Revision: e.Revision()}
	if e.Operation() == jetstream.KeyValuePut {
		out.Value, out.Err = r.decode(e)
	}
	return out
}

// DefaultLoadTimeout is how long a load waits for the next record before
// it gives up with a *StalledError.
const DefaultLoadTimeout = 10 * time.Second

// List returns every record whose key matches filter (a NATS subject
// filter of keys; "" is every key), read by one watch of the bucket. No
// bucket is no records. A load that stops before the bucket's end is a
// *StalledError, after loadTimeout without a record (zero is
// DefaultLoadTimeout).
func (r *Records[T]) List(ctx context.Context, filter string, loadTimeout time.Duration) ([]Entry[T], error) {
	kv, err := r.bind(ctx)
	if errors.Is(err, ErrNoBucket) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	// A whole bucket's list reads the deletion markers too, to see that
	// it got to the bucket's last revision (end); a filtered one cannot
	// tell, and skips them.
	var end uint64
	opts := []jetstream.WatchOpt{jetstream.IgnoreDeletes()}
	if filter == "" {
		if end, err = r.end(ctx, kv); err != nil {
			return nil, err
		}
		opts = nil
	}
	w, err := kv.Watch(ctx, cmp.Or(filter, ">"), opts...)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", r.bucket, err)
	}
	defer w.Stop()
	all, err := r.load(ctx, kv, w, cmp.Or(loadTimeout, DefaultLoadTimeout), end)
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, e := range all {
		if e.Value != nil || e.Err != nil {
			out = append(out, e)
		}
	}
	return out, nil
}

// end is the last revision the bucket's stream holds, before a load: its
// last message, which no later write can have removed (a deletion is a
// record too), so a load that ends short of it has lost records (a
// message block cut short by a crash, which leaves nothing else to
// tell). 0 when it holds none. A stream cut before its first record
// looks like one emptied on purpose (purged): that one is not told apart.
func (r *Records[T]) end(ctx context.Context, kv jetstream.KeyValue) (uint64, error) {
	st, err := kv.Status(ctx)
	if err != nil {
		return 0, fmt.Errorf("read %s's state: %w", r.bucket, err)
	}
	bs, ok := st.(*jetstream.KeyValueBucketStatus)
	if !ok {
		return 0, nil
	}
	// A stream emptied on purpose (purged) starts after its last
	// sequence; one whose every record was cut still spans them, and
	// counts them deleted.
	if state := bs.StreamInfo().State; state.FirstSeq <= state.LastSeq {
		return state.LastSeq, nil
	}
	return 0, nil
}

// load reads a watch's initial records, every kind of entry, until their
// end; it fails with a *StalledError when none came for timeout, or when
// the last revision read is short of end.
func (r *Records[T]) load(ctx context.Context, kv jetstream.KeyValue, w jetstream.KeyWatcher, timeout time.Duration, end uint64) ([]Entry[T], error) {
	var all []Entry[T]
	var last uint64
	l := loader{timeout: timeout}
	defer l.stop()
	for {
		e, err := l.next(ctx, w)
		if err != nil {
			return nil, r.stalled(ctx, kv, err, len(all), l)
		}
		if e == nil {
			break
		}
		last = max(last, e.Revision())
		all = append(all, r.entry(e))
	}
	if last < end {
		return nil, r.stalledError(ctx, kv, fmt.Sprintf("load %s: %d records read, the last at revision %d, while the bucket's stream ends at revision %d: "+
			"the records after it are lost", r.bucket, len(all), last, end))
	}
	return all, nil
}

// loader reads a watch's initial records, giving up once none came for
// timeout. A watch's initial records end with a nil entry, which the
// client library sends once the records the consumer announced have come,
// and never otherwise. A record the server cannot read (a message block
// whose record fails its checksum, say) is announced but never sent:
// nats-server's index of the stream, trusted at start, still counts it,
// while a consumer skips it without an error
// (https://github.com/nats-io/nats-server/issues/8632), and the jetstream
// package, unlike nats.go's older KeyValue, has no timer of its own to end
// such a load.
type loader struct {
	timeout time.Duration
	timer   *time.Timer
	last    jetstream.KeyValueEntry
}

// errStalled is a load that waited out its timeout.
var errStalled = errors.New("stalled")

// next returns the watch's next entry, nil at the end of its initial
// records.
func (l *loader) next(ctx context.Context, w jetstream.KeyWatcher) (jetstream.KeyValueEntry, error) {
	if l.timer == nil {
		l.timer = time.NewTimer(l.timeout)
	} else {
		l.timer.Reset(l.timeout)
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-l.timer.C:
		return nil, errStalled
	case e, ok := <-w.Updates():
		if !ok {
			return nil, errors.New("watcher closed")
		}
		if e != nil {
			l.last = e
		}
		return e, nil
	}
}

func (l *loader) stop() {
	if l.timer != nil {
		l.timer.Stop()
	}
}

// stalled turns a load's errStalled into a *StalledError; other errors
// pass.
func (r *Records[T]) stalled(ctx context.Context, kv jetstream.KeyValue, err error, records int, l loader) error {
	if !errors.Is(err, errStalled) {
		return fmt.Errorf("load %s: %w", r.bucket, err)
	}
	return r.stall(ctx, kv, records, l.last, l.timeout)
}

// StalledError is a read of a bucket that did not get all the records its
// stream says it holds: it stopped before the bucket's end (a record the
// server cannot read), or the bucket's end was gone (records lost).
type StalledError struct {
	msg     string
	bucket  string
	stream  string // the bucket's stream, "" when unknown
	rebuild string
}

func (e *StalledError) Error() string { return e.msg }

// Repair says what an operator can do about a read that keeps stalling.
func (e *StalledError) Repair() string {
	stream := cmp.Or(e.stream, "the bucket's stream")
	return "if NATS is otherwise healthy, the server cannot read a record of the bucket (a corrupt message block in its file store): " +
		"restore " + stream + " from a backup (nats stream restore), " +
		"or delete the bucket (nats kv rm " + e.bucket + ") and " + e.rebuild
}

// stall describes a read of the bucket that got records records, the last
// one last, and then nothing for after, with what the bucket's stream says
// it holds: a last revision at the stream's end with more announced, or
// fewer records than messages, shows records the server skipped.
func (r *Records[T]) stall(ctx context.Context, kv jetstream.KeyValue, records int, last jetstream.KeyValueEntry, after time.Duration) *StalledError {
	msg := fmt.Sprintf("load %s: no record for %v after %d records", r.bucket, after, records)
	if last != nil {
		msg += fmt.Sprintf(" (the last, revision %d, with %d more announced)", last.Revision(), last.Delta())
	}
	return r.stalledError(ctx, kv, msg)
}

// stalledError is a *StalledError saying msg and what the bucket's stream
// says it holds. The stream's state costs one request, made only when a
// load has failed; without it the error says less, but is still right.
func (r *Records[T]) stalledError(ctx context.Context, kv jetstream.KeyValue, msg string) *StalledError {
	err := &StalledError{msg: msg, bucket: r.bucket, rebuild: r.rebuild}
	st, serr := kv.Status(ctx)
	if bs, ok := st.(*jetstream.KeyValueBucketStatus); serr == nil && ok {
		info := bs.StreamInfo()
		err.stream = info.Config.Name
		err.msg += fmt.Sprintf("; stream %s holds %d messages, revisions %d to %d, %d deleted",
			info.Config.Name, info.State.Msgs, info.State.FirstSeq, info.State.LastSeq, info.State.NumDeleted)
		if lost := info.State.Lost; lost != nil {
			err.msg += fmt.Sprintf(", and reports %d lost", len(lost.Msgs))
		}
	}
	return err
}

// A Follower keeps records of a bucket in memory, as Follow tells it.
// Follow calls its methods from one goroutine.
type Follower[T any] interface {
	// Loaded is every record of the bucket, read when a watch began: at
	// the start and again after a watch ended. It replaces whatever the
	// follower had; a record deleted while no watch ran is not in it.
	Loaded(all []Entry[T])
	// Changed is the changes that arrived together after a load.
	Changed(batch []Entry[T])
	// Down is a failed attempt to follow the bucket: it does not exist
	// yet (ErrNoBucket), cannot be bound or watched, a load stalled
	// (*StalledError), or the watch ended. Follow tries again after a
	// backoff; what the follower had stays its to use.
	Down(err error)
}

// FollowConfig bounds Follow's waits.
type FollowConfig struct {
	// LoadTimeout: see List. Zero is DefaultLoadTimeout.
	LoadTimeout time.Duration
	// MaxBackoff is the longest wait between attempts; zero is 5 s.
	MaxBackoff time.Duration
}

// Follow binds the bucket (waiting for it to be provisioned), loads it
// into f, then hands f every change as it comes, binding and watching
// again whenever a watch ends, until ctx ends; then it returns nil.
func (r *Records[T]) Follow(ctx context.Context, cfg FollowConfig, f Follower[T]) error {
	maxBackoff := cmp.Or(cfg.MaxBackoff, 5*time.Second)
	for backoff := 100 * time.Millisecond; ; backoff = min(2*backoff, maxBackoff) {
		kv, err := r.bind(ctx)
		if err == nil {
			var loaded bool
			loaded, err = r.follow(ctx, kv, cmp.Or(cfg.LoadTimeout, DefaultLoadTimeout), f)
			if loaded {
				backoff = 100 * time.Millisecond
			}
			r.unbind()
		}
		if ctx.Err() != nil {
			return nil
		}
		f.Down(err)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(backoff):
		}
	}
}

// follow loads the bucket into f, then applies its changes as they come,
// in batches of those that arrived together. loaded says whether the load
// ended before follow returned.
func (r *Records[T]) follow(ctx context.Context, kv jetstream.KeyValue, loadTimeout time.Duration, f Follower[T]) (loaded bool, err error) {
	end, err := r.end(ctx, kv)
	if err != nil {
		return false, err
	}
	w, err := kv.WatchAll(ctx)
	if err != nil {
		return false, fmt.Errorf("watch %s: %w", r.bucket, err)
	}
	defer w.Stop()
	all, err := r.load(ctx, kv, w, loadTimeout, end)
	if err != nil {
		return false, err
	}
	f.Loaded(all)
	for {
		var batch []Entry[T]
		select {
		case <-ctx.Done():
			return true, ctx.Err()
		case e, ok := <-w.Updates():
			if !ok {
				return true, fmt.Errorf("watch %s: watcher closed", r.bucket)
			}
			if e != nil {
				batch = append(batch, r.entry(e))
			}
		}
	drain:
		for {
			select {
			case e, ok := <-w.Updates():
				if !ok {
					break drain
				}
				if e != nil {
					batch = append(batch, r.entry(e))
				}
			default:
				break drain
			}
		}
		if len(batch) > 0 {
			f.Changed(batch)
		}
	}
}
