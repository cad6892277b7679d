package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/cmd/internal/app"
	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
	"github.com/zoneprice/zoneprice/contracts/eventtest"
	"github.com/zoneprice/zoneprice/query/api"
	"github.com/zoneprice/zoneprice/query/querytest"
	"github.com/zoneprice/zoneprice/query/replay"
	"github.com/zoneprice/zoneprice/query/subscribe"
)

func subscribeFlags(t *testing.T, env map[string]string, args ...string) *app.SubscribeFlags {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	f, err := app.RegisterSubscribeFlags(fs, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestSubscribeLocal: the all-in-one makes its secret once, readable by its
// owner alone, writes mail to its outbox, and links to localhost.
func TestSubscribeLocal(t *testing.T) {
	_, js := bustest.Provisioned(t)
	dir := t.TempDir()
	f := subscribeFlags(t, map[string]string{})
	if err := f.Local(dir, ":8080"); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(app.LocalSubscribeSecretFile(dir))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("secret file: %v, %v; want mode 0600", info, err)
	}
	if f.Config.PublicURL != "http://localhost:8080" || f.Mail.Outbox != filepath.Join(dir, "outbox") || len(f.Config.Secret) != 64 {
		t.Errorf("local config: %+v", f.Config)
	}
	var logs bytes.Buffer
	svc, err := f.Service(js, slog.New(slog.NewTextHandler(&logs, nil)), prometheus.NewRegistry())
	if err != nil || svc == nil {
		t.Fatalf("service: %v, %v", svc, err)
	}
	if !strings.Contains(logs.String(), "written to the outbox") {
		t.Errorf("the log does not say mail goes to the outbox:\n%s", logs.String())
	}
	secret := f.Config.Secret
	again := subscribeFlags(t, map[string]string{})
	if err := again.Local(dir, ":9090"); err != nil || !bytes.Equal(again.Config.Secret, secret) || again.Config.PublicURL != "http://localhost:9090" {
		t.Errorf("second start: secret kept %v, url %q, %v", bytes.Equal(again.Config.Secret, secret), again.Config.PublicURL, err)
	}
	// A command beside it finds the same secret and outbox.
	admin := subscribeFlags(t, map[string]string{"ZONEPRICE_DATA_DIR": dir})
	if err := admin.UseLocal(); err != nil || !bytes.Equal(admin.Config.Secret, secret) || admin.Mail.Outbox != f.Mail.Outbox {
		t.Errorf("beside the all-in-one: %+v, %v", admin.Config, err)
	}
	if err := os.Chmod(app.LocalSubscribeSecretFile(dir), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := subscribeFlags(t, map[string]string{}).Local(dir, ":8080"); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("a secret others may read: %v, want refused", err)
	}
}

// TestSubscribeFlags: without mail there is no service (the form answers
// 503); with a relay, the settings are checked and named by their flags.
func TestSubscribeFlags(t *testing.T) {
	_, js := bustest.Provisioned(t)
	log := slog.New(slog.DiscardHandler)
	if svc, err := subscribeFlags(t, map[string]string{}).Service(js, log, prometheus.NewRegistry()); svc != nil || err != nil {
		t.Errorf("no mail: %v, %v; want no service and no error", svc, err)
	}
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte(strings.Repeat("k", 40)), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"no public URL", map[string]string{"ZONEPRICE_SUBSCRIBE_SECRET_FILE": secret}, []string{"--smtp-host", "smtp.example", "--mail-from", "a@example.org"}, "--public-url (ZONEPRICE_PUBLIC_URL)"},
		{"no secret", map[string]string{}, []string{"--smtp-host", "smtp.example", "--mail-from", "a@example.org", "--public-url", "https://zoneprice.example"}, "ZONEPRICE_SUBSCRIBE_SECRET or ZONEPRICE_SUBSCRIBE_SECRET_FILE"},
		{"no sender", map[string]string{"ZONEPRICE_SUBSCRIBE_SECRET_FILE": secret}, []string{"--smtp-host", "smtp.example", "--public-url", "https://zoneprice.example"}, "--mail-from (ZONEPRICE_MAIL_FROM)"},
		{"clear text", map[string]string{"ZONEPRICE_SUBSCRIBE_SECRET_FILE": secret, "ZONEPRICE_SMTP_TLS": "none"}, []string{"--smtp-host", "smtp.example", "--mail-from", "a@example.org", "--public-url", "https://zoneprice.example"}, "--smtp-tls (ZONEPRICE_SMTP_TLS)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := subscribeFlags(t, tc.env, tc.args...).Service(js, log, prometheus.NewRegistry())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error naming %s", err, tc.want)
			}
		})
	}
	ok := subscribeFlags(t, map[string]string{"ZONEPRICE_SUBSCRIBE_SECRET_FILE": secret, "ZONEPRICE_SMTP_USERNAME": "u", "ZONEPRICE_SMTP_PASSWORD": "p"},
		"--smtp-host", "smtp.example", "--mail-from", "a@example.org", "--public-url", "https://zoneprice.example")
	if svc, err := ok.Service(js, log, prometheus.NewRegistry()); err != nil || svc == nil || ok.Mail.Password != "p" {
		t.Errorf("a relay: %v, %v", svc, err)
	}
}

