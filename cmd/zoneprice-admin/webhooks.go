package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/query/webhooks"
)

// webhookFlags are the flags of the webhooks commands.
type webhookFlags struct{ owner, reason string }

func registerWebhookFlags(fs *flag.FlagSet) *webhookFlags {
	f := &webhookFlags{}
	fs.StringVar(&f.owner, "owner", "", "webhooks list: only the webhooks of this API key id")
	fs.StringVar(&f.reason, "reason", "", fmt.Sprintf("webhooks disable: why, for the subscriber to read (printable, at most %d bytes)", contracts.MaxNoteLen))
	return f
}

// only refuses the flags with a command they do not go with.
func (f *webhookFlags) only(noun, verb string) error {
	if f.owner != "" && (noun != "webhooks" || verb != "list") {
		return fmt.Errorf("--owner goes with webhooks list, not %s %s", noun, verb)
	}
	if f.reason != "" && (noun != "webhooks" || verb != "disable") {
		return fmt.Errorf("--reason goes with webhooks disable, not %s %s", noun, verb)
	}
	return nil
}

// webhookCommand is the webhooks command verb names, its flags and
// operands checked before it connects.
func webhookCommand(verb string, operands []string, f *webhookFlags, stdout io.Writer) (func(context.Context, jetstream.JetStream) error, error) {
	// The operator's store may re-enable an endpoint whose http URL pods
	// once allowed: it changes no URL.
	store := func(js jetstream.JetStream) *webhooks.Store {
		return webhooks.NewStore(webhooks.Config{AllowHTTP: true}, webhooks.Bus{Webhooks: bus.Webhooks(js), Owners: bus.WebhookOwners(js), Deliveries: bus.NewDeliveries(js)}, time.Now)
	}
	switch {
	case verb == "list" && len(operands) == 0:
		// An owner is a key id, which a bucket key holds before the
		// webhook id; a wildcard would list others' webhooks.
		if _, _, ok := contracts.ParseWebhookKey(contracts.WebhookKey(f.owner, "wh_0000000000000000")); f.owner != "" && !ok {
			return nil, fmt.Errorf("--owner: %q is not an API key id (keys list shows them)", f.owner)
		}
		return func(ctx context.Context, js jetstream.JetStream) error {
			list, err := store(js).List(ctx, f.owner)
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(w, "ID\tOWNER\tSTATE\tEVENTS\tURL")
			for _, h := range list {
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", h.ID, h.Owner, state(&h), events(h.Events), h.URL)
			}
			return w.Flush()
		}, nil
	case len(operands) != 1 || (verb != "show" && verb != "delete" && verb != "disable" && verb != "enable"):
		return nil, fmt.Errorf("webhooks %s %s: not a command", verb, strings.Join(operands, " "))
	}
	id := operands[0]
	if !contracts.ValidWebhookID(id) {
		return nil, fmt.Errorf("%q is not a webhook id (wh_ and 16 hex digits)", id)
	}
	if verb == "disable" {
		if f.reason == "" {
			return nil, errors.New("--reason: missing: say why, for the subscriber")
		}
		if err := contracts.ValidateNote(f.reason); err != nil || len(f.reason) > contracts.MaxNoteLen {
			return nil, fmt.Errorf("--reason: printable text of at most %d bytes", contracts.MaxNoteLen)
		}
	}
	return func(ctx context.Context, js jetstream.JetStream) error {
		s := store(js)
		h, err := s.Find(ctx, id)
		if errors.Is(err, webhooks.ErrNotFound) {
			return fmt.Errorf("no webhook %s", id)
		}
		if err != nil {
			return err
		}
		switch verb {
		case "show":
			return show(stdout, &h)
		case "delete":
			if err := s.Delete(ctx, h.Owner, id); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "deleted %s (key %s, %s)\n", id, h.Owner, h.URL)
			return nil
		case "disable":
			if _, err := s.Disable(ctx, h.Owner, id, f.reason); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "disabled %s (key %s): %s\n", id, h.Owner, f.reason)
			return nil
		}
		if _, err := s.Patch(ctx, h.Owner, id, webhooks.Patch{Enable: true}); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "enabled %s (key %s)\n", id, h.Owner)
		return nil
	}, nil
}

// state is a webhook's state in a word.
func state(h *contracts.Webhook) string {
	switch {
	case h.Disabled != nil:
		return "disabled"
	case h.Paused:
		return "paused"
	}
	return "active"
}

func events(es []contracts.EventType) string {
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = string(e)
	}
	return strings.Join(s, ",")
}

// show prints a webhook, never its secrets.
func show(stdout io.Writer, h *contracts.Webhook) error {
	w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	line := func(k, v string) { fmt.Fprintf(w, "%s:\t%s\n", k, v) }
	line("id", h.ID)
	line("owner", h.Owner)
	line("url", h.URL)
	line("events", events(h.Events))
	line("state", state(h))
	if h.Disabled != nil {
		line("disabled", h.Disabled.At.Format(time.RFC3339)+" "+h.Disabled.Reason)
	}
	if h.FailingSince != nil {
		line("failing since", h.FailingSince.Format(time.RFC3339))
	}
	f := h.Filters
	line("zones", strings.Join(f.Zones, ","))
	line("registrars", strings.Join(f.Registrars, ","))
	line("categories", strings.Join(f.Categories, ","))
	line("min change", fmt.Sprintf("%g%%", f.MinChangePercent))
	line("description", h.Description)
	line("secrets", fmt.Sprintf("%d signing now", len(h.SigningSecrets(time.Now()))))
	line("created", h.CreatedAt.Format(time.RFC3339))
	line("updated", h.UpdatedAt.Format(time.RFC3339))
	return w.Flush()
}
