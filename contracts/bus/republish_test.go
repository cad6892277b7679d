package bus_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
)

// TestRepublish asks two ingesters, which each republish once and answer
// with their sources; with nobody listening, asking is an error.
func TestRepublish(t *testing.T) {
	nc, _ := bustest.Connect(t, bustest.Server(t))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	if heard, err := bus.Republish(ctx, nc); err == nil || !strings.Contains(err.Error(), "no ingester answered") {
		t.Fatalf("Republish with no ingester = %v, %v; want an error", heard, err)
	}

	actx, stop := context.WithCancel(ctx)
	var asked atomic.Int32
	var answering sync.WaitGroup
	for _, answer := range []string{"sample", "ecb,porkbun"} {
		answering.Go(func() {
			if err := bus.AnswerRepublish(actx, nc, answer, func() { asked.Add(1) }); err != nil {
				t.Error(err)
			}
		})
	}
	t.Cleanup(func() { stop(); answering.Wait() })
	for deadline := time.Now().Add(5 * time.Second); nc.NumSubscriptions() < 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the ingesters did not subscribe")
		}
	}
	if err := nc.Flush(); err != nil { // the server has the subscriptions
		t.Fatal(err)
	}
	heard, err := bus.Republish(ctx, nc)
	if want := []string{"ecb,porkbun", "sample"}; err != nil || !slices.Equal(heard, want) {
		t.Fatalf("Republish = %q, %v; want %q", heard, err, want)
	}
	if n := asked.Load(); n != 2 {
		t.Errorf("%d ingesters republished, want 2", n)
	}
}
