package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
	"github.com/zoneprice/zoneprice/query/mail/smtptest"
)

// TestAnnounce mails an announcement through a relay started in the test
// to the confirmed subscribers of its interest, and no one else.
func TestAnnounce(t *testing.T) {
	srv, js := bustest.Provisioned(t)
	relay := smtptest.Start(t)
	ctx := context.Background()
	kv, err := js.KeyValue(ctx, contracts.SubscribersBucket)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	for _, s := range []contracts.Subscriber{
		{Email: "ann@example.org", Interests: []contracts.Interest{contracts.InterestAPIUpdates}, Confirmed: true, ConfirmedAt: &now, CreatedAt: now},
		{Email: "bob@example.org", Interests: []contracts.Interest{contracts.InterestAPIUpdates}, CreatedAt: now}, // not confirmed
		{Email: "carol@example.org", Interests: []contracts.Interest{contracts.InterestArticles}, Confirmed: true, ConfirmedAt: &now, CreatedAt: now},
	} {
		b, _ := json.Marshal(s)
		if _, err := kv.Put(ctx, s.Key(), b); err != nil {
			t.Fatal(err)
		}
	}
	body := filepath.Join(t.TempDir(), "news.txt")
	if err := os.WriteFile(body, []byte("The changes feed takes since=.\n\nSee the changelog."), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"NATS_URL":                   srv.ClientURL(),
		"ZONEPRICE_DATA_DIR":         t.TempDir(),
		"ZONEPRICE_SUBSCRIBE_SECRET": strings.Repeat("s", 32),
		"ZONEPRICE_SMTP_USERNAME":    smtptest.Username,
		"ZONEPRICE_SMTP_PASSWORD":    smtptest.Password,
	}
	announce := func(args ...string) (string, error) {
		var out, errOut bytes.Buffer
		args = append(append([]string{"announce"}, args...), "--smtp-host", relay.Host, "--smtp-port", strconv.Itoa(relay.Port),
			"--smtp-ca", relay.CAFile, "--mail-from", "zoneprice <news@zoneprice.test>", "--public-url", "https://zoneprice.test")
		err := run(ctx, args, func(k string) string { return env[k] }, &out, &errOut)
		return out.String(), err
	}

	out, err := announce("--interest", "api-updates", "--subject", "The feed takes since=", "--body-file", body)
	if err != nil || !strings.Contains(out, "announced to 1 subscribers of api-updates") {
		t.Fatalf("announce: %q, %v", out, err)
	}
	msgs := relay.Messages()
	if len(msgs) != 1 || msgs[0].To[0] != "ann@example.org" {
		t.Fatalf("relay received %d mails (%v), want one to ann", len(msgs), msgs)
	}
	text, _ := msgs[0].Parts(t)
	if m := msgs[0].Parse(t); m.Header.Get("Subject") != "The feed takes since=" || m.Header.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" ||
		!strings.Contains(text, "See the changelog.") {
		t.Errorf("announcement: %v\n%s", m.Header, text)
	}

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"price drops", []string{"--interest", "price-drops", "--subject", "x", "--body-file", body}, "--interest"},
		{"no subject", []string{"--interest", "articles", "--body-file", body}, "--subject"},
		{"no body", []string{"--interest", "articles", "--subject", "x"}, "--body-file"},
		{"announce flag elsewhere", []string{"--interest", "articles"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.want == "" {
				var out bytes.Buffer
				err := run(ctx, []string{"keys", "list", "--interest", "articles"}, func(k string) string { return env[k] }, &out, &out)
				if err == nil || !strings.Contains(err.Error(), "go with announce") {
					t.Errorf("keys list --interest: %v", err)
				}
				return
			}
			if _, err := announce(tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error naming %s", err, tc.want)
			}
		})
	}
	if n := len(relay.Messages()); n != 1 {
		t.Errorf("refused announcements sent %d mails", n-1)
	}
}
