package webhooks_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
	"github.com/zoneprice/zoneprice/query/webhooks"
)

const owner = "4d930e71934acb20"

var registration = webhooks.Registration{URL: "https://hooks.example.com/", Events: []contracts.EventType{contracts.EventPriceChanged}}

// TestConcurrentUpdates: writers that change one record at once all
// succeed, each starting over from a fresh read when another got there
// first, and none undoes another's change. Five writers: each loses at
// most four times, one for every other's success, within its attempts.
func TestConcurrentUpdates(t *testing.T) {
	s, c := storeWithOne(t, time.Now)
	ctx := context.Background()
	id := c.Webhook.ID
	var wg sync.WaitGroup
	errs := make(chan error, 5)
	for i := range 4 {
		wg.Go(func() {
			d := fmt.Sprintf("writer %d", i)
			_, err := s.Patch(ctx, owner, id, webhooks.Patch{Description: &d})
			errs <- err
		})
	}
	wg.Go(func() {
		_, err := s.Disable(ctx, owner, id, "operator")
		errs <- err
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("an update: %v", err)
		}
	}
	w, err := s.Get(ctx, owner, id)
	if err != nil {
		t.Fatal(err)
	}
	if w.Disabled == nil || w.Description == "" {
		t.Errorf("an update was lost: %+v", w)
	}
}

// TestRotateSecret: the new secret comes first, the one it replaces
// signs beside it for a day, and secrets whose day is over go.
func TestRotateSecret(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	s, c := storeWithOne(t, func() time.Time { return now })
	ctx := context.Background()
	first := c.Secret
	tests := []struct {
		name    string
		after   time.Duration
		signing int // secrets that sign after the rotation
		kept    int // secrets the record holds
	}{
		{"first rotation", time.Hour, 2, 2},
		{"again within the day: both old ones overlap", time.Hour, 3, 3},
		{"a day after: the expired go", 25 * time.Hour, 2, 2},
	}
	for _, tt := range tests {
		now = now.Add(tt.after)
		r, err := s.RotateSecret(ctx, owner, c.Webhook.ID)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		w := r.Webhook
		if w.Secrets[0].Secret != r.Secret || w.Secrets[0].Expires != nil || r.Secret == first {
			t.Errorf("%s: the new secret is not first and lasting: %+v", tt.name, w.Secrets)
		}
		if got := len(w.SigningSecrets(now)); got != tt.signing || len(w.Secrets) != tt.kept {
			t.Errorf("%s: %d signing of %d kept, want %d of %d", tt.name, got, len(w.Secrets), tt.signing, tt.kept)
		}
		for _, old := range w.Secrets[1:] {
			if old.Expires == nil || old.Expires.After(now.Add(contracts.WebhookRotationOverlap)) {
				t.Errorf("%s: a rotated-out secret expires %v", tt.name, old.Expires)
			}
		}
	}
}

// TestOwnersApart: one owner's webhook is not found, changed or deleted
// under another.
func TestOwnersApart(t *testing.T) {
	s, c := storeWithOne(t, time.Now)
	ctx := context.Background()
	const other = "0123456789abcdef"
	id := c.Webhook.ID
	paused := true
	for name, do := range map[string]func() error{
		"get":    func() error { _, err := s.Get(ctx, other, id); return err },
		"patch":  func() error { _, err := s.Patch(ctx, other, id, webhooks.Patch{Paused: &paused}); return err },
		"rotate": func() error { _, err := s.RotateSecret(ctx, other, id); return err },
		"ping":   func() error { _, err := s.Ping(ctx, other, id); return err },
		"delete": func() error { return s.Delete(ctx, other, id) },
	} {
		if err := do(); err != webhooks.ErrNotFound {
			t.Errorf("%s under another owner: %v, want ErrNotFound", name, err)
		}
	}
	if list, err := s.List(ctx, other); err != nil || len(list) != 0 {
		t.Errorf("another owner's list: %v %v", list, err)
	}
	if w, err := s.Find(ctx, id); err != nil || w.Owner != owner || w.Paused {
		t.Errorf("the webhook after the other owner's requests: %+v %v", w, err)
	}
}

// TestLimitCountsWhatIsRegistered: a key's limit counts the webhooks it
// registered before keys had a record of them, and a place held by a
// registration that is gone (a pod stopped between a deletion's two
// writes) is given back by the key's next list once it is old enough.
func TestLimitCountsWhatIsRegistered(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	s, js := newStore(t, func() time.Time { return now })
	ctx := context.Background()
	// Registered by an earlier version: no record of the key's webhooks.
	old := &contracts.Webhook{ID: "wh_00000000000000aa", Owner: owner, URL: registration.URL, Events: registration.Events,
		Secrets: []contracts.WebhookSecret{{Secret: "whsec_" + strings.Repeat("A", 43) + "="}}, CreatedAt: now, UpdatedAt: now}
	if err := bus.Webhooks(js).Create(ctx, contracts.WebhookKey(owner, old.ID), old); err != nil {
		t.Fatal(err)
	}
	var le *webhooks.LimitError
	if _, err := s.Create(ctx, owner, registration, 1); !errors.As(err, &le) {
		t.Fatalf("a create beside the earlier registration with a limit of 1: %v, want a LimitError", err)
	}
	c, err := s.Create(ctx, owner, registration, 2)
	if err != nil {
		t.Fatal(err)
	}
	// The registration goes, its place stays (the deletion's second
	// write never came).
	if err := bus.Webhooks(js).Delete(ctx, contracts.WebhookKey(owner, c.Webhook.ID)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(ctx, owner, registration, 2); !errors.As(err, &le) {
		t.Fatalf("a create while the place is held: %v, want a LimitError", err)
	}
	for _, tt := range []struct {
		after time.Duration
		freed bool
	}{{time.Minute, false}, {10 * time.Minute, true}} {
		now = now.Add(tt.after)
		if list, err := s.List(ctx, owner); err != nil || len(list) != 1 {
			t.Fatalf("list: %v %v", list, err)
		}
		_, err := s.Create(ctx, owner, registration, 2)
		if freed := err == nil; freed != tt.freed || err != nil && !errors.As(err, &le) {
			t.Errorf("a create %v later: %v; want the place given back: %v", tt.after, err, tt.freed)
		}
	}
}

// newStore is a store on a new JetStream with the clock now.
func newStore(t *testing.T, now func() time.Time) (*webhooks.Store, jetstream.JetStream) {
	t.Helper()
	_, js := bustest.Provisioned(t)
	return webhooks.NewStore(webhooks.Config{}, webhooks.Bus{Webhooks: bus.Webhooks(js), Owners: bus.WebhookOwners(js), Deliveries: bus.NewDeliveries(js)}, now), js
}

// storeWithOne is a store on a new JetStream with the clock now, holding
// one webhook of owner's.
func storeWithOne(t *testing.T, now func() time.Time) (*webhooks.Store, webhooks.Created) {
	t.Helper()
	s, _ := newStore(t, now)
	c, err := s.Create(context.Background(), owner, registration, 1)
	if err != nil {
		t.Fatal(err)
	}
	return s, c
}
