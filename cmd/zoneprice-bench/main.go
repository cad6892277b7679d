// Command zoneprice-bench measures the query service on loopback and writes
// one markdown report: HTTP throughput of the real service against a bare
// net/http handler writing the same bytes, catch-up time against a bare
// ordered consumer, the price history's load time (against a bare read of
// the history stream) and memory cost, freshness of prices and of changes
// under load, memory, ingest throughput, and webhook deliveries (latency,
// throughput against a bare client, fan-out). Every measurement is paired
// with a baseline taken in the same run, because on a small shared machine
// only ratios from one run compare.
//
// It starts an embedded NATS server, runs the real zoneprice-query and
// zoneprice-notify binaries (found next to this one) as child processes and
// drives them with wrk and with publishes. It exits 1 when any target is
// missed, after writing the report.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "zoneprice-bench:", err)
		os.Exit(1)
	}
}

// config is the benchmark's parameters, from flags.
type config struct {
	duration time.Duration
	runs     int
	// catchupRuns is how many times each catch-up consumer runs: its
	// ratio is a median of runs of about a second each, whose spread on
	// the shared machine is wider than the margin to the target.
	catchupRuns int
	connections int
	zones       int
	registrars  int
	changes     int
	out         string
	keep        bool
	// notifyProfile takes a CPU profile of zoneprice-notify over the
	// webhook throughput run.
	notifyProfile bool
	// only is the sections to run; every one when empty.
	only map[string]bool
}

// The sections -only may name, in the order they run. Ingest (the data
// set) always runs; http and freshness need the history published, which
// they then do without measuring its load.
var sections = []string{"catchup", "history", "http", "freshness", "webhooks"}

// selected reports whether section is to run.
func (c *config) selected(section string) bool { return len(c.only) == 0 || c.only[section] }

