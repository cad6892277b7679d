package bus_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
)

func TestStateConfig(t *testing.T) {
	tests := []struct {
		name         string
		opts         bus.Options
		wantReplicas int
	}{
		{name: "default", opts: bus.Options{}, wantReplicas: 1},
		{name: "negative", opts: bus.Options{Replicas: -1}, wantReplicas: 1},
		{name: "single", opts: bus.Options{Replicas: 1}, wantReplicas: 1},
		{name: "cluster", opts: bus.Options{Replicas: 3}, wantReplicas: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := bus.StateConfig(tt.opts)
			if cfg.Replicas != tt.wantReplicas {
				t.Errorf("Replicas = %d, want %d", cfg.Replicas, tt.wantReplicas)
			}
			if cfg.Name != contracts.StateStream {
				t.Errorf("Name = %q, want %q", cfg.Name, contracts.StateStream)
			}
			if !slices.Equal(cfg.Subjects, contracts.StateSubjects()) {
				t.Errorf("Subjects = %q, want %q", cfg.Subjects, contracts.StateSubjects())
			}
			if cfg.MaxMsgsPerSubject != 1 {
				t.Errorf("MaxMsgsPerSubject = %d, want 1", cfg.MaxMsgsPerSubject)
			}
			if !cfg.AllowDirect {
				t.Error("AllowDirect = false, want true")
			}
			if cfg.Storage != jetstream.FileStorage {
				t.Errorf("Storage = %v, want %v", cfg.Storage, jetstream.FileStorage)
			}
			if cfg.Retention != jetstream.LimitsPolicy {
				t.Errorf("Retention = %v, want %v", cfg.Retention, jetstream.LimitsPolicy)
			}
			if cfg.Discard != jetstream.DiscardNew || cfg.MaxMsgs != bus.MaxStateMsgs || cfg.MaxBytes != bus.MaxStateBytes {
				t.Errorf("Discard %v, MaxMsgs %d, MaxBytes %d; want DiscardNew within the state stream's bounds", cfg.Discard, cfg.MaxMsgs, cfg.MaxBytes)
			}
			if cfg.Duplicates != contracts.DuplicateWindow {
				t.Errorf("Duplicates = %v, want %v", cfg.Duplicates, contracts.DuplicateWindow)
			}
		})
	}
}

// assertStreamConfig compares the fields StateConfig declares; the
// server fills in defaults for the rest.
func assertStreamConfig(t *testing.T, got, want jetstream.StreamConfig) {
	t.Helper()
	if got.Name != want.Name {
		t.Errorf("stream Name = %q, want %q", got.Name, want.Name)
	}
	if got.Description != want.Description {
		t.Errorf("stream Description = %q, want %q", got.Description, want.Description)
	}
	if !slices.Equal(got.Subjects, want.Subjects) {
		t.Errorf("stream Subjects = %q, want %q", got.Subjects, want.Subjects)
	}
	if got.Retention != want.Retention {
		t.Errorf("stream Retention = %v, want %v", got.Retention, want.Retention)
	}
	if got.Storage != want.Storage {
		t.Errorf("stream Storage = %v, want %v", got.Storage, want.Storage)
	}
	if got.Replicas != want.Replicas {
		t.Errorf("stream Replicas = %d, want %d", got.Replicas, want.Replicas)
	}
	if got.MaxMsgsPerSubject != want.MaxMsgsPerSubject {
		t.Errorf("stream MaxMsgsPerSubject = %d, want %d", got.MaxMsgsPerSubject, want.MaxMsgsPerSubject)
	}
	if got.Discard != want.Discard {
		t.Errorf("stream Discard = %v, want %v", got.Discard, want.Discard)
	}
	if got.Duplicates != want.Duplicates {
		t.Errorf("stream Duplicates = %v, want %v", got.Duplicates, want.Duplicates)
	}
	if got.AllowDirect != want.AllowDirect {
		t.Errorf("stream AllowDirect = %v, want %v", got.AllowDirect, want.AllowDirect)
	}
	if got.MaxMsgs != want.MaxMsgs || got.MaxBytes != want.MaxBytes {
		t.Errorf("stream MaxMsgs %d, MaxBytes %d; want %d, %d", got.MaxMsgs, got.MaxBytes, want.MaxMsgs, want.MaxBytes)
	}
	if got.MaxMsgSize != want.MaxMsgSize {
		t.Errorf("stream MaxMsgSize = %d, want %d", got.MaxMsgSize, want.MaxMsgSize)
	}
}

