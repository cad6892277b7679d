// Package subscribe is the subscription by email: the form on the page
// (/subscribe), the double opt-in by a signed, expiring link, the pages to
// manage interests and to unsubscribe (RFC 8058 one-click included), the
// mail itself (SMTP to a relay through go-mail, or files in an outbox
// directory where no relay is configured), the daily digest of price drops
// (Alerts, a follower of the history stream) and announcements to those
// who chose an interest (Announce, for zoneprice-admin).
//
// Subscribers are kept in the JetStream key-value bucket
// contracts.SubscribersBucket (package bus reads and writes it) under a
// hash of their address. An address is
// written to that bucket and to the mail that goes to it, and nowhere
// else: not in logs (errors from the relay are logged with the address cut
// out), not in metrics, not in a key or a subject.
package subscribe

import (
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
)

// Config configures subscriptions.
type Config struct {
	// PublicURL is where people reach the service ("https://zoneprice.example"):
	// every link in a mail starts with it. It is https, except on a
	// loopback host (local development), where one-click unsubscribe
	// cannot work anyway.
	PublicURL string
	// Secret signs the links in mails and the forms' CSRF tokens: at
	// least 32 bytes, the same on every process that makes or checks a
	// link (query pods, the alerts, zoneprice-admin).
	Secret []byte
	// ConfirmTTL is how long a confirmation link works; an address not
	// confirmed by then is deleted.
	ConfirmTTL time.Duration
	// LinkTTL is how long the manage and unsubscribe links of a mail work.
	LinkTTL time.Duration
	// MailInterval is the per-address limit: the form sends an address at
	// most one mail (a confirmation, or a notice that it is already
	// subscribed) in this time, whatever is submitted.
	MailInterval time.Duration
	// PerClientLimit is how many subscriptions one client address may
	// submit an hour, in one process.
	PerClientLimit int
	// Mail is how mail is sent.
	Mail MailConfig
}

// DefaultConfig confirms within two days, keeps mail links working for a
// year, and sends an address at most one mail from the form an hour.
func DefaultConfig() Config {
	return Config{
		ConfirmTTL:     48 * time.Hour,
		LinkTTL:        366 * 24 * time.Hour,
		MailInterval:   time.Hour,
		PerClientLimit: 10,
		Mail:           DefaultMailConfig(),
	}
}

// MinSecretLen is the shortest secret accepted, in bytes.
const MinSecretLen = 32

// Validate reports a configuration that cannot work, naming the field.
func (c Config) Validate() error {
	u, err := url.Parse(c.PublicURL)
	switch {
	case c.PublicURL == "":
		return contracts.Invalid("PublicURL", "missing: the links in mails need the address people reach the service at")
	case err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || (u.Path != "" && u.Path != "/"):
		return contracts.Invalid("PublicURL", "%q is not a URL such as https://zoneprice.example", c.PublicURL)
	case u.Scheme != "https" && !(u.Scheme == "http" && loopback(u.Hostname())):
		return contracts.Invalid("PublicURL", "must be https (one-click unsubscribe needs it), or http on a loopback host")
	case len(c.Secret) < MinSecretLen:
		return contracts.Invalid("Secret", "must be at least %d bytes", MinSecretLen)
	case c.ConfirmTTL < time.Minute:
		return contracts.Invalid("ConfirmTTL", "must be at least a minute")
	case c.LinkTTL < c.ConfirmTTL:
		return contracts.Invalid("LinkTTL", "must be at least ConfirmTTL (%v)", c.ConfirmTTL)
	case c.MailInterval < 0:
		return contracts.Invalid("MailInterval", "must not be negative")
	case c.PerClientLimit < 1:
		return contracts.Invalid("PerClientLimit", "must be at least 1")
	}
	return contracts.InField("Mail", c.Mail.Validate())
}

// base is PublicURL without a trailing slash.
func (c Config) base() string { return strings.TrimSuffix(c.PublicURL, "/") }

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// TLSMode is how the connection to the relay is encrypted.
type TLSMode string

// The TLS modes.
const (
	// TLSStartTLS requires STARTTLS: the relay must offer it, or nothing
	// is sent (port 587).
	TLSStartTLS TLSMode = "starttls"
	// TLSImplicit speaks TLS from the first byte (port 465).
	TLSImplicit TLSMode = "tls"
	// TLSNone sends in the clear: only for a relay on this machine.
	TLSNone TLSMode = "none"
)

// MailConfig says how mail leaves: through an SMTP relay (Host set), or
// into an outbox directory (Outbox set, no Host), or not at all (neither:
// the form says subscriptions are unavailable and answers 503).
type MailConfig struct {
	// From is the sender's address, with an optional name
	// ("zoneprice <alerts@zoneprice.example>").
	From string
	// Host and Port are the relay's; TLS how the connection is encrypted.
	Host string
	Port int
	TLS  TLSMode
	// Username and Password authenticate to the relay (AUTH PLAIN or
	// whatever the relay offers, over TLS only); empty sends without.
	Username string
	Password string `json:"-"`
	// CAFile is a PEM file of the certificate authorities to trust for
	// the relay instead of the system's.
	CAFile string
	// Timeout bounds one connection to the relay.
	Timeout time.Duration
	// Outbox is a directory each mail is written to as a file
	// (<time>-<random>.eml), when no relay is configured: for make run,
	// so that a person can open the confirmation link from there.
	Outbox string
}

// DefaultMailConfig sends to port 587 with STARTTLS required.
func DefaultMailConfig() MailConfig {
	return MailConfig{Port: 587, TLS: TLSStartTLS, Timeout: 30 * time.Second}
}

// Enabled reports whether mail can be sent at all.
func (m MailConfig) Enabled() bool { return m.Host != "" || m.Outbox != "" }

// Validate reports a configuration that cannot work, naming the field. A
// configuration that sends nothing is valid: subscriptions are then
// unavailable.
func (m MailConfig) Validate() error {
	if !m.Enabled() {
		return nil
	}
	if _, err := parseFrom(m.From); err != nil {
		return contracts.Invalid("From", "%v", err)
	}
	if m.Host == "" {
		return nil
	}
	switch {
	case m.Port < 1 || m.Port > 65535:
		return contracts.Invalid("Port", "%d is not a port", m.Port)
	case m.TLS != TLSStartTLS && m.TLS != TLSImplicit && m.TLS != TLSNone:
		return contracts.Invalid("TLS", "%q is not %s, %s or %s", m.TLS, TLSStartTLS, TLSImplicit, TLSNone)
	case m.TLS == TLSNone && !loopback(m.Host):
		return contracts.Invalid("TLS", "%s only for a relay on this machine (a loopback host), not %s", TLSNone, m.Host)
	case m.Password != "" && m.Username == "":
		return contracts.Invalid("Username", "missing beside a password")
	case m.Timeout <= 0:
		return contracts.Invalid("Timeout", "must be positive")
	}
	return nil
}

func (m MailConfig) String() string {
	if m.Host != "" {
		return fmt.Sprintf("smtp %s:%d (%s)", m.Host, m.Port, m.TLS)
	}
	if m.Outbox != "" {
		return "outbox " + m.Outbox
	}
	return "none"
}