// needsQuery reports whether a section that runs zoneprice-query is to run.
func (c *config) needsQuery() bool {
	return c.selected("catchup") || c.selected("history") || c.selected("http") || c.selected("freshness")
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("zoneprice-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.DurationVar(&c.duration, "duration", 5*time.Second, "length of each wrk run (whole seconds)")
	fs.IntVar(&c.runs, "runs", 3, "runs of each measurement; the report shows min, median and max")
	fs.IntVar(&c.catchupRuns, "catchup-runs", 9, "runs of each catch-up consumer, alternating (about 2 s a pair)")
	fs.IntVar(&c.connections, "connections", 32, "wrk connections")
	fs.IntVar(&c.zones, "zones", 1500, "zones in the generated data set")
	fs.IntVar(&c.registrars, "registrars", 150, "registrars in the generated data set; each prices every zone")
	fs.IntVar(&c.changes, "changes", 2_000_000, "changes in the generated history, over three years of the data set's prices")
	fs.StringVar(&c.out, "out", "", "also write the markdown report to this file")
	fs.BoolVar(&c.keep, "keep", false, "keep the temporary directory (NATS store, child logs)")
	fs.BoolVar(&c.notifyProfile, "notify-profile", false, "take a CPU profile of zoneprice-notify (run with --pprof) over the webhook throughput run; it slows notify a little")
	only := fs.String("only", "", "run only these sections, comma-separated: "+strings.Join(sections, ", ")+" (the data set is always published)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if *only != "" {
		c.only = map[string]bool{}
		for s := range strings.SplitSeq(*only, ",") {
			s = strings.TrimSpace(s)
			if !slices.Contains(sections, s) {
				return c, fmt.Errorf("-only: %q is not one of %s", s, strings.Join(sections, ", "))
			}
			c.only[s] = true
		}
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	switch {
	case c.duration < time.Second || c.duration%time.Second != 0:
		return c, errors.New("-duration: must be a whole number of seconds, at least 1s (wrk's -d)")
	case c.runs < 1:
		return c, errors.New("-runs: must be at least 1")
	case c.catchupRuns < 1:
		return c, errors.New("-catchup-runs: must be at least 1")
	case c.connections < wrkThreads:
		return c, fmt.Errorf("-connections: must be at least %d (one per wrk thread)", wrkThreads)
	case c.zones < 2:
		return c, errors.New("-zones: must be at least 2")
	case c.registrars < 1:
		return c, errors.New("-registrars: must be at least 1")
	case c.changes < c.zones*c.registrars:
		return c, errors.New("-changes: must be at least one per price (-zones × -registrars)")
	}
	return c, nil
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == bareCommand {
		return runBare(ctx, args[1:], stderr)
	}
	if len(args) > 0 && args[0] == bareHooksCommand {
		return runBareHooks(ctx, args[1:], stdin, stdout, stderr)
	}
	if len(args) > 0 && args[0] == catchupCommand {
		return runCatchup(ctx, args[1:], stdout, stderr)
	}
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	var wrk string
	if cfg.selected("http") || cfg.selected("freshness") {
		if wrk, err = exec.LookPath("wrk"); err != nil {
			return errors.New("wrk not found; `make bench` installs it")
		}
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find own executable: %w", err)
	}
	queryBin := filepath.Join(filepath.Dir(self), "zoneprice-query")
	notifyBin := filepath.Join(filepath.Dir(self), "zoneprice-notify")
	for _, bin := range []struct {
		path string
		need bool
	}{{queryBin, cfg.needsQuery()}, {notifyBin, cfg.selected("webhooks")}} {
		if _, err := os.Stat(bin.path); bin.need && err != nil {
			return fmt.Errorf("%s not found next to %s; `make build` builds it: %w", filepath.Base(bin.path), self, err)
		}
	}
	tmp, err := os.MkdirTemp("", "zoneprice-bench-")
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	defer func() {
		if cfg.keep {
			log.Info("kept temporary directory", "dir", tmp)
			return
		}
		if err := os.RemoveAll(tmp); err != nil {
			log.Warn("remove temporary directory", "dir", tmp, "err", err)
		}
	}()

	b := &bench{cfg: cfg, wrk: wrk, queryBin: queryBin, notifyBin: notifyBin, self: self, tmp: tmp, log: log, stderr: stderr}
	res := &results{cfg: cfg, machine: describeMachine(ctx, wrk), started: time.Now()}
	res.err = b.run(ctx, res)
	if res.err != nil && ctx.Err() != nil {
		res.err = fmt.Errorf("interrupted: %w", res.err)
	}
	res.took = time.Since(res.started)

	report, failed := res.markdown()
	if cfg.out != "" {
		if err := os.MkdirAll(filepath.Dir(cfg.out), 0o755); err != nil {
			return fmt.Errorf("-out: %w", err)
		}
		if err := os.WriteFile(cfg.out, []byte(report), 0o644); err != nil {
			return fmt.Errorf("-out: %w", err)
		}
	}
	if _, err := io.WriteString(stdout, report); err != nil {
		return err
	}
	switch {
	case res.err != nil:
		return res.err
	case len(failed) > 0:
		return fmt.Errorf("%d of the report's targets missed: %v", len(failed), failed)
	}
	return nil
}

// bench is one benchmark run: its settings, the tools it drives and where
// it keeps its files.
type bench struct {
	cfg      config
	wrk      string // path of wrk
	queryBin string // path of zoneprice-query
	// notifyBin is the path of zoneprice-notify.
	notifyBin string
	self      string // path of this binary, re-executed as the bare server
	tmp       string
	log       *slog.Logger
	stderr    io.Writer // where children that log as the bench does write
}

// profileDir is where profiles go: beside the report, or in the bench's
// temporary directory without one.
func (b *bench) profileDir() string {
	if b.cfg.out != "" {
		return filepath.Dir(b.cfg.out)
	}
	return b.tmp
}

// run performs every measurement in order, filling in res as it goes so a
// failure part way still leaves a report of what was measured. Each part
// cleans up after itself, on every path.
func (b *bench) run(ctx context.Context, res *results) error {
	env, err := b.setup(ctx, res)
	if err != nil {
		return err
	}
	defer env.close()

	c := &b.cfg
	if c.selected("catchup") {
		if err := b.catchup(ctx, env, res); err != nil {
			return err
		}
	}

	// The history's memory and load time: pods holding the prices with
	// an empty history stream, then pods loading the history data set.
	if c.selected("history") {
		if err := b.emptyHistory(ctx, env, res); err != nil {
			return err
		}
	}
	if c.selected("history") || c.selected("http") || c.selected("freshness") {
		if err := b.publishHistory(ctx, env, res); err != nil {
			return err
		}
	}
	if c.selected("history") {
		if err := b.historyLoad(ctx, env, res); err != nil {
			return err
		}
	}
	if c.selected("http") || c.selected("freshness") {
		if err := b.podRuns(ctx, env, res); err != nil {
			return err
		}
	}
	if c.selected("webhooks") {
		if err := b.webhooks(ctx, env, res); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// podRuns measures the pod under test: HTTP throughput, then freshness,
// with its memory after each.
func (b *bench) podRuns(ctx context.Context, env *natsEnv, res *results) error {
	q, err := b.podUnderTest(ctx, env, res)
	if err != nil {
		return err
	}
	defer q.stop()

	if b.cfg.selected("http") {
		if err := b.throughput(ctx, q, env, res); err != nil {
			return err
		}
		res.memory = append(res.memory, q.memory(ctx, "after HTTP runs"))
		profile := filepath.Join(b.profileDir(), "heap-after-http.pb.gz")
		if top, err := q.heapProfile(ctx, profile, b.queryBin); err != nil {
			res.heap = "not taken: " + err.Error()
		} else {
			res.heap = "Saved to `" + profile + "` (`go tool pprof " + b.queryBin + " " + profile + "`). The top, by bytes in use after a collection:\n\n```\n" + top + "```"
		}
	}
	if b.cfg.selected("freshness") {
		if err := b.freshness(ctx, q, env, res); err != nil {
			return err
		}
		res.memory = append(res.memory, q.memory(ctx, "after freshness"))
	}
	return ctx.Err()
}
