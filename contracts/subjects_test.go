package contracts_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/natstest"
)

func TestZoneToken(t *testing.T) {
	tests := []struct {
		zone string
		want string
	}{
		{zone: ".com", want: "com"},
		{zone: ".uk", want: "uk"},
		{zone: ".co.uk", want: "co_uk"},
		{zone: ".xn--p1ai", want: "xn--p1ai"},
		{zone: ".com.xn--p1ai", want: "com_xn--p1ai"},
		{zone: ".a.b.c", want: "a_b_c"},
	}
	for _, tt := range tests {
		t.Run(tt.zone, func(t *testing.T) {
			got := contracts.ZoneToken(tt.zone)
			if got != tt.want {
				t.Errorf("ZoneToken(%q) = %q, want %q", tt.zone, got, tt.want)
			}
			if back := contracts.ZoneFromToken(got); back != tt.zone {
				t.Errorf("ZoneFromToken(%q) = %q, want %q", got, back, tt.zone)
			}
		})
	}
}

func TestParsePriceSubject(t *testing.T) {
	tests := []struct {
		subject         string
		registrar, zone string
		ok              bool
	}{
		{subject: contracts.PriceSubject("porkbun", ".co.uk"), registrar: "porkbun", zone: ".co.uk", ok: true},
		{subject: contracts.PriceSubject("sample-alpha", ".xn--p1ai"), registrar: "sample-alpha", zone: ".xn--p1ai", ok: true},
		{subject: "prices.v1.porkbun", ok: false},
		{subject: "prices.v1..com", ok: false},
		{subject: "prices.v1.porkbun.", ok: false},
		{subject: "prices.v1.porkbun.co.uk", ok: false},
		{subject: contracts.ZoneSubject(".com"), ok: false},
		{subject: contracts.RatesSubject("EUR"), ok: false},
	}
	for _, tt := range tests {
		t.Run(tt.subject, func(t *testing.T) {
			reg, zone, ok := contracts.ParsePriceSubject(tt.subject)
			if ok != tt.ok || reg != tt.registrar || zone != tt.zone {
				t.Errorf("ParsePriceSubject(%q) = %q, %q, %v; want %q, %q, %v", tt.subject, reg, zone, ok, tt.registrar, tt.zone, tt.ok)
			}
		})
	}
}

func TestZoneTokensDistinct(t *testing.T) {
	zones := []string{".co.uk", ".uk", ".co"}
	seen := make(map[string]string)
	for _, z := range zones {
		tok := contracts.ZoneToken(z)
		if other, ok := seen[tok]; ok {
			t.Errorf("ZoneToken(%q) = ZoneToken(%q) = %q, want distinct tokens", z, other, tok)
		}
		seen[tok] = z
	}
}

func TestSubjects(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{name: "price", got: contracts.PriceSubject("porkbun", ".co.uk"), want: "prices.v1.porkbun.co_uk"},
		{name: "price idn", got: contracts.PriceSubject("porkbun", ".xn--p1ai"), want: "prices.v1.porkbun.xn--p1ai"},
		{name: "registrar filter", got: contracts.RegistrarPriceFilter("porkbun"), want: "prices.v1.porkbun.*"},
		{name: "zone", got: contracts.ZoneSubject(".co.uk"), want: "zones.v1.co_uk"},
		{name: "rates", got: contracts.RatesSubject("EUR"), want: "rates.v1.EUR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}

func TestStateStreamConfig(t *testing.T) {
	tests := []struct {
		name         string
		opts         contracts.StreamOptions
		wantReplicas int
	}{
		{name: "default", opts: contracts.StreamOptions{}, wantReplicas: 1},
		{name: "negative", opts: contracts.StreamOptions{Replicas: -1}, wantReplicas: 1},
		{name: "single", opts: contracts.StreamOptions{Replicas: 1}, wantReplicas: 1},
		{name: "cluster", opts: contracts.StreamOptions{Replicas: 3}, wantReplicas: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := contracts.StateStreamConfig(tt.opts)
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
			if cfg.Discard != jetstream.DiscardOld {
				t.Errorf("Discard = %v, want %v", cfg.Discard, jetstream.DiscardOld)
			}
			if cfg.Duplicates != contracts.DuplicateWindow {
				t.Errorf("Duplicates = %v, want %v", cfg.Duplicates, contracts.DuplicateWindow)
			}
		})
	}
}

// assertStreamConfig compares the fields StateStreamConfig declares; the
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

func TestProvisionIdempotent(t *testing.T) {
	srv := natstest.Server(t)
	_, js := natstest.Connect(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)

	if err := contracts.Provision(ctx, js, contracts.StreamOptions{}); err != nil {
		t.Fatalf("first Provision: %v", err)
	}
	subject := contracts.PriceSubject("porkbun", ".co.uk")
	publish(ctx, t, js, subject, "first")
	publish(ctx, t, js, subject, "second")
	publish(ctx, t, js, contracts.ZoneSubject(".co.uk"), "meta")
	publish(ctx, t, js, contracts.RatesSubject("EUR"), "rates")

	if err := contracts.Provision(ctx, js, contracts.StreamOptions{}); err != nil {
		t.Fatalf("second Provision: %v", err)
	}
	info := streamInfo(ctx, t, js)
	assertStreamConfig(t, info.Config, contracts.StateStreamConfig(contracts.StreamOptions{}))
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
	srv := natstest.Server(t)
	_, js := natstest.Connect(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)

	drifted := contracts.StateStreamConfig(contracts.StreamOptions{})
	drifted.Description = "an older release's stream"
	drifted.MaxMsgsPerSubject = 5
	drifted.Duplicates = 2 * time.Minute
	drifted.AllowDirect = false
	drifted.MaxMsgSize = 1 << 20
	if _, err := js.CreateStream(ctx, drifted); err != nil {
		t.Fatalf("create drifted stream: %v", err)
	}

	if err := contracts.Provision(ctx, js, contracts.StreamOptions{}); err != nil {
		t.Fatalf("Provision over a drifted stream: %v", err)
	}
	assertStreamConfig(t, streamInfo(ctx, t, js).Config, contracts.StateStreamConfig(contracts.StreamOptions{}))
}

func TestOnSubject(t *testing.T) {
	set := &contracts.PriceSet{Registrar: "porkbun", Zone: ".co.uk"}
	tests := []struct {
		subject string
		want    bool
	}{
		{"prices.v1.porkbun.co_uk", true},
		{"prices.v1.porkbun.uk", false},
		{"prices.v1.porkbun.co.uk", false},
		{"prices.v1.porkbunx.co_uk", false},
		{"prices.v1.pork.co_uk", false},
		{"prices.v1.porkbun.co_ukx", false},
		{"prices.v2.porkbun.co_uk", false},
		{"zones.v1.co_uk", false},
	}
	for _, tt := range tests {
		if got := contracts.OnSubject(set, tt.subject); got != tt.want {
			t.Errorf("OnSubject(porkbun .co.uk, %q) = %v, want %v", tt.subject, got, tt.want)
		}
		if got, want := contracts.OnSubject(set, tt.subject), set.Subject() == tt.subject; got != want {
			t.Errorf("OnSubject disagrees with Subject() for %q", tt.subject)
		}
	}
	meta := &contracts.ZoneMeta{Zone: ".co.uk"}
	if !contracts.OnSubject(meta, "zones.v1.co_uk") || contracts.OnSubject(meta, "zones.v1.uk") {
		t.Error("OnSubject for zone metadata does not follow Subject()")
	}
}
