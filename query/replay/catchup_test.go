package replay_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
	"github.com/zoneprice/zoneprice/ingest/sample"
	"github.com/zoneprice/zoneprice/query/replay"
)

// BenchmarkCatchUp measures a query consumer replaying a stream of
// 1,500 zones × 150 registrars (225,000 price sets) until ready, next to a
// bare ordered consumer that only reads the same messages. The ratio is
// the figure to watch; `make bench` reports it with more runs.
func BenchmarkCatchUp(b *testing.B) {
	_, js := bustest.Provisioned(b)
	zones, err := sample.Zones()
	if err != nil {
		b.Fatal(err)
	}
	sets, err := sample.Generate(zones[:1500], 150, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	events := make([]contracts.Event, len(sets))
	for i := range sets {
		events[i] = &sets[i]
	}
	publishAll(b, js, events)

	b.Run("bare", func(b *testing.B) {
		cpu := replay.CPUTime()
		for b.Loop() {
			bareCatchUp(b, js)
		}
		b.ReportMetric((replay.CPUTime()-cpu).Seconds()/float64(b.N), "cpu-s/op")
	})
	b.Run("query", func(b *testing.B) {
		cpu := replay.CPUTime()
		for b.Loop() {
			c, err := replay.New(bus.NewStreams(js), replay.DefaultConfig(), slog.New(slog.DiscardHandler), prometheus.NewRegistry(), time.Now)
			if err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- c.Run(ctx) }()
			<-c.Ready()
			b.StopTimer()
			if got := c.Snapshot().Prices; got != len(sets) {
				b.Fatalf("ready with %d prices, want %d", got, len(sets))
			}
			cancel()
			<-done
			b.StartTimer()
		}
		b.ReportMetric((replay.CPUTime()-cpu).Seconds()/float64(b.N), "cpu-s/op")
	})
}

func publishAll(b *testing.B, js jetstream.JetStream, events []contracts.Event) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, _, err := bus.NewPublisher(js).PublishAll(ctx, events, 4096); err != nil {
		b.Fatal(err)
	}
}

// bareCatchUp reads the stream's last message per subject and does nothing
// with them: the floor any consumer can reach.
func bareCatchUp(b *testing.B, js jetstream.JetStream) {
	b.Helper()
	ctx := context.Background()
	cons, err := js.OrderedConsumer(ctx, contracts.StateStream, jetstream.OrderedConsumerConfig{
		DeliverPolicy: jetstream.DeliverLastPerSubjectPolicy,
	})
	if err != nil {
		b.Fatal(err)
	}
	it, err := cons.Messages(jetstream.PullMaxMessages(replay.DefaultConfig().PullBatch))
	if err != nil {
		b.Fatal(err)
	}
	defer it.Stop()
	for {
		msg, err := it.Next()
		if err != nil {
			b.Fatal(err)
		}
		meta, err := msg.Metadata()
		if err != nil {
			b.Fatal(err)
		}
		if meta.NumPending == 0 {
			return
		}
	}
}
