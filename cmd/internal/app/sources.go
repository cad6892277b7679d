package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
)

// AutoSources is the --sources value that picks sources by what the machine
// has: every keyless live source, each source needing credentials whose
// credentials are set, and the sample as a fallback that steps aside once a
// real price arrives.
const AutoSources = "auto"

// Deps are what a source is built from.
type Deps struct {
	Getenv Env
	JS     jetstream.JetStream
	Client *fetch.Client
	Log    *slog.Logger
	Now    func() time.Time
}

// SourceSpec is one ingest source a build knows, registered by name in the
// commands' source table.
type SourceSpec struct {
	// New builds the live source.
	New func(Deps) (ingest.Source, error)
	// Parse reads a saved response of the source for --file; nil when the
	// source has no saved form.
	Parse ingest.ParseFunc
	// Auto runs the source under --sources auto: always when Switch is
	// empty, else when one of the environment variables it names (or
	// its _FILE form) is set.
	Auto   bool
	Switch []string
	// Zones marks the source of zone metadata; a fallback beside it
	// publishes none.
	Zones bool
	// Fallback marks the stand-in source: beside any other source it
	// runs wrapped in ingest.Fallback, after their first rounds, and
	// each of their successful rounds that published prices wakes it.
	Fallback bool
	// Interval, when set, is the source's own time between fetches in
	// place of --interval: daily for the price lists registrars' sites
	// load, which are someone else's servers and not a published API.
	// ZONEPRICE_INGEST_INTERVAL_<NAME> overrides both.
	Interval time.Duration
	// Unless names environment variables any of which keeps --sources
	// auto from running the source: a keyless list of a registrar that
	// also has a credentialed source steps aside when that is configured.
	Unless []string
}

// excluded reports whether auto leaves the source out for an Unless
// variable (or its _FILE form) being set.
func (s SourceSpec) excluded(getenv Env) bool {
	return slices.ContainsFunc(s.Unless, func(v string) bool { return getenv(v) != "" || getenv(v+"_FILE") != "" })
}

// Ingesters are the runners of the named sources and the parts that run
// them.
type Ingesters struct {
	Runners []*ingest.Runner
	Parts   []func(context.Context) error
}

// IngestConfig is what building the ingesters needs beyond the flags.
type IngestConfig struct {
	Registry map[string]SourceSpec
	Getenv   Env
	Runner   ingest.RunnerConfig
	// HTTP is the client live sources fetch with; nil means one whose
	// requests time out after a quarter of the runner's timeout, which
	// bounds the whole fetch.
	HTTP *http.Client
}

// Ingest builds a runner for each source names selects: a comma-separated
// list, or AutoSources. With file set, names must be one source that can
// parse a saved response, and the runner reads the file instead of the
// network.
func Ingest(js jetstream.JetStream, names, file string, c IngestConfig, log *slog.Logger, reg prometheus.Registerer) (*Ingesters, error) {
	selected, auto, err := selectSources(names, c.Registry, c.Getenv)
	if err != nil {
		return nil, err
	}
	if file != "" && (auto || len(selected) != 1) {
		return nil, errors.New("--file (ZONEPRICE_IMPORT_FILE): name exactly one source with --sources")
	}
	hc := c.HTTP
	if hc == nil {
		// A stalled server costs one attempt's share of the round's
		// time, not the whole round, so retries still happen.
		hc = &http.Client{Timeout: max(c.Runner.Timeout/4, time.Second)}
	}
	// The sample stands in only when something else runs beside it:
	// then it must step aside for real prices and leave other sources'
	// rates and zone metadata alone. Alone, it is the whole data set.
	wrapFallback := auto || len(selected) > 1
	deps := Deps{
		Getenv: c.Getenv,
		JS:     js,
		Client: fetch.New(fetch.Config{}, hc, log.With("part", "fetch")),
		Log:    log.With("part", "ingest"),
		Now:    time.Now,
	}
	out := &Ingesters{}
	var fallback *ingest.Runner
	var others []*ingest.Runner // the runners the fallback waits for
	for _, name := range selected {
		spec := c.Registry[name]
		var src ingest.Source
		switch {
		case file != "":
			if spec.Parse == nil {
				return nil, fmt.Errorf("--file (ZONEPRICE_IMPORT_FILE): source %s has no saved form to import", name)
			}
			src = ingest.NewFileSource(name, file, spec.Parse, deps.Now)
		default:
			if src, err = spec.New(deps); err != nil {
				return nil, fmt.Errorf("source %s: %w", name, err)
			}
			if wrapFallback && spec.Fallback {
				fb := ingest.NewFallback(src, bus.NewStreams(js), deps.Log)
				fb.ZonesElsewhere = slices.ContainsFunc(selected, func(n string) bool { return c.Registry[n].Zones })
				src = fb
			}
		}
		cfg, err := sourceRunnerConfig(c.Runner, name, spec.Interval, c.Getenv)
		if err != nil {
			return nil, err
		}
		r, err := ingest.NewRunner(src, bus.NewStreams(js), bus.NewPublisher(js), cfg, deps.Log, reg, deps.Now)
		if err != nil {
			return nil, err
		}
		out.Runners = append(out.Runners, r)
		if wrapFallback && spec.Fallback {
			fallback = r
			continue
		}
		others = append(others, r)
		out.Parts = append(out.Parts, r.Run)
	}
	if fallback != nil {
		for _, r := range others {
			r.AfterSuccess(func(l *ingest.List) {
				if len(l.Prices) > 0 {
					fallback.Wake()
				}
			})
		}
		// The fallback decides by what the stream holds (real prices,
		// other sources' rates), so it runs after every other source
		// has had its first try.
		out.Parts = append(out.Parts, func(ctx context.Context) error {
			for _, r := range others {
				select {
				case <-r.FirstRound():
				case <-ctx.Done():
					return nil
				}
			}
			return fallback.Run(ctx)
		})
	}
	if c.Runner.Interval == 0 {
		// One round each: a source that fails must not cut the others'
		// rounds short (or keep the sample from standing in), so every
		// part runs to its end and the failures are reported together.
		parts := out.Parts
		out.Parts = []func(context.Context) error{func(ctx context.Context) error {
			errs := make([]error, len(parts))
			var wg sync.WaitGroup
			for i, p := range parts {
				wg.Go(func() { errs[i] = p(ctx) })
			}
			wg.Wait()
			return errors.Join(errs...)
		}}
		return out, nil
	}
	answer := strings.Join(selected, ",")
	out.Parts = append(out.Parts, func(ctx context.Context) error {
		return bus.AnswerRepublish(ctx, js.Conn(), answer, func() {
			deps.Log.Warn("republish requested: every source publishes its whole list now", "sources", answer)
			for _, r := range out.Runners {
				r.Republish()
			}
		})
	})
	return out, nil
}

