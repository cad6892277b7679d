package mail_test

import (
	"bytes"
	"context"
	"log/slog"
	netmail "net/mail"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/zoneprice/zoneprice/query/mail"
)

// outbox is a mailer into dir, at 9:00 on 26 November 2026.
func outbox(t *testing.T, dir string) mail.Mailer {
	t.Helper()
	now := func() time.Time { return time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC) }
	m, err := mail.New(mail.Config{From: "zoneprice <alerts@zoneprice.test>", Outbox: dir}, now)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestOutbox: without a relay, each mail is a file only its owner may
// read, in the format a relay would have been sent.
func TestOutbox(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "outbox")
	m := outbox(t, dir)
	link := "http://localhost:8080/subscribe/confirm?token=" + strings.Repeat("AbC_-", 16) + "=="
	msg := &mail.Message{To: "ann@example.org", Subject: "Hello", Text: "To confirm, open this link:\n\n" + link + "\n",
		HTML: `<p><a href="` + link + `">Confirm</a></p>`, Unsubscribe: "http://localhost:8080/subscribe/unsubscribe?token=x"}
	if err := m.Send(context.Background(), msg); err != nil {
		t.Fatal(err)
	}
	files, err := os.ReadDir(dir)
	if err != nil || len(files) != 1 {
		t.Fatalf("outbox holds %v (%v), want one mail", files, err)
	}
	info, _ := files[0].Info()
	if info.Mode().Perm() != 0o600 || !strings.HasSuffix(files[0].Name(), ".eml") {
		t.Errorf("%s mode %v, want an .eml of mode 0600", files[0].Name(), info.Mode().Perm())
	}
	f, err := os.Open(filepath.Join(dir, files[0].Name()))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// A person reads the file and copies the link from it: whole, on one
	// line, as the text part has it.
	raw, err := os.ReadFile(filepath.Join(dir, files[0].Name()))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), "\r\n"+link+"\r\n") {
		t.Errorf("the link %s is not whole on a CRLF line of the file:\n%s", link, raw)
	}
	if got := strings.Count(string(raw), "Content-Transfer-Encoding: 8bit"); got != 1 {
		t.Errorf("%d parts in 8bit, want the text part alone (the HTML part quoted-printable):\n%s", got, raw)
	}
	// A text line too long for SMTP (998 bytes) is quoted-printable even
	// in the outbox.
	long := *msg
	long.Text = strings.Repeat(".example, ", 120) + "\n" + link + "\n"
	if err := m.Send(context.Background(), &long); err != nil {
		t.Fatal(err)
	}
	files, err = os.ReadDir(dir)
	if err != nil || len(files) != 2 {
		t.Fatalf("outbox holds %v (%v), want two mails", files, err)
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.SplitSeq(string(b), "\n") {
			if len(strings.TrimSuffix(line, "\r")) > 998 {
				t.Errorf("%s: a line of %d bytes, more than SMTP's 998", f.Name(), len(line))
			}
		}
	}
	parsed, err := netmail.ReadMessage(f)
	if err != nil {
		t.Fatal(err)
	}
	h := parsed.Header
	if h.Get("To") != "<ann@example.org>" || h.Get("List-Unsubscribe") != "<http://localhost:8080/subscribe/unsubscribe?token=x>" ||
		h.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" || h.Get("Date") != "Thu, 26 Nov 2026 09:00:00 +0000" {
		t.Errorf("headers: %v", h)
	}
}

// TestSender: a mail handed over is counted as sent, one the mailer
// refuses as failed and logged without its recipient.
func TestSender(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "outbox")
	m := outbox(t, dir)
	var logs bytes.Buffer
	reg := prometheus.NewRegistry()
	s, err := mail.NewSender(m, slog.New(slog.NewTextHandler(&logs, nil)), reg)
	if err != nil {
		t.Fatal(err)
	}
	msg := func() *mail.Message {
		return &mail.Message{To: "ann@example.org", Subject: "Hello", Text: "Hello.\n", HTML: "<p>Hello.</p>", Unsubscribe: "http://localhost:8080/subscribe/unsubscribe?token=x"}
	}
	if !s.Send(context.Background(), msg(), "digest") {
		t.Fatalf("not sent to the outbox:\n%s", logs.String())
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if s.Send(context.Background(), msg(), "announce") {
		t.Fatal("sent into an outbox that is gone")
	}
	s.Failed("form")
	want := `
# HELP zoneprice_subscribe_mails_total Mails by kind (form, digest, announce) and result (sent, failed).
# TYPE zoneprice_subscribe_mails_total counter
zoneprice_subscribe_mails_total{kind="announce",result="failed"} 1
zoneprice_subscribe_mails_total{kind="digest",result="sent"} 1
zoneprice_subscribe_mails_total{kind="form",result="failed"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
	if problems, err := testutil.GatherAndLint(reg); err != nil || len(problems) > 0 {
		t.Errorf("metric lint: %v %v", problems, err)
	}
	if l := logs.String(); !strings.Contains(l, "written to the outbox") || !strings.Contains(l, "mail not sent") || strings.Contains(l, "ann@") {
		t.Errorf("log, want the outbox, the failure and no address:\n%s", l)
	}
}
