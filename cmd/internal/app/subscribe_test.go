package app_test

import (
	"bytes"
	"flag"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/cmd/internal/app"
	"github.com/zoneprice/zoneprice/contracts/natstest"
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
	_, js := natstest.Provisioned(t)
	dir := t.TempDir()
	f := subscribeFlags(t, map[string]string{})
	if err := f.Local(dir, ":8080"); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(app.LocalSubscribeSecretFile(dir))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("secret file: %v, %v; want mode 0600", info, err)
	}
	if f.Config.PublicURL != "http://localhost:8080" || f.Config.Mail.Outbox != filepath.Join(dir, "outbox") || len(f.Config.Secret) != 64 {
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
	if err := admin.UseLocal(); err != nil || !bytes.Equal(admin.Config.Secret, secret) || admin.Config.Mail.Outbox != f.Config.Mail.Outbox {
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
	_, js := natstest.Provisioned(t)
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
	if svc, err := ok.Service(js, log, prometheus.NewRegistry()); err != nil || svc == nil || ok.Config.Mail.Password != "p" {
		t.Errorf("a relay: %v, %v", svc, err)
	}
}
