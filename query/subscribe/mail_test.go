package subscribe_test

import (
	"context"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/query/subscribe"
)

// TestOutbox: without a relay, each mail is a file only its owner may
// read, in the format a relay would have been sent.
func TestOutbox(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "outbox")
	now := func() time.Time { return time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC) }
	m, err := subscribe.NewMailer(subscribe.MailConfig{From: "zoneprice <alerts@zoneprice.test>", Outbox: dir}, now)
	if err != nil {
		t.Fatal(err)
	}
	link := "http://localhost:8080/subscribe/confirm?token=" + strings.Repeat("AbC_-", 16) + "=="
	msg := &subscribe.Message{To: "ann@example.org", Subject: "Hello", Text: "To confirm, open this link:\n\n" + link + "\n",
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
	parsed, err := mail.ReadMessage(f)
	if err != nil {
		t.Fatal(err)
	}
	h := parsed.Header
	if h.Get("To") != "<ann@example.org>" || h.Get("List-Unsubscribe") != "<http://localhost:8080/subscribe/unsubscribe?token=x>" ||
		h.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" || h.Get("Date") != "Thu, 26 Nov 2026 09:00:00 +0000" {
		t.Errorf("headers: %v", h)
	}
}
