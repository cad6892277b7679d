// Command zoneprice-admin manages the subscribers' API keys, in the
// JetStream key-value bucket that every query pod watches, and checks and
// repairs the state stream (stream check, stream republish):
//
//	zoneprice-admin keys create --tier pro --note "acme corp"
//	zoneprice-admin keys list
//	zoneprice-admin keys revoke <id>
//
// create prints the new key once; only its SHA-256 is stored. A created or
// revoked key takes effect on every pod within seconds. It needs write
// access to the bucket, and creates it when missing, with the replicas of
// the state stream. A key's tier is one of the default tiers (free,
// standard, pro) unless --allow-custom-tier says the pods' --tiers define
// another: a pod serves a key of a tier it does not define at the free
// limit.
//
//	zoneprice-admin announce --interest api-updates --subject "…" --body-file news.txt
//
// mails an announcement to every confirmed subscriber who chose the
// interest (articles or api-updates), through the relay or outbox the
// --smtp-* and --mail-* flags name (beside make run: the all-in-one's
// outbox and secret).
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/cmd/internal/app"
	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/query/access"
	"github.com/zoneprice/zoneprice/query/subscribe"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "zoneprice-admin:", err)
		os.Exit(1)
	}
}

const usage = `usage:
  zoneprice-admin keys create --tier TIER [--note NOTE]   make a key, printed once
  zoneprice-admin keys list                               list keys (never the keys themselves)
  zoneprice-admin keys revoke ID                          revoke a key on every pod
  zoneprice-admin stream check                            does the state stream hold every message it counts?
  zoneprice-admin stream republish                        have every running ingester publish its whole list now
  zoneprice-admin webhooks list [--owner KEYID]           list the subscribers' webhooks (never their secrets)
  zoneprice-admin webhooks show ID                        one webhook
  zoneprice-admin webhooks delete ID                      delete a webhook
  zoneprice-admin webhooks disable ID --reason REASON     stop delivering to a webhook; the subscriber reads why
  zoneprice-admin webhooks enable ID                      deliver again (and forget its failures)
  zoneprice-admin announce --interest I --subject S --body-file F
                                                          mail an announcement to the confirmed subscribers of
                                                          articles or api-updates

TIER is free, standard or pro. Another tier needs --allow-custom-tier, and
the pods must define it in --tiers: a pod serves a key of a tier it does not
define at the free limit.

flags (before or after the command words):
`

