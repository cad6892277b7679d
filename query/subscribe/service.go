package subscribe

import (
	"context"
	"embed"
	"fmt"
	htmltemplate "html/template"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/query/mail"
	"github.com/zoneprice/zoneprice/query/pages"
)

//go:embed templates
var templateFS embed.FS

// The templates are parsed once and never changed: the pages, in the
// site's layout (package pages: its header, navigation, footer, stylesheet
// and script), and the mails: the form's and the announcements (in
// templates/mail, apart from the pages).
var (
	pageTemplates = htmltemplate.Must(htmltemplate.Must(pages.Layout()).ParseFS(templateFS, "templates/*.html"))
	mails         = mail.MustParse(templateFS, "templates/mail/mail.txt", "templates/mail/mail.html")
)

// Service is the subscription: the form's handlers and the mail they
// send, the announcements, and what the digests (package digest) take
// from it: the store, the signed links of a subscriber's mails, the
// sender, and the rule for addresses never confirmed. A nil *Service is a
// server without mail: its handlers answer that subscriptions are
// unavailable (503).
type Service struct {
	cfg     Config
	store   *Store
	sender  *mail.Sender
	tok     tokens
	log     *slog.Logger
	now     func() time.Time
	m       *metrics
	clients *formLimit
	// queue holds the form's mails until Run sends them: the answer to a
	// submission does not wait for the relay, so its timing does not tell
	// a new address from a known one.
	queue chan *mail.Message
}

// queueLen bounds the form's mails waiting to be sent; past it a mail is
// refused, logged and counted, never queued without bound.
const queueLen = 1024

// New returns the subscription service. sender sends its mail, and must
// not be nil (a server without mail has a nil *Service).
func New(cfg Config, store *Store, sender *mail.Sender, log *slog.Logger, reg prometheus.Registerer, now func() time.Time) (*Service, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m, err := newMetrics(reg)
	if err != nil {
		return nil, err
	}
	clients := newFormLimit(cfg.PerClientLimit, now)
	if err := reg.Register(prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "zoneprice_subscribe_limit_evictions_total",
		Help: "Clients the subscription form's limit forgot before their quota had refilled, to make room for others: a flood of clients.",
	}, clients.evicted)); err != nil {
		return nil, fmt.Errorf("register subscribe metrics: %w", err)
	}
	return &Service{cfg: cfg, store: store, sender: sender, tok: tokens{secret: cfg.Secret, now: now}, log: log, now: now, m: m,
		clients: clients, queue: make(chan *mail.Message, queueLen)}, nil
}

// Run sends the form's mails until ctx ends, then those still queued.
func (s *Service) Run(ctx context.Context) error {
	for {
		select {
		case msg := <-s.queue:
			s.sender.Send(ctx, msg, "form")
		case <-ctx.Done():
			drain, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			for {
				select {
				case msg := <-s.queue:
					s.sender.Send(drain, msg, "form")
				default:
					return nil
				}
			}
		}
	}
}

// enqueue hands a form's mail to Run.
func (s *Service) enqueue(msg *mail.Message) {
	select {
	case s.queue <- msg:
	default:
		s.sender.Failed("form")
		s.log.Error("mail queue full: a confirmation or notice was not sent", "queued", queueLen)
	}
}

// Store is the subscribers' store.
func (s *Service) Store() *Store { return s.store }

// Links are the links of a mail to the subscriber under key: the site,
// and its manage and one-click unsubscribe links, signed for LinkTTL.
func (s *Service) Links(key string) mail.Links {
	t := s.tok.make(purposeManage, key, s.cfg.LinkTTL)
	return mail.Links{Site: s.URL("/"), Manage: s.URL("/subscribe/manage?token=" + t),
		Unsubscribe: s.URL("/subscribe/unsubscribe?token=" + t)}
}

// URL is the public address of path ("/zones/.com").
func (s *Service) URL(path string) string { return s.cfg.base() + path }

// MessageID is a Message-ID on the service's host, for a mail whose ID
// is the same each time it is sent.
func (s *Service) MessageID(local string) string { return local + "@" + hostOf(s.cfg.PublicURL) }

