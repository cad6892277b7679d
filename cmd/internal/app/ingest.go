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
	"github.com/zoneprice/zoneprice/ingest/iana"
)

// AutoSources is the --sources value that picks sources by what the machine
// has: every keyless live source, each source needing credentials whose
// credentials are set, and the sample as a fallback that steps aside once a
// real price arrives (cmd/internal/sources.Select).
const AutoSources = "auto"

// Deps are what a source is built from.
type Deps struct {
	Getenv Env
	// Streams are the streams a stand-in reads to step aside for a live
	// source (ingest.HeldBy).
	Streams *bus.Streams
	Client  *fetch.Client
	Log     *slog.Logger
	Now     func() time.Time
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

// Selection is the sources an ingester runs, as the commands' source
// table picks them from the flags (cmd/internal/sources.Select).
type Selection struct {
	// Sources are the sources to run, in a stable order.
	Sources []Selected
	// StandIn runs the fallback source (SourceSpec.Fallback) wrapped in
	// ingest.Fallback, after the others' first rounds, to step aside for
	// their prices.
	StandIn bool
	// File, when set, is the saved response the one source reads
	// instead of the network (SourceSpec.Parse).
	File string
}

// Selected is one source to run, with the runner configuration it runs
// with.
type Selected struct {
	Name   string
	Spec   SourceSpec
	Runner ingest.RunnerConfig
}

// Ingesters are the runners of the named sources and the parts that run
// them.
type Ingesters struct {
	Runners []*ingest.Runner
	Parts   []func(context.Context) error
}

// IngestConfig is what building the ingesters needs beyond the selection.
type IngestConfig struct {
	Getenv Env
	// Runner is the runners' configuration the flags set, before each
	// source's own interval; an Interval of 0 runs one round.
	Runner ingest.RunnerConfig
	// HTTP is the client live sources fetch with; nil means one whose
	// requests time out after a quarter of the runner's timeout, which
	// bounds the whole fetch.
	HTTP *http.Client
	// Capture, when set, saves every document the live sources fetch.
	Capture *fetch.Capture
}

// Ingest builds a runner for each selected source, on js, and the parts
// that run them: one round each when c.Runner.Interval is 0, else until
// their context ends, answering zoneprice-admin stream republish.
func Ingest(js jetstream.JetStream, sel Selection, c IngestConfig, log *slog.Logger, reg prometheus.Registerer) (*Ingesters, error) {
	deps := c.deps(js, log)
	streams, pub := bus.NewStreams(js), bus.NewPublisher(js)
	// Every runner keeps its prices to the zones of the DNS root.
	root := iana.NewRoot(streams)
	out := &Ingesters{}
	var fallback *ingest.Runner
	var others []*ingest.Runner // the runners the fallback waits for
	for _, s := range sel.Sources {
		src, err := sel.source(s, deps)
		if err != nil {
			return nil, err
		}
		r, err := ingest.NewRunner(src, streams, pub, s.Runner, deps.Log, reg, deps.Now)
		if err != nil {
			return nil, err
		}
		r.Guard(root)
		out.Runners = append(out.Runners, r)
		if sel.StandIn && s.Spec.Fallback {
			fallback = r
			continue
		}
		others = append(others, r)
		out.Parts = append(out.Parts, c.captured(s.Name, r.Run))
	}
	if fallback != nil {
		out.Parts = append(out.Parts, standIn(fallback, others))
	}
	if c.Runner.Interval == 0 {
		out.Parts = []func(context.Context) error{allRounds(out.Parts)}
		return out, nil
	}
	out.Parts = append(out.Parts, answerRepublish(js, sel, out.Runners, deps.Log))
	return out, nil
}

// answerRepublish answers zoneprice-admin stream republish
// (bus.AnswerRepublish) with the sources this process runs, and asks each
// runner for a round that publishes its whole list.
func answerRepublish(js jetstream.JetStream, sel Selection, runners []*ingest.Runner, log *slog.Logger) func(context.Context) error {
	names := make([]string, len(sel.Sources))
	for i, s := range sel.Sources {
		names[i] = s.Name
	}
	answer := strings.Join(names, ",")
	return func(ctx context.Context) error {
		return bus.AnswerRepublish(ctx, js.Conn(), answer, func() {
			log.Warn("republish requested: every source publishes its whole list now", "sources", answer)
			for _, r := range runners {
				r.Republish()
			}
		})
	}
}

// captured returns run, saving every document it fetches as source's
// when c has a capture.
func (c IngestConfig) captured(source string, run func(context.Context) error) func(context.Context) error {
	if c.Capture == nil {
		return run
	}
	return func(ctx context.Context) error { return run(fetch.WithCapture(ctx, c.Capture, source)) }
}

// deps are what the sources are built from.
func (c IngestConfig) deps(js jetstream.JetStream, log *slog.Logger) Deps {
	hc := c.HTTP
	if hc == nil {
		// A stalled server costs one attempt's share of the round's
		// time, not the whole round, so retries still happen.
		hc = &http.Client{Timeout: max(c.Runner.Timeout/4, time.Second)}
	}
	return Deps{
		Getenv:  c.Getenv,
		Streams: bus.NewStreams(js),
		Client:  fetch.New(fetch.Config{}, hc, log.With("part", "fetch")),
		Log:     log.With("part", "ingest"),
		Now:     time.Now,
	}
}

// source builds the selected source: the saved response with File, else
// the live source, wrapped to step aside when it stands in.
func (sel Selection) source(s Selected, deps Deps) (ingest.Source, error) {
	if sel.File != "" {
		fs := ingest.NewFileSource(s.Name, sel.File, s.Spec.Parse, deps.Now)
		// The live source, never fetched, describes what the file is a
		// response of, for the registrars' statuses; one that cannot be
		// built here (its credentials are not set) describes nothing.
		if live, err := s.Spec.New(deps); err != nil {
			deps.Log.Info("no registrar status for the import: its live source is not configured", "source", s.Name, "err", err)
		} else if d, ok := live.(ingest.Describer); ok {
			fs.About = d
		}
		return fs, nil
	}
	src, err := s.Spec.New(deps)
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", s.Name, err)
	}
	if !sel.StandIn || !s.Spec.Fallback {
		return src, nil
	}
	fb := ingest.NewFallback(src, deps.Streams, deps.Log)
	fb.ZonesElsewhere = slices.ContainsFunc(sel.Sources, func(o Selected) bool { return o.Spec.Zones })
	return fb, nil
}

// standIn runs the fallback after every other runner's first round, and
// wakes it after each of their rounds that published prices: it decides by
// what the stream holds (real prices, other sources' rates).
func standIn(fallback *ingest.Runner, others []*ingest.Runner) func(context.Context) error {
	for _, r := range others {
		r.AfterSuccess(func(l *ingest.List) {
			if len(l.Prices) > 0 {
				fallback.Wake()
			}
		})
	}
	return func(ctx context.Context) error {
		for _, r := range others {
			select {
			case <-r.FirstRound():
			case <-ctx.Done():
				return nil
			}
		}
		return fallback.Run(ctx)
	}
}

// allRounds runs one round of each part: a source that fails must not cut
// the others' rounds short (or keep the sample from standing in), so
// every part runs to its end and the failures are reported together.
func allRounds(parts []func(context.Context) error) func(context.Context) error {
	return func(ctx context.Context) error {
		errs := make([]error, len(parts))
		var wg sync.WaitGroup
		for i, p := range parts {
			wg.Go(func() { errs[i] = p(ctx) })
		}
		wg.Wait()
		return errors.Join(errs...)
	}
}
