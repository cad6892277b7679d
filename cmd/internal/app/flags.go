package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
)

// FlagNames maps the fields of a library Config, as its Validate errors
// name them (contracts.ValidationError: "Addr", "Limits.Tiers"), to the
// flag and environment variable a command sets each with. Library packages
// never name flags; the command that registers one records it here, next
// to the registration, so renaming a flag touches that one place.
type FlagNames map[string]string

// add records that field is set with the flag name or the variable env.
func (n FlagNames) add(field, name, env string) { n[field] = "--" + name + " (" + env + ")" }

// Explain rewrites a Config.Validate error about a field set by a flag to
// name the flag and the variable instead of the field.
func (n FlagNames) Explain(err error) error {
	var ve *contracts.ValidationError
	if errors.As(err, &ve) {
		if name, ok := n[ve.Field]; ok {
			return fmt.Errorf("%s: %s", name, ve.Problem)
		}
	}
	return err
}

// Common are the settings every command has: where NATS is, its
// credentials and TLS, and logging.
type Common struct {
	NATSURL   string
	Auth      NATSAuth
	logFormat string
	logLevel  string
}

// RegisterCommon declares the common flags; defaultNATS is the NATS URL used
// when neither the flag nor NATS_URL is set.
func RegisterCommon(fs *flag.FlagSet, getenv Env, defaultNATS, natsUsage string) *Common {
	c := &Common{}
	StringVar(fs, getenv, &c.NATSURL, "nats-url", "NATS_URL", defaultNATS, natsUsage)
	registerNATSAuth(fs, getenv, &c.Auth)
	StringVar(fs, getenv, &c.logFormat, "log-format", "ZONEPRICE_LOG_FORMAT", "json", "log format: json or text")
	StringVar(fs, getenv, &c.logLevel, "log-level", "ZONEPRICE_LOG_LEVEL", "info", "log level: debug, info, warn, error")
	return c
}

// Logger returns the logger the flags ask for.
func (c *Common) Logger(w io.Writer) (*slog.Logger, error) {
	return Logger(w, c.logFormat, c.logLevel)
}

// Connect dials url (the flag's, unless the caller started its own server)
// as client name, with the credentials and TLS the flags name.
func (c *Common) Connect(url, name string, log *slog.Logger, extra ...nats.Option) (*nats.Conn, jetstream.JetStream, error) {
	auth, err := c.Auth.Options(log)
	if err != nil {
		return nil, nil, err
	}
	return Connect(url, name, "", log, append(auth, extra...)...)
}

// IngestFlags are the settings of commands that run ingesters.
type IngestFlags struct {
	Sources  string
	File     string
	Interval time.Duration
	Replicas int
	// HistoryRetention is how long the history stream keeps a change.
	HistoryRetention time.Duration
	Once             bool
	// Capture, with Once, is the directory every document the round
	// fetches is saved in (fetch.Capture).
	Capture string
	// Provision is ProvisionOn, ProvisionOff or ProvisionOnly.
	Provision string
}

