package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/zoneprice/zoneprice/cmd/internal/app"
	"github.com/zoneprice/zoneprice/cmd/internal/cmdtest"
	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
	"github.com/zoneprice/zoneprice/contracts/eventtest"
	"github.com/zoneprice/zoneprice/query/querytest"
)

// admin runs the command against srv and returns what it printed.
func admin(t *testing.T, srv *server.Server, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := map[string]string{"NATS_URL": srv.ClientURL()}
	err = run(context.Background(), args, func(k string) string { return env[k] }, &out, &errOut)
	return out.String(), errOut.String(), err
}

// startQuery runs a query service as zoneprice-query composes it, with the
// given environment, until the test ends, and returns its address.
func startQuery(t *testing.T, js jetstream.JetStream, env map[string]string) string {
	t.Helper()
	addr := cmdtest.FreePort(t)
	env["ZONEPRICE_LISTEN"] = addr
	fs := flag.NewFlagSet("query", flag.ContinueOnError)
	q, err := app.RegisterQueryFlags(fs, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	consumer, parts, err := app.Query(js, q, slog.New(slog.DiscardHandler), app.NewMetricsRegistry())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- app.RunAll(ctx, append(parts, consumer.Run)...) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("query: %v", err)
		}
	})
	cmdtest.Poll(t, "http://"+addr+"/readyz", 30*time.Second, cmdtest.Status200)
	return addr
}

