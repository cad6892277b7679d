package app_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"

	"github.com/zoneprice/zoneprice/cmd/internal/app"
	"github.com/zoneprice/zoneprice/cmd/internal/cmdtest"
	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
	"github.com/zoneprice/zoneprice/contracts/eventtest"
	"github.com/zoneprice/zoneprice/ingest/porkbun"
	"github.com/zoneprice/zoneprice/query/querytest"
)

var localUsers = []app.LocalUser{app.LocalIngest, app.LocalAdmin, app.LocalQuery, app.LocalNotify}

// joinAs connects the way command does, through the common flags with args
// and the environment env, without waiting for the server.
func joinAs(t *testing.T, command string, env map[string]string, args []string, extra ...nats.Option) (*client, error) {
	t.Helper()
	fs := flag.NewFlagSet(command, flag.ContinueOnError)
	common := app.RegisterCommon(fs, func(k string) string { return env[k] }, "nats://127.0.0.1:4222", "")
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	buf := &querytest.LogBuffer{}
	nc, js, err := common.Connect(common.NATSURL, command, slog.New(slog.NewJSONHandler(buf, nil)), extra...)
	if err != nil {
		return &client{log: buf}, err
	}
	t.Cleanup(nc.Close)
	return &client{nc: nc, js: js, log: buf}, nil
}

// localEnv is the environment of a command beside the all-in-one whose
// data directory is dir: the defaults, but for the all-in-one's port.
func localEnv(srv *app.LocalNATS, dir string) map[string]string {
	return map[string]string{"NATS_URL": srv.ClientURL(), "ZONEPRICE_DATA_DIR": dir, "ZONEPRICE_EMBEDDED_LISTEN": srv.Addr().String()}
}

// TestLocalNATSRefusesAnonymous dials the all-in-one's NATS without
// credentials: it is refused. The seed the all-in-one wrote for a command
// is accepted.
func TestLocalNATSRefusesAnonymous(t *testing.T) {
	dir := t.TempDir()
	srv := cmdtest.AllInOneNATS(t, dir)
	nc, err := nats.Connect(srv.ClientURL())
	if err == nil {
		nc.Close()
	}
	if !errors.Is(err, nats.ErrAuthorization) {
		t.Errorf("without credentials: got %v, want %v", err, nats.ErrAuthorization)
	}
	c, err := joinAs(t, "zoneprice-ingest", localEnv(srv, dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	waitConnected(t, c.nc)
}

// TestLocalCredentialFiles checks the files the first start makes: a
// directory and seeds only their owner may read, which the next start
// keeps.
func TestLocalCredentialFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data", "nats")
	start := func() string {
		t.Helper()
		var log bytes.Buffer
		srv, err := app.StartLocal(dir, "", slog.New(slog.NewTextHandler(&log, nil)))
		if err != nil {
			t.Fatal(err)
		}
		srv.Shutdown()
		srv.WaitForShutdown()
		return log.String()
	}
	log := start()
	if !strings.Contains(log, "made nats credentials") {
		t.Errorf("the first start does not say it made credentials:\n%s", log)
	}
	seeds := map[app.LocalUser][]byte{}
	for _, u := range localUsers {
		path := app.LocalSeedFile(dir, u)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		kp, err := nkeys.FromSeed(bytes.TrimSpace(b))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if pub, _ := kp.PublicKey(); !nkeys.IsValidPublicUserKey(pub) {
			t.Errorf("%s holds no user seed", path)
		}
		seeds[u] = b
		if strings.Contains(log, string(bytes.TrimSpace(b))) {
			t.Errorf("the log shows %s's seed", u)
		}
	}
	if runtime.GOOS != "windows" {
		for path, want := range map[string]os.FileMode{
			filepath.Dir(app.LocalSeedFile(dir, app.LocalIngest)): 0o700,
			app.LocalSeedFile(dir, app.LocalIngest):               0o600,
			app.LocalSeedFile(dir, app.LocalAdmin):                0o600,
			app.LocalSeedFile(dir, app.LocalQuery):                0o600,
		} {
			info, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := info.Mode().Perm(); got != want {
				t.Errorf("%s: mode %04o, want %04o", path, got, want)
			}
		}
	}

	if log := start(); strings.Contains(log, "made nats credentials") {
		t.Errorf("the second start made credentials:\n%s", log)
	}
	for _, u := range localUsers {
		b, err := os.ReadFile(app.LocalSeedFile(dir, u))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, seeds[u]) {
			t.Errorf("the second start replaced %s's seed", u)
		}
	}
}

