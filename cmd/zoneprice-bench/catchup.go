package main

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

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

// catchup times the bare and the real consumer cfg.catchupRuns times each,
// alternating which goes first.
func (b *bench) catchup(ctx context.Context, env *natsEnv, res *results) error {
	cr := &catchupResult{prices: env.prices, messages: env.messages}
	res.catchup = cr
	for i := range b.cfg.catchupRuns {
		// Each run starts on a clean heap: the previous real consumer's
		// index is garbage now.
		bare := func() error {
			runtime.GC()
			d, err := timeBare(ctx, env.js, contracts.StateStream, jetstream.DeliverLastPerSubjectPolicy, env.messages)
			if err != nil {
				return err
			}
			cr.bare = append(cr.bare, d)
			b.log.Info("catch-up", "consumer", "bare", "run", i+1, "took", d.Round(time.Millisecond))
			return nil
		}
		real := func() error {
			runtime.GC()
			d, err := realCatchup(ctx, env.js, env.prices)
			if err != nil {
				return fmt.Errorf("real catch-up: %w", err)
			}
			cr.real = append(cr.real, d)
			b.log.Info("catch-up", "consumer", "real", "run", i+1, "took", d.Round(time.Millisecond))
			return nil
		}
		if err := inTurn(i, bare, real); err != nil {
			return err
		}
	}
	return nil
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
