package bus_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
)

// readAll is ReadLast collecting subject → data.
func readAll(t *testing.T, js jetstream.JetStream, filters ...string) map[string]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got := map[string]string{}
	err := bus.ReadLast(ctx, js, contracts.StateStream, bus.ReaderConfig{Filters: filters}, func(m bus.Msg) bool {
		if _, dup := got[m.Subject]; dup {
			t.Errorf("%s delivered twice", m.Subject)
		}
		got[m.Subject] = string(m.Data)
		return true
	})
	if err != nil {
		t.Fatalf("ReadLast: %v", err)
	}
	return got
}

func TestReadLast(t *testing.T) {
	_, js := bustest.Provisioned(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	com, uk := contracts.PriceSubject("porkbun", ".com"), contracts.PriceSubject("ovhcloud", ".co.uk")
	meta := contracts.ZoneSubject(".com")
	publish(ctx, t, js, com, "first")
	publish(ctx, t, js, uk, "uk")
	publish(ctx, t, js, com, "second")
	publish(ctx, t, js, meta, "meta")

	tests := []struct {
		name    string
		filters []string
		want    map[string]string
	}{
		{name: "everything", want: map[string]string{com: "second", uk: "uk", meta: "meta"}},
		{name: "one registrar", filters: []string{contracts.RegistrarPriceFilter("porkbun")}, want: map[string]string{com: "second"}},
		{name: "two filters", filters: []string{contracts.RegistrarPriceFilter("ovhcloud"), contracts.ZoneSubjectPrefix + "*"}, want: map[string]string{uk: "uk", meta: "meta"}},
		{name: "nothing matches", filters: []string{contracts.RatesSubjectPrefix + "*"}, want: map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := readAll(t, js, tt.filters...)
			if len(got) != len(tt.want) {
				t.Errorf("read %v, want %v", got, tt.want)
			}
			for s, data := range tt.want {
				if got[s] != data {
					t.Errorf("%s = %q, want %q (the last message on the subject)", s, got[s], data)
				}
			}
		})
	}
	// Every read removed its consumer from the server.
	s, err := js.Stream(ctx, contracts.StateStream)
	if err != nil {
		t.Fatal(err)
	}
	if n := s.CachedInfo().State.Consumers; n != 0 {
		t.Errorf("%d consumers left on the stream after the reads, want 0", n)
	}
}

func TestReadLastEmptyStream(t *testing.T) {
	_, js := bustest.Provisioned(t)
	if got := readAll(t, js); len(got) != 0 {
		t.Errorf("read %v from an empty stream", got)
	}
}