func run(ctx context.Context, args []string, getenv app.Env, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("zoneprice-admin", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	common := app.RegisterCommon(fs, getenv, "nats://127.0.0.1:4222", "NATS server(s) holding the keys bucket, comma-separated")
	var tier, note string
	var customTier bool
	var timeout time.Duration
	fs.StringVar(&tier, "tier", "", "create: the key's tier: free, standard or pro (another with --allow-custom-tier)")
	fs.StringVar(&note, "note", "", fmt.Sprintf("create: whose key it is, for the operator (printable, at most %d bytes)", contracts.MaxNoteLen))
	fs.BoolVar(&customTier, "allow-custom-tier", false,
		"create: allow a tier other than free, standard and pro; the pods must define it in --tiers, else they serve the key at the free limit")
	if err := app.DurationVar(fs, getenv, &timeout, "timeout", "ZONEPRICE_ADMIN_TIMEOUT", 30*time.Second, "how long the command may take"); err != nil {
		return err
	}
	hooks := registerWebhookFlags(fs)
	var interest, subject, bodyFile string
	fs.StringVar(&interest, "interest", "", "announce: who is mailed: the confirmed subscribers of articles or api-updates")
	fs.StringVar(&subject, "subject", "", "announce: the mail's subject")
	fs.StringVar(&bodyFile, "body-file", "", "announce: file of the mail's plain text (paragraphs separated by blank lines)")
	mail, err := app.RegisterSubscribeFlags(fs, getenv)
	if err != nil {
		return err
	}
	// Flags may come before the command words and after them. -h prints
	// the usage and is no error.
	if err := fs.Parse(args); err != nil {
		return helpIsNoError(err)
	}
	words := fs.Args()
	if len(words) == 1 && words[0] == "announce" {
		words = append(words, "")
	}
	if len(words) < 2 || (words[0] != "keys" && words[0] != "stream" && words[0] != "webhooks" && words[0] != "announce") {
		fs.Usage()
		return errors.New("want a command: keys create, keys list, keys revoke, stream check, stream republish, announce, or webhooks list, show, delete, disable or enable")
	}
	noun, verb := words[0], words[1]
	if noun == "announce" && verb != "" {
		// announce is one word: what follows is its flags.
		words, verb = append([]string{noun, ""}, words[1:]...), ""
	}
	if err := fs.Parse(words[2:]); err != nil {
		return helpIsNoError(err)
	}
	operands := fs.Args()
	if len(operands) > 1 {
		// Flags may also follow an operand: webhooks disable ID --reason R.
		if err := fs.Parse(operands[1:]); err != nil {
			return helpIsNoError(err)
		}
		operands = append(operands[:1:1], fs.Args()...)
	}
	if err := hooks.only(noun, verb); err != nil {
		return err
	}
	if tier != "" || note != "" || customTier {
		if noun != "keys" || verb != "create" {
			return fmt.Errorf("--tier, --note and --allow-custom-tier go with keys create, not %s %s", noun, verb)
		}
	}
	if (interest != "" || subject != "" || bodyFile != "") && noun != "announce" {
		return fmt.Errorf("--interest, --subject and --body-file go with announce, not %s %s", noun, verb)
	}
	var cmd func(context.Context, jetstream.JetStream) error
	switch {
	case noun == "announce" && len(operands) == 0:
		// Checked before connecting, like keys create.
		a, err := announcement(interest, subject, bodyFile)
		if err != nil {
			return err
		}
		if err := mail.UseLocal(); err != nil {
			return err
		}
		cmd = func(ctx context.Context, js jetstream.JetStream) error {
			log, err := common.Logger(stderr)
			if err != nil {
				return err
			}
			return announce(ctx, js, mail, a, log, stdout)
		}
	case noun == "announce":
		fs.Usage()
		return fmt.Errorf("announce takes no operands, only --interest, --subject and --body-file")
	case noun == "webhooks":
		var werr error
		if cmd, werr = webhookCommand(verb, operands, hooks, stdout); werr != nil {
			fs.Usage()
			return werr
		}
	case noun == "stream" && verb == "check" && len(operands) == 0:
		cmd = func(ctx context.Context, js jetstream.JetStream) error { return checkStream(ctx, js, stdout) }
	case noun == "stream" && verb == "republish" && len(operands) == 0:
		cmd = func(ctx context.Context, js jetstream.JetStream) error {
			heard, err := bus.Republish(ctx, js.Conn())
			if err == nil {
				fmt.Fprintf(stdout, "%d ingesters publish their whole lists now: %s\n", len(heard), strings.Join(heard, "; "))
			}
			return err
		}
	case noun == "stream":
		fs.Usage()
		return fmt.Errorf("stream %s %s: not a command", verb, strings.Join(operands, " "))
	case verb == "create" && len(operands) == 0:
		// Checked before connecting: a bad flag changes nothing, not
		// even the bucket's existence.
		if err := checkCreate(tier, note, customTier); err != nil {
			return err
		}
		cmd = func(ctx context.Context, js jetstream.JetStream) error {
			return create(ctx, js, tier, note, stdout, stderr)
		}
	case verb == "list" && len(operands) == 0:
		cmd = func(ctx context.Context, js jetstream.JetStream) error { return list(ctx, js, stdout) }
	case verb == "revoke" && len(operands) == 1:
		cmd = func(ctx context.Context, js jetstream.JetStream) error { return revoke(ctx, js, operands[0], stdout) }
	default:
		fs.Usage()
		return fmt.Errorf("keys %s %s: not a command", verb, strings.Join(operands, " "))
	}

	log, err := common.Logger(stderr)
	if err != nil {
		return err
	}
	// A command, unlike a service, fails at once when NATS is away, and
	// has no "serving last known data" to announce when it disconnects.
	nc, js, err := common.Connect(common.NATSURL, "zoneprice-admin", log,
		nats.RetryOnFailedConnect(false), nats.DisconnectErrHandler(nil))
	if err != nil {
		return err
	}
	defer nc.Close()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return cmd(ctx, js)
}

// announcement reads an announcement from the flags, naming the flag of
// the first problem.
func announcement(interest, subject, bodyFile string) (subscribe.Announcement, error) {
	a := subscribe.Announcement{Interest: contracts.Interest(interest), Subject: subject}
	if bodyFile == "" {
		return a, errors.New("--body-file: missing: the file of the announcement's text")
	}
	body, err := os.ReadFile(bodyFile)
	if err != nil {
		return a, fmt.Errorf("--body-file: %w", err)
	}
	a.Body = string(body)
	return a, app.FlagNames{"Interest": "--interest", "Subject": "--subject", "Body": "--body-file"}.Explain(a.Validate())
}

// announce mails a to the confirmed subscribers of its interest, and
// prints how many were sent; a failed mail fails the command, after the
// others were sent.
func announce(ctx context.Context, js jetstream.JetStream, mail *app.SubscribeFlags, a subscribe.Announcement, log *slog.Logger, stdout io.Writer) error {
	svc, err := mail.MailService(js, log, prometheus.NewRegistry())
	if err != nil {
		return err
	}
	res, err := svc.Announce(ctx, a)
	fmt.Fprintf(stdout, "announced to %d subscribers of %s", res.Sent, a.Interest)
	if res.Failed > 0 {
		fmt.Fprintf(stdout, "; %d failed (see the log)", res.Failed)
	}
	fmt.Fprintln(stdout)
	if err == nil && res.Failed > 0 {
		err = fmt.Errorf("%d of %d mails failed", res.Failed, res.Sent+res.Failed)
	}
	return err
}

// checkStream prints what the state stream's own state says about whether
// it holds every message it counts, and the repair when it does not (an
// error, so the command exits 1).
func checkStream(ctx context.Context, js jetstream.JetStream, stdout io.Writer) error {
	h, err := bus.Check(ctx, js)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, h.String())
	if h.Healthy() {
		return nil
	}
	fmt.Fprintln(stdout, "repair:", bus.Repair)
	return fmt.Errorf("stream %s is damaged", h.Stream)
}

