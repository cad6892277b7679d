// Package app is the wiring the zoneprice commands share: flags with
// environment fallbacks, logging, metrics, the NATS connection, and the
// query and ingest parts each command composes. The all-in-one command uses
// exactly these parts, so no code path exists only in it.
package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"golang.org/x/sync/errgroup"

	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/query/api"
	"github.com/zoneprice/zoneprice/query/replay"
	"github.com/zoneprice/zoneprice/query/webhooks"
)

// Env reads an environment variable; commands get it from main so tests can
// pass their own.
type Env func(string) string

// DurationVar registers a duration flag whose default comes from an
// environment variable when that is set; a malformed value is an error
// naming the variable.
func DurationVar(fs *flag.FlagSet, getenv Env, p *time.Duration, name, env string, def time.Duration, usage string) error {
	if v := getenv(env); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("%s: %w", env, err)
		}
		def = d
	}
	fs.DurationVar(p, name, def, usage+" (env "+env+")")
	return nil
}

// IntVar is DurationVar for integers.
func IntVar(fs *flag.FlagSet, getenv Env, p *int, name, env string, def int, usage string) error {
	if v := getenv(env); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("%s: %w", env, err)
		}
		def = n
	}
	fs.IntVar(p, name, def, usage+" (env "+env+")")
	return nil
}

// StringVar is DurationVar for strings.
func StringVar(fs *flag.FlagSet, getenv Env, p *string, name, env, def, usage string) {
	fs.StringVar(p, name, envOr(getenv, env, def), usage+" (env "+env+")")
}

// Logger returns a structured logger: "json" (the default, for machines) or
// "text" (for a terminal).
func Logger(w io.Writer, format, level string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level (ZONEPRICE_LOG_LEVEL): %w", err)
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch format {
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format (ZONEPRICE_LOG_FORMAT): %q is not json or text", format)
}

// NewMetricsRegistry returns a new private Prometheus registry with the
// Go, process and build collectors, for a command's metrics.
func NewMetricsRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	version, rev := build()
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "zoneprice_build_info", Help: "Always 1; the labels say which build is running.",
			ConstLabels: prometheus.Labels{"version": version, "revision": rev, "goversion": runtime.Version()},
		}, func() float64 { return 1 }),
	)
	return reg
}

// revision is set by the Makefile's build (-ldflags -X) to the git commit;
// builds that carry VCS information need not.
var revision string

// build returns the module version and the commit this binary was built
// from, "unknown" where the build does not say.
func build() (version, rev string) {
	version, rev = "unknown", revision
	if info, ok := debug.ReadBuildInfo(); ok {
		if v := info.Main.Version; v != "" {
			version = v
		}
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && rev == "" {
				rev = s.Value
			}
		}
	}
	if rev == "" {
		rev = "unknown"
	}
	return version, rev
}

