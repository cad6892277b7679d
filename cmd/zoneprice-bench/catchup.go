package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/cmd/internal/app"
	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/query/replay"
)

// catchupTimeout bounds one catch-up run, bare or real.
const catchupTimeout = 2 * time.Minute

// catchupResult is the time to replay the state stream: the bare ordered
// consumer that only reads it, and the real consumer that builds and renders
// the index from it, run after run.
type catchupResult struct {
	prices     int
	messages   uint64
	bare, real []time.Duration
	// process is how long the zoneprice-query child took from exec to
	// /readyz 200: process start, connecting and catching up.
	process time.Duration
}

// catchupCommand is the hidden subcommand that times the catch-up in a
// process of its own, apart from the NATS server, as a query pod is:
//
//	zoneprice-bench catchup -nats URL -runs N -prices P -messages M
//	zoneprice-bench catchup -nats URL -history -runs N -messages M
//
// It prints a catchupTimes (JSON) and logs each run on its standard error.
// With -history it reads the history stream with the bare consumer only,
// the baseline of a pod's history load (the pod is a process too).
// In the bench's own process both consumers shared a heap with the
// embedded server (about 85 MiB live after a collection), which every
// collection marks: the bare consumer, waiting on the network, left the
// marking idle CPU, while the real one, decoding and applying on both
// cores, paid for it in wall time. BenchmarkCatchUp, which shares its
// process with its server the same way, measured real/bare 1.21 with the
// collector on and 1.05 with it off.
const catchupCommand = "catchup"

// catchupTimes are a catchup process's runs, in order.
type catchupTimes struct {
	Bare []time.Duration `json:"bare"`
	Real []time.Duration `json:"real"`
}

// runCatchup is the catchup subcommand.
func runCatchup(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("zoneprice-bench "+catchupCommand, flag.ContinueOnError)
	fs.SetOutput(stderr)
	url := fs.String("nats", "", "the NATS server holding the data set")
	runs := fs.Int("runs", 1, "runs of each consumer, alternating which goes first")
	prices := fs.Int("prices", 0, "price sets the ready snapshot must hold")
	messages := fs.Uint64("messages", 0, "messages the stream holds")
	history := fs.Bool("history", false, "read every message of the history stream, with the bare consumer only")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *url == "" || *runs < 1 || *messages < 1 || (*prices < 1 && !*history) {
		return errors.New("catchup: -nats, -runs, -messages and, without -history, -prices are required")
	}
	quiet := slog.New(slog.DiscardHandler)
	nc, js, err := app.Connect(*url, "zoneprice-bench-catchup", "", quiet)
	if err != nil {
		return fmt.Errorf("catchup: %w", err)
	}
	defer nc.Close()
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	stream, deliver := contracts.StateStream, jetstream.DeliverLastPerSubjectPolicy
	if *history {
		// One run at a time, between pods: the bench logs it.
		stream, deliver, log = contracts.HistoryStream, jetstream.DeliverAllPolicy, quiet
	}
	var times catchupTimes
	for i := range *runs {
		// Each run starts on a clean heap: the previous real consumer's
		// index is garbage now.
		bare := func() error {
			runtime.GC()
			d, err := timeBare(ctx, js, stream, deliver, *messages)
			if err != nil {
				return err
			}
			times.Bare = append(times.Bare, d)
			log.Info("catch-up", "consumer", "bare", "run", i+1, "took", d.Round(time.Millisecond))
			return nil
		}
		real := func() error {
			runtime.GC()
			d, err := realCatchup(ctx, js, *prices)
			if err != nil {
				return fmt.Errorf("real catch-up: %w", err)
			}
			times.Real = append(times.Real, d)
			log.Info("catch-up", "consumer", "real", "run", i+1, "took", d.Round(time.Millisecond))
			return nil
		}
		run := func() error { return inTurn(i, bare, real) }
		if *history {
			run = bare
		}
		if err := run(); err != nil {
			return fmt.Errorf("catchup: %w", err)
		}
	}
	return json.NewEncoder(stdout).Encode(times)
}

// catchup times the bare and the real consumer cfg.catchupRuns times each,
// alternating which goes first, in a catchup process.
func (b *bench) catchup(ctx context.Context, env *natsEnv, res *results) error {
	cr := &catchupResult{prices: env.prices, messages: env.messages}
	res.catchup = cr
	times, err := b.catchupProcess(ctx, env, "-runs", strconv.Itoa(b.cfg.catchupRuns),
		"-prices", strconv.Itoa(env.prices), "-messages", strconv.FormatUint(env.messages, 10))
	cr.bare, cr.real = times.Bare, times.Real
	return err
}