func get(t *testing.T, url, key string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

var (
	idLine  = regexp.MustCompile(`(?m)^id:\s+([0-9a-f]+)$`)
	keyLine = regexp.MustCompile(`(?m)^key:\s+(zp_[a-z2-7]+)$`)
)

// TestKeysEndToEnd runs a query pod before any key exists, then creates a
// key with the command: the pod serves it at its tier's limit; revoked, the
// pod refuses it.
func TestKeysEndToEnd(t *testing.T) {
	srv := bustest.Server(t)
	_, js := bustest.Connect(t, srv)
	ctx := context.Background()
	// The stream only: creating the bucket is the command's job.
	if _, err := js.CreateStream(ctx, bus.StateConfig(bus.Options{})); err != nil {
		t.Fatal(err)
	}
	ps := eventtest.RegisterOnly("alpha", ".com", time.Now(), "USD", 999)
	if _, _, err := bus.NewPublisher(js).PublishAll(ctx, []contracts.Event{ps}, 1); err != nil {
		t.Fatal(err)
	}
	addr := startQuery(t, js, map[string]string{"ZONEPRICE_RATE_LIMIT": "2/h", "ZONEPRICE_TIERS": "pro=5/h"})
	url := "http://" + addr + "/api/comparison/.com"

	if out, _, err := admin(t, srv, "keys", "list"); err != nil || strings.Count(out, "\n") != 1 {
		t.Errorf("list without a bucket: got %q, %v; want the heading alone", out, err)
	}
	out, errOut, err := admin(t, srv, "keys", "create", "--tier", "pro", "--note", "acme corp")
	if err != nil {
		t.Fatalf("create: %v\n%s", err, errOut)
	}
	id, key := idLine.FindStringSubmatch(out), keyLine.FindStringSubmatch(out)
	if id == nil || key == nil {
		t.Fatalf("create printed no id or key:\n%s", out)
	}
	if !strings.Contains(errOut, "shown this once") {
		t.Errorf("create does not warn that the key is shown once:\n%s", errOut)
	}
	kv, err := js.KeyValue(ctx, contracts.KeysBucket)
	if err != nil {
		t.Fatalf("create made no bucket: %v", err)
	}
	if st, err := kv.Status(ctx); err != nil || st.(*jetstream.KeyValueBucketStatus).StreamInfo().Config.Replicas != 1 {
		t.Errorf("bucket replicas: %v, want the stream's 1", err)
	}

	list, _, err := admin(t, srv, "keys", "list", "--nats-creds", "")
	if err != nil {
		t.Fatal(err)
	}
	sum := contracts.HashAPIKey(key[1])
	for _, want := range []string{id[1], "pro", "acme corp"} {
		if !strings.Contains(list, want) {
			t.Errorf("list lacks %q:\n%s", want, list)
		}
	}
	if strings.Contains(list, key[1]) || strings.Contains(list, hex.EncodeToString(sum[:])) {
		t.Errorf("list shows the key or its hash:\n%s", list)
	}

	querytest.Within(t, 30*time.Second, "the pod to accept the key at the pro limit", func() bool {
		resp := get(t, url, key[1])
		return resp.StatusCode == http.StatusOK && resp.Header.Get("RateLimit-Limit") == "5" &&
			resp.Header.Get("RateLimit-Policy") == "5;w=3600;burst=5"
	})

	if out, errOut, err := admin(t, srv, "keys", "revoke", id[1]); err != nil || !strings.Contains(out, "revoked "+id[1]) {
		t.Fatalf("revoke: %q %v\n%s", out, err, errOut)
	}
	querytest.Within(t, 30*time.Second, "the pod to refuse the revoked key", func() bool {
		return get(t, url, key[1]).StatusCode == http.StatusUnauthorized
	})
	if list, _, _ := admin(t, srv, "keys", "list"); strings.Contains(list, id[1]) {
		t.Errorf("a revoked key is still listed:\n%s", list)
	}
}

func TestUsageErrors(t *testing.T) {
	srv, _ := bustest.Provisioned(t)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no command", nil, "want a command"},
		{"unknown verb", []string{"keys", "rotate"}, "not a command"},
		{"create without a tier", []string{"keys", "create"}, "--tier"},
		{"create with a bad tier", []string{"keys", "create", "--tier", "Gold Plus"}, "--tier"},
		{"tier on list", []string{"keys", "list", "--tier", "pro"}, "go with keys create"},
		{"custom tier allowed on list", []string{"keys", "list", "--allow-custom-tier"}, "go with keys create"},
		{"create with a custom tier", []string{"keys", "create", "--tier", "gold"}, "--allow-custom-tier"},
		{"create with an unprintable note", []string{"keys", "create", "--tier", "pro", "--note", "acme\x1b[2J"}, "--note: "},
		{"create with a long note", []string{"keys", "create", "--tier", "pro", "--note", strings.Repeat("x", contracts.MaxNoteLen+1)}, "--note: "},
		{"create with a note not UTF-8", []string{"keys", "create", "--tier", "pro", "--note", "\xff"}, "--note: "},
		{"revoke without an id", []string{"keys", "revoke"}, "not a command"},
		{"revoke of an unknown id", []string{"keys", "revoke", "0123456789abcdef"}, "no key with id"},
		{"revoke of a malformed id", []string{"keys", "revoke", "not an id!"}, "no key with id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := admin(t, srv, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// TestCreateChecksFlagsFirst gives keys create flags it refuses, against a
// server without the keys bucket: each error names the flag, and nothing
// was done, not even creating the bucket.
func TestCreateChecksFlagsFirst(t *testing.T) {
	srv := bustest.Server(t)
	_, js := bustest.Connect(t, srv)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"note with a terminal escape", []string{"--tier", "pro", "--note", "acme\x1b[2J"}, "--note: holds the unprintable"},
		{"note too long", []string{"--tier", "pro", "--note", strings.Repeat("é", contracts.MaxNoteLen)}, "--note: longer than"},
		{"tier syntax", []string{"--tier", "Gold Plus", "--allow-custom-tier"}, "--tier: "},
		{"custom tier", []string{"--tier", "gold", "--note", "acme"}, "--allow-custom-tier"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := admin(t, srv, append([]string{"keys", "create"}, tt.args...)...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
			if _, err := js.KeyValue(context.Background(), contracts.KeysBucket); !errors.Is(err, jetstream.ErrBucketNotFound) {
				t.Errorf("after a refused create, binding the bucket: %v, want that it does not exist", err)
			}
		})
	}
	// Nor does it need NATS to say so.
	env := map[string]string{"NATS_URL": "nats://" + cmdtest.FreePort(t)}
	err := run(context.Background(), []string{"keys", "create", "--tier", "pro", "--note", "\x00"},
		func(k string) string { return env[k] }, io.Discard, io.Discard)
	if err == nil || !strings.HasPrefix(err.Error(), "--note: ") {
		t.Errorf("with no NATS: got %v, want the --note error", err)
	}
}

// TestCustomTier creates a key of a tier the defaults lack, which takes
// --allow-custom-tier and earns a warning.
func TestCustomTier(t *testing.T) {
	srv, _ := bustest.Provisioned(t)
	out, errOut, err := admin(t, srv, "keys", "create", "--tier", "gold", "--allow-custom-tier", "--note", "acme")
	if err != nil {
		t.Fatalf("create: %v\n%s", err, errOut)
	}
	if !strings.Contains(out, "tier: gold") || !strings.Contains(errOut, "free limit unless their --tiers define it") {
		t.Errorf("create of a custom tier: stdout %q, stderr %q; want the key and a warning", out, errOut)
	}
}

// TestHelp asks for the usage: it is printed, and it is no error, so the
// command exits 0.
func TestHelp(t *testing.T) {
	srv := bustest.Server(t)
	for _, args := range [][]string{{"-h"}, {"--help"}, {"keys", "create", "-h"}, {"-help", "keys", "list"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			_, errOut, err := admin(t, srv, args...)
			if err != nil {
				t.Errorf("got %v, want no error", err)
			}
			for _, want := range []string{"usage:", "keys create", "-allow-custom-tier", "-note"} {
				if !strings.Contains(errOut, want) {
					t.Errorf("usage lacks %q:\n%s", want, errOut)
				}
			}
		})
	}
}

