package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
	"github.com/zoneprice/zoneprice/query/webhooks"
)

// TestWebhooksCommands lists, shows, disables, enables and deletes a
// subscriber's webhook as the operator, on a real JetStream, and checks
// what the bucket then holds.
func TestWebhooksCommands(t *testing.T) {
	srv, js := bustest.Provisioned(t)
	ctx := context.Background()
	store := webhooks.NewStore(webhooks.Config{}, webhooks.Bus{Webhooks: bus.Webhooks(js), Owners: bus.WebhookOwners(js), Deliveries: bus.NewDeliveries(js)}, time.Now)
	const owner, other = "4d930e71934acb20", "0123456789abcdef"
	reg := webhooks.Registration{URL: "https://hooks.example.com/", Events: []contracts.EventType{contracts.EventPriceDropped},
		Filters: contracts.WebhookFilters{Zones: []string{"co.uk"}}}
	mine, err := store.Create(ctx, owner, reg, 5)
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := store.Create(ctx, other, reg, 5)
	if err != nil {
		t.Fatal(err)
	}
	id := mine.Webhook.ID
	run := func(args ...string) string {
		t.Helper()
		out, errOut, err := admin(t, srv, args...)
		if err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, errOut)
		}
		return out
	}
	steps := []struct {
		args     []string
		want     []string
		wantNot  []string
		disabled bool
	}{
		{[]string{"webhooks", "list"}, []string{id, theirs.Webhook.ID, "active", "price.dropped", "https://hooks.example.com/"}, nil, false},
		{[]string{"webhooks", "list", "--owner", owner}, []string{id}, []string{theirs.Webhook.ID}, false},
		{[]string{"webhooks", "show", id}, []string{"owner:", owner, "zones:", ".co.uk", "1 signing now"}, []string{"whsec_"}, false},
		{[]string{"webhooks", "disable", id, "--reason", "endpoint abused"}, []string{"disabled " + id}, nil, true},
		{[]string{"webhooks", "show", id}, []string{"disabled", "endpoint abused"}, nil, true},
		{[]string{"webhooks", "enable", id}, []string{"enabled " + id}, nil, false},
		{[]string{"webhooks", "delete", id}, []string{"deleted " + id}, nil, false},
	}
	for _, s := range steps {
		out := run(s.args...)
		for _, w := range s.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: %q not in\n%s", strings.Join(s.args, " "), w, out)
			}
		}
		for _, w := range s.wantNot {
			if strings.Contains(out, w) {
				t.Errorf("%s: %q in\n%s", strings.Join(s.args, " "), w, out)
			}
		}
		if s.args[1] == "delete" {
			continue
		}
		h, err := store.Get(ctx, owner, id)
		if err != nil {
			t.Fatal(err)
		}
		if (h.Disabled != nil) != s.disabled {
			t.Errorf("after %s: disabled %+v", strings.Join(s.args, " "), h.Disabled)
		}
	}
	if _, err := store.Get(ctx, owner, id); err != webhooks.ErrNotFound {
		t.Errorf("after delete: %v", err)
	}
	if _, err := store.Get(ctx, other, theirs.Webhook.ID); err != nil {
		t.Errorf("the other key's webhook: %v", err)
	}
}

// TestWebhooksCommandsRefused: wrong words and flags change nothing and
// say what is wrong, before connecting.
func TestWebhooksCommandsRefused(t *testing.T) {
	srv := bustest.Server(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"webhooks", "disable", "wh_0123456789abcdef"}, "--reason"},
		{[]string{"webhooks", "show", "nope"}, "not a webhook id"},
		{[]string{"webhooks", "list", "--owner", "*"}, "--owner"},
		{[]string{"webhooks", "show", "wh_0123456789abcdef", "--owner", "4d930e71934acb20"}, "--owner goes with webhooks list"},
		{[]string{"keys", "list", "--reason", "x"}, "--reason goes with webhooks disable"},
		{[]string{"webhooks", "rename", "wh_0123456789abcdef"}, "not a command"},
		{[]string{"webhooks", "show", "wh_0123456789abcdef"}, "no webhook wh_0123456789abcdef"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, _, err := admin(t, srv, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error saying %q", err, tt.want)
			}
		})
	}
}
