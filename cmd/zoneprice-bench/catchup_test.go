package main

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
)

// TestCatchupProcess runs the catchup subcommand against an embedded
// server holding a small data set, as the bench runs it: it answers each
// consumer's runs, and a real consumer whose snapshot lacks a price set
// is an error, not a time.
func TestCatchupProcess(t *testing.T) {
	b := &bench{cfg: config{zones: 30, registrars: 4}, tmp: t.TempDir(), log: slog.New(slog.DiscardHandler)}
	env, err := b.setup(t.Context(), &results{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(env.close)
	args := func(prices int) []string {
		return []string{"-nats", env.url, "-runs", "2", "-prices", strconv.Itoa(prices), "-messages", strconv.FormatUint(env.messages, 10)}
	}

	var stdout, stderr bytes.Buffer
	if err := runCatchup(t.Context(), args(env.prices), &stdout, &stderr); err != nil {
		t.Fatalf("catchup: %v; stderr:\n%s", err, stderr.String())
	}
	var times catchupTimes
	if err := json.Unmarshal(stdout.Bytes(), &times); err != nil {
		t.Fatalf("answer %q: %v", stdout.String(), err)
	}
	if len(times.Bare) != 2 || len(times.Real) != 2 {
		t.Fatalf("got %d bare and %d real runs, want 2 and 2", len(times.Bare), len(times.Real))
	}
	for _, d := range append(times.Bare, times.Real...) {
		if d <= 0 {
			t.Errorf("a run took %v", d)
		}
	}

	stdout.Reset()
	err = runCatchup(t.Context(), args(env.prices+1), &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "ready snapshot holds") {
		t.Errorf("with one price set too many: %v, want the snapshot's count refused", err)
	}

	// -history reads the history stream, which holds nothing here: a
	// bare read of an empty stream is an error, not a time.
	stdout.Reset()
	err = runCatchup(t.Context(), []string{"-nats", env.url, "-history", "-messages", "1"}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "is empty") {
		t.Errorf("-history on an empty history stream: %v, want it refused", err)
	}

	// With changes on it, one bare read of them all, and no real run.
	msgs := make([]contracts.Message, 5)
	for i := range msgs {
		if msgs[i], err = contracts.Encode(hookChange(env.zones[0].ASCII, i)); err != nil {
			t.Fatal(err)
		}
	}
	if n, _, err := bus.NewPublisher(env.js).Send(t.Context(), msgs, publishWindow); err != nil || n != len(msgs) {
		t.Fatalf("published %d of %d changes: %v", n, len(msgs), err)
	}
	stdout.Reset()
	if err := runCatchup(t.Context(), []string{"-nats", env.url, "-history", "-messages", "5"}, &stdout, &stderr); err != nil {
		t.Fatalf("catchup -history: %v; stderr:\n%s", err, stderr.String())
	}
	times = catchupTimes{}
	if err := json.Unmarshal(stdout.Bytes(), &times); err != nil {
		t.Fatalf("answer %q: %v", stdout.String(), err)
	}
	if len(times.Bare) != 1 || len(times.Real) != 0 || times.Bare[0] <= 0 {
		t.Errorf("catchup -history answered %+v, want one bare run", times)
	}
}