// TestKeysBesideTheAllInOne manages keys in the all-in-one's NATS with the
// credentials the all-in-one wrote, given no flag for them; where there
// are none, NATS refuses the command.
func TestKeysBesideTheAllInOne(t *testing.T) {
	dir := t.TempDir()
	srv := cmdtest.AllInOneNATS(t, dir)
	keys := func(dataDir string, args ...string) (stdout, stderr string, err error) {
		t.Helper()
		var out, errOut bytes.Buffer
		env := map[string]string{"NATS_URL": srv.ClientURL(), "ZONEPRICE_EMBEDDED_LISTEN": srv.Addr().String(), "ZONEPRICE_DATA_DIR": dataDir}
		err = run(context.Background(), append([]string{"keys"}, args...), func(k string) string { return env[k] }, &out, &errOut)
		return out.String(), errOut.String(), err
	}
	out, errOut, err := keys(dir, "create", "--tier", "pro", "--note", "beside make run")
	if err != nil || !strings.Contains(out, "key:  zp_") {
		t.Fatalf("create: %v\n%s%s", err, out, errOut)
	}
	if want := app.LocalSeedFile(dir, app.LocalAdmin); !strings.Contains(errOut, want) {
		t.Errorf("the log does not name the credentials used, %s:\n%s", want, errOut)
	}
	if out, _, err := keys(dir, "list"); err != nil || !strings.Contains(out, "beside make run") {
		t.Errorf("list: %v\n%s", err, out)
	}
	if _, _, err := keys(t.TempDir(), "list"); err == nil || !strings.Contains(err.Error(), "Authorization Violation") {
		t.Errorf("list without credentials: got %v, want an authorization violation", err)
	}
}