func TestReadLastStops(t *testing.T) {
	_, js := bustest.Provisioned(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	for _, zone := range []string{".com", ".net", ".org"} {
		publish(ctx, t, js, contracts.PriceSubject("porkbun", zone), zone)
	}
	calls := 0
	err := bus.ReadLast(ctx, js, contracts.StateStream, bus.ReaderConfig{}, func(bus.Msg) bool {
		calls++
		return false
	})
	if err != nil || calls != 1 {
		t.Errorf("ReadLast stopped after %d calls (err %v), want 1", calls, err)
	}
}

// TestReaderFollows reads the current state, then a message stored after
// the reader caught up.
func TestReaderFollows(t *testing.T) {
	_, js := bustest.Provisioned(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	com := contracts.PriceSubject("porkbun", ".com")
	publish(ctx, t, js, com, "old")
	publish(ctx, t, js, com, "current")
	r := openState(ctx, t, js)
	if r.CaughtUp() {
		t.Fatal("CaughtUp before reading a stream that holds a message")
	}
	m, err := r.NextWithin(5 * time.Second)
	if err != nil || string(m.Data) != "current" || m.Subject != com || m.Seq != 2 || m.Stored.IsZero() {
		t.Fatalf("first message = %+v (err %v), want the current one on %s at sequence 2", m, err, com)
	}
	if !r.CaughtUp() {
		t.Fatal("not CaughtUp after the last message on every subject")
	}
	publish(ctx, t, js, com, "next")
	m, err = r.NextWithin(5 * time.Second)
	if err != nil || string(m.Data) != "next" || m.Seq != 3 {
		t.Fatalf("followed message = %+v (err %v), want the next one at sequence 3", m, err)
	}
}

// TestNextWithin waits for a message on an idle stream until its bound,
// then reads the next one stored, and the one after it, with the same
// reader: a wait that ended leaves the reader as it was.
func TestNextWithin(t *testing.T) {
	_, js := bustest.Provisioned(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	r := openState(ctx, t, js)
	for range 2 {
		if m, err := r.NextWithin(50 * time.Millisecond); !errors.Is(err, bus.ErrTimeout) || !errors.Is(err, nats.ErrTimeout) {
			t.Fatalf("NextWithin on an empty stream = %+v, %v; want bus.ErrTimeout, which is nats.ErrTimeout", m, err)
		}
	}
	com := contracts.PriceSubject("porkbun", ".com")
	for i, data := range []string{"one", "two"} {
		publish(ctx, t, js, com, data)
		m, err := r.NextWithin(5 * time.Second)
		if err != nil || string(m.Data) != data || m.Seq != uint64(i+1) {
			t.Fatalf("NextWithin = %+v, %v; want %q at sequence %d", m, err, data, i+1)
		}
	}
	if m, err := r.NextWithin(50 * time.Millisecond); !errors.Is(err, bus.ErrTimeout) {
		t.Fatalf("NextWithin after the last message = %+v, %v; want bus.ErrTimeout", m, err)
	}
}

// openState opens a reader of the state stream, closed when the test ends.
func openState(ctx context.Context, t *testing.T, js jetstream.JetStream) *bus.Reader {
	t.Helper()
	r, err := bus.NewStreams(js).Open(ctx, contracts.StateStream, bus.ReaderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

// TestStreamsNotFound says what is not there with the bus's sentinels,
// which are still JetStream's errors to a caller that tests for those.
func TestStreamsNotFound(t *testing.T) {
	_, js := bustest.Connect(t, bustest.Server(t))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	streams := bus.NewStreams(js)
	_, openErr := streams.Open(ctx, contracts.StateStream, bus.ReaderConfig{})
	_, lastErr := streams.LastMsg(ctx, contracts.StateStream, contracts.PriceSubject("porkbun", ".com"))
	_, healthErr := streams.Health(ctx, contracts.StateStream)
	readErr := streams.ReadLast(ctx, contracts.StateStream, bus.ReaderConfig{}, func(bus.Msg) bool { return true })
	for name, err := range map[string]error{"Open": openErr, "LastMsg": lastErr, "Health": healthErr, "ReadLast": readErr} {
		if !errors.Is(err, bus.ErrNoStream) || !errors.Is(err, jetstream.ErrStreamNotFound) {
			t.Errorf("%s of an unprovisioned stream: %v, want bus.ErrNoStream (and jetstream.ErrStreamNotFound)", name, err)
		}
	}

	if err := bus.Provision(ctx, js, bus.Options{}); err != nil {
		t.Fatal(err)
	}
	com := contracts.PriceSubject("porkbun", ".com")
	_, err := streams.LastMsg(ctx, contracts.StateStream, com)
	if !errors.Is(err, bus.ErrNoMessage) || !errors.Is(err, jetstream.ErrMsgNotFound) {
		t.Errorf("LastMsg of an empty subject: %v, want bus.ErrNoMessage (and jetstream.ErrMsgNotFound)", err)
	}
	publish(ctx, t, js, com, "old")
	publish(ctx, t, js, com, "current")
	m, err := streams.LastMsg(ctx, contracts.StateStream, com)
	if err != nil || m.Subject != com || string(m.Data) != "current" || m.Seq != 2 || m.Stored.IsZero() {
		t.Errorf("LastMsg = %+v, %v; want the current message at sequence 2", m, err)
	}
	if h, err := streams.Health(ctx, contracts.StateStream); err != nil || !h.Healthy() || h.LastSeq != 2 {
		t.Errorf("Health = %v, %v; want a healthy stream whose last sequence is 2", h, err)
	}
}
