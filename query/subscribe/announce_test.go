package subscribe_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
	"github.com/zoneprice/zoneprice/query/mail"
	"github.com/zoneprice/zoneprice/query/mail/smtptest"
	"github.com/zoneprice/zoneprice/query/subscribe"
)

// TestAnnounce mails an announcement through a relay started in the test
// to the subscribers in a real bucket: to the confirmed subscribers of its
// interest alone.
func TestAnnounce(t *testing.T) {
	_, js := bustest.Provisioned(t)
	relay := smtptest.Start(t)
	now := func() time.Time { return time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC) }
	mailer, err := mail.New(relay.Config("zoneprice <alerts@zoneprice.test>"), now)
	if err != nil {
		t.Fatal(err)
	}
	log, reg := slog.New(slog.DiscardHandler), prometheus.NewRegistry()
	sender, err := mail.NewSender(mailer, log, reg)
	if err != nil {
		t.Fatal(err)
	}
	cfg := subscribe.DefaultConfig()
	cfg.PublicURL, cfg.Secret = "https://zoneprice.test", []byte(strings.Repeat("s", 32))
	store := subscribe.NewStore(bus.Subscribers(js))
	svc, err := subscribe.New(cfg, store, sender, log, reg, now)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct {
		email     string
		confirmed bool
		interest  contracts.Interest
	}{
		{"ann@example.org", true, contracts.InterestArticles},
		{"bob@example.org", false, contracts.InterestArticles}, // not confirmed
		{"carol@example.org", true, contracts.InterestAPIUpdates},
	} {
		sub := &contracts.Subscriber{Email: s.email, Interests: []contracts.Interest{s.interest}, CreatedAt: now(), Confirmed: s.confirmed}
		if s.confirmed {
			at := now()
			sub.ConfirmedAt = &at
		}
		if _, err := store.Change(context.Background(), sub.Key(), func(*contracts.Subscriber) (*contracts.Subscriber, error) { return sub, nil }); err != nil {
			t.Fatal(err)
		}
	}
	res, err := svc.Announce(context.Background(), subscribe.Announcement{Interest: contracts.InterestArticles,
		Subject: "New: the renewal trap", Body: "First paragraph.\n\nSecond <paragraph>."})
	if err != nil || res != (subscribe.AnnounceResult{Sent: 1}) {
		t.Fatalf("Announce: %+v, %v; want one sent", res, err)
	}
	msgs := relay.Messages()
	if len(msgs) != 1 || msgs[0].To[0] != "ann@example.org" {
		t.Fatalf("mails %v, want one to ann", msgs)
	}
	text, html := msgs[0].Parts(t)
	if !strings.Contains(text, "Second <paragraph>.") || !strings.Contains(html, "<p>Second &lt;paragraph&gt;.</p>") || !strings.Contains(text, "Unsubscribe: https://zoneprice.test/subscribe/unsubscribe?token=") {
		t.Errorf("announcement:\n%s\n%s", text, html)
	}
	if _, err := svc.Announce(context.Background(), subscribe.Announcement{Interest: contracts.InterestPriceDrops, Subject: "x", Body: "y"}); err == nil {
		t.Error("an announcement to price-drops subscribers was accepted")
	}
}