// TestStreamCheck prints the state stream's health: whole, then damaged
// (a message block gone bad while its server was down), when the command
// fails and prints the repair.
func TestStreamCheck(t *testing.T) {
	srv, js := bustest.Provisioned(t)
	out, _, err := admin(t, srv, "stream", "check")
	if err != nil || !strings.Contains(out, "healthy") {
		t.Fatalf("stream check of an empty stream: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var evs []contracts.Event
	for i := range 2000 {
		evs = append(evs, eventtest.RegisterOnly("porkbun", fmt.Sprintf(".z%04d", i), time.Now(), "USD", 999))
	}
	if _, _, err := bus.NewPublisher(js).PublishAll(ctx, evs, 256); err != nil {
		t.Fatal(err)
	}
	srv = bustest.Damage(t, srv, contracts.StateStream, bustest.Garbage)
	out, _, err = admin(t, srv, "stream", "check")
	if err == nil || !strings.Contains(out, "subjects but") || !strings.Contains(out, "repair: restart the NATS server") {
		t.Errorf("stream check of a damaged stream: %v\n%s", err, out)
	}
}

// TestStreamCheckCutEnd: a state stream whose end a crash cut in the
// middle of a new price looks healthy by its state; stream check reads it
// and says the messages after the cut were lost, and fails.
func TestStreamCheckCutEnd(t *testing.T) {
	srv, js := bustest.Provisioned(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var evs []contracts.Event
	for i := range 10 {
		evs = append(evs, eventtest.RegisterOnly("porkbun", fmt.Sprintf(".z%02d", i), time.Now(), "USD", 999))
	}
	for i := range 5 {
		evs = append(evs, eventtest.RegisterOnly("porkbun", fmt.Sprintf(".z%02d", i), time.Now(), "USD", 777))
	}
	if _, _, err := bus.NewPublisher(js).PublishAll(ctx, evs, 256); err != nil {
		t.Fatal(err)
	}
	srv = bustest.Truncate(t, srv, contracts.StateStream, []byte(`"zone":".z02","register":{"regular":{"amount":777`))
	out, _, err := admin(t, srv, "stream", "check")
	if err == nil || !strings.Contains(out, "were lost") || !strings.Contains(out, "repair: restart the NATS server") {
		t.Errorf("stream check of a stream whose end was cut: %v\n%s", err, out)
	}
}

// TestStreamRepublishUnheard fails when no ingester answers.
func TestStreamRepublishUnheard(t *testing.T) {
	srv, _ := bustest.Provisioned(t)
	if _, _, err := admin(t, srv, "stream", "republish"); err == nil || !strings.Contains(err.Error(), "no ingester answered") {
		t.Errorf("republish with no ingester: %v", err)
	}
}

// TestKeysListDamagedBucket lists the keys of a bucket one of whose records
// the server's file store can no longer read: the bucket's watch never
// ends its initial values, and the command, instead of waiting out its
// timeout, stops once no record has come for a while and says what the
// bucket's stream holds and how to repair it, as a query pod logs it.
func TestKeysListDamagedBucket(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(testing.TB, *server.Server, string, []byte) *server.Server
		says   string
	}{
		{"a record flipped", bustest.DamageValue, "no record for 300ms"},
		{"the tail cut", bustest.Truncate, "are lost"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := bustest.Server(t)
			for range 2 {
				if _, errOut, err := admin(t, srv, "keys", "create", "--tier", "pro"); err != nil {
					t.Fatalf("create: %v\n%s", err, errOut)
				}
			}
			name, value := lastKeyRecord(t, srv)
			srv = tc.damage(t, srv, name, value)

			defer func(d time.Duration) { stallAfter = d }(stallAfter)
			stallAfter = 300 * time.Millisecond
			out, _, err := admin(t, srv, "keys", "list")
			if err == nil {
				t.Fatalf("list of a damaged bucket succeeded:\n%s", out)
			}
			for _, want := range []string{tc.says, name, "nats kv rm " + contracts.KeysBucket, "zoneprice-admin keys create"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q: want it to say %q", err, want)
				}
			}
		})
	}
}

// lastKeyRecord returns the keys bucket's stream and the value of its
// newest record: cut there, the stream keeps the records before it, which
// a list must not take for the whole bucket (a stream cut before its first
// record looks like one emptied on purpose).
func lastKeyRecord(t *testing.T, srv *server.Server) (stream string, value []byte) {
	t.Helper()
	_, js := bustest.Connect(t, srv)
	ctx := context.Background()
	kv, err := js.KeyValue(ctx, contracts.KeysBucket)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := kv.ListKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var last jetstream.KeyValueEntry
	for id := range ids.Keys() {
		e, err := kv.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if last == nil || e.Revision() > last.Revision() {
			last = e
		}
	}
	st, err := kv.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return st.(*jetstream.KeyValueBucketStatus).StreamInfo().Config.Name, last.Value()
}