func streamInfo(ctx context.Context, t *testing.T, js jetstream.JetStream) *jetstream.StreamInfo {
	t.Helper()
	s, err := js.Stream(ctx, contracts.StateStream)
	if err != nil {
		t.Fatalf("look up stream %s: %v", contracts.StateStream, err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatalf("stream %s info: %v", contracts.StateStream, err)
	}
	return info
}

func publish(ctx context.Context, t *testing.T, js jetstream.JetStream, subject, data string) {
	t.Helper()
	ack, err := js.Publish(ctx, subject, []byte(data))
	if err != nil {
		t.Fatalf("publish on %s: %v", subject, err)
	}
	if ack.Stream != contracts.StateStream {
		t.Fatalf("publish on %s stored in stream %q, want %q", subject, ack.Stream, contracts.StateStream)
	}
}

func TestHistoryConfig(t *testing.T) {
	cfg := bus.HistoryConfig(bus.Options{Replicas: 3})
	if cfg.Name != contracts.HistoryStream || !slices.Equal(cfg.Subjects, contracts.HistorySubjects()) {
		t.Errorf("Name %q, Subjects %q", cfg.Name, cfg.Subjects)
	}
	if cfg.Replicas != 3 || cfg.Storage != jetstream.FileStorage {
		t.Errorf("Replicas %d, Storage %v; want 3 replicas on file storage like the state stream", cfg.Replicas, cfg.Storage)
	}
	if cfg.MaxAge != bus.DefaultHistoryRetention || cfg.MaxMsgsPerSubject != -1 {
		t.Errorf("MaxAge %v, MaxMsgsPerSubject %d; want every change for %v", cfg.MaxAge, cfg.MaxMsgsPerSubject, bus.DefaultHistoryRetention)
	}
	if cfg.Discard != jetstream.DiscardOld || cfg.Duplicates != contracts.DuplicateWindow || cfg.MaxMsgSize != contracts.MaxEventSize {
		t.Errorf("Discard %v, Duplicates %v, MaxMsgSize %d", cfg.Discard, cfg.Duplicates, cfg.MaxMsgSize)
	}
	if got := bus.HistoryConfig(bus.Options{HistoryRetention: 48 * time.Hour}).MaxAge; got != 48*time.Hour {
		t.Errorf("MaxAge with a retention of 48h = %v", got)
	}
}

// TestProvisionHistory checks that the history stream is made beside the
// state stream, captures change subjects only, and drops a change
// published twice with one message id.
func TestProvisionHistory(t *testing.T) {
	srv := bustest.Server(t)
	_, js := bustest.Connect(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	if err := bus.Provision(ctx, js, bus.Options{HistoryRetention: 72 * time.Hour}); err != nil {
		t.Fatalf("Provision: %v", err)
	}
	s, err := js.Stream(ctx, contracts.HistoryStream)
	if err != nil {
		t.Fatalf("history stream: %v", err)
	}
	assertStreamConfig(t, s.CachedInfo().Config, bus.HistoryConfig(bus.Options{HistoryRetention: 72 * time.Hour}))
	subject := contracts.ChangeSubject("porkbun", ".co.uk")
	for range 2 {
		msg := &nats.Msg{Subject: subject, Data: []byte("a change"), Header: nats.Header{}}
		msg.Header.Set(jetstream.MsgIDHeader, "change-1")
		ack, err := js.PublishMsg(ctx, msg)
		if err != nil {
			t.Fatalf("publish on %s: %v", subject, err)
		}
		if ack.Stream != contracts.HistoryStream {
			t.Errorf("a change was stored in %s", ack.Stream)
		}
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 1 {
		t.Errorf("history holds %d messages after one change published twice, want 1", info.State.Msgs)
	}
	if st := streamInfo(ctx, t, js); st.State.Msgs != 0 {
		t.Errorf("the state stream holds %d messages, want none", st.State.Msgs)
	}
}

func TestProvisionIdempotent(t *testing.T) {
	srv := bustest.Server(t)
	_, js := bustest.Connect(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)

	if err := bus.Provision(ctx, js, bus.Options{}); err != nil {
		t.Fatalf("first Provision: %v", err)
	}
	subject := contracts.PriceSubject("porkbun", ".co.uk")
	publish(ctx, t, js, subject, "first")
	publish(ctx, t, js, subject, "second")
	publish(ctx, t, js, contracts.ZoneSubject(".co.uk"), "meta")
	publish(ctx, t, js, contracts.RatesSubject("EUR"), "rates")

	if err := bus.Provision(ctx, js, bus.Options{}); err != nil {
		t.Fatalf("second Provision: %v", err)
	}
	info := streamInfo(ctx, t, js)
	assertStreamConfig(t, info.Config, bus.StateConfig(bus.Options{}))
	// The second Provision must not have recreated the stream, and one
	// message per subject is kept: the price subject holds only "second".
	if info.State.Msgs != 3 {
		t.Errorf("stream holds %d messages after the second Provision, want 3", info.State.Msgs)
	}
	s, err := js.Stream(ctx, contracts.StateStream)
	if err != nil {
		t.Fatalf("look up stream: %v", err)
	}
	msg, err := s.GetLastMsgForSubject(ctx, subject)
	if err != nil {
		t.Fatalf("last message on %s: %v", subject, err)
	}
	if got := string(msg.Data); got != "second" {
		t.Errorf("last message on %s = %q, want %q", subject, got, "second")
	}
}

func TestProvisionUpdatesDrift(t *testing.T) {
	srv := bustest.Server(t)
	_, js := bustest.Connect(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)

	drifted := bus.StateConfig(bus.Options{})
	drifted.Description = "an older release's stream"
	drifted.MaxMsgsPerSubject = 5
	drifted.Duplicates = 2 * time.Minute
	drifted.AllowDirect = false
	drifted.MaxMsgSize = 1 << 20
	drifted.Discard = jetstream.DiscardOld
	drifted.MaxMsgs = -1
	if _, err := js.CreateStream(ctx, drifted); err != nil {
		t.Fatalf("create drifted stream: %v", err)
	}

	if err := bus.Provision(ctx, js, bus.Options{}); err != nil {
		t.Fatalf("Provision over a drifted stream: %v", err)
	}
	assertStreamConfig(t, streamInfo(ctx, t, js).Config, bus.StateConfig(bus.Options{}))
}

func TestProvisionKeysBucket(t *testing.T) {
	srv := bustest.Server(t)
	_, js := bustest.Connect(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	if err := bus.Provision(ctx, js, bus.Options{}); err != nil {
		t.Fatal(err)
	}
	kv, err := js.KeyValue(ctx, contracts.KeysBucket)
	if err != nil {
		t.Fatalf("Provision made no keys bucket: %v", err)
	}
	if _, err := kv.Put(ctx, "0123456789abcdef", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if err := bus.Provision(ctx, js, bus.Options{}); err != nil {
		t.Fatalf("second Provision: %v", err)
	}
	st, err := kv.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Values() != 1 || st.History() != 1 {
		t.Errorf("bucket after a second Provision: %d values, history %d; want 1 and 1", st.Values(), st.History())
	}
}

// TestStateStreamFull relies on what the server does at the state stream's
// message bound, with the bound made small: a new subject is refused, and
// every subject already there can still be updated (DiscardNew with one
// message per subject), so no registrar's current price is dropped.
func TestStateStreamFull(t *testing.T) {
	srv := bustest.Server(t)
	_, js := bustest.Connect(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	cfg := bus.StateConfig(bus.Options{})
	cfg.MaxMsgs = 2
	if _, err := js.CreateStream(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	com, net, org := contracts.PriceSubject("porkbun", ".com"), contracts.PriceSubject("porkbun", ".net"), contracts.PriceSubject("porkbun", ".org")
	publish(ctx, t, js, com, "com 1")
	publish(ctx, t, js, net, "net 1")
	if _, err := js.Publish(ctx, org, []byte("org 1")); err == nil {
		t.Error("a new subject was stored past the stream's bound")
	}
	publish(ctx, t, js, com, "com 2")
	got := readAll(t, js)
	if len(got) != 2 || got[com] != "com 2" || got[net] != "net 1" {
		t.Errorf("stream holds %v, want .com updated and .net kept", got)
	}
}
