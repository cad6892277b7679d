package mail

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	netmail "net/mail"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// Message is one mail to one subscriber. Every message carries the
// subscriber's manage link and one-click unsubscribe (List-Unsubscribe
// with List-Unsubscribe-Post, RFC 8058), and a plain-text and an HTML
// part.
type Message struct {
	To      string
	Subject string
	Text    string
	HTML    string
	// Unsubscribe is the one-click URL the List-Unsubscribe header names.
	Unsubscribe string
	// ID is the Message-ID without brackets; empty makes a random one. A
	// digest's is the same each time it is sent, so a receiver that sees
	// it twice may keep one.
	ID string
	// Bulk marks a message sent to many (digests, announcements):
	// Precedence: bulk, so that autoresponders stay quiet.
	Bulk bool
}

// Mailer sends messages.
type Mailer interface {
	// Send delivers msg to the relay, or fails with an error that does
	// not name the recipient.
	Send(ctx context.Context, msg *Message) error
}

// New returns the mailer cfg describes: SMTP to a relay, files in an
// outbox, or nil when it describes none. cfg has been validated.
func New(cfg Config, now func() time.Time) (Mailer, error) {
	from, err := parseFrom(cfg.From)
	switch {
	case !cfg.Enabled():
		return nil, nil
	case err != nil:
		return nil, err
	case cfg.Host != "":
		s := &SMTP{cfg: cfg, from: from, now: now}
		if cfg.CAFile != "" {
			pem, err := os.ReadFile(cfg.CAFile)
			if err != nil {
				return nil, err
			}
			s.roots = x509.NewCertPool()
			if !s.roots.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("%s holds no PEM certificate", cfg.CAFile)
			}
		}
		return s, nil
	}
	if err := os.MkdirAll(cfg.Outbox, 0o700); err != nil {
		return nil, fmt.Errorf("outbox: %w", err)
	}
	return &Outbox{dir: cfg.Outbox, from: from, now: now}, nil
}

// compose builds msg as go-mail writes it: RFC 5322 headers (Date,
// Message-ID, encoded words where needed), multipart/alternative of the
// text and HTML parts, quoted-printable. With readable (the outbox, which
// a person reads to copy its links), the text part is 8bit instead, with
// CRLF line ends, so that each link is whole on its line and "=" is not
// "=3D"; unless a line of it is longer than SMTP's 998 bytes (50 zones of
// a subscription on one line), which only quoted-printable may carry.
func compose(msg *Message, from *netmail.Address, now time.Time, readable bool) (*gomail.Msg, error) {
	m := gomail.NewMsg()
	m.FromMailAddress(from)
	if err := m.To(msg.To); err != nil {
		return nil, errors.New("the recipient is not an address")
	}
	m.Subject(msg.Subject)
	m.SetDateWithValue(now)
	if msg.ID == "" {
		msg.ID = randomHex(16) + "@" + domainOf(from.Address)
	}
	m.SetMessageIDWithValue(msg.ID)
	// One-click needs an https URL (RFC 8058 §3.1); go-mail refuses
	// anything else, so a local http URL is set as is, for development.
	if err := m.SetListUnsubscribeOneClick(msg.Unsubscribe); err != nil {
		m.SetListUnsubscribe(msg.Unsubscribe)
		m.SetListUnsubscribePost()
	}
	if msg.Bulk {
		m.SetBulk()
	}
	m.SetGenHeader("Auto-Submitted", "auto-generated")
	m.SetUserAgent("zoneprice")
	text, enc := msg.Text, gomail.EncodingQP
	if readable && !slices.ContainsFunc(strings.Split(text, "\n"), func(l string) bool { return len(strings.TrimSuffix(l, "\r")) > 998 }) {
		text, enc = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\n", "\r\n"), gomail.NoEncoding
	}
	m.SetBodyString(gomail.TypeTextPlain, text, gomail.WithPartEncoding(enc))
	m.AddAlternativeString(gomail.TypeTextHTML, msg.HTML)
	return m, nil
}

