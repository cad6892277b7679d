package mail

import (
	"errors"
	"fmt"
	"net"
	netmail "net/mail"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
)

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

// Config says how mail leaves: through an SMTP relay (Host set), or into
// an outbox directory (Outbox set, no Host), or not at all (neither: the
// form says subscriptions are unavailable and answers 503).
type Config struct {
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

// DefaultConfig sends to port 587 with STARTTLS required.
func DefaultConfig() Config {
	return Config{Port: 587, TLS: TLSStartTLS, Timeout: 30 * time.Second}
}

// Enabled reports whether mail can be sent at all.
func (m Config) Enabled() bool { return m.Host != "" || m.Outbox != "" }

// Validate reports a configuration that cannot work, naming the field. A
// configuration that sends nothing is valid: subscriptions are then
// unavailable.
func (m Config) Validate() error {
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
	case m.TLS == TLSNone && !Loopback(m.Host):
		return contracts.Invalid("TLS", "%s only for a relay on this machine (a loopback host), not %s", TLSNone, m.Host)
	case m.Password != "" && m.Username == "":
		return contracts.Invalid("Username", "missing beside a password")
	case m.Timeout <= 0:
		return contracts.Invalid("Timeout", "must be positive")
	}
	return nil
}

func (m Config) String() string {
	if m.Host != "" {
		return fmt.Sprintf("smtp %s:%d (%s)", m.Host, m.Port, m.TLS)
	}
	if m.Outbox != "" {
		return "outbox " + m.Outbox
	}
	return "none"
}

func parseFrom(from string) (*netmail.Address, error) {
	if from == "" {
		return nil, errors.New("missing: the sender's address, such as zoneprice <alerts@zoneprice.example>")
	}
	a, err := netmail.ParseAddress(from)
	if err != nil {
		return nil, fmt.Errorf("%q is not an address such as zoneprice <alerts@zoneprice.example>", from)
	}
	return a, nil
}

// Loopback reports whether host is this machine ("localhost" or a
// loopback address): the one place a relay may be spoken to in the clear,
// and a mail's links may be http.
func Loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
