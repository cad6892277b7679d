package app

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/query/digest"
	"github.com/zoneprice/zoneprice/query/mail"
	"github.com/zoneprice/zoneprice/query/subscribe"
)

// SubscribeFlags are the subscription's settings: where people reach the
// service, the secret its links are signed with, and how mail leaves.
// Credentials (the secret, the relay's password) come from the
// environment or files only.
type SubscribeFlags struct {
	Config subscribe.Config
	// Mail is how the mails leave.
	Mail mail.Config
	// WithDigests runs the price-drop digests beside the query service
	// (the all-in-one's choice).
	WithDigests bool
	// Names are the flags that set Config's fields, and Mail's as
	// "Mail.<field>".
	Names  FlagNames
	getenv Env
	tls    string
}

// The variables of the subscription's credentials: each or its _FILE.
const (
	subscribeSecretEnv = "ZONEPRICE_SUBSCRIBE_SECRET"
	smtpUserEnv        = "ZONEPRICE_SMTP_USERNAME"
	smtpPasswordEnv    = "ZONEPRICE_SMTP_PASSWORD"
)

// RegisterSubscribeFlags declares the subscription's flags.
func RegisterSubscribeFlags(fs *flag.FlagSet, getenv Env) (*SubscribeFlags, error) {
	f := &SubscribeFlags{Config: subscribe.DefaultConfig(), Mail: mail.DefaultConfig(), Names: FlagNames{}, getenv: getenv}
	c, m := &f.Config, &f.Mail
	StringVar(fs, getenv, &c.PublicURL, "public-url", "ZONEPRICE_PUBLIC_URL", "", "address people reach the service at, which mails link to (https://…)")
	f.Names.add("PublicURL", "public-url", "ZONEPRICE_PUBLIC_URL")
	f.Names["Secret"] = subscribeSecretEnv + " or " + subscribeSecretEnv + "_FILE"
	StringVar(fs, getenv, &m.From, "mail-from", "ZONEPRICE_MAIL_FROM", "", `sender of the subscription mails ("zoneprice <alerts@example.org>")`)
	f.Names.add("Mail.From", "mail-from", "ZONEPRICE_MAIL_FROM")
	StringVar(fs, getenv, &m.Host, "smtp-host", "ZONEPRICE_SMTP_HOST", "", "SMTP relay that sends the subscription mails (none: --mail-outbox, or no subscriptions)")
	f.Names.add("Mail.Host", "smtp-host", "ZONEPRICE_SMTP_HOST")
	if err := IntVar(fs, getenv, &m.Port, "smtp-port", "ZONEPRICE_SMTP_PORT", m.Port, "SMTP relay's port"); err != nil {
		return nil, err
	}
	f.Names.add("Mail.Port", "smtp-port", "ZONEPRICE_SMTP_PORT")
	StringVar(fs, getenv, &f.tls, "smtp-tls", "ZONEPRICE_SMTP_TLS", string(m.TLS), "starttls (required), tls (implicit, port 465) or none (a relay on this machine only)")
	f.Names.add("Mail.TLS", "smtp-tls", "ZONEPRICE_SMTP_TLS")
	StringVar(fs, getenv, &m.CAFile, "smtp-ca", "ZONEPRICE_SMTP_CA", "", "PEM file of the CAs to trust for the relay instead of the system's")
	f.Names.add("Mail.CAFile", "smtp-ca", "ZONEPRICE_SMTP_CA")
	f.Names["Mail.Username"] = smtpUserEnv
	StringVar(fs, getenv, &m.Outbox, "mail-outbox", "ZONEPRICE_MAIL_OUTBOX", "", "without --smtp-host: write each mail to a file in this directory instead")
	f.Names.add("Mail.Outbox", "mail-outbox", "ZONEPRICE_MAIL_OUTBOX")
	return f, nil
}

// Local gives the all-in-one's defaults to what was not set: mail into
// dataDir/outbox when no relay is named, links to http://localhost at
// listen's port, and a secret made on the first start and kept in
// dataDir/credentials/subscribe.key (0600), as the NATS seeds are.
func (f *SubscribeFlags) Local(dataDir, listen string) error {
	c, m := &f.Config, &f.Mail
	if m.Host == "" && m.Outbox == "" {
		m.Outbox = filepath.Join(dataDir, "outbox")
	}
	if m.From == "" {
		m.From = "zoneprice <zoneprice@localhost.localdomain>"
	}
	if c.PublicURL == "" {
		_, port, err := net.SplitHostPort(listen)
		if err != nil {
			return fmt.Errorf("--listen %q: %w", listen, err)
		}
		c.PublicURL = "http://localhost:" + port
	}
	if f.getenv(subscribeSecretEnv) != "" || f.getenv(subscribeSecretEnv+"_FILE") != "" {
		return nil
	}
	path := LocalSubscribeSecretFile(dataDir)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return err
	}
	if _, err := writeNewFile(path, []byte(hex.EncodeToString(secret)+"\n")); err != nil {
		return err
	}
	b, err := readOwnerOnly(path)
	if err != nil {
		return err
	}
	c.Secret = b
	return nil
}

