package sources

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/zoneprice/zoneprice/cmd/internal/app"
	"github.com/zoneprice/zoneprice/ingest"
)

// Select picks the sources of the table that the ingest flags name, and
// gives each its runner configuration: which run under --sources auto
// (each keyless source, each credentialed one whose credentials are set,
// the sample as a stand-in), which a "-name" switches off, and at what
// interval each fetches.
func Select(f *app.IngestFlags, getenv app.Env) (app.Selection, error) {
	return pick(f.Sources, f.File, f.RunnerConfig(), Registry(), getenv)
}

// pick is Select from registry: names is --sources, file --file and base
// the runners' configuration the flags set.
func pick(names, file string, base ingest.RunnerConfig, registry map[string]app.SourceSpec, getenv app.Env) (app.Selection, error) {
	selected, auto, err := selectNames(names, registry, getenv)
	if err != nil {
		return app.Selection{}, err
	}
	if file != "" && (auto || len(selected) != 1) {
		return app.Selection{}, errors.New("--file (ZONEPRICE_IMPORT_FILE): name exactly one source with --sources")
	}
	// The sample stands in only when something else runs beside it:
	// then it must step aside for real prices and leave other sources'
	// rates and zone metadata alone. Alone, it is the whole data set.
	sel := app.Selection{StandIn: auto || len(selected) > 1, File: file}
	for _, name := range selected {
		spec := registry[name]
		if file != "" && spec.Parse == nil {
			return app.Selection{}, fmt.Errorf("--file (ZONEPRICE_IMPORT_FILE): source %s has no saved form to import", name)
		}
		cfg, err := runnerConfig(base, name, spec.Interval, getenv)
		if err != nil {
			return app.Selection{}, err
		}
		sel.Sources = append(sel.Sources, app.Selected{Name: name, Spec: spec, Runner: cfg})
	}
	return sel, nil
}

// selectNames returns the source names to run, in a stable order. A name
// written "-name" switches that source off (auto,-epik).
func selectNames(names string, registry map[string]app.SourceSpec, getenv app.Env) (selected []string, auto bool, err error) {
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
		if name == app.AutoSources {
			auto = true
			continue
		}
		on = append(on, name)
	}
	if auto {
		if len(on) > 0 {
			return nil, false, fmt.Errorf("--sources (ZONEPRICE_SOURCES): %s picks the sources itself; name others only to switch them off (-name)", app.AutoSources)
		}
		return autoNames(registry, off, getenv), true, nil
	}
	selected, err = namedNames(on, off, registry)
	return selected, false, err
}

// autoNames are the sources --sources auto runs, less those switched off,
// sorted.
func autoNames(registry map[string]app.SourceSpec, off map[string]bool, getenv app.Env) []string {
	var selected []string
	for name, spec := range registry {
		if spec.Auto && !off[name] && !excluded(spec, getenv) && (len(spec.Switch) == 0 || slices.ContainsFunc(spec.Switch, set(getenv))) {
			selected = append(selected, name)
		}
	}
	slices.Sort(selected)
	return selected
}

// namedNames are the sources named, in the order named, once each, less
// those switched off; two that speak for one registrar are an error.
func namedNames(on []string, off map[string]bool, registry map[string]app.SourceSpec) ([]string, error) {
	var selected []string
	seen := map[string]bool{}
	for _, name := range on {
		if name == "" || seen[name] || off[name] {
			continue
		}
		if _, ok := registry[name]; !ok {
			return nil, fmt.Errorf("--sources (ZONEPRICE_SOURCES): unknown source %q (known: %s, or %s)", name, known(registry), app.AutoSources)
		}
		seen[name] = true
		selected = append(selected, name)
	}
	if len(selected) == 0 {
		return nil, errors.New("--sources (ZONEPRICE_SOURCES): no source named")
	}
	// A source that steps aside for another (Unless naming one of its
	// Switch variables) speaks for the same registrar: run together, each
	// would withdraw the other's zones.
	for _, a := range selected {
		for _, b := range selected {
			if a != b && slices.ContainsFunc(registry[a].Unless, func(v string) bool { return slices.Contains(registry[b].Switch, v) }) {
				return nil, fmt.Errorf("--sources (ZONEPRICE_SOURCES): %s steps aside for %s (both speak for one registrar); name one", a, b)
			}
		}
	}
	return selected, nil
}

// excluded reports whether auto leaves the source out for an Unless
// variable (or its _FILE form) being set.
func excluded(spec app.SourceSpec, getenv app.Env) bool {
	return slices.ContainsFunc(spec.Unless, set(getenv))
}

// set reports whether an environment variable, or its _FILE form, is set.
func set(getenv app.Env) func(name string) bool {
	return func(v string) bool { return getenv(v) != "" || getenv(v+"_FILE") != "" }
}

func known(registry map[string]app.SourceSpec) string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// runnerConfig gives a source its own interval when
// ZONEPRICE_INGEST_INTERVAL_<NAME> is set (the ECB publishes once a day,
// IANA's files change rarely, a registrar's prices more often); jitter
// stays within a tenth of it. One-round runs stay one round, and state in
// their statuses the interval the source would run at.
func runnerConfig(cfg ingest.RunnerConfig, name string, own time.Duration, getenv app.Env) (ingest.RunnerConfig, error) {
	if cfg.Interval == 0 {
		if cfg.StatedInterval > 0 {
			every := cfg
			every.Interval = cfg.StatedInterval
			every, err := runnerConfig(every, name, own, getenv)
			if err != nil {
				return cfg, err
			}
			cfg.StatedInterval = every.Interval
		}
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