// TestLocalNATSKeepsAnEarlierStore starts the all-in-one on a data
// directory an earlier all-in-one, whose NATS asked for no credentials,
// left: the credentials are made beside the store, and its stream is read
// as it was.
func TestLocalNATSKeepsAnEarlierStore(t *testing.T) {
	dir := t.TempDir()
	quiet := slog.New(slog.DiscardHandler)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	earlier, err := app.StartEmbedded(dir, "", quiet)
	if err != nil {
		t.Fatal(err)
	}
	nc, js, err := app.Connect(earlier.ClientURL(), "earlier", "", quiet, nats.InProcessServer(earlier))
	if err != nil {
		t.Fatal(err)
	}
	if err := app.Provision(ctx, js, bus.Options{}, quiet); err != nil {
		t.Fatal(err)
	}
	if _, err := bus.NewPublisher(js).Publish(ctx, eventtest.RegisterOnly(porkbun.Name, ".com", time.Now(), "USD", 999)); err != nil {
		t.Fatal(err)
	}
	nc.Close()
	earlier.Shutdown()
	earlier.WaitForShutdown()

	srv, err := app.StartLocal(dir, "", quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	nc, js, err = srv.Connect("zoneprice", quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	waitConnected(t, nc)
	if n := subjects(t, js, "prices.v1.porkbun.>"); n != 1 {
		t.Errorf("the earlier store holds %d porkbun prices now, want 1", n)
	}
	if _, err := os.Stat(app.LocalSeedFile(dir, app.LocalIngest)); err != nil {
		t.Errorf("no credentials beside the earlier store: %v", err)
	}
}

// TestLocalSeedsOwnerOnly refuses credentials that other users may read,
// in the all-in-one and in the command that finds them, saying how to fix
// it; and a seed file that holds no seed.
func TestLocalSeedsOwnerOnly(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no mode bits on windows")
	}
	seed := func(dir string) string { return app.LocalSeedFile(dir, app.LocalIngest) }
	tests := []struct {
		name    string
		spoil   func(t *testing.T, dir string)
		wantErr func(dir string) string
		// command: the command refuses too.
		command bool
	}{
		{"seed readable by others", func(t *testing.T, dir string) { chmod(t, seed(dir), 0o644) },
			func(dir string) string { return "chmod 600 " + seed(dir) }, true},
		{"seed readable by the group", func(t *testing.T, dir string) { chmod(t, seed(dir), 0o640) },
			func(dir string) string { return "chmod 600 " + seed(dir) }, true},
		{"directory open to others", func(t *testing.T, dir string) { chmod(t, filepath.Dir(seed(dir)), 0o755) },
			func(dir string) string { return "chmod 700 " + filepath.Dir(seed(dir)) }, false},
		{"not a seed", func(t *testing.T, dir string) {
			if err := os.WriteFile(seed(dir), []byte("not a seed\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, func(dir string) string { return "deleting it makes a new one" }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			srv := cmdtest.AllInOneNATS(t, dir)
			tt.spoil(t, dir)
			want := tt.wantErr(dir)
			if tt.command {
				_, err := joinAs(t, "zoneprice-ingest", localEnv(srv, dir), nil)
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("command: got %v, want an error containing %q", err, want)
				}
			}
			again, err := app.StartLocal(dir, "", slog.New(slog.DiscardHandler))
			if err == nil {
				again.Shutdown()
				again.WaitForShutdown()
			}
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("all-in-one: got %v, want an error containing %q", err, want)
			}
		})
	}
}

func chmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// TestLocalSignIn checks when a command signs in with the all-in-one's
// credentials: when it is given none and dials this machine, as the user
// it is.
func TestLocalSignIn(t *testing.T) {
	dir := t.TempDir()
	srv := cmdtest.AllInOneNATS(t, dir)
	other := filepath.Join(t.TempDir(), "other.nk")
	kp, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	otherSeed, _ := kp.Seed()
	if err := os.WriteFile(other, otherSeed, 0o600); err != nil {
		t.Fatal(err)
	}
	withURL := func(url string) map[string]string {
		env := localEnv(srv, dir)
		env["NATS_URL"] = url
		return env
	}
	with := func(k, v string) map[string]string {
		env := localEnv(srv, dir)
		env[k] = v
		return env
	}
	open := bustest.Server(t)
	port := strconv.Itoa(srv.Addr().(*net.TCPAddr).Port)
	tests := []struct {
		name, command string
		env           map[string]string
		args          []string
		// want is what the log says; "" means it says nothing of the
		// all-in-one's credentials.
		want string
		// connects: the server admits the command.
		connects bool
	}{
		{"ingest", "zoneprice-ingest", localEnv(srv, dir), nil, `"nkey_file":"` + app.LocalSeedFile(dir, app.LocalIngest), true},
		{"admin", "zoneprice-admin", localEnv(srv, dir), nil, "the all-in-one's admin user", true},
		{"query", "zoneprice-query", localEnv(srv, dir), nil, "the all-in-one's query user", true},
		{"localhost", "zoneprice-query", withURL(strings.Replace(srv.ClientURL(), "127.0.0.1", "localhost", 1)), nil, "the all-in-one's query user", true},
		{"all-in-one listening on every address", "zoneprice-query", with("ZONEPRICE_EMBEDDED_LISTEN", ":"+port), nil, "the all-in-one's query user", true},
		{"no credentials in the data directory", "zoneprice-ingest", with("ZONEPRICE_DATA_DIR", t.TempDir()), nil, "looked_for", false},
		{"a flag wins", "zoneprice-ingest", localEnv(srv, dir), []string{"--nats-nkey", other}, "", false},
		{"the environment wins", "zoneprice-ingest", with("NATS_NKEY", string(otherSeed)), nil, "", false},
		{"a user in the URL wins", "zoneprice-ingest", withURL(strings.Replace(srv.ClientURL(), "://", "://someone:secret@", 1)), nil, "", false},
		// As the benchmark's NATS, which asks for no credentials and
		// would refuse a key.
		{"another NATS on this machine", "zoneprice-query", withURL(open.ClientURL()), nil, "", true},
		{"another machine", "zoneprice-ingest", withURL("nats://192.0.2.1:" + port), nil, "", false},
		{"not a local command", "zoneprice", localEnv(srv, dir), nil, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := joinAs(t, tt.command, tt.env, tt.args, nats.Timeout(200*time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			log := c.log.String()
			switch {
			case tt.want == "" && strings.Contains(log, dir):
				t.Errorf("the log mentions the all-in-one's credentials:\n%s", log)
			case tt.want != "" && !strings.Contains(log, tt.want):
				t.Errorf("the log does not say %s:\n%s", tt.want, log)
			}
			if tt.connects {
				waitConnected(t, c.nc)
			} else if c.nc.IsConnected() {
				t.Error("connected")
			}
		})
	}
}

// TestLocalIngestUser runs zoneprice-ingest's user through what the
// command does against the all-in-one (provision, then import sources of
// every kind), and through what it must not do: forge an API key, purge or
// delete the stream or a message.
func TestLocalIngestUser(t *testing.T) {
	dir := t.TempDir()
	srv := cmdtest.AllInOneNATS(t, dir)
	all, js, err := srv.Connect("test", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer all.Close()
	c, err := joinAs(t, "zoneprice-ingest", localEnv(srv, dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	waitConnected(t, c.nc)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	pctx, pcancel := context.WithTimeout(ctx, 20*time.Second)
	defer pcancel()
	if err := app.Provision(pctx, c.js, bus.Options{}, slog.New(slog.NewJSONHandler(c.log, nil))); err != nil {
		t.Fatalf("provision: %v; refused:\n%s", err, c.violations())
	}
	rates, err := os.ReadFile("../../../ingest/ecb/testdata/eurofxref-daily.xml")
	if err != nil {
		t.Fatal(err)
	}
	ecb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write(rates) }))
	defer ecb.Close()
	env := map[string]string{"ZONEPRICE_IANA_OFFLINE": "true", "ZONEPRICE_ECB_URL": ecb.URL}
	if err := ingestOnce(t, c, env, "--sources", "iana,ecb,sample"); err != nil {
		t.Fatalf("ingest the reference sources: %v", err)
	}
	if err := ingestOnce(t, c, nil, "--sources", porkbun.Name, "--file", "../../../ingest/porkbun/testdata/pricing.json"); err != nil {
		t.Fatalf("import porkbun's list: %v", err)
	}
	if v := c.violations(); v != "" {
		t.Fatalf("the ingest user was refused:\n%s", v)
	}
	before := subjects(t, js, ">")
	for _, filter := range []string{"zones.v1.>", "rates.v1.>", "prices.v1.porkbun.>"} {
		if subjects(t, js, filter) == 0 {
			t.Errorf("stream holds nothing on %s", filter)
		}
	}

	kv, err := c.js.KeyValue(ctx, contracts.KeysBucket)
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.js.Stream(ctx, contracts.StateStream)
	if err != nil {
		t.Fatal(err)
	}
	refused := map[string]func(context.Context) error{
		"forge an API key": func(ctx context.Context) error {
			_, rec, err := contracts.NewAPIKey(contracts.ProTier, "forged", time.Now())
			if err != nil {
				t.Fatal(err)
			}
			_, err = kv.Put(ctx, rec.ID, []byte("{}"))
			return err
		},
		"purge the stream":  func(ctx context.Context) error { return s.Purge(ctx) },
		"delete the stream": func(ctx context.Context) error { return c.js.DeleteStream(ctx, contracts.StateStream) },
		"delete a message":  func(ctx context.Context) error { return s.DeleteMsg(ctx, 1) },
		"delete the keys":   func(ctx context.Context) error { return c.js.DeleteKeyValue(ctx, contracts.KeysBucket) },
	}
	refuse(t, ctx, "the ingest user could ", refused)
	pollLog(t, c, `Permissions Violation for Publish to \"$KV.ZONEPRICE_KEYS.`)
	pollLog(t, c, `Permissions Violation for Publish to \"$JS.API.STREAM.PURGE.ZONEPRICE_STATE\"`)
	if after := subjects(t, js, ">"); after != before {
		t.Errorf("the stream holds %d messages, %d before", after, before)
	}
	keys, err := js.KeyValue(ctx, contracts.KeysBucket)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := keys.Keys(ctx); !errors.Is(err, jetstream.ErrNoKeysFound) {
		t.Errorf("the keys bucket's keys: got %v, want %v", err, jetstream.ErrNoKeysFound)
	}
}

// TestLocalPermissionsAreTheRoles: each local user of the all-in-one's
// NATS may do what its role on the bus may (bus.PermissionsOf, which
// contracts/bus's TestPermissionsMatchAccountsConf holds to the cluster's
// accounts.conf), and the ingest user answers requests.
func TestLocalPermissionsAreTheRoles(t *testing.T) {
	for _, user := range []app.LocalUser{app.LocalIngest, app.LocalAdmin, app.LocalQuery, app.LocalNotify} {
		got, role := app.LocalPermissions(user), bus.PermissionsOf(bus.Role(user))
		if !slices.Equal(got.Publish.Allow, role.Publish) || !slices.Equal(got.Subscribe.Allow, role.Subscribe) || (got.Response != nil) != role.Respond {
			t.Errorf("local user %s: publish %v, subscribe %v, responds %v; want its role's %+v", user,
				got.Publish.Allow, got.Subscribe.Allow, got.Response != nil, role)
		}
	}
	if len(bus.PermissionsOf(bus.RoleIngest).Publish) == 0 {
		t.Error("the ingest role may publish nothing")
	}
}

// TestLocalAdminAndQueryUsers checks that zoneprice-admin's user manages
// the keys and publishes no price, and zoneprice-query's reads and writes
// nothing, against the all-in-one.
func TestLocalAdminAndQueryUsers(t *testing.T) {
	dir := t.TempDir()
	srv := cmdtest.AllInOneNATS(t, dir)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin, err := joinAs(t, "zoneprice-admin", localEnv(srv, dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	query, err := joinAs(t, "zoneprice-query", localEnv(srv, dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	waitConnected(t, admin.nc)
	waitConnected(t, query.nc)
	if err := app.Provision(ctx, admin.js, bus.Options{}, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatalf("admin provisions: %v\n%s", err, admin.violations())
	}
	kv, err := admin.js.KeyValue(ctx, contracts.KeysBucket)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Create(ctx, "key1", []byte("{}")); err != nil {
		t.Fatalf("admin writes a key: %v", err)
	}
	if _, err := query.js.Stream(ctx, contracts.StateStream); err != nil {
		t.Errorf("query reads the stream's info: %v", err)
	}
	qkv, err := query.js.KeyValue(ctx, contracts.KeysBucket)
	if err != nil {
		t.Fatal(err)
	}
	state, err := admin.js.Stream(ctx, contracts.StateStream)
	if err != nil {
		t.Fatal(err)
	}
	refused := map[string]func(context.Context) error{
		"admin publishes a price": func(ctx context.Context) error {
			_, err := bus.NewPublisher(admin.js).Publish(ctx, eventtest.RegisterOnly("forged", ".com", time.Now(), "USD", 1))
			return err
		},
		"admin purges the stream": func(ctx context.Context) error { return state.Purge(ctx) },
		"query publishes a price": func(ctx context.Context) error {
			_, err := bus.NewPublisher(query.js).Publish(ctx, eventtest.RegisterOnly("forged", ".com", time.Now(), "USD", 1))
			return err
		},
		"query writes a key": func(ctx context.Context) error { _, err := qkv.Put(ctx, "key2", []byte("{}")); return err },
	}
	refuse(t, ctx, "not refused: ", refused)
}

// refuse runs every operation at once, each given two seconds to fail: a
// publish the server refuses is dropped, so its request times out.
func refuse(t *testing.T, ctx context.Context, prefix string, ops map[string]func(context.Context) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(map[string]error, len(ops))
	var mu sync.Mutex
	for what, do := range ops {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			defer cancel()
			err := do(ctx)
			mu.Lock()
			defer mu.Unlock()
			errs[what] = err
		})
	}
	wg.Wait()
	for what, err := range errs {
		if err == nil {
			t.Errorf("%s%s", prefix, what)
		}
	}
}
