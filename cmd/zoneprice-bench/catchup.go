package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/query/consumer"
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

// catchup times the bare and the real consumer cfg.runs times each,
// alternating which goes first.
func (b *bench) catchup(ctx context.Context, env *natsEnv, res *results) error {
	cr := &catchupResult{prices: env.prices, messages: env.messages}
	res.catchup = cr
	batch := consumer.DefaultConfig().PullBatch
	for i := range b.cfg.runs {
		bare := func() error {
			d, n, err := bareCatchup(ctx, env.js, batch)
			if err != nil {
				return fmt.Errorf("bare catch-up: %w", err)
			}
			if uint64(n) != env.messages {
				return fmt.Errorf("bare catch-up read %d messages, the stream holds %d", n, env.messages)
			}
			cr.bare = append(cr.bare, d)
			b.log.Info("catch-up", "consumer", "bare", "run", i+1, "took", d.Round(time.Millisecond))
			return nil
		}
		real := func() error {
			d, err := realCatchup(ctx, env.js, env.prices)
			if err != nil {
				return fmt.Errorf("real catch-up: %w", err)
			}
			cr.real = append(cr.real, d)
			b.log.Info("catch-up", "consumer", "real", "run", i+1, "took", d.Round(time.Millisecond))
			return nil
		}
		order := []func() error{bare, real}
		if i%2 == 1 {
			order = []func() error{real, bare}
		}
		for _, f := range order {
			// Start each run on a clean heap: the previous real
			// consumer's index is garbage now.
			runtime.GC()
			if err := f(); err != nil {
				return err
			}
		}
	}
	return nil
}

// bareCatchup reads the state stream the way the real consumer does (an
// ordered consumer delivering the last message per subject, the same pull
// batch) and does nothing with the messages. It returns the time from start
// to the last message and how many it read.
func bareCatchup(ctx context.Context, js jetstream.JetStream, batch int) (time.Duration, int, error) {
	ctx, cancel := context.WithTimeout(ctx, catchupTimeout)
	defer cancel()
	start := time.Now()
	stream, err := js.Stream(ctx, contracts.StateStream)
	if err != nil {
		return 0, 0, err
	}
	if stream.CachedInfo().State.Msgs == 0 {
		return 0, 0, errors.New("the state stream is empty")
	}
	cons, err := stream.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{
		DeliverPolicy: jetstream.DeliverLastPerSubjectPolicy,
	})
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
	c, err := consumer.New(js, consumer.DefaultConfig(), slog.New(slog.DiscardHandler), prometheus.NewRegistry(), time.Now)
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
