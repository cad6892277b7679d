package bus_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
)

// counter is a record for the tests of Records.
type counter struct {
	N int `json:"n"`
}

func testRecords(t *testing.T) (*bus.Records[counter], jetstream.KeyValue) {
	t.Helper()
	_, js := bustest.Connect(t, bustest.Server(t))
	kv, err := js.CreateKeyValue(context.Background(), jetstream.KeyValueConfig{Bucket: "TEST", History: 1})
	if err != nil {
		t.Fatal(err)
	}
	return bus.NewRecords[counter](js, "TEST"), kv
}

func add(n int) func(*counter) (*counter, error) {
	return func(cur *counter) (*counter, error) {
		if cur == nil {
			return &counter{N: n}, nil
		}
		return &counter{N: cur.N + n}, nil
	}
}

func TestRecordsNoBucket(t *testing.T) {
	_, js := bustest.Connect(t, bustest.Server(t))
	r := bus.NewRecords[counter](js, "MISSING")
	ctx := context.Background()
	_, _, err := r.Get(ctx, "a")
	var nb *bus.NoBucketError
	if !errors.Is(err, bus.ErrNoBucket) || !errors.As(err, &nb) || nb.Bucket != "MISSING" {
		t.Errorf("Get without a bucket: %v, want ErrNoBucket naming MISSING", err)
	}
	if _, err := r.Change(ctx, "a", add(1)); !errors.Is(err, bus.ErrNoBucket) {
		t.Errorf("Change without a bucket: %v, want ErrNoBucket", err)
	}
	if got, err := r.List(ctx, "", 0); err != nil || got != nil {
		t.Errorf("List without a bucket = %v, %v; want nothing", got, err)
	}
}