// catchupProcess runs a catchup process against env's server and returns
// the times it answered.
func (b *bench) catchupProcess(ctx context.Context, env *natsEnv, args ...string) (catchupTimes, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, b.self, append([]string{catchupCommand, "-nats", env.url}, args...)...)
	cmd.Stdout, cmd.Stderr = &stdout, io.MultiWriter(b.stderr, &stderr)
	var times catchupTimes
	if err := cmd.Run(); err != nil {
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		return times, fmt.Errorf("catchup process: %w: %s", err, lines[len(lines)-1])
	}
	if err := json.Unmarshal(stdout.Bytes(), &times); err != nil {
		return times, fmt.Errorf("catchup process's answer: %w", err)
	}
	return times, nil
}

// inTurn runs a and b, a first in even runs and b first in odd ones, so
// that neither always has the quieter moment of a shared machine.
func inTurn(run int, a, b func() error) error {
	if run%2 == 1 {
		a, b = b, a
	}
	if err := a(); err != nil {
		return err
	}
	return b()
}

// timeBare times bareCatchup on a stream, with the service consumer's pull
// batch, and checks it read want messages.
func timeBare(ctx context.Context, js jetstream.JetStream, name string, deliver jetstream.DeliverPolicy, want uint64) (time.Duration, error) {
	d, n, err := bareCatchup(ctx, js, name, deliver, replay.DefaultConfig().PullBatch)
	if err != nil {
		return 0, fmt.Errorf("bare read of %s: %w", name, err)
	}
	if uint64(n) != want {
		return 0, fmt.Errorf("bare read of %s: %d messages, the stream holds %d", name, n, want)
	}
	return d, nil
}

// bareCatchup reads a stream the way the real consumer does (an ordered
// consumer with the same deliver policy and pull batch: the last message
// per subject of the state stream, every message of the history stream)
// and does nothing with the messages. It returns the time from start to
// the last message and how many it read.
func bareCatchup(ctx context.Context, js jetstream.JetStream, name string, deliver jetstream.DeliverPolicy, batch int) (time.Duration, int, error) {
	ctx, cancel := context.WithTimeout(ctx, catchupTimeout)
	defer cancel()
	start := time.Now()
	stream, err := js.Stream(ctx, name)
	if err != nil {
		return 0, 0, err
	}
	if stream.CachedInfo().State.Msgs == 0 {
		return 0, 0, fmt.Errorf("the stream %s is empty", name)
	}
	cons, err := stream.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{DeliverPolicy: deliver})
	if err != nil {
		return 0, 0, err
	}
	it, err := cons.Messages(jetstream.PullMaxMessages(batch))
	if err != nil {
		return 0, 0, err
	}
	defer it.Stop()
	stop := context.AfterFunc(ctx, it.Stop)
	defer stop()
	for n := 1; ; n++ {
		msg, err := it.Next()
		if err != nil {
			if ctx.Err() != nil {
				return 0, n - 1, ctx.Err()
			}
			return 0, n - 1, err
		}
		meta, err := msg.Metadata()
		if err != nil {
			return 0, n, err
		}
		if meta.NumPending == 0 {
			return time.Since(start), n, nil
		}
	}
}

// realCatchup runs the service's consumer until it is ready, that is until
// it has applied the whole stream and rendered the first full snapshot, and
// checks that snapshot holds every price set.
func realCatchup(ctx context.Context, js jetstream.JetStream, prices int) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, catchupTimeout)
	defer cancel()
	c, err := replay.New(bus.NewStreams(js), replay.DefaultConfig(), slog.New(slog.DiscardHandler), prometheus.NewRegistry(), time.Now)
	if err != nil {
		return 0, err
	}
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	var took time.Duration
	select {
	case <-c.Ready():
		took = time.Since(start)
	case err := <-done:
		if err == nil {
			err = ctx.Err()
		}
		return 0, fmt.Errorf("consumer stopped before ready: %w", err)
	}
	cancel()
	if err := <-done; err != nil {
		return 0, fmt.Errorf("consumer: %w", err)
	}
	if got := c.Snapshot().Prices; got != prices {
		return 0, fmt.Errorf("ready snapshot holds %d prices, want %d", got, prices)
	}
	return took, nil
}