// Connect dials NATS and returns a JetStream handle. The connection retries
// forever in the background, so a pod outlives a NATS outage and serves its
// last snapshot meanwhile. credsFile, when set, is a NATS credentials file.
func Connect(url, name, credsFile string, log *slog.Logger, extra ...nats.Option) (*nats.Conn, jetstream.JetStream, error) {
	opts := []nats.Option{
		nats.Name(name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(500 * time.Millisecond),
		nats.RetryOnFailedConnect(true),
		// A link that silently stops carrying traffic (a partition, a
		// node gone without a reset) is noticed within about 30 s instead
		// of the client's default 4 minutes: the connection is dropped,
		// zoneprice_nats_connected goes to 0, and reconnecting starts.
		nats.PingInterval(10 * time.Second),
		nats.MaxPingsOutstanding(3),
		nats.DisconnectErrHandler(func(nc *nats.Conn, err error) {
			if nc.IsClosed() {
				return // closed by this process as it stops: nothing lost
			}
			log.Warn("nats disconnected; serving last known data", "err", err)
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) {
			log.Info("nats reconnected", "url", nc.ConnectedUrlRedacted())
		}),
	}
	if credsFile != "" {
		opts = append(opts, nats.UserCredentials(credsFile))
	}
	nc, err := nats.Connect(url, append(opts, extra...)...)
	if err != nil {
		return nil, nil, fmt.Errorf("connect to nats at %s: %w", url, err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, nil, fmt.Errorf("jetstream: %w", err)
	}
	return nc, js, nil
}

// Provision creates or updates the streams, retrying while NATS is not yet
// reachable, until ctx ends.
func Provision(ctx context.Context, js jetstream.JetStream, o bus.Options, log *slog.Logger) error {
	for backoff := 200 * time.Millisecond; ; backoff = min(2*backoff, 5*time.Second) {
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := bus.Provision(pctx, js, o)
		cancel()
		if err == nil {
			return nil
		}
		log.Warn("stream provisioning failed; retrying", "err", err, "in", backoff)
		select {
		case <-ctx.Done():
			return err
		case <-time.After(backoff):
		}
	}
}

// QueryFlags are the query service's settings.
type QueryFlags struct {
	Server   api.Config
	Consumer replay.Config
	// MetricsAddr, when set, serves /metrics there instead of on the API
	// port.
	MetricsAddr string
	// Profiles serves Go's runtime profiles beside the metrics, on
	// MetricsAddr only.
	Profiles bool
	// Webhooks configures the subscribers' webhook API.
	Webhooks webhooks.Config
	// Subscribe configures the subscription by email.
	Subscribe *SubscribeFlags
	// Names are the flags that set Server's and Consumer's fields.
	Names FlagNames
}

// RegisterQueryFlags declares the query service's flags.
func RegisterQueryFlags(fs *flag.FlagSet, getenv Env) (*QueryFlags, error) {
	q := &QueryFlags{Server: api.DefaultConfig(), Consumer: replay.DefaultConfig(), Names: FlagNames{}}
	StringVar(fs, getenv, &q.Server.Addr, "listen", "ZONEPRICE_LISTEN", q.Server.Addr, "API listen address")
	q.Names.add("Addr", "listen", "ZONEPRICE_LISTEN")
	StringVar(fs, getenv, &q.Consumer.Currency, "currency", "ZONEPRICE_CURRENCY", q.Consumer.Currency, "currency prices are shown in")
	q.Names.add("Currency", "currency", "ZONEPRICE_CURRENCY")
	StringVar(fs, getenv, &q.MetricsAddr, "metrics-listen", "ZONEPRICE_METRICS_LISTEN", "", `address of a separate /metrics port ("": on the API port)`)
	access, err := strconv.ParseBool(envOr(getenv, "ZONEPRICE_ACCESS_LOG", "false"))
	if err != nil {
		return nil, fmt.Errorf("ZONEPRICE_ACCESS_LOG: %w", err)
	}
	fs.BoolVar(&q.Server.AccessLog, "access-log", access, "log every request at info level (env ZONEPRICE_ACCESS_LOG)")
	if err := ProfilesVar(fs, getenv, &q.Profiles, "never on the API port"); err != nil {
		return nil, err
	}
	if err := DurationVar(fs, getenv, &q.Server.DrainDelay, "drain-delay", "ZONEPRICE_DRAIN_DELAY", q.Server.DrainDelay, "how long to keep serving after failing readiness on shutdown"); err != nil {
		return nil, err
	}
	q.Names.add("DrainDelay", "drain-delay", "ZONEPRICE_DRAIN_DELAY")
	if err := DurationVar(fs, getenv, &q.Server.CacheMaxAge, "cache-max-age", "ZONEPRICE_CACHE_MAX_AGE", q.Server.CacheMaxAge, "how long clients may reuse a response without revalidating (Cache-Control max-age; 0: always revalidate)"); err != nil {
		return nil, err
	}
	q.Names.add("CacheMaxAge", "cache-max-age", "ZONEPRICE_CACHE_MAX_AGE")
	if err := registerLimitFlags(fs, getenv, &q.Server.Limits, q.Names); err != nil {
		return nil, err
	}
	allowHTTP, err := Bool(getenv, "ZONEPRICE_WEBHOOK_ALLOW_HTTP")
	if err != nil {
		return nil, err
	}
	fs.BoolVar(&q.Webhooks.AllowHTTP, allowHTTPFlag, allowHTTP,
		"accept plain http webhook URLs, not only https (env ZONEPRICE_WEBHOOK_ALLOW_HTTP)")
	loopback, err := Bool(getenv, "ZONEPRICE_WEBHOOK_ALLOW_LOOPBACK")
	if err != nil {
		return nil, err
	}
	fs.BoolVar(&q.Webhooks.AllowLoopback, allowLoopbackFlag, loopback, loopbackUsage)
	if q.Subscribe, err = RegisterSubscribeFlags(fs, getenv); err != nil {
		return nil, err
	}
	return q, nil
}

// Validate reports settings that cannot work, naming the flag.
func (q *QueryFlags) Validate() error {
	if q.Profiles && q.MetricsAddr == "" {
		return errors.New("--pprof (ZONEPRICE_PPROF) needs --metrics-listen (ZONEPRICE_METRICS_LISTEN): profiles are never served on the API port")
	}
	if err := q.Consumer.Validate(); err != nil {
		return q.Names.Explain(err)
	}
	return q.Names.Explain(q.Server.Validate())
}

func envOr(getenv Env, key, def string) string {
	if v := getenv(key); v != "" {
		return v
	}
	return def
}

// Query composes a query service on js: the consumer, the API keys' mirror,
// the webhooks' store, the HTTP server and, when asked for, a separate metrics server. It
// returns the consumer and the parts to run; callers add them to their
// errgroup.
func Query(js jetstream.JetStream, q *QueryFlags, log *slog.Logger, reg *prometheus.Registry) (*replay.Consumer, []func(context.Context) error, error) {
	q.Server.MetricsOnAPI = q.MetricsAddr == ""
	if err := q.Validate(); err != nil {
		return nil, nil, err
	}
	cons, err := replay.New(bus.NewStreams(js), q.Consumer, log.With("part", "consumer"), reg, time.Now)
	if err != nil {
		return nil, nil, err
	}
	keys, err := newKeys(js, q, log, reg)
	if err != nil {
		return nil, nil, err
	}
	hooks := newWebhooks(q.Webhooks, js)
	subsLog := log.With("part", "subscribe")
	subs, err := q.Subscribe.Service(js, subsLog, reg)
	if err != nil {
		return nil, nil, err
	}
	q.Server.Subscriptions = subs
	srv, err := api.NewServer(q.Server, cons, keys, hooks, log.With("part", "api"), reg, reg)
	if err != nil {
		return nil, nil, err
	}
	parts := []func(context.Context) error{srv.Run, keys.Run}
	if subs != nil {
		parts = append(parts, subs.Run)
		if q.Subscribe.WithDigests {
			d, err := newDigests(subs, js, subsLog, reg)
			if err != nil {
				return nil, nil, err
			}
			parts = append(parts, d.Run)
		}
	}
	if q.MetricsAddr != "" {
		parts = append(parts, NewMetricsServer(q.MetricsAddr, reg, q.Profiles, log.With("part", "metrics")).Run)
	}
	return cons, parts, nil
}

// RunAll runs each part until ctx ends or one fails, then waits for all.
func RunAll(ctx context.Context, parts ...func(context.Context) error) error {
	g, ctx := errgroup.WithContext(ctx)
	for _, p := range parts {
		g.Go(func() error { return p(ctx) })
	}
	return g.Wait()
}

// Secret reads a credential from the environment: the variable name itself,
// or the file named by name_FILE, as Docker and Kubernetes mount secrets.
// Credentials never come from flags, which anyone can read in ps. Setting
// both is an error, so it is clear which one is used.
func Secret(getenv Env, name string) (string, error) {
	v, file := getenv(name), getenv(name+"_FILE")
	switch {
	case v != "" && file != "":
		return "", fmt.Errorf("%s and %s_FILE are both set; set one", name, name)
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("%s_FILE: %w", name, err)
		}
		return strings.TrimSpace(string(b)), nil
	}
	return v, nil
}

// ProfilesVar declares --pprof (ZONEPRICE_PPROF): serve Go's runtime
// profiles at /debug/pprof/ on --metrics-listen; where adds to its usage.
func ProfilesVar(fs *flag.FlagSet, getenv Env, p *bool, where string) error {
	profiles, err := Bool(getenv, "ZONEPRICE_PPROF")
	if err != nil {
		return err
	}
	usage := "serve Go's runtime profiles at /debug/pprof/ on --metrics-listen"
	if where != "" {
		usage += ", " + where
	}
	fs.BoolVar(p, "pprof", profiles, usage+" (env ZONEPRICE_PPROF)")
	return nil
}

// Bool reads a boolean environment variable; unset is false.
func Bool(getenv Env, name string) (bool, error) {
	v := getenv(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%s: %q is not true or false", name, v)
	}
	return b, nil
}