// LocalSubscribeSecretFile is where the all-in-one with data directory
// dataDir keeps the secret its subscription links are signed with.
func LocalSubscribeSecretFile(dataDir string) string {
	return filepath.Join(localCredentialsDir(dataDir), "subscribe.key")
}

// UseLocal lets a command beside the all-in-one (zoneprice-admin announce)
// use its secret, outbox and address when it is given none and they
// exist: the data directory of ZONEPRICE_DATA_DIR, or data/nats.
func (f *SubscribeFlags) UseLocal() error {
	dataDir := envOr(f.getenv, dataDirEnv, DefaultDataDir)
	if _, err := os.Stat(LocalSubscribeSecretFile(dataDir)); err != nil {
		return nil
	}
	listen := ":8080"
	if v := f.getenv("ZONEPRICE_LISTEN"); v != "" {
		listen = v
	}
	if f.getenv(subscribeSecretEnv) == "" && f.getenv(subscribeSecretEnv+"_FILE") == "" {
		b, err := readOwnerOnly(LocalSubscribeSecretFile(dataDir))
		if err != nil {
			return err
		}
		f.Config.Secret = b
	}
	secret := f.Config.Secret
	err := f.Local(dataDir, listen)
	if secret != nil {
		f.Config.Secret = secret
	}
	return err
}

// readOwnerOnly reads a secret file, refusing it when other users may
// read it.
func readOwnerOnly(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := ownerOnly(path, info, "600", ", who could sign subscription links with it"); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(path)
	return bytes.TrimSpace(b), err
}

// Service composes the subscription service on js, or nil when no mail
// can be sent (no relay, no outbox): the form then answers that
// subscriptions are unavailable, which the log says too.
func (f *SubscribeFlags) Service(js jetstream.JetStream, log *slog.Logger, reg prometheus.Registerer) (*subscribe.Service, error) {
	c, m := &f.Config, &f.Mail
	m.TLS = mail.TLSMode(f.tls)
	if !m.Enabled() {
		log.Info("subscriptions unavailable: no mail is sent without --smtp-host or --mail-outbox; the form answers 503")
		return nil, nil
	}
	if c.Secret == nil {
		s, err := Secret(f.getenv, subscribeSecretEnv)
		if err != nil {
			return nil, err
		}
		c.Secret = []byte(s)
	}
	user, err := Secret(f.getenv, smtpUserEnv)
	if err != nil {
		return nil, err
	}
	password, err := Secret(f.getenv, smtpPasswordEnv)
	if err != nil {
		return nil, err
	}
	m.Username, m.Password = user, password
	if err := c.Validate(); err != nil {
		return nil, f.Names.Explain(err)
	}
	if err := m.Validate(); err != nil {
		return nil, f.Names.Explain(contracts.InField("Mail", err))
	}
	mailer, err := mail.New(*m, time.Now)
	if err != nil {
		return nil, fmt.Errorf("mail: %w", err)
	}
	if m.Host == "" {
		log.Warn("no SMTP relay: subscription mails are written to the outbox, not sent", "dir", m.Outbox)
	} else {
		log.Info("subscription mails go through the relay", "relay", m.String())
	}
	sender, err := mail.NewSender(mailer, log, reg)
	if err != nil {
		return nil, err
	}
	return subscribe.New(*c, subscribe.NewStore(bus.Subscribers(js)), sender, log, reg, time.Now)
}

// Digests composes the digests (price drops, renewal increases) on js (zoneprice-notify runs
// them), or nil, logged, when no mail can be sent.
func (f *SubscribeFlags) Digests(js jetstream.JetStream, log *slog.Logger, reg prometheus.Registerer) (func(context.Context) error, error) {
	s, err := f.Service(js, log, reg)
	if err != nil || s == nil {
		return nil, err
	}
	d, err := newDigests(s, js, log, reg)
	if err != nil {
		return nil, err
	}
	return d.Run, nil
}

// newDigests is the digests of s's subscribers, collected by
// digest.AlertsConsumer on js's history stream.
func newDigests(s *subscribe.Service, js jetstream.JetStream, log *slog.Logger, reg prometheus.Registerer) (*digest.Service, error) {
	return digest.New(s, bus.NewDurable(js, contracts.HistoryStream, bus.AlertsConsumerConfig()), log, reg, time.Now, time.Minute)
}

// errNoMail is a command that must send mail without a way to.
var errNoMail = errors.New("no mail can be sent: set --smtp-host (ZONEPRICE_SMTP_HOST) or --mail-outbox (ZONEPRICE_MAIL_OUTBOX)")

// MailService is Service for a command that must send mail.
func (f *SubscribeFlags) MailService(js jetstream.JetStream, log *slog.Logger, reg prometheus.Registerer) (*subscribe.Service, error) {
	s, err := f.Service(js, log, reg)
	if err == nil && s == nil {
		return nil, errNoMail
	}
	return s, err
}