func domainOf(addr string) string { return addr[strings.LastIndexByte(addr, '@')+1:] }

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// SMTP sends through a relay. github.com/wneessen/go-mail speaks SMTP:
// net/smtp is frozen, and go-mail is maintained, requires STARTTLS when
// asked (TLSMandatory), authenticates (PLAIN, LOGIN, SCRAM, or what the
// relay offers), and writes RFC-correct headers and MIME parts.
type SMTP struct {
	cfg  Config
	from *netmail.Address
	now  func() time.Time
	// roots replace the system's when Config.CAFile names some.
	roots *x509.CertPool
}

var _ Mailer = (*SMTP)(nil)

// Send implements Mailer: one connection per message, which a relay
// answers in milliseconds and which leaves nothing open between mails.
func (s *SMTP) Send(ctx context.Context, msg *Message) error {
	m, err := compose(msg, s.from, s.now(), false)
	if err != nil {
		return err
	}
	opts := []gomail.Option{gomail.WithPort(s.cfg.Port), gomail.WithTimeout(s.cfg.Timeout), gomail.WithHELO(domainOf(s.from.Address))}
	switch s.cfg.TLS {
	case TLSStartTLS:
		opts = append(opts, gomail.WithTLSPortPolicy(gomail.TLSMandatory))
	case TLSImplicit:
		opts = append(opts, gomail.WithSSLPort(false))
	case TLSNone:
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	}
	if s.roots != nil {
		opts = append(opts, gomail.WithTLSConfig(&tls.Config{ServerName: s.cfg.Host, RootCAs: s.roots, MinVersion: tls.VersionTLS12}))
	}
	if s.cfg.Username != "" {
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover), gomail.WithUsername(s.cfg.Username), gomail.WithPassword(s.cfg.Password))
	}
	c, err := gomail.NewClient(s.cfg.Host, opts...)
	if err != nil {
		return fmt.Errorf("smtp client: %w", err)
	}
	if err := c.DialAndSendWithContext(ctx, m); err != nil {
		return redact(fmt.Errorf("send through %s:%d: %w", s.cfg.Host, s.cfg.Port, err), msg.To)
	}
	return nil
}

// redact cuts addr out of err's text: a relay's refusal often quotes the
// recipient, and errors are logged.
func redact(err error, addr string) error {
	text := err.Error()
	if addr == "" || !strings.Contains(strings.ToLower(text), strings.ToLower(addr)) {
		return err
	}
	lower, needle := strings.ToLower(text), strings.ToLower(addr)
	var b strings.Builder
	for {
		i := strings.Index(lower, needle)
		if i < 0 {
			b.WriteString(text)
			break
		}
		b.WriteString(text[:i])
		b.WriteString("<recipient>")
		text, lower = text[i+len(needle):], lower[i+len(needle):]
	}
	return errors.New(b.String())
}

// Outbox writes each message to a file in a directory instead of sending
// it: where no relay is configured (make run), so that nothing is
// silently dropped and a person can open the confirmation link. Files are
// readable by their owner alone: they hold addresses.
type Outbox struct {
	dir  string
	from *netmail.Address
	now  func() time.Time
}

var _ Mailer = (*Outbox)(nil)

// Send implements Mailer.
func (o *Outbox) Send(_ context.Context, msg *Message) error {
	now := o.now()
	m, err := compose(msg, o.from, now, true)
	if err != nil {
		return err
	}
	// Written under a hidden name, then renamed: whoever lists the
	// directory sees whole mails only.
	base := now.UTC().Format("20060102T150405Z") + "-" + randomHex(4) + ".eml"
	name, tmp := filepath.Join(o.dir, base), filepath.Join(o.dir, "."+base)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("outbox: %w", err)
	}
	_, err = m.WriteTo(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, name)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("outbox: write %s: %w", name, err)
	}
	return nil
}

// Dir is the outbox directory.
func (o *Outbox) Dir() string { return o.dir }
