package bus_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
	"github.com/zoneprice/zoneprice/contracts/eventtest"
)

// TestPublisher publishes events on their streams, where a second publish
// of the same document is dropped as a duplicate, and refuses a list with
// an invalid event before anything of it is sent.
func TestPublisher(t *testing.T) {
	_, js := bustest.Provisioned(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	pub := bus.NewPublisher(js)
	at := time.Now().UTC().Truncate(time.Second)
	com := eventtest.RegisterOnly("porkbun", ".com", at, "USD", 1099)
	for i, want := range []bool{false, true} {
		if dup, err := pub.Publish(ctx, com); err != nil || dup != want {
			t.Fatalf("publish %d: duplicate %v, %v; want %v", i+1, dup, err, want)
		}
	}
	change := &contracts.PriceChange{
		V: contracts.SchemaVersion, Kind: contracts.KindPriceChange, Change: contracts.ChangeAdded,
		Registrar: "porkbun", Zone: ".com", After: com.Offer(), ObservedAt: at, Source: eventtest.Source,
	}
	net := eventtest.RegisterOnly("porkbun", ".net", at, "USD", 1299)
	published, dups, err := pub.PublishAll(ctx, []contracts.Event{change, net, com}, 2)
	if err != nil || published != 3 || dups != 1 {
		t.Fatalf("PublishAll = %d published, %d duplicates, %v; want 3 and 1", published, dups, err)
	}
	streams := bus.NewStreams(js)
	for stream, subject := range map[string]string{contracts.HistoryStream: change.Subject(), contracts.StateStream: net.Subject()} {
		if _, err := streams.LastMsg(ctx, stream, subject); err != nil {
			t.Errorf("%s on %s: %v", subject, stream, err)
		}
	}

	bad := eventtest.RegisterOnly("porkbun", "org", at, "USD", 1)
	org := eventtest.RegisterOnly("porkbun", ".org", at, "USD", 1)
	if _, _, err := pub.PublishAll(ctx, []contracts.Event{org, bad}, 2); !errors.As(err, new(*contracts.ValidationError)) {
		t.Fatalf("PublishAll with an invalid event: %v, want a validation error", err)
	}
	if _, err := streams.LastMsg(ctx, contracts.StateStream, org.Subject()); !errors.Is(err, bus.ErrNoMessage) {
		t.Errorf("the valid event of a refused list: %v, want it never published", err)
	}
}
