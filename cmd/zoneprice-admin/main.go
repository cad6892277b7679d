// Command zoneprice-admin manages the subscribers' API keys, in the
// JetStream key-value bucket that every query pod follows, written
// through the same store the pods read (bus.Keys), and checks and repairs
// the state stream (stream check, stream republish):
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
//
//	zoneprice-admin registrars [--skipped]
//
// lists every registrar's status as the ingesters last published it on the
// state stream (contracts.RegistrarStatus), or with --skipped the names the
// root-zone guard kept out of each registrar's last good list.
package main

import (
	"cmp"
	"context"
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
  zoneprice-admin registrars [--skipped]                  every registrar's last status: source, last success,
                                                          failure, zones; --skipped: the names outside the DNS
                                                          root each registrar's last good list had

TIER is free, standard or pro. Another tier needs --allow-custom-tier, and
the pods must define it in --tiers: a pod serves a key of a tier it does not
define at the free limit.

flags (before or after the command words):
`

func run(ctx context.Context, args []string, getenv app.Env, stdout, stderr io.Writer) error {
	o, err := register(getenv, stdout, stderr)
	if err != nil {
		return err
	}
	// Flags may come before the command words and after them. -h prints
	// the usage and is no error.
	if err := o.parse(args); err != nil {
		return helpIsNoError(err)
	}
	act, err := o.command()
	if err != nil {
		return err
	}
	log, err := o.common.Logger(stderr)
	if err != nil {
		return err
	}
	// A command, unlike a service, fails at once when NATS is away, and
	// has no "serving last known data" to announce when it disconnects.
	nc, js, err := o.common.Connect(o.common.NATSURL, "zoneprice-admin", log,
		nats.RetryOnFailedConnect(false), nats.DisconnectErrHandler(nil))
	if err != nil {
		return err
	}
	defer nc.Close()
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	return act(ctx, js)
}

// options are the command line: the flags, and the command words with
// their operands once parsed.
type options struct {
	fs                          *flag.FlagSet
	common                      *app.Common
	stdout, stderr              io.Writer
	tier, note                  string
	customTier                  bool
	timeout                     time.Duration
	hooks                       *webhookFlags
	interest, subject, bodyFile string
	mail                        *app.SubscribeFlags
	skipped                     bool

	noun, verb   string
	operands     []string
	announcement subscribe.Announcement
}

// register declares every command's flags.
func register(getenv app.Env, stdout, stderr io.Writer) (*options, error) {
	fs := flag.NewFlagSet("zoneprice-admin", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	o := &options{fs: fs, stdout: stdout, stderr: stderr}
	o.common = app.RegisterCommon(fs, getenv, "nats://127.0.0.1:4222", "NATS server(s) holding the keys bucket, comma-separated")
	fs.StringVar(&o.tier, "tier", "", "create: the key's tier: free, standard or pro (another with --allow-custom-tier)")
	fs.StringVar(&o.note, "note", "", fmt.Sprintf("create: whose key it is, for the operator (printable, at most %d bytes)", contracts.MaxNoteLen))
	fs.BoolVar(&o.customTier, "allow-custom-tier", false,
		"create: allow a tier other than free, standard and pro; the pods must define it in --tiers, else they serve the key at the free limit")
	if err := app.DurationVar(fs, getenv, &o.timeout, "timeout", "ZONEPRICE_ADMIN_TIMEOUT", 30*time.Second, "how long the command may take"); err != nil {
		return nil, err
	}
	o.hooks = registerWebhookFlags(fs)
	fs.StringVar(&o.interest, "interest", "", "announce: who is mailed: the confirmed subscribers of articles or api-updates")
	fs.StringVar(&o.subject, "subject", "", "announce: the mail's subject")
	fs.StringVar(&o.bodyFile, "body-file", "", "announce: file of the mail's plain text (paragraphs separated by blank lines)")
	fs.BoolVar(&o.skipped, "skipped", false, "registrars: list the names the root-zone guard skipped, not the statuses")
	var err error
	o.mail, err = app.RegisterSubscribeFlags(fs, getenv)
	return o, err
}

// parse reads the command words, their operands and the flags around
// them, and refuses flags that do not go with the command.
func (o *options) parse(args []string) error {
	fs := o.fs
	if err := fs.Parse(args); err != nil {
		return err
	}
	words := fs.Args()
	if len(words) > 0 && slices.Contains([]string{"announce", "registrars"}, words[0]) {
		// These are one word: what follows is their flags.
		words = append([]string{words[0], ""}, words[1:]...)
	}
	if len(words) < 2 || !slices.Contains([]string{"keys", "stream", "webhooks", "announce", "registrars"}, words[0]) {
		fs.Usage()
		return errors.New("want a command: keys create, keys list, keys revoke, stream check, stream republish, announce, registrars, or webhooks list, show, delete, disable or enable")
	}
	o.noun, o.verb = words[0], words[1]
	if err := fs.Parse(words[2:]); err != nil {
		return err
	}
	o.operands = fs.Args()
	if len(o.operands) > 1 {
		// Flags may also follow an operand: webhooks disable ID --reason R.
		if err := fs.Parse(o.operands[1:]); err != nil {
			return err
		}
		o.operands = append(o.operands[:1:1], fs.Args()...)
	}
	if err := o.hooks.only(o.noun, o.verb); err != nil {
		return err
	}
	if (o.tier != "" || o.note != "" || o.customTier) && (o.noun != "keys" || o.verb != "create") {
		return fmt.Errorf("--tier, --note and --allow-custom-tier go with keys create, not %s %s", o.noun, o.verb)
	}
	if (o.interest != "" || o.subject != "" || o.bodyFile != "") && o.noun != "announce" {
		return fmt.Errorf("--interest, --subject and --body-file go with announce, not %s %s", o.noun, o.verb)
	}
	if o.skipped && o.noun != "registrars" {
		return fmt.Errorf("--skipped goes with registrars, not %s %s", o.noun, o.verb)
	}
	return nil
}

// action is what a command does once connected.
type action func(ctx context.Context, js jetstream.JetStream) error

// command is one of the commands but webhooks': how many operands it
// takes, what checks its flags and operands before anything connects (a
// bad flag changes nothing, not even the bucket's existence; nil checks
// nothing), and what it does.
type command struct {
	operands int
	check    func(o *options) error
	run      func(ctx context.Context, js jetstream.JetStream, o *options) error
}

// commands are the commands but webhooks', by their words.
func commands() map[string]command {
	return map[string]command{
		"keys create": {0, func(o *options) error { return checkCreate(o.tier, o.note, o.customTier) },
			func(ctx context.Context, js jetstream.JetStream, o *options) error {
				return create(ctx, js, o.tier, o.note, o.stdout, o.stderr)
			}},
		"keys list": {0, nil, func(ctx context.Context, js jetstream.JetStream, o *options) error { return list(ctx, js, o.stdout) }},
		"keys revoke": {1, nil, func(ctx context.Context, js jetstream.JetStream, o *options) error {
			return revoke(ctx, js, o.operands[0], o.stdout)
		}},
		"stream check": {0, nil, func(ctx context.Context, js jetstream.JetStream, o *options) error {
			return checkStream(ctx, js, o.stdout)
		}},
		"stream republish": {0, nil, func(ctx context.Context, js jetstream.JetStream, o *options) error {
			return republish(ctx, js.Conn(), o.stdout)
		}},
		"registrars ": {0, nil, func(ctx context.Context, js jetstream.JetStream, o *options) error {
			return registrars(ctx, js, o.skipped, o.stdout)
		}},
		"announce ": {0, (*options).checkAnnounce, func(ctx context.Context, js jetstream.JetStream, o *options) error {
			log, err := o.common.Logger(o.stderr)
			if err != nil {
				return err
			}
			return announce(ctx, js, o.mail, o.announcement, log, o.stdout)
		}},
	}
}

// command is the command the words name, its flags and operands checked.
func (o *options) command() (action, error) {
	if o.noun == "webhooks" {
		act, err := webhookCommand(o.verb, o.operands, o.hooks, o.stdout)
		if err != nil {
			o.fs.Usage()
		}
		return act, err
	}
	c, ok := commands()[o.noun+" "+o.verb]
	if !ok || len(o.operands) != c.operands {
		o.fs.Usage()
		switch o.noun {
		case "announce":
			return nil, errors.New("announce takes no operands, only --interest, --subject and --body-file")
		case "registrars":
			return nil, errors.New("registrars takes no operands, only --skipped")
		}
		return nil, fmt.Errorf("%s %s %s: not a command", o.noun, o.verb, strings.Join(o.operands, " "))
	}
	if c.check != nil {
		if err := c.check(o); err != nil {
			return nil, err
		}
	}
	return func(ctx context.Context, js jetstream.JetStream) error { return c.run(ctx, js, o) }, nil
}

// checkAnnounce reads the announcement from the flags, and the
// all-in-one's mail settings where none are given.
func (o *options) checkAnnounce() error {
	var err error
	if o.announcement, err = announcement(o.interest, o.subject, o.bodyFile); err != nil {
		return err
	}
	return o.mail.UseLocal()
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
	h, err := bus.Verify(ctx, js)
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

// republish asks every running ingester to publish its whole list now
// (bus.Republish) and prints who answered.
func republish(ctx context.Context, nc *nats.Conn, stdout io.Writer) error {
	heard, err := bus.Republish(ctx, nc)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d ingesters publish their whole lists now: %s\n", len(heard), strings.Join(heard, "; "))
	return nil
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

// create makes a key of tier, stores its record through the store the
// pods follow, and prints the key, once.
func create(ctx context.Context, js jetstream.JetStream, tier, note string, stdout, stderr io.Writer) error {
	key, rec, err := contracts.NewAPIKey(tier, note, time.Now())
	if err != nil {
		return err
	}
	keys := bus.Keys(js)
	err = keys.Create(ctx, rec.ID, &rec)
	if errors.Is(err, bus.ErrNoBucket) {
		if err := provisionKeys(ctx, js); err != nil {
			return err
		}
		err = keys.Create(ctx, rec.ID, &rec)
	}
	if err != nil {
		return fmt.Errorf("store key %s: %w", rec.ID, err)
	}
	fmt.Fprintf(stdout, "id:   %s\ntier: %s\nkey:  %s\n", rec.ID, rec.Tier, key)
	fmt.Fprintln(stderr, "The key is shown this once and stored only as its SHA-256: hand it over now.")
	if !defaultTier(tier) {
		fmt.Fprintf(stderr, "Tier %s is not a default tier: pods serve the key at the free limit unless their --tiers define it.\n", tier)
	}
	return nil
}

// provisionKeys creates the keys bucket with the state stream's replicas
// (one when there is no stream yet).
func provisionKeys(ctx context.Context, js jetstream.JetStream) error {
	o := bus.Options{Replicas: 1}
	if s, err := js.Stream(ctx, contracts.StateStream); err == nil {
		o.Replicas = s.CachedInfo().Config.Replicas
	}
	_, err := bus.ProvisionKeys(ctx, js, o)
	return err
}

// list prints every key's record but its hash, oldest first. A read of the
// bucket that gets no record for stallAfter is given up, as a query pod
// gives up its load, with what the bucket's stream says and how to repair
// it: a damaged bucket never ends its watch's initial values.
func list(ctx context.Context, js jetstream.JetStream, stdout io.Writer) error {
	entries, err := bus.Keys(js).List(ctx, "", stallAfter)
	if stall := (*bus.StalledError)(nil); errors.As(err, &stall) {
		return fmt.Errorf("%w; %s", stall, stall.Repair())
	}
	if err != nil {
		return err
	}
	recs := make([]contracts.APIKey, 0, len(entries))
	for _, e := range entries {
		if e.Err != nil || e.Value.Validate() != nil {
			e.Value = &contracts.APIKey{ID: e.Key, Tier: "?", Note: "(unreadable record: pods refuse this key)"}
		}
		recs = append(recs, *e.Value)
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

// stallAfter is how long keys list waits for the next record of the
// bucket; a variable for the test of a damaged bucket.
var stallAfter = bus.DefaultLoadTimeout

// revoke deletes the key with id, whether or not its record can be read;
// every pod refuses it from then on.
func revoke(ctx context.Context, js jetstream.JetStream, id string, stdout io.Writer) error {
	keys := bus.Keys(js)
	r, _, err := keys.Get(ctx, id)
	switch {
	case errors.Is(err, bus.ErrNoBucket):
		return fmt.Errorf("no key with id %q: there are no keys", id)
	case errors.Is(err, bus.ErrUndecodable):
		r = &contracts.APIKey{}
	case err != nil:
		return err
	case r == nil:
		return fmt.Errorf("no key with id %q (keys list shows them)", id)
	}
	if err := keys.Delete(ctx, id); err != nil {
		return fmt.Errorf("revoke %s: %w", id, err)
	}
	fmt.Fprintf(stdout, "revoked %s (tier %s, %q); pods refuse it within seconds\n", id, r.Tier, r.Note)
	return nil
}