// selectSources returns the source names to run, in a stable order. A
// name written "-name" switches that source off (auto,-epik).
func selectSources(names string, registry map[string]SourceSpec, getenv Env) (selected []string, auto bool, err error) {
	off := map[string]bool{}
	var on []string
	for name := range strings.SplitSeq(names, ",") {
		name = strings.TrimSpace(name)
		if n, ok := strings.CutPrefix(name, "-"); ok {
			if _, ok := registry[n]; !ok {
				return nil, false, fmt.Errorf("--sources (ZONEPRICE_SOURCES): unknown source %q to switch off (known: %s)", n, known(registry))
			}
			off[n] = true
			continue
		}
		if name == AutoSources {
			auto = true
			continue
		}
		on = append(on, name)
	}
	if auto {
		if len(on) > 0 {
			return nil, false, fmt.Errorf("--sources (ZONEPRICE_SOURCES): %s picks the sources itself; name others only to switch them off (-name)", AutoSources)
		}
		for name, spec := range registry {
			if spec.Auto && !off[name] && !spec.excluded(getenv) && (len(spec.Switch) == 0 || slices.ContainsFunc(spec.Switch, func(v string) bool {
				return getenv(v) != "" || getenv(v+"_FILE") != ""
			})) {
				selected = append(selected, name)
			}
		}
		slices.Sort(selected)
		return selected, true, nil
	}
	seen := map[string]bool{}
	for _, name := range on {
		if name == "" || seen[name] || off[name] {
			continue
		}
		if _, ok := registry[name]; !ok {
			return nil, false, fmt.Errorf("--sources (ZONEPRICE_SOURCES): unknown source %q (known: %s, or %s)", name, known(registry), AutoSources)
		}
		seen[name] = true
		selected = append(selected, name)
	}
	if len(selected) == 0 {
		return nil, false, errors.New("--sources (ZONEPRICE_SOURCES): no source named")
	}
	// A source that steps aside for another (Unless naming one of its
	// Switch variables) speaks for the same registrar: run together, each
	// would withdraw the other's zones.
	for _, a := range selected {
		for _, b := range selected {
			if a != b && slices.ContainsFunc(registry[a].Unless, func(v string) bool { return slices.Contains(registry[b].Switch, v) }) {
				return nil, false, fmt.Errorf("--sources (ZONEPRICE_SOURCES): %s steps aside for %s (both speak for one registrar); name one", a, b)
			}
		}
	}
	return selected, false, nil
}

// sourceRunnerConfig gives a source its own interval when
// ZONEPRICE_INGEST_INTERVAL_<NAME> is set (the ECB publishes once a day,
// IANA's files change rarely, a registrar's prices more often); jitter
// stays within a tenth of it. One-round runs stay one round.
func sourceRunnerConfig(cfg ingest.RunnerConfig, name string, own time.Duration, getenv Env) (ingest.RunnerConfig, error) {
	if cfg.Interval == 0 {
		return cfg, nil
	}
	if own > 0 {
		cfg.Interval = own
		cfg.Jitter = min(cfg.Jitter, own/10)
	}
	key := "ZONEPRICE_INGEST_INTERVAL_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
	v := getenv(key)
	if v == "" {
		return cfg, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return cfg, fmt.Errorf("%s: %q is not a positive duration", key, v)
	}
	cfg.Interval = d
	cfg.Jitter = min(cfg.Jitter, d/10)
	return cfg, nil
}
