package app_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/cmd/internal/app"
	"github.com/zoneprice/zoneprice/cmd/internal/sources"
	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/eventtest"
	"github.com/zoneprice/zoneprice/deploy"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/ovhcloud"
	"github.com/zoneprice/zoneprice/ingest/porkbun"
	"github.com/zoneprice/zoneprice/query/access"
	"github.com/zoneprice/zoneprice/query/api"
	"github.com/zoneprice/zoneprice/query/querytest"
	"github.com/zoneprice/zoneprice/query/replay"
	"github.com/zoneprice/zoneprice/query/webhooks"
)

// natsDir is where the deployment's NATS configuration lives.
const natsDir = "../../../deploy/nats"

// natsUsers returns the users of deploy/nats/accounts.conf.
func natsUsers(t *testing.T) []string {
	t.Helper()
	users := deploy.NATSUsers()
	if len(users) == 0 {
		t.Fatal("accounts.conf names no users")
	}
	return users
}

// secureNATS is a real NATS server running the deployment's accounts.conf,
// and a seed file per user.
type secureNATS struct {
	srv   *server.Server
	seeds map[string]string
}

// startSecureNATS starts a JetStream server with accounts.conf (and
// tls.conf when tlsEnv is set, which holds its variables), giving every
// user a fresh key.
func startSecureNATS(t *testing.T, tlsEnv map[string]string) *secureNATS {
	t.Helper()
	dir := t.TempDir()
	s := &secureNATS{seeds: map[string]string{}}
	for _, user := range natsUsers(t) {
		kp, err := nkeys.CreateUser()
		if err != nil {
			t.Fatal(err)
		}
		pub, _ := kp.PublicKey()
		seed, _ := kp.Seed()
		t.Setenv("ZONEPRICE_NKEY_"+user, pub)
		s.seeds[user] = filepath.Join(dir, strings.ToLower(user)+".nk")
		if err := os.WriteFile(s.seeds[user], seed, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	conf := fmt.Sprintf("listen: 127.0.0.1:-1\njetstream { store_dir: %q }\ninclude accounts.conf\n", filepath.Join(dir, "js"))
	files := []string{"accounts.conf"}
	if tlsEnv != nil {
		for k, v := range tlsEnv {
			t.Setenv(k, v)
		}
		conf += "include tls.conf\n"
		files = append(files, "tls.conf")
	}
	// The includes are the deployment's own files, read from deploy/nats.
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(natsDir, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "server.conf")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	opts, err := server.ProcessConfigFile(path)
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	opts.NoLog, opts.NoSigs = true, true
	s.srv, err = server.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	s.srv.Start()
	if !s.srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats server not ready within 10s")
	}
	t.Cleanup(func() {
		s.srv.Shutdown()
		s.srv.WaitForShutdown()
	})
	return s
}

// client is one connection made the way the commands make it.
type client struct {
	nc  *nats.Conn
	js  jetstream.JetStream
	log *querytest.LogBuffer
}

// violations returns the permissions violations the server reported to
// this client, as logged.
func (c *client) violations() string {
	var out []string
	for line := range strings.SplitSeq(c.log.String(), "\n") {
		if strings.Contains(line, "Permissions Violation") {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

// connect connects as user through the common flags, with args added, and
// waits until the server has accepted it.
func (s *secureNATS) connect(t *testing.T, user string, args ...string) *client {
	t.Helper()
	c, err := s.dial(t, append([]string{"--nats-nkey", s.seeds[user]}, args...), nil)
	if err != nil {
		t.Fatal(err)
	}
	waitConnected(t, c.nc)
	return c
}

// dial connects through the common flags and environment without
// waiting for the server.
func (s *secureNATS) dial(t *testing.T, args []string, env map[string]string, extra ...nats.Option) (*client, error) {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	common := app.RegisterCommon(fs, func(k string) string { return env[k] }, s.srv.ClientURL(), "")
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	buf := &querytest.LogBuffer{}
	log := slog.New(slog.NewJSONHandler(buf, nil))
	nc, js, err := common.Connect(common.NATSURL, "test", log, extra...)
	if err != nil {
		return nil, err
	}
	t.Cleanup(nc.Close)
	return &client{nc: nc, js: js, log: buf}, nil
}

func waitConnected(t *testing.T, nc *nats.Conn) {
	t.Helper()
	if !querytest.Wait(10*time.Second, nc.IsConnected) {
		t.Fatalf("not connected within 10s: %v", nc.LastError())
	}
}

// subjects returns how many messages the stream holds on subjects matching
// filter.
func subjects(t *testing.T, js jetstream.JetStream, filter string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	stream, err := js.Stream(ctx, contracts.StateStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := stream.Info(ctx, jetstream.WithSubjectFilter(filter))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range info.State.Subjects {
		n += int(c)
	}
	return n
}

// ingestOnce runs one round of the sources args name through the
// ingesters' own flags, as zoneprice-ingest does.
func ingestOnce(t *testing.T, c *client, env map[string]string, args ...string) error {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	getenv := func(k string) string { return env[k] }
	ing, err := app.RegisterIngestFlags(fs, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if err := fs.Parse(append([]string{"--once", "--provision", "off"}, args...)); err != nil {
		t.Fatal(err)
	}
	if err := ing.Validate(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	log := slog.New(slog.NewJSONHandler(c.log, nil))
	sel, err := sources.Select(ing, getenv)
	if err != nil {
		t.Fatal(err)
	}
	ingesters, err := ing.Ingesters(ctx, c.js, sel, getenv, log, prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	return app.RunAll(ctx, ingesters.Parts...)
}

// TestNATSPermissions runs each user of deploy/nats/accounts.conf through
// what its command really does, and through what it must not do, on a real
// server loading that file.
func TestNATSPermissions(t *testing.T) {
	s := startSecureNATS(t, nil)
	admin := s.connect(t, "ADMIN")
	porkbunUser := s.connect(t, "INGEST_PORKBUN")
	reader := s.connect(t, "QUERY")
	reference := s.connect(t, "INGEST_REFERENCE")
	notifier := s.connect(t, "NOTIFY")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	// Before the stream exists, an ingester that may not create it waits.
	waiting := make(chan error, 1)
	go func() {
		waiting <- app.WaitForStream(ctx, porkbunUser.js, slog.New(slog.NewJSONHandler(porkbunUser.log, nil)))
	}()

	provisioned := t.Run("admin provisions", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		if err := app.Provision(ctx, admin.js, bus.Options{}, slog.New(slog.NewJSONHandler(admin.log, nil))); err != nil {
			t.Fatalf("provision: %v; refused:\n%s", err, admin.violations())
		}
		if err := <-waiting; err != nil {
			t.Fatalf("an ingester waiting for the stream: %v", err)
		}
	})
	if !provisioned {
		t.FailNow()
	}

	var key string
	t.Run("admin manages keys", func(t *testing.T) {
		kv, err := admin.js.KeyValue(ctx, contracts.KeysBucket)
		if err != nil {
			t.Fatal(err)
		}
		var rec contracts.APIKey
		key, rec, err = contracts.NewAPIKey(contracts.StandardTier, "test", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		_, revoked, err := contracts.NewAPIKey(contracts.StandardTier, "revoked", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []contracts.APIKey{rec, revoked} {
			body, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := kv.Create(ctx, r.ID, body); err != nil {
				t.Fatalf("create %s: %v", r.ID, err)
			}
		}
		if _, err := kv.Get(ctx, rec.ID); err != nil {
			t.Fatalf("get: %v", err)
		}
		keys, err := kv.ListKeys(ctx)
		if err != nil {
			t.Fatalf("list: %v", err)
		}
		n := 0
		for range keys.Keys() {
			n++
		}
		if n != 2 {
			t.Errorf("listed %d keys, want 2", n)
		}
		if err := kv.Delete(ctx, revoked.ID); err != nil {
			t.Fatalf("delete: %v", err)
		}
		if v := admin.violations(); v != "" {
			t.Errorf("admin refused:\n%s", v)
		}
	})

	adminBin := filepath.Join(t.TempDir(), "zoneprice-admin")
	if out, err := exec.Command("go", "build", "-o", adminBin, "../../zoneprice-admin").CombinedOutput(); err != nil {
		t.Fatalf("build zoneprice-admin: %v\n%s", err, out)
	}
	adminCmd := func(t *testing.T, args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, adminBin, args...)
		cmd.Env = []string{"NATS_URL=" + s.srv.ClientURL(), "NATS_NKEY_FILE=" + s.seeds["ADMIN"]}
		out, err := cmd.CombinedOutput()
		if err != nil || strings.Contains(string(out), "Permissions Violation") {
			t.Fatalf("zoneprice-admin %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	t.Run("zoneprice-admin manages keys", func(t *testing.T) {
		admin := func(args ...string) string { t.Helper(); return adminCmd(t, args...) }
		out := admin("keys", "create", "--tier", "standard", "--note", "admin command")
		m := regexp.MustCompile(`(?m)^id:\s+(\S+)`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("create printed no id:\n%s", out)
		}
		if out := admin("keys", "list"); !strings.Contains(out, m[1]) {
			t.Errorf("list does not show %s:\n%s", m[1], out)
		}
		admin("keys", "revoke", m[1])
		if out := admin("keys", "list"); strings.Contains(out, m[1]) {
			t.Errorf("list still shows the revoked %s:\n%s", m[1], out)
		}
	})

	t.Run("reference ingester", func(t *testing.T) {
		rates, err := os.ReadFile("../../../ingest/ecb/testdata/eurofxref-daily.xml")
		if err != nil {
			t.Fatal(err)
		}
		ecb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write(rates) }))
		defer ecb.Close()
		env := map[string]string{"ZONEPRICE_IANA_OFFLINE": "true", "ZONEPRICE_ECB_URL": ecb.URL}
		if err := ingestOnce(t, reference, env, "--sources", "iana,ecb,sample"); err != nil {
			t.Fatalf("ingest: %v", err)
		}
		if v := reference.violations(); v != "" {
			t.Errorf("reference ingester refused:\n%s", v)
		}
		// No registrar has a price yet, so the sample stands in.
		for _, filter := range []string{"zones.v1.>", "rates.v1.>", "prices.v1.sample-alpha.>"} {
			if n := subjects(t, admin.js, filter); n == 0 {
				t.Errorf("stream holds nothing on %s", filter)
			}
		}
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		if _, err := bus.NewPublisher(reference.js).Publish(pctx, eventtest.RegisterOnly(porkbun.Name, ".net", time.Now(), "USD", 999)); err == nil {
			t.Error("the reference ingester published porkbun's .net")
		}
	})

	t.Run("ingester publishes its registrar", func(t *testing.T) {
		pub := bus.NewPublisher(porkbunUser.js)
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if _, err := pub.Publish(pctx, eventtest.RegisterOnly(porkbun.Name, ".com", time.Now(), "USD", 999)); err != nil {
			t.Fatalf("publish porkbun's .com: %v", err)
		}
		// And the whole path of zoneprice-ingest: read back, diff, publish.
		if err := ingestOnce(t, porkbunUser, nil, "--sources", porkbun.Name, "--file", "../../../ingest/porkbun/testdata/pricing.json"); err != nil {
			t.Fatalf("ingest porkbun's list: %v", err)
		}
		if v := porkbunUser.violations(); v != "" {
			t.Errorf("porkbun's ingester refused:\n%s", v)
		}
		if n := subjects(t, admin.js, "prices.v1.porkbun.>"); n < 2 {
			t.Errorf("stream holds %d porkbun prices, want the list's", n)
		}
	})

	t.Run("zoneprice-admin checks the stream and has the ingesters republish", func(t *testing.T) {
		if out := adminCmd(t, "stream", "check"); !strings.Contains(out, "healthy") {
			t.Errorf("stream check: %s", out)
		}
		// The ingesters above published their registrars' statuses.
		if out := adminCmd(t, "registrars"); !strings.Contains(out, "\nporkbun ") || !strings.Contains(out, "\nsample-alpha ") {
			t.Errorf("registrars: %s", out)
		}
		// A running porkbun ingester, as zoneprice-ingest runs it,
		// hears the request and answers it with its sources.
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		ing, err := app.RegisterIngestFlags(fs, func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		if err := fs.Parse([]string{"--provision", "off", "--sources", porkbun.Name, "--file", "../../../ingest/porkbun/testdata/pricing.json"}); err != nil {
			t.Fatal(err)
		}
		ictx, stop := context.WithCancel(ctx)
		defer stop()
		noEnv := func(string) string { return "" }
		sel, err := sources.Select(ing, noEnv)
		if err != nil {
			t.Fatal(err)
		}
		ingesters, err := ing.Ingesters(ictx, porkbunUser.js, sel, noEnv, slog.New(slog.NewJSONHandler(porkbunUser.log, nil)), prometheus.NewRegistry())
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- app.RunAll(ictx, ingesters.Parts...) }()
		<-ingesters.Runners[0].FirstRound()
		before := streamLastSeq(t, admin.js)
		if out := adminCmd(t, "stream", "republish"); !strings.Contains(out, "1 ingesters publish their whole lists now: "+porkbun.Name) {
			t.Errorf("stream republish: %s", out)
		}
		querytest.Within(t, 30*time.Second, "porkbun's whole list published again", func() bool { return streamLastSeq(t, admin.js) > before })
		stop()
		if err := <-done; err != nil {
			t.Errorf("ingester: %v", err)
		}
		if v := porkbunUser.violations(); v != "" {
			t.Errorf("porkbun's ingester refused:\n%s", v)
		}
	})

	t.Run("ingester refused another registrar", func(t *testing.T) {
		pub := bus.NewPublisher(porkbunUser.js)
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		if _, err := pub.Publish(pctx, eventtest.RegisterOnly("namecheap", ".com", time.Now(), "USD", 999)); err == nil {
			t.Fatal("porkbun's ingester published namecheap's .com")
		}
		pollLog(t, porkbunUser, `Permissions Violation for Publish to \"prices.v1.namecheap.com\"`)
		// A whole list of another registrar fails its round: the
		// publishes go unacknowledged until the round's timeout.
		cfg := ingest.DefaultRunnerConfig()
		cfg.Interval, cfg.Timeout = 0, 2*time.Second
		src := ingest.NewFileSource(ovhcloud.Name, "../../../ingest/ovhcloud/testdata/catalog_fr.json", ovhcloud.Parse, time.Now)
		r, err := ingest.NewRunner(src, bus.NewStreams(porkbunUser.js), bus.NewPublisher(porkbunUser.js), cfg, slog.New(slog.DiscardHandler), prometheus.NewRegistry(), time.Now)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Once(ctx); err == nil {
			t.Error("porkbun's ingester published ovhcloud's list")
		}
		for _, filter := range []string{"prices.v1.namecheap.>", "prices.v1.ovhcloud.>"} {
			if n := subjects(t, admin.js, filter); n != 0 {
				t.Errorf("stream holds %d messages on %s, want none", n, filter)
			}
		}
	})

	t.Run("query pod reads", func(t *testing.T) {
		log := slog.New(slog.NewJSONHandler(reader.log, nil))
		pod, err := replay.New(bus.NewStreams(reader.js), replay.DefaultConfig(), log, prometheus.NewRegistry(), time.Now)
		if err != nil {
			t.Fatal(err)
		}
		keys, err := access.NewKeys(bus.Keys(reader.js), nil, log, prometheus.NewRegistry())
		if err != nil {
			t.Fatal(err)
		}
		rctx, stop := context.WithCancel(ctx)
		done := make(chan error, 2)
		go func() { done <- pod.Run(rctx) }()
		go func() { done <- keys.Run(rctx) }()
		defer func() { stop(); <-done; <-done }()
		select {
		case <-pod.Ready():
		case <-ctx.Done():
			t.Fatal("query consumer not ready")
		}
		select {
		case <-keys.Ready():
		case <-ctx.Done():
			t.Fatal("api keys not loaded")
		}
		sum := contracts.HashAPIKey(key)
		querytest.Within(t, 10*time.Second, "the admin's key to reach the query pod", func() bool { return keys.Lookup(&sum) != nil })
		if v := reader.violations(); v != "" {
			t.Errorf("query pod refused:\n%s", v)
		}
	})

	t.Run("query pod serves the webhook API", func(t *testing.T) {
		log := slog.New(slog.NewJSONHandler(reader.log, nil))
		reg := prometheus.NewRegistry()
		keys, err := access.NewKeys(bus.Keys(reader.js), access.DefaultConfig().Tiers, log, reg)
		if err != nil {
			t.Fatal(err)
		}
		rctx, stop := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- keys.Run(rctx) }()
		defer func() { stop(); <-done }()
		sum := contracts.HashAPIKey(key)
		querytest.Within(t, 10*time.Second, "the admin's key to reach the query pod", func() bool { return keys.Lookup(&sum) != nil })
		cons, err := replay.New(bus.NewStreams(reader.js), replay.DefaultConfig(), log, reg, time.Now)
		if err != nil {
			t.Fatal(err)
		}
		srv, err := api.NewServer(api.DefaultConfig(), cons, keys, webhooks.NewStore(webhooks.Config{}, webhooks.Bus{Webhooks: bus.Webhooks(reader.js), Owners: bus.WebhookOwners(reader.js), Deliveries: bus.NewDeliveries(reader.js)}, time.Now), log, reg, reg)
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(srv.Handler())
		defer func() { hs.Close(); srv.Close() }()
		call := func(method, path, content string, want int) []byte {
			t.Helper()
			req, err := http.NewRequestWithContext(ctx, method, hs.URL+path, strings.NewReader(content))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+key)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != want {
				t.Fatalf("%s %s: %d, want %d: %s\nrefused:\n%s", method, path, resp.StatusCode, want, body, reader.violations())
			}
			return body
		}
		var created struct{ ID string }
		if err := json.Unmarshal(call(http.MethodPost, "/api/webhooks", `{"url":"https://hooks.example.com/","events":["price.changed"]}`, 201), &created); err != nil {
			t.Fatal(err)
		}
		id := "/api/webhooks/" + created.ID
		call(http.MethodGet, "/api/webhooks", "", 200)
		call(http.MethodGet, id, "", 200)
		call(http.MethodPatch, id, `{"paused":true,"disabled":null}`, 200)
		call(http.MethodPost, id+"/rotate-secret", "", 200)
		call(http.MethodPost, id+"/test", "", 202)
		call(http.MethodGet, id+"/deliveries", "", 200)
		// An attempt recorded, as notify records them, is read back.
		attempt, _ := json.Marshal(contracts.DeliveryAttempt{Delivery: "msg_1", Type: contracts.EventPing, Attempt: 1, At: time.Now(), Outcome: contracts.OutcomeDelivered, Status: 204})
		if _, err := notifier.js.Publish(ctx, contracts.AttemptSubject(created.ID), attempt); err != nil {
			t.Fatalf("record an attempt: %v", err)
		}
		if body := call(http.MethodGet, id+"/deliveries", "", 200); !strings.Contains(string(body), `"count":1`) {
			t.Errorf("deliveries: %s", body)
		}
		call(http.MethodDelete, id, "", 204)
		if v := reader.violations(); v != "" {
			t.Errorf("query pod refused:\n%s", v)
		}
	})

	t.Run("zoneprice-admin manages webhooks", func(t *testing.T) {
		store := webhooks.NewStore(webhooks.Config{}, webhooks.Bus{Webhooks: bus.Webhooks(reader.js), Owners: bus.WebhookOwners(reader.js), Deliveries: bus.NewDeliveries(reader.js)}, time.Now)
		created, err := store.Create(ctx, "4d930e71934acb20", webhooks.Registration{URL: "https://hooks.example.com/",
			Events: []contracts.EventType{contracts.EventPing}}, 1)
		if err != nil {
			t.Fatal(err)
		}
		id := created.Webhook.ID
		if out := adminCmd(t, "webhooks", "list"); !strings.Contains(out, id) {
			t.Errorf("list does not show %s:\n%s", id, out)
		}
		adminCmd(t, "webhooks", "list", "--owner", "4d930e71934acb20")
		adminCmd(t, "webhooks", "show", id)
		adminCmd(t, "webhooks", "disable", id, "--reason", "test")
		adminCmd(t, "webhooks", "enable", id)
		adminCmd(t, "webhooks", "delete", id)
		if out := adminCmd(t, "webhooks", "list"); strings.Contains(out, id) {
			t.Errorf("list still shows the deleted %s:\n%s", id, out)
		}
	})

	t.Run("query pod cannot write", func(t *testing.T) {
		kv, err := reader.js.KeyValue(ctx, contracts.KeysBucket)
		if err != nil {
			t.Fatal(err)
		}
		refused := map[string]func(context.Context) error{
			"publish a price": func(ctx context.Context) error {
				_, err := bus.NewPublisher(reader.js).Publish(ctx, eventtest.RegisterOnly("forged", ".com", time.Now(), "USD", 999))
				return err
			},
			"update the stream": func(ctx context.Context) error {
				_, err := reader.js.UpdateStream(ctx, bus.StateConfig(bus.Options{Replicas: 1}))
				return err
			},
			"write an API key": func(ctx context.Context) error {
				_, err := kv.Put(ctx, "forgedkey1", []byte("{}"))
				return err
			},
		}
		for what, do := range refused {
			wctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			if err := do(wctx); err == nil {
				t.Errorf("query pod could %s", what)
			}
			cancel()
		}
		pollLog(t, reader, `Permissions Violation for Publish to \"$KV.ZONEPRICE_KEYS.forgedkey1\"`)
		if n := subjects(t, admin.js, "prices.v1.forged.>"); n != 0 {
			t.Errorf("stream holds the query pod's price")
		}
	})

	t.Run("admin cannot publish prices or delete the stream", func(t *testing.T) {
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		if _, err := bus.NewPublisher(admin.js).Publish(pctx, eventtest.RegisterOnly("forged", ".info", time.Now(), "USD", 999)); err == nil {
			t.Error("admin published a price")
		}
		dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		if err := admin.js.DeleteStream(dctx, contracts.StateStream); err == nil {
			t.Error("admin deleted the stream")
		}
		if n := subjects(t, admin.js, ">"); n == 0 {
			t.Error("the stream is empty")
		}
	})
}

// pollLog waits until c's log holds want.
func pollLog(t *testing.T, c *client, want string) {
	t.Helper()
	if !querytest.Wait(10*time.Second, func() bool { return strings.Contains(c.log.String(), want) }) {
		t.Fatalf("log never said %s; it holds:\n%s", want, c.log.String())
	}
}

// testPKI is a CA made for one test, and certificates it signed.
type testPKI struct {
	dir string
	ca  *x509.Certificate
	key *ecdsa.PrivateKey
}

func newTestPKI(t *testing.T, name string) *testPKI {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	p := &testPKI{dir: t.TempDir(), ca: ca, key: key}
	p.write(t, "ca.crt", "CERTIFICATE", der)
	return p
}

func (p *testPKI) write(t *testing.T, name, kind string, der []byte) string {
	t.Helper()
	path := filepath.Join(p.dir, name)
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// issue signs a certificate for usage and returns its and its key's files.
func (p *testPKI) issue(t *testing.T, name string, usage x509.ExtKeyUsage) (cert, key string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.ca, &k.PublicKey, p.key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return p.write(t, name+".crt", "CERTIFICATE", der), p.write(t, name+".key", "EC PRIVATE KEY", kder)
}

// TestNATSTLS connects through the TLS flags to a server running
// deploy/nats/tls.conf, which requires client certificates.
func TestNATSTLS(t *testing.T) {
	pki := newTestPKI(t, "zoneprice test CA")
	srvCert, srvKey := pki.issue(t, "nats", x509.ExtKeyUsageServerAuth)
	cliCert, cliKey := pki.issue(t, "ingest", x509.ExtKeyUsageClientAuth)
	other := newTestPKI(t, "someone else's CA")
	strangerCert, strangerKey := other.issue(t, "stranger", x509.ExtKeyUsageClientAuth)
	s := startSecureNATS(t, map[string]string{
		"NATS_SERVER_TLS_CERT": srvCert, "NATS_SERVER_TLS_KEY": srvKey, "NATS_SERVER_TLS_CA": filepath.Join(pki.dir, "ca.crt"),
	})
	ca := filepath.Join(pki.dir, "ca.crt")
	tests := []struct {
		name string
		args []string
		env  map[string]string
		// refused is what the first failed attempt must say; "" means
		// the connection must succeed.
		refused string
	}{
		{"flags", []string{"--nats-tls-ca", ca, "--nats-tls-cert", cliCert, "--nats-tls-key", cliKey}, nil, ""},
		{"environment", nil, map[string]string{"NATS_TLS_CA": ca, "NATS_TLS_CERT": cliCert, "NATS_TLS_KEY": cliKey}, ""},
		// The server hangs up on a client whose certificate it refuses.
		{"no client certificate", []string{"--nats-tls-ca", ca}, nil, "tls"},
		{"client certificate from another CA", []string{"--nats-tls-ca", ca, "--nats-tls-cert", strangerCert, "--nats-tls-key", strangerKey}, nil, "tls"},
		{"server not trusted", []string{"--nats-tls-ca", filepath.Join(other.dir, "ca.crt"), "--nats-tls-cert", cliCert, "--nats-tls-key", cliKey}, nil, "x509"},
		{"no TLS flags: the system roots do not know the CA", nil, nil, "x509"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			failed := make(chan error, 1)
			onFail := nats.ReconnectErrHandler(func(_ *nats.Conn, err error) {
				select {
				case failed <- err:
				default:
				}
			})
			args := append([]string{"--nats-nkey", s.seeds["ADMIN"]}, tt.args...)
			c, err := s.dial(t, args, tt.env, onFail)
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			if tt.refused == "" {
				waitConnected(t, c.nc)
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				if err := app.Provision(ctx, c.js, bus.Options{}, slog.New(slog.DiscardHandler)); err != nil {
					t.Fatalf("provision over TLS: %v", err)
				}
				if !c.nc.TLSRequired() {
					t.Error("the server does not say TLS is required")
				}
				return
			}
			select {
			case err := <-failed:
				if !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(tt.refused)) {
					t.Errorf("refused with %v, want an error about %s", err, tt.refused)
				}
				if testing.Verbose() {
					t.Logf("refused: %v", err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("no failed attempt reported within 20s")
			}
			if c.nc.IsConnected() {
				t.Error("connected")
			}
		})
	}
}

// TestNATSAuthFlags checks the settings Connect refuses before dialing,
// and that each error names the flag or variable to fix.
func TestNATSAuthFlags(t *testing.T) {
	dir := t.TempDir()
	kp, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	seed, _ := kp.Seed()
	pub, _ := kp.PublicKey()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	seedFile := write("user.nk", append(seed, '\n'))
	pubFile := write("user.pub", []byte(pub))
	garbage := write("garbage", []byte("not a key"))
	account, err := nkeys.CreateAccount()
	if err != nil {
		t.Fatal(err)
	}
	accountSeed, _ := account.Seed()
	accountFile := write("account.nk", accountSeed)
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		wantErr string // "" for none
	}{
		{"seed file", []string{"--nats-nkey", seedFile}, nil, ""},
		{"seed file from the environment", nil, map[string]string{"NATS_NKEY_FILE": seedFile}, ""},
		{"seed in the environment", nil, map[string]string{"NATS_NKEY": string(seed)}, ""},
		{"seed twice", []string{"--nats-nkey", seedFile}, map[string]string{"NATS_NKEY": string(seed)}, "NATS_NKEY are both set"},
		{"seed and creds", []string{"--nats-nkey", seedFile, "--nats-creds", seedFile}, nil, "--nats-creds (NATS_CREDS) and an NKey"},
		{"missing seed file", []string{"--nats-nkey", seedFile + ".missing"}, nil, "--nats-nkey (NATS_NKEY_FILE)"},
		{"public key for a seed", []string{"--nats-nkey", pubFile}, nil, "--nats-nkey (NATS_NKEY_FILE)"},
		{"not a key", []string{"--nats-nkey", garbage}, nil, "not an NKey seed"},
		{"account seed", []string{"--nats-nkey", accountFile}, nil, "not a user seed"},
		{"cert without key", []string{"--nats-tls-cert", seedFile}, nil, "--nats-tls-cert (NATS_TLS_CERT) and --nats-tls-key (NATS_TLS_KEY) go together"},
		{"missing CA", []string{"--nats-tls-ca", seedFile + ".missing"}, nil, "--nats-tls-ca (NATS_TLS_CA)"},
		{"CA not PEM", []string{"--nats-tls-ca", garbage}, nil, "holds no PEM certificate"},
		{"bad key pair", []string{"--nats-tls-cert", garbage, "--nats-tls-key", garbage}, nil, "--nats-tls-cert (NATS_TLS_CERT), --nats-tls-key (NATS_TLS_KEY)"},
		{"missing creds", []string{"--nats-creds", seedFile + ".missing"}, nil, "--nats-creds (NATS_CREDS)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			// Nothing listens there: every case fails before dialing
			// or connects in the background.
			common := app.RegisterCommon(fs, func(k string) string { return tt.env[k] }, "nats://127.0.0.1:1", "")
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			nc, _, err := common.Connect(common.NATSURL, "test", slog.New(slog.DiscardHandler))
			if nc != nil {
				nc.Close()
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Connect: %v", err)
			case tt.wantErr != "" && err == nil:
				t.Fatalf("Connect: no error, want one containing %q", tt.wantErr)
			case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
				t.Fatalf("Connect: %v, want an error containing %q", err, tt.wantErr)
			}
			if err != nil && strings.Contains(err.Error(), string(seed)) {
				t.Error("the error shows the seed")
			}
		})
	}
}

// streamLastSeq is the state stream's last sequence.
func streamLastSeq(t *testing.T, js jetstream.JetStream) uint64 {
	t.Helper()
	st, err := js.Stream(context.Background(), contracts.StateStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return info.State.LastSeq
}
