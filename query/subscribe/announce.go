package subscribe

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode"

	"github.com/zoneprice/zoneprice/contracts"
)

// MaxSubjectLen bounds an announcement's subject, in bytes.
const MaxSubjectLen = 200

// Announcement is a mail to every confirmed subscriber of an interest.
type Announcement struct {
	// Interest is contracts.InterestArticles or InterestAPIUpdates: price
	// drops go out in the digests.
	Interest contracts.Interest
	Subject  string
	// Body is plain text; paragraphs are separated by blank lines.
	Body string
}

// Validate reports the first problem, naming the field.
func (a Announcement) Validate() error {
	switch {
	case a.Interest != contracts.InterestArticles && a.Interest != contracts.InterestAPIUpdates:
		return contracts.Invalid("Interest", "%q is not %s or %s", a.Interest, contracts.InterestArticles, contracts.InterestAPIUpdates)
	case strings.TrimSpace(a.Subject) == "" || len(a.Subject) > MaxSubjectLen:
		return contracts.Invalid("Subject", "must be 1 to %d bytes", MaxSubjectLen)
	case strings.ContainsFunc(a.Subject, unicode.IsControl):
		return contracts.Invalid("Subject", "must be one line of printable text")
	case strings.TrimSpace(a.Body) == "":
		return contracts.Invalid("Body", "missing")
	}
	return nil
}

// AnnounceResult counts an announcement's mails.
type AnnounceResult struct {
	Sent, Failed int
}

// Announce sends a to every confirmed subscriber who chose its interest,
// one mail each, and never to an address not confirmed. A failure to one
// address is logged (without the address) and counted, and the others are
// sent; the error is the store's, when the subscribers cannot be read.
// Each mail's Message-ID is made of the announcement and the subscriber,
// so a second run after a partial failure sends the same message again.
func (s *Service) Announce(ctx context.Context, a Announcement) (AnnounceResult, error) {
	var res AnnounceResult
	if err := a.Validate(); err != nil {
		return res, err
	}
	sum := sha256.Sum256([]byte(string(a.Interest) + "\x00" + a.Subject + "\x00" + a.Body))
	id := hex.EncodeToString(sum[:8])
	var paragraphs []string
	for p := range strings.SplitSeq(strings.ReplaceAll(a.Body, "\r\n", "\n"), "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			paragraphs = append(paragraphs, p)
		}
	}
	for sub, err := range s.store.All(ctx) {
		if err != nil {
			return res, err
		}
		if !sub.Confirmed || !sub.Wants(a.Interest) {
			continue
		}
		msg, err := s.Mail(mails, sub, "announce", a.Subject, map[string]any{"Body": strings.TrimSpace(a.Body), "Paragraphs": paragraphs})
		if err != nil {
			return res, err
		}
		msg.ID, msg.Bulk = s.MessageID("announce-"+id+"-"+sub.Key()[:24]), true
		if s.sender.Send(ctx, msg, "announce") {
			res.Sent++
		} else {
			res.Failed++
		}
	}
	return res, ctx.Err()
}
