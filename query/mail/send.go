package mail

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"
)

// Sender hands mails to a Mailer and counts each by kind (form, digest,
// announce) and result (sent, failed); a failure is logged without its
// recipient. A process has one, which every part that mails shares: the
// count is registered once.
type Sender struct {
	mailer Mailer
	log    *slog.Logger
	mails  *prometheus.CounterVec
}

// NewSender returns a sender through mailer, which must not be nil.
func NewSender(mailer Mailer, log *slog.Logger, reg prometheus.Registerer) (*Sender, error) {
	mails := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "zoneprice_subscribe_mails_total",
		Help: "Mails by kind (form, digest, announce) and result (sent, failed).",
	}, []string{"kind", "result"})
	if err := reg.Register(mails); err != nil {
		return nil, fmt.Errorf("register mail metrics: %w", err)
	}
	return &Sender{mailer: mailer, log: log, mails: mails}, nil
}

// Send sends msg, kind labelling the count, and reports whether it was
// sent.
func (s *Sender) Send(ctx context.Context, msg *Message, kind string) bool {
	if err := s.mailer.Send(ctx, msg); err != nil {
		s.Failed(kind)
		s.log.Error("mail not sent", "kind", kind, "err", redact(err, msg.To))
		return false
	}
	s.mails.WithLabelValues(kind, "sent").Inc()
	if o, ok := s.mailer.(*Outbox); ok {
		s.log.Info("mail written to the outbox, not sent: no SMTP relay is configured", "kind", kind, "dir", o.Dir())
	}
	return true
}

// Failed counts a mail of kind that was given up before it reached the
// mailer.
func (s *Sender) Failed(kind string) {
	s.mails.WithLabelValues(kind, "failed").Inc()
}