// helpIsNoError is nil for the error of -h or --help, whose usage the flag
// set has printed, and err otherwise.
func helpIsNoError(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return err
}

// defaultTier reports whether tier is one every pod defines by default.
func defaultTier(tier string) bool {
	_, ok := access.DefaultConfig().Tiers[tier]
	return ok || tier == contracts.FreeTier
}

// checkCreate validates keys create's flags, naming the one that is wrong.
func checkCreate(tier, note string, customTier bool) error {
	if tier == "" {
		return errors.New("--tier: keys create needs the key's tier: free, standard or pro")
	}
	if err := contracts.ValidateTier(tier); err != nil {
		return fmt.Errorf("--tier: %s", problem(err))
	}
	if !customTier && !defaultTier(tier) {
		return fmt.Errorf("--tier: %s is not a default tier (free, standard, pro); if the pods define it in --tiers, "+
			"give --allow-custom-tier too (a pod that does not define it serves the key at the free limit)", tier)
	}
	if err := contracts.ValidateNote(note); err != nil {
		return fmt.Errorf("--note: %s", problem(err))
	}
	return nil
}

// problem is what a validation error says is wrong, without the record's
// field name, which the flag's replaces.
func problem(err error) string {
	var ve *contracts.ValidationError
	if errors.As(err, &ve) {
		return ve.Problem
	}
	return err.Error()
}