// Mail renders the mail named kind of t to sub, with its links, data's
// fields beside them.
func (s *Service) Mail(t *mail.Templates, sub *contracts.Subscriber, kind, subject string, data map[string]any) (*mail.Message, error) {
	return t.Render(sub.Email, kind, subject, s.Links(sub.Key()), data)
}

// Send sends msg through the service's sender, kind labelling its count,
// and reports whether it was sent.
func (s *Service) Send(ctx context.Context, msg *mail.Message, kind string) bool {
	return s.sender.Send(ctx, msg, kind)
}

// Expired reports an unconfirmed subscriber whose last confirmation link
// no longer works at now.
func (s *Service) Expired(sub *contracts.Subscriber, now time.Time) bool {
	if sub.Confirmed {
		return false
	}
	last := sub.CreatedAt
	if sub.FormMailAt != nil {
		last = *sub.FormMailAt
	}
	return now.Sub(last) > s.cfg.ConfirmTTL
}

// DeleteExpired deletes the subscriber under key if it is Expired at now:
// an address not confirmed in time is not kept.
func (s *Service) DeleteExpired(ctx context.Context, key string, now time.Time) error {
	_, err := s.store.Change(ctx, key, func(cur *contracts.Subscriber) (*contracts.Subscriber, error) {
		if cur == nil || !s.Expired(cur, now) {
			return nil, bus.ErrUnchanged
		}
		return nil, nil
	})
	return err
}

func hostOf(publicURL string) string {
	h := strings.TrimPrefix(strings.TrimPrefix(publicURL, "https://"), "http://")
	if i := strings.IndexAny(h, ":/"); i >= 0 {
		h = h[:i]
	}
	return h
}

// confirmation is the mail that asks sub to confirm.
func (s *Service) confirmation(sub *contracts.Subscriber) (*mail.Message, error) {
	return s.Mail(mails, sub, "confirm", "Confirm your zoneprice subscription", map[string]any{
		"Interests":     interestLabels(sub),
		"Confirm":       s.URL("/subscribe/confirm?token=" + s.tok.make(purposeConfirm, sub.Key(), s.cfg.ConfirmTTL)),
		"ConfirmWithin": humanDuration(s.cfg.ConfirmTTL),
	})
}

// notice tells a confirmed subscriber that someone subscribed the address
// again.
func (s *Service) notice(sub *contracts.Subscriber) (*mail.Message, error) {
	return s.Mail(mails, sub, "notice", "You are already subscribed to zoneprice", map[string]any{})
}

// interestLabels are sub's interests as a person reads them.
func interestLabels(sub *contracts.Subscriber) []string {
	var out []string
	zones := unicodeZones(sub.Zones)
	for _, i := range sub.Interests {
		label := interestLabel[i]
		switch i {
		case contracts.InterestPriceDrops:
			label = "Price drops of at least " + mail.Percent(sub.MinDropPercent) + " in " + zones + ", in a daily digest"
		case contracts.InterestRenewalIncreases:
			label = "Every rise of the renewal price in " + zones + ", in the same daily digest"
		}
		out = append(out, label)
	}
	return out
}

// unicodeZones are zones as a person reads them: ".com, .рф".
func unicodeZones(zones []string) string {
	out := make([]string, len(zones))
	for i, z := range zones {
		n, _ := contracts.NormalizeZone(z)
		out[i] = n.Unicode
	}
	return strings.Join(out, ", ")
}

var interestLabel = map[contracts.Interest]string{
	contracts.InterestPriceDrops:       "Price drops, in a daily digest",
	contracts.InterestRenewalIncreases: "Renewal price increases, in the same daily digest",
	contracts.InterestArticles:         "New articles",
	contracts.InterestAPIUpdates:       "Changes to the API",
}

func humanDuration(d time.Duration) string {
	switch {
	case d >= 48*time.Hour && d%(24*time.Hour) == 0:
		return strconv.Itoa(int(d/(24*time.Hour))) + " days"
	case d >= 2*time.Hour && d%time.Hour == 0:
		return strconv.Itoa(int(d/time.Hour)) + " hours"
	}
	return d.String()
}
