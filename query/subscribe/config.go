// Package subscribe is the subscription by email: the form on the site
// (/subscribe) and its double opt-in by a signed, expiring link; the pages
// to change what an address gets and to unsubscribe (RFC 8058 one-click
// included); the per-client limit on the form; the subscribers' store; and
// the signed links every mail to a subscriber carries (Service.Links).
//
// Announcements (Announce, for zoneprice-admin announce) are here too,
// not in a package of their own: they are what two of the form's
// interests promise, sent once to the confirmed subscribers of one, and
// they need exactly what the form's own mails need (the store, the links,
// the sender) and keep no state. The daily price-drop digests, which
// follow the history stream and keep what they collect in each record,
// are package digest; how mail leaves, and what every mail has in common,
// package mail.
//
// Subscribers are kept in the JetStream key-value bucket
// contracts.SubscribersBucket (package bus reads and writes it) under a
// hash of their address. An address is written to that bucket and to the
// mail that goes to it, and nowhere else: not in logs (errors from the
// relay are logged with the address cut out), not in metrics, not in a
// key or a subject.
package subscribe

import (
	"net/url"
	"strings"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/query/mail"
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
	// link (query pods, the digests, zoneprice-admin).
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
}

// DefaultConfig confirms within two days, keeps mail links working for a
// year, and sends an address at most one mail from the form an hour.
func DefaultConfig() Config {
	return Config{
		ConfirmTTL:     48 * time.Hour,
		LinkTTL:        366 * 24 * time.Hour,
		MailInterval:   time.Hour,
		PerClientLimit: 10,
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
	case u.Scheme != "https" && !(u.Scheme == "http" && mail.Loopback(u.Hostname())):
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
	return nil
}

// base is PublicURL without a trailing slash.
func (c Config) base() string { return strings.TrimSuffix(c.PublicURL, "/") }