// create makes a key of tier, stores its record and prints the key, once.
func create(ctx context.Context, js jetstream.JetStream, tier, note string, stdout, stderr io.Writer) error {
	kv, err := bucket(ctx, js)
	if err != nil {
		return err
	}
	key, rec, err := contracts.NewAPIKey(tier, note, time.Now())
	if err != nil {
		return err
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if _, err := kv.Create(ctx, rec.ID, b); err != nil {
		return fmt.Errorf("store key %s: %w", rec.ID, err)
	}
	fmt.Fprintf(stdout, "id:   %s\ntier: %s\nkey:  %s\n", rec.ID, rec.Tier, key)
	fmt.Fprintln(stderr, "The key is shown this once and stored only as its SHA-256: hand it over now.")
	if !defaultTier(tier) {
		fmt.Fprintf(stderr, "Tier %s is not a default tier: pods serve the key at the free limit unless their --tiers define it.\n", tier)
	}
	return nil
}

// bucket binds the keys bucket, creating it with the state stream's
// replicas (one when there is no stream yet) when it does not exist.
func bucket(ctx context.Context, js jetstream.JetStream) (jetstream.KeyValue, error) {
	kv, err := js.KeyValue(ctx, contracts.KeysBucket)
	if !errors.Is(err, jetstream.ErrBucketNotFound) {
		return kv, err
	}
	o := bus.Options{Replicas: 1}
	if s, err := js.Stream(ctx, contracts.StateStream); err == nil {
		o.Replicas = s.CachedInfo().Config.Replicas
	}
	return bus.ProvisionKeys(ctx, js, o)
}

// list prints every key's record but its hash, oldest first.
func list(ctx context.Context, js jetstream.JetStream, stdout io.Writer) error {
	var recs []contracts.APIKey
	kv, err := js.KeyValue(ctx, contracts.KeysBucket)
	switch {
	case errors.Is(err, jetstream.ErrBucketNotFound):
	case err != nil:
		return err
	default:
		if recs, err = records(ctx, kv); err != nil {
			return err
		}
	}
	slices.SortFunc(recs, func(a, b contracts.APIKey) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.ID, b.ID))
	})
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tTIER\tCREATED\tNOTE")
	for _, r := range recs {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", r.ID, r.Tier, r.CreatedAt.UTC().Format(time.RFC3339), r.Note)
	}
	return w.Flush()
}

// records reads the bucket's current records in one pass. A read that
// gets no record for access.DefaultLoadTimeout is given up, as a query pod
// gives up its load, with what the bucket's stream says and how to repair
// it: a damaged bucket never ends its watch's initial values.
func records(ctx context.Context, kv jetstream.KeyValue) ([]contracts.APIKey, error) {
	w, err := kv.WatchAll(ctx, jetstream.IgnoreDeletes())
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", contracts.KeysBucket, err)
	}
	defer w.Stop()
	stall := time.NewTimer(stallAfter)
	defer stall.Stop()
	var recs []contracts.APIKey
	var last jetstream.KeyValueEntry
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-stall.C:
			s := access.Stalled(ctx, kv, len(recs), last, stallAfter)
			return nil, fmt.Errorf("%w; %s", s, s.Repair())
		case e, ok := <-w.Updates():
			if !ok {
				return nil, errors.New("read keys: the watch ended early")
			}
			if e == nil {
				return recs, nil
			}
			last = e
			stall.Reset(stallAfter)
			var r contracts.APIKey
			if err := json.Unmarshal(e.Value(), &r); err != nil || r.Validate() != nil {
				r = contracts.APIKey{ID: e.Key(), Tier: "?", Note: "(unreadable record: pods refuse this key)"}
			}
			recs = append(recs, r)
		}
	}
}

// stallAfter is how long keys list waits for the next record of the
// bucket; a variable for the test of a damaged bucket.
var stallAfter = access.DefaultLoadTimeout

// revoke deletes the key with id; every pod refuses it from then on.
func revoke(ctx context.Context, js jetstream.JetStream, id string, stdout io.Writer) error {
	kv, err := js.KeyValue(ctx, contracts.KeysBucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return fmt.Errorf("no key with id %q: there are no keys", id)
	}
	if err != nil {
		return err
	}
	e, err := kv.Get(ctx, id)
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrInvalidKey) {
		return fmt.Errorf("no key with id %q (keys list shows them)", id)
	}
	if err != nil {
		return err
	}
	if err := kv.Delete(ctx, id, jetstream.LastRevision(e.Revision())); err != nil {
		return fmt.Errorf("revoke %s: %w", id, err)
	}
	var r contracts.APIKey
	_ = json.Unmarshal(e.Value(), &r)
	fmt.Fprintf(stdout, "revoked %s (tier %s, %q); pods refuse it within seconds\n", id, r.Tier, r.Note)
	return nil
}