// TestSubscribeAsQueryUser runs the subscription form of a real query
// server as accounts.conf's QUERY user, mailing into an outbox, and
// zoneprice-admin announce as ADMIN: each may do what it needs, and the
// server refuses them nothing.
func TestSubscribeAsQueryUser(t *testing.T) {
	s := startSecureNATS(t, nil)
	admin, reader := s.connect(t, "ADMIN"), s.connect(t, "QUERY")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := app.Provision(ctx, admin.js, bus.Options{}, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	f := subscribeFlags(t, map[string]string{})
	if err := f.Local(dir, ":8080"); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewJSONHandler(reader.log, nil))
	reg := prometheus.NewRegistry()
	svc, err := f.Service(reader.js, log, reg)
	if err != nil {
		t.Fatal(err)
	}
	mailed := make(chan error, 1)
	sctx, stop := context.WithCancel(ctx)
	go func() { mailed <- svc.Run(sctx) }()
	defer func() { stop(); <-mailed }()
	cfg := api.DefaultConfig()
	cfg.Subscriptions = svc
	cons, err := replay.New(bus.NewStreams(reader.js), replay.DefaultConfig(), log, reg, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := api.NewServer(cfg, cons, nil, nil, log, reg, reg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	defer func() { hs.Close(); srv.Close() }()

	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	page := func(method, u string, form url.Values) string {
		t.Helper()
		var resp *http.Response
		var err error
		if form == nil {
			resp, err = c.Get(u)
		} else {
			resp, err = c.PostForm(u, form)
		}
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s %s: %d\n%s\nrefused:\n%s", method, u, resp.StatusCode, b, reader.violations())
		}
		return string(b)
	}
	token := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(page("GET", hs.URL+"/subscribe", nil))
	page("POST", hs.URL+"/subscribe", url.Values{"csrf": {token[1]}, "email": {"ann@example.org"}, "interests": {"articles", "price-drops"}, "zones": {".com"}, "min_drop": {"0"}})
	var mail []byte
	querytest.Until(t, "the confirmation in the outbox", func() bool {
		files, _ := os.ReadDir(f.Mail.Outbox)
		for _, e := range files {
			if !strings.HasPrefix(e.Name(), ".") { // not one being written
				mail, _ = os.ReadFile(filepath.Join(f.Mail.Outbox, e.Name()))
				return true
			}
		}
		return false
	})
	// The outbox writes the text part as it reads: the link whole, on a
	// line of its own.
	confirm := regexp.MustCompile(`/subscribe/confirm\?token=[A-Za-z0-9_=\-]+\r\n`).FindString(string(mail))
	if confirm == "" {
		t.Fatalf("no confirmation link on a line of its own in:\n%q", mail)
	}
	page("GET", hs.URL+strings.TrimSuffix(confirm, "\r\n"), nil)
	if v := reader.violations(); v != "" {
		t.Errorf("query pod refused:\n%s", v)
	}

	// The digests, as zoneprice-notify runs them as NOTIFY, collect a
	// drop that a registrar's ingester records.
	notifier, porkbun := s.connect(t, "NOTIFY"), s.connect(t, "INGEST_PORKBUN")
	digests, err := f.Digests(notifier.js, slog.New(slog.NewJSONHandler(notifier.log, nil)), prometheus.NewRegistry())
	if err != nil || digests == nil {
		t.Fatalf("digests: %v", err)
	}
	dctx, stopDigests := context.WithCancel(ctx)
	digested := make(chan error, 1)
	go func() { digested <- digests(dctx) }()
	defer func() { stopDigests(); <-digested }()
	store, key := subscribe.NewStore(bus.Subscribers(reader.js)), contracts.SubscriberKey("ann@example.org")
	price := int64(1_000_000)
	querytest.Until(t, "a drop in ann's digest", func() bool {
		// The consumer starts at the changes after its creation: publish
		// drops until one is collected.
		now := time.Now().UTC()
		c := &contracts.PriceChange{V: contracts.SchemaVersion, Kind: contracts.KindPriceChange, Change: contracts.ChangeChanged,
			Registrar: "porkbun", Zone: ".com", ObservedAt: now, Source: "porkbun",
			Before: eventtest.Priced("porkbun", ".com", now, "USD", price, price, price).Offer(),
			After:  eventtest.Priced("porkbun", ".com", now, "USD", price-10, price-10, price-10).Offer()}
		price -= 10
		b, _ := json.Marshal(c)
		if _, err := porkbun.js.Publish(ctx, c.Subject(), b); err != nil {
			t.Fatalf("publish a change: %v", err)
		}
		sub, err := store.Get(ctx, key)
		return err == nil && sub != nil && len(sub.Pending) > 0
	})
	for who, c := range map[string]*client{"notify": notifier, "query pod": reader} {
		if v := c.violations(); v != "" {
			t.Errorf("%s refused:\n%s", who, v)
		}
	}

	// zoneprice-admin announce, as ADMIN, beside the all-in-one's files.
	body := filepath.Join(t.TempDir(), "news.txt")
	if err := os.WriteFile(body, []byte("News."), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "zoneprice-admin")
	if out, err := exec.Command("go", "build", "-o", bin, "../../zoneprice-admin").CombinedOutput(); err != nil {
		t.Fatalf("build zoneprice-admin: %v\n%s", err, out)
	}
	cmd := exec.CommandContext(ctx, bin, "announce", "--interest", "articles", "--subject", "News", "--body-file", body)
	cmd.Env = []string{"NATS_URL=" + s.srv.ClientURL(), "NATS_NKEY_FILE=" + s.seeds["ADMIN"], "ZONEPRICE_DATA_DIR=" + dir}
	out, err := cmd.CombinedOutput()
	if err != nil || strings.Contains(string(out), "Permissions Violation") || !strings.Contains(string(out), "announced to 1 subscribers of articles") {
		t.Fatalf("zoneprice-admin announce: %v\n%s", err, out)
	}
}