// RegisterIngestFlags declares the ingest flags.
func RegisterIngestFlags(fs *flag.FlagSet, getenv Env) (*IngestFlags, error) {
	f := &IngestFlags{}
	StringVar(fs, getenv, &f.Sources, "sources", "ZONEPRICE_SOURCES", AutoSources, `comma-separated ingest sources, or "auto"`)
	StringVar(fs, getenv, &f.File, "file", "ZONEPRICE_IMPORT_FILE", "", "import a saved response of the one source named by --sources instead of fetching it")
	if err := DurationVar(fs, getenv, &f.Interval, "interval", "ZONEPRICE_INGEST_INTERVAL", time.Hour, "time between fetches of each source"); err != nil {
		return nil, err
	}
	if err := IntVar(fs, getenv, &f.Replicas, "replicas", "ZONEPRICE_STREAM_REPLICAS", 1, "stream replicas (3 on a three-node cluster)"); err != nil {
		return nil, err
	}
	if err := DurationVar(fs, getenv, &f.HistoryRetention, "history-retention", "ZONEPRICE_HISTORY_RETENTION", bus.DefaultHistoryRetention,
		"how long the history stream keeps a price change, when provisioning (26304h: three years)"); err != nil {
		return nil, err
	}
	once, err := strconv.ParseBool(envOr(getenv, "ZONEPRICE_ONCE", "false"))
	if err != nil {
		return nil, fmt.Errorf("ZONEPRICE_ONCE: %w", err)
	}
	fs.BoolVar(&f.Once, "once", once, "publish one round and exit (env ZONEPRICE_ONCE)")
	StringVar(fs, getenv, &f.Capture, "capture", "ZONEPRICE_CAPTURE_DIR", "",
		"with --once: save every document the round fetches into this directory, byte for byte, with its URL, time, status and content type beside it")
	StringVar(fs, getenv, &f.Provision, "provision", "ZONEPRICE_PROVISION", ProvisionOn,
		`create or update the stream and the keys bucket: "on" (then ingest), "off" (wait for them; for NATS users that may not manage streams) or "only" (then exit)`)
	return f, nil
}

// Validate reports settings that cannot work, naming the flag.
func (f *IngestFlags) Validate() error {
	if f.Replicas < 1 || f.Replicas > 5 {
		return fmt.Errorf("--replicas (ZONEPRICE_STREAM_REPLICAS): %d is not between 1 and 5", f.Replicas)
	}
	if f.Interval <= 0 {
		return fmt.Errorf("--interval (ZONEPRICE_INGEST_INTERVAL): %v must be positive", f.Interval)
	}
	if f.HistoryRetention < 24*time.Hour {
		return fmt.Errorf("--history-retention (ZONEPRICE_HISTORY_RETENTION): %v is less than a day", f.HistoryRetention)
	}
	switch {
	case f.Capture != "" && !f.Once:
		return errors.New("--capture (ZONEPRICE_CAPTURE_DIR) needs --once: it saves one round's documents")
	case f.Capture != "" && f.File != "":
		return errors.New("--capture (ZONEPRICE_CAPTURE_DIR) saves what a live round fetches; with --file nothing is fetched")
	}
	return validProvision(f.Provision)
}

// StreamOptions are the provisioning choices the flags make.
func (f *IngestFlags) StreamOptions() bus.Options {
	return bus.Options{Replicas: f.Replicas, HistoryRetention: f.HistoryRetention}
}

// RunnerConfig is the runners' configuration the flags set: fetches every
// --interval, spread by a jitter of at most a tenth of it, or one round
// with --once.
func (f *IngestFlags) RunnerConfig() ingest.RunnerConfig {
	cfg := ingest.DefaultRunnerConfig()
	cfg.Interval = f.Interval
	// Jitter spreads sources started together; a tenth of the interval
	// does that without making a short interval long.
	cfg.Jitter = min(cfg.Jitter, f.Interval/10)
	if f.Once {
		cfg.Interval, cfg.StatedInterval = 0, f.Interval
	}
	return cfg
}

// Ingesters provisions the streams (or, with --provision off, waits for
// them) and builds the runners of the selected sources.
func (f *IngestFlags) Ingesters(ctx context.Context, js jetstream.JetStream, sel Selection, getenv Env, log *slog.Logger, reg prometheus.Registerer) (*Ingesters, error) {
	var err error
	if f.Provision == ProvisionOff {
		err = WaitForStream(ctx, js, log)
	} else {
		err = Provision(ctx, js, f.StreamOptions(), log)
	}
	if err != nil {
		return nil, err
	}
	c := IngestConfig{Getenv: getenv, Runner: f.RunnerConfig()}
	if f.Capture != "" {
		if c.Capture, err = fetch.NewCapture(f.Capture, time.Now); err != nil {
			return nil, fmt.Errorf("--capture (ZONEPRICE_CAPTURE_DIR): %w", err)
		}
	}
	return Ingest(js, sel, c, log, reg)
}