func TestRecordsChange(t *testing.T) {
	r, _ := testRecords(t)
	ctx := context.Background()
	if got, rev, err := r.Get(ctx, "a"); got != nil || rev != 0 || err != nil {
		t.Fatalf("Get of no record = %v, %d, %v", got, rev, err)
	}
	if err := r.Create(ctx, "a", &counter{N: 1}); err != nil {
		t.Fatal(err)
	}
	if err := r.Create(ctx, "a", &counter{N: 5}); !errors.Is(err, bus.ErrExists) {
		t.Errorf("second Create: %v, want ErrExists", err)
	}
	got, err := r.Change(ctx, "a", add(2))
	if err != nil || got.N != 3 {
		t.Fatalf("Change = %v, %v; want 3", got, err)
	}
	got, err = r.Change(ctx, "a", func(*counter) (*counter, error) { return nil, fmt.Errorf("no: %w", bus.ErrUnchanged) })
	if err != nil || got == nil || got.N != 3 {
		t.Errorf("unchanged = %v, %v; want the record as it is", got, err)
	}
	mine := errors.New("refused")
	if _, err := r.Change(ctx, "a", func(*counter) (*counter, error) { return nil, mine }); !errors.Is(err, mine) {
		t.Errorf("an edit's own error: %v", err)
	}
	if err := r.Delete(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if got, _, err := r.Get(ctx, "a"); got != nil || err != nil {
		t.Errorf("after Delete: %v, %v", got, err)
	}
	if err := r.Delete(ctx, "a"); err != nil {
		t.Errorf("Delete of no record: %v", err)
	}
}

// TestRecordsUndecodable: a record that is not JSON is an error to read
// and to change, saying so, and can be deleted.
func TestRecordsUndecodable(t *testing.T) {
	r, kv := testRecords(t)
	ctx := context.Background()
	if _, err := kv.Put(ctx, "bad", []byte("not json")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.Get(ctx, "bad"); !errors.Is(err, bus.ErrUndecodable) || !strings.Contains(err.Error(), "TEST record bad") {
		t.Errorf("Get of a record that is not JSON: %v, want ErrUndecodable naming it", err)
	}
	if _, err := r.Change(ctx, "bad", add(1)); !errors.Is(err, bus.ErrUndecodable) {
		t.Errorf("Change of a record that is not JSON: %v, want ErrUndecodable", err)
	}
	if err := r.Delete(ctx, "bad"); err != nil {
		t.Fatalf("Delete of a record that is not JSON: %v", err)
	}
	if got, rev, err := r.Get(ctx, "bad"); got != nil || rev != 0 || err != nil {
		t.Errorf("after Delete: %v, %d, %v", got, rev, err)
	}
	if got, rev, err := r.Get(ctx, "not a key!"); got != nil || rev != 0 || err != nil {
		t.Errorf("Get under a key the bucket cannot hold: %v, %d, %v; want no record", got, rev, err)
	}
}

// TestRecordsConcurrentChanges: every one of many concurrent increments
// lands once, through the compare-and-set loop.
func TestRecordsConcurrentChanges(t *testing.T) {
	r, _ := testRecords(t)
	ctx := context.Background()
	const writers = 8
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed []error
	for range writers {
		wg.Go(func() {
			for range 5 {
				if _, err := r.Change(ctx, "n", add(1)); err != nil {
					mu.Lock()
					failed = append(failed, err)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	got, _, err := r.Get(ctx, "n")
	if err != nil {
		t.Fatal(err)
	}
	// A change that gave up (ErrConflict) is one fewer increment, said so.
	if want := writers*5 - len(failed); got.N != want {
		t.Errorf("n = %d after %d increments of which %d failed (%v)", got.N, writers*5, len(failed), failed)
	}
	for _, err := range failed {
		if !errors.Is(err, bus.ErrConflict) {
			t.Errorf("a failed change: %v, want ErrConflict", err)
		}
	}
}

func TestRecordsPurge(t *testing.T) {
	_, js := bustest.Provisioned(t)
	ctx := context.Background()
	subs := bus.Subscribers(js)
	sub := &contracts.Subscriber{Email: "a@example.com"}
	key := sub.Key()
	if err := subs.Create(ctx, key, sub); err != nil {
		t.Fatal(err)
	}
	if err := subs.Delete(ctx, key); err != nil {
		t.Fatal(err)
	}
	kv, err := js.KeyValue(ctx, contracts.SubscribersBucket)
	if err != nil {
		t.Fatal(err)
	}
	e, err := kv.Get(ctx, key)
	if !errors.Is(err, jetstream.ErrKeyNotFound) {
		t.Fatalf("after Delete: %v, %v", e, err)
	}
	hist, err := kv.History(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hist {
		if h.Operation() == jetstream.KeyValuePut {
			t.Errorf("a deleted subscriber's revision %d still holds its address", h.Revision())
		}
	}
}

func TestRecordsList(t *testing.T) {
	r, kv := testRecords(t)
	ctx := context.Background()
	for _, k := range []string{"o1.a", "o1.b", "o2.c"} {
		if err := r.Create(ctx, k, &counter{N: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := kv.Put(ctx, "o1.bad", []byte("not json")); err != nil {
		t.Fatal(err)
	}
	if err := r.Delete(ctx, "o1.b"); err != nil {
		t.Fatal(err)
	}
	got, err := r.List(ctx, "o1.*", 0)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, e := range got {
		keys = append(keys, e.Key)
		if (e.Key == "o1.bad") != (e.Err != nil) || (e.Err == nil) != (e.Value != nil) {
			t.Errorf("entry %s: value %v, err %v", e.Key, e.Value, e.Err)
		}
	}
	slices.Sort(keys)
	if want := []string{"o1.a", "o1.bad"}; !slices.Equal(keys, want) {
		t.Errorf("List(o1.*) = %q, want %q", keys, want)
	}
	all, err := r.List(ctx, "", 0)
	if err != nil || len(all) != 3 {
		t.Errorf("List() = %d entries, %v; want 3", len(all), err)
	}
}

// follower records what Follow tells it.
type follower struct {
	mu      sync.Mutex
	records map[string]int
	loads   int
	downs   []error
}

func (f *follower) Loaded(all []bus.Entry[counter]) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.loads++
	f.records = map[string]int{}
	for _, e := range all {
		if e.Value != nil {
			f.records[e.Key] = e.Value.N
		}
	}
}

func (f *follower) Changed(batch []bus.Entry[counter]) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, e := range batch {
		if e.Value != nil {
			f.records[e.Key] = e.Value.N
		} else {
			delete(f.records, e.Key)
		}
	}
}

func (f *follower) Down(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.downs = append(f.downs, err)
}

func (f *follower) state() (map[string]int, int, []error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.records), f.loads, slices.Clone(f.downs)
}

func TestRecordsFollow(t *testing.T) {
	_, js := bustest.Connect(t, bustest.Server(t))
	r := bus.NewRecords[counter](js, "TEST")
	ctx, cancel := context.WithCancel(context.Background())
	f := &follower{}
	done := make(chan error, 1)
	go func() { done <- r.Follow(ctx, bus.FollowConfig{MaxBackoff: 50 * time.Millisecond}, f) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Follow: %v", err)
		}
	})
	wait := func(what string, cond func(map[string]int, int, []error) bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !cond(f.state()) {
			if time.Now().After(deadline) {
				records, loads, downs := f.state()
				t.Fatalf("waiting for %s: records %v, loads %d, downs %v", what, records, loads, downs)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	wait("the missing bucket", func(_ map[string]int, _ int, downs []error) bool {
		return len(downs) > 0 && errors.Is(downs[0], bus.ErrNoBucket)
	})
	if _, err := js.CreateKeyValue(context.Background(), jetstream.KeyValueConfig{Bucket: "TEST", History: 1}); err != nil {
		t.Fatal(err)
	}
	wait("the first load", func(_ map[string]int, loads int, _ []error) bool { return loads == 1 })
	if _, err := r.Change(context.Background(), "a", add(7)); err != nil {
		t.Fatal(err)
	}
	wait("a change", func(rec map[string]int, _ int, _ []error) bool { return rec["a"] == 7 })
	if err := r.Delete(context.Background(), "a"); err != nil {
		t.Fatal(err)
	}
	wait("a deletion", func(rec map[string]int, _ int, _ []error) bool { _, ok := rec["a"]; return !ok })
}

// TestRecordsListStalled: a bucket whose last record the server cannot
// read is a load that stalls, not a short list: a *StalledError with the
// stream's own account and the repair.
func TestRecordsListStalled(t *testing.T) {
	srv, js := bustest.Provisioned(t)
	ctx := context.Background()
	keys := bus.Keys(js)
	for i := range 3 {
		k := &contracts.APIKey{ID: fmt.Sprintf("k%d", i), Tier: "standard", CreatedAt: time.Unix(1, 0).UTC()}
		if err := keys.Create(ctx, k.ID, k); err != nil {
			t.Fatal(err)
		}
	}
	srv = bustest.DamageValue(t, srv, "KV_"+contracts.KeysBucket, []byte(`"k2"`))
	_, js = bustest.Connect(t, srv)
	_, err := bus.Keys(js).List(ctx, "", 500*time.Millisecond)
	var stall *bus.StalledError
	if !errors.As(err, &stall) {
		t.Fatalf("List of a damaged bucket: %v, want a *StalledError", err)
	}
	if r := stall.Repair(); !strings.Contains(r, "KV_"+contracts.KeysBucket) || !strings.Contains(r, "zoneprice-admin keys create") {
		t.Errorf("repair %q names neither the stream nor how keys come back", r)
	}
}

// TestRecordsLostTail: five keys, the keys bucket's message block cut in
// the middle of the third record, as a crash can leave it. The server
// starts without a word and counts the three records as deleted; a load
// must not take the two that survive for the whole bucket: List and
// Follow fail with a *StalledError that says what the stream holds, and
// the repair.
func TestRecordsLostTail(t *testing.T) {
	srv, js := bustest.Provisioned(t)
	ctx := context.Background()
	for i := range 5 {
		k := &contracts.APIKey{ID: fmt.Sprintf("k%d", i), Tier: "standard", CreatedAt: time.Unix(1, 0).UTC()}
		if err := bus.Keys(js).Create(ctx, k.ID, k); err != nil {
			t.Fatal(err)
		}
	}
	// A revoked key before the cut: a deletion marker is a record too.
	if err := bus.Keys(js).Delete(ctx, "k1"); err != nil {
		t.Fatal(err)
	}
	if got, err := bus.Keys(js).List(ctx, "", time.Second); err != nil || len(got) != 4 {
		t.Fatalf("List of a healthy bucket = %d records, %v; want 4", len(got), err)
	}
	srv = bustest.Truncate(t, srv, "KV_"+contracts.KeysBucket, []byte(`"k2"`))
	_, js = bustest.Connect(t, srv)
	got, err := bus.Keys(js).List(ctx, "", time.Second)
	var stall *bus.StalledError
	if !errors.As(err, &stall) || !strings.Contains(err.Error(), "lost") || !strings.Contains(stall.Repair(), "nats stream restore") {
		t.Fatalf("List of a bucket whose tail is lost = %d records, %v; want a *StalledError saying records are lost", len(got), err)
	}
	f := &keysFollower{downs: make(chan error, 16)}
	fctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- bus.Keys(js).Follow(fctx, bus.FollowConfig{MaxBackoff: 50 * time.Millisecond}, f) }()
	defer func() { cancel(); <-done }()
	select {
	case err := <-f.downs:
		if !errors.As(err, &stall) {
			t.Errorf("Follow's Down(%v), want a *StalledError", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Follow said nothing of a bucket whose tail is lost")
	}
	if f.loaded.Load() {
		t.Error("Follow loaded what survived of a bucket whose tail is lost")
	}
}

// keysFollower tells whether Follow loaded the keys, and what went wrong.
type keysFollower struct {
	loaded atomic.Bool
	downs  chan error
}

func (f *keysFollower) Loaded([]bus.Entry[contracts.APIKey])  { f.loaded.Store(true) }
func (f *keysFollower) Changed([]bus.Entry[contracts.APIKey]) {}
func (f *keysFollower) Down(err error) {
	select {
	case f.downs <- err:
	default:
	}
}

// TestSubscriberAtItsLargest writes a subscriber record as large as its
// bounds let it grow with real zones and registrars (contracts.MaxEmailLen,
// MaxSubscriberZones zones as long as the longest TLD, MaxPendingDrops
// drops and MaxPendingIncreases renewal increases from registrars of the
// longest id) to its bucket: the bucket's largest value holds it.
func TestSubscriberAtItsLargest(t *testing.T) {
	_, js := bustest.Provisioned(t)
	at := time.Date(2026, 11, 26, 23, 59, 59, 999999999, time.UTC)
	email := strings.Repeat("a", 64) + "@" + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 57) + ".org"
	sub := &contracts.Subscriber{Email: email, MinDropPercent: 12.3456789, Confirmed: true, CreatedAt: at, ConfirmedAt: &at, FormMailAt: &at, LastDigestAt: &at,
		Interests:       []contracts.Interest{contracts.InterestPriceDrops, contracts.InterestRenewalIncreases, contracts.InterestArticles, contracts.InterestAPIUpdates},
		DigestedThrough: 1<<64 - 2, PendingMore: 1 << 40, IncreasesMore: 1 << 40, MoreThrough: 1<<64 - 1}
	for i := range contracts.MaxSubscriberZones {
		// As long as .xn--vermgensberatung-pwb, the longest TLD.
		sub.Zones = append(sub.Zones, fmt.Sprintf(".vermoegensberatungzzz%c%c", 'a'+i/26, 'a'+i%26))
	}
	change := func(op contracts.Op) contracts.PendingChange {
		return contracts.PendingChange{Seq: 1<<64 - 1, Zone: sub.Zones[0], Registrar: strings.Repeat("r", 63), Op: op, Percent: 12.345678901234567, ObservedAt: at,
			Before: contracts.Price{Amount: 1 << 62, Currency: "USD"}, After: contracts.Price{Amount: 1<<62 + 1, Currency: "USD"}}
	}
	for range contracts.MaxPendingDrops {
		sub.Pending = append(sub.Pending, change(contracts.OpRegister))
	}
	for range contracts.MaxPendingIncreases {
		sub.Increases = append(sub.Increases, change(contracts.OpRenew))
	}
	if err := sub.Validate(); err != nil {
		t.Fatalf("the largest record is not valid: %v", err)
	}
	got, err := bus.Subscribers(js).Change(context.Background(), sub.Key(), func(*contracts.Subscriber) (*contracts.Subscriber, error) { return sub, nil })
	if err != nil || got == nil || len(got.Increases) != contracts.MaxPendingIncreases {
		t.Fatalf("the largest subscriber record not written: %v", err)
	}
}
