package subscribe

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	htmltemplate "html/template"
	"log/slog"
	"math"
	"strconv"
	"strings"
	texttemplate "text/template"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/query/pages"
)

//go:embed templates
var templateFS embed.FS

// The templates are parsed once and never changed: the pages, in the
// site's layout (package pages: its header, navigation, footer, stylesheet
// and script), and the plain-text and HTML parts of each mail.
var (
	pageTemplates = htmltemplate.Must(htmltemplate.Must(pages.Layout()).ParseFS(templateFS, "templates/*.html"))
	mailText      = texttemplate.Must(texttemplate.ParseFS(templateFS, "templates/mail.txt"))
	mailHTML      = htmltemplate.Must(htmltemplate.New("").ParseFS(templateFS, "templates/mail.html"))
)

// Service is the subscription: the form's handlers and the mail they
// send. A nil *Service is a server without mail: its handlers answer that
// subscriptions are unavailable (503).
type Service struct {
	cfg     Config
	store   *Store
	mailer  Mailer
	tok     tokens
	log     *slog.Logger
	now     func() time.Time
	m       *metrics
	clients *formLimit
	// queue holds the form's mails until Run sends them: the answer to a
	// submission does not wait for the relay, so its timing does not tell
	// a new address from a known one.
	queue chan *Message
}

// queueLen bounds the form's mails waiting to be sent; past it a mail is
// refused, logged and counted, never queued without bound.
const queueLen = 1024

// New returns the subscription service. mailer sends its mail, and must
// not be nil (a server without mail has a nil *Service).
func New(cfg Config, store *Store, mailer Mailer, log *slog.Logger, reg prometheus.Registerer, now func() time.Time) (*Service, error) {
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
	return &Service{cfg: cfg, store: store, mailer: mailer, tok: tokens{secret: cfg.Secret, now: now}, log: log, now: now, m: m,
		clients: clients, queue: make(chan *Message, queueLen)}, nil
}

// Run sends the form's mails until ctx ends, then those still queued.
func (s *Service) Run(ctx context.Context) error {
	for {
		select {
		case msg := <-s.queue:
			s.send(ctx, msg, "form")
		case <-ctx.Done():
			drain, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			for {
				select {
				case msg := <-s.queue:
					s.send(drain, msg, "form")
				default:
					return nil
				}
			}
		}
	}
}

// enqueue hands a form's mail to Run.
func (s *Service) enqueue(msg *Message) {
	select {
	case s.queue <- msg:
	default:
		s.m.mails.WithLabelValues("form", "failed").Inc()
		s.log.Error("mail queue full: a confirmation or notice was not sent", "queued", queueLen)
	}
}

// send sends msg, logging a failure without the recipient; kind labels
// the metric.
func (s *Service) send(ctx context.Context, msg *Message, kind string) bool {
	if err := s.mailer.Send(ctx, msg); err != nil {
		s.m.mails.WithLabelValues(kind, "failed").Inc()
		s.log.Error("mail not sent", "kind", kind, "err", redact(err, msg.To))
		return false
	}
	s.m.mails.WithLabelValues(kind, "sent").Inc()
	if o, ok := s.mailer.(*Outbox); ok {
		s.log.Info("mail written to the outbox, not sent: no SMTP relay is configured", "kind", kind, "dir", o.Dir())
	}
	return true
}

// links are a subscriber's addresses in a mail or on a page.
type links struct {
	Site, Manage, Unsubscribe string
}

func (s *Service) links(key string) links {
	t := s.tok.make(purposeManage, key, s.cfg.LinkTTL)
	return links{Site: s.cfg.base() + "/", Manage: s.cfg.base() + "/subscribe/manage?token=" + t,
		Unsubscribe: s.cfg.base() + "/subscribe/unsubscribe?token=" + t}
}

// mail renders the mail named kind (a template of mail.txt and
// mail.html) to sub, with data's fields beside the links.
func (s *Service) mail(sub *contracts.Subscriber, kind, subject string, data map[string]any) (*Message, error) {
	l := s.links(sub.Key())
	data["Site"], data["Manage"], data["Unsubscribe"], data["Subject"] = l.Site, l.Manage, l.Unsubscribe, subject
	var text, html bytes.Buffer
	if err := mailText.ExecuteTemplate(&text, kind, data); err != nil {
		return nil, err
	}
	if err := mailHTML.ExecuteTemplate(&html, kind, data); err != nil {
		return nil, err
	}
	return &Message{To: sub.Email, Subject: subject, Text: text.String(), HTML: html.String(), Unsubscribe: l.Unsubscribe}, nil
}

// confirmation is the mail that asks sub to confirm.
func (s *Service) confirmation(sub *contracts.Subscriber) (*Message, error) {
	return s.mail(sub, "confirm", "Confirm your zoneprice subscription", map[string]any{
		"Interests":     interestLabels(sub),
		"Confirm":       s.cfg.base() + "/subscribe/confirm?token=" + s.tok.make(purposeConfirm, sub.Key(), s.cfg.ConfirmTTL),
		"ConfirmWithin": humanDuration(s.cfg.ConfirmTTL),
	})
}

// notice tells a confirmed subscriber that someone subscribed the address
// again.
func (s *Service) notice(sub *contracts.Subscriber) (*Message, error) {
	return s.mail(sub, "notice", "You are already subscribed to zoneprice", map[string]any{})
}

// interestLabels are sub's interests as a person reads them.
func interestLabels(sub *contracts.Subscriber) []string {
	var out []string
	for _, i := range sub.Interests {
		label := interestLabel[i]
		if i == contracts.InterestPriceDrops {
			zones := make([]string, len(sub.Zones))
			for j, z := range sub.Zones {
				n, _ := contracts.NormalizeZone(z)
				zones[j] = n.Unicode
			}
			label = "Price drops of at least " + percent(sub.MinDropPercent) + " in " + strings.Join(zones, ", ") + ", in a daily digest"
		}
		out = append(out, label)
	}
	return out
}

var interestLabel = map[contracts.Interest]string{
	contracts.InterestPriceDrops: "Price drops, in a daily digest",
	contracts.InterestArticles:   "New articles",
	contracts.InterestAPIUpdates: "Changes to the API",
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

// percent writes p as a person reads it: "12.5%".
func percent(p float64) string {
	return strconv.FormatFloat(math.Round(p*10)/10, 'f', -1, 64) + "%"
}
