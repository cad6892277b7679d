package contracts

import (
	"crypto/sha256"
	"encoding/hex"
	"net/mail"
	"slices"
	"strings"
	"time"
)

// Subscriptions by email: a person leaves an address and interests on the
// page's form, confirms them by a link mailed to the address (double
// opt-in), and is then sent what they chose: a daily digest of price drops
// in their zones and, a choice of its own, of their renewal increases;
// announcements of new articles, of API updates. Nothing
// but the confirmation is ever sent to an address that has not confirmed.

// SubscribersBucket is the JetStream key-value bucket of email subscribers,
// each a Subscriber stored under SubscriberKey of its address, so that the
// address is in no key, subject or log. Query pods write it (the form),
// the alerts part reads it and records digests in it, and zoneprice-admin
// reads it to announce: only those may read it.
const SubscribersBucket = "ZONEPRICE_SUBSCRIBERS"

// Interest is something a subscriber may be sent.
type Interest string

// The interests.
const (
	// InterestPriceDrops is a daily digest of the price drops in the
	// subscriber's zones, at least their threshold.
	InterestPriceDrops Interest = "price-drops"
	// InterestRenewalIncreases adds to the same daily digest every rise
	// of the renewal price in the subscriber's zones, whatever its size:
	// what an owner of a name there pays next.
	InterestRenewalIncreases Interest = "renewal-increases"
	// InterestArticles is an announcement of each new article.
	InterestArticles Interest = "articles"
	// InterestAPIUpdates is an announcement of each change to the API.
	InterestAPIUpdates Interest = "api-updates"
)

// Interests are every interest, in the order the form shows them.
func Interests() []Interest {
	return []Interest{InterestPriceDrops, InterestRenewalIncreases, InterestArticles, InterestAPIUpdates}
}

// ValidInterest reports whether i is one of Interests.
func ValidInterest(i Interest) bool { return slices.Contains(Interests(), i) }

// Bounds of a subscription.
const (
	// MaxEmailLen is the longest address accepted, the limit of a path in
	// SMTP (RFC 5321 §4.5.3.1.3) less its brackets.
	MaxEmailLen = 254
	// MaxSubscriberZones bounds the zones of a price-drop subscription.
	MaxSubscriberZones = 50
	// MaxPendingDrops bounds the drops a subscriber's next digest keeps,
	// and MaxPendingIncreases its renewal increases; past them the digest
	// says how many more there were. Both lists at their longest, with
	// MaxSubscriberZones zones as long as the longest TLD, fit the
	// bucket's largest value, 64 KiB (a test of contracts/bus writes one).
	MaxPendingDrops     = 100
	MaxPendingIncreases = 50
)

// Subscriber is one address's subscription.
type Subscriber struct {
	// Email is the address as the person gave it, its domain in lower
	// case (NormalizeEmail).
	Email     string     `json:"email"`
	Interests []Interest `json:"interests"`
	// Zones are the canonical zones whose drops InterestPriceDrops
	// reports (and whose renewal increases InterestRenewalIncreases), and
	// MinDropPercent the least drop reported, in percent of the price
	// before (ChangePercent).
	Zones          []string `json:"zones"`
	MinDropPercent float64  `json:"min_drop_percent"`
	// Confirmed is set once the person followed the confirmation link.
	Confirmed   bool       `json:"confirmed"`
	CreatedAt   time.Time  `json:"created_at"`
	ConfirmedAt *time.Time `json:"confirmed_at,omitempty"`
	// FormMailAt is when the form last caused a mail to the address (a
	// confirmation, or a notice that it is already subscribed): the
	// per-address limit counts from it.
	FormMailAt *time.Time `json:"form_mail_at,omitempty"`
	// LastDigestAt is when the last digest was sent, and DigestedThrough
	// the history sequence of the newest change it held: a change at or
	// below it has been sent (or claimed for sending).
	LastDigestAt    *time.Time `json:"last_digest_at,omitempty"`
	DigestedThrough uint64     `json:"digested_through,omitempty"`
	// Pending are the drops collected for the next digest, oldest first,
	// and PendingMore how many more there were past MaxPendingDrops;
	// Increases and IncreasesMore the same of the renewal increases, past
	// MaxPendingIncreases. MoreThrough is the history sequence of the
	// newest change counted in either "more", so that a change delivered
	// again is counted once (changes come in stream order, and a change's
	// drop and increase are collected together).
	Pending       []PendingChange `json:"pending,omitempty"`
	PendingMore   int             `json:"pending_more,omitempty"`
	Increases     []PendingChange `json:"increases,omitempty"`
	IncreasesMore int             `json:"increases_more,omitempty"`
	MoreThrough   uint64          `json:"more_through,omitempty"`
}

// PendingChange is one price drop, or renewal increase, waiting for a
// subscriber's digest: the change's place in the history stream (its
// sequence, so a change delivered twice is collected once) and what the
// digest shows of it. Percent is the drop's, or the increase's, in
// percent of the price before.
type PendingChange struct {
	Seq        uint64    `json:"seq"`
	Zone       string    `json:"zone"`
	Registrar  string    `json:"registrar"`
	Op         Op        `json:"op"`
	Before     Price     `json:"before"`
	After      Price     `json:"after"`
	Percent    float64   `json:"percent"`
	ObservedAt time.Time `json:"observed_at"`
}

// Wants reports whether the subscriber chose interest i.
func (s *Subscriber) Wants(i Interest) bool { return slices.Contains(s.Interests, i) }

// Key is the subscriber's key in SubscribersBucket.
func (s *Subscriber) Key() string { return SubscriberKey(s.Email) }

// Validate reports the first problem with the record, naming the field.
func (s *Subscriber) Validate() error {
	if _, err := NormalizeEmail(s.Email); err != nil {
		return err
	}
	if err := ValidateInterests(s.Interests); err != nil {
		return err
	}
	if err := ValidateDropAlert(s.Zones, s.MinDropPercent); err != nil {
		return err
	}
	if (s.Wants(InterestPriceDrops) || s.Wants(InterestRenewalIncreases)) && len(s.Zones) == 0 {
		return invalid("zones", "price-drop and renewal-increase alerts need at least one zone")
	}
	switch {
	case s.CreatedAt.IsZero():
		return invalid("created_at", "missing")
	case s.Confirmed && s.ConfirmedAt == nil:
		return invalid("confirmed_at", "missing for a confirmed subscriber")
	case len(s.Pending) > MaxPendingDrops:
		return invalid("pending", "more than %d drops", MaxPendingDrops)
	case len(s.Increases) > MaxPendingIncreases:
		return invalid("increases", "more than %d renewal increases", MaxPendingIncreases)
	case s.PendingMore < 0 || s.IncreasesMore < 0:
		return invalid("pending_more", "must not be negative")
	}
	return nil
}

// ValidateInterests reports an empty list, an unknown interest or one
// named twice.
func ValidateInterests(interests []Interest) error {
	if len(interests) == 0 {
		return invalid("interests", "choose at least one of %s", interestList())
	}
	for i, in := range interests {
		if !ValidInterest(in) {
			return invalid("interests", "%q is not one of %s", truncate(string(in), 20), interestList())
		}
		if slices.Contains(interests[:i], in) {
			return invalid("interests", "%q is named twice", in)
		}
	}
	return nil
}

func interestList() string {
	names := make([]string, 0, len(Interests()))
	for _, i := range Interests() {
		names = append(names, string(i))
	}
	return strings.Join(names, ", ")
}

// ValidateDropAlert reports a zone that is not canonical, too many zones,
// a zone named twice, or a threshold outside 0 to 100 percent.
func ValidateDropAlert(zones []string, minDropPercent float64) error {
	if len(zones) > MaxSubscriberZones {
		return invalid("zones", "more than %d zones", MaxSubscriberZones)
	}
	for i, z := range zones {
		if !IsCanonicalZone(z) {
			return invalid("zones", "%q is not a canonical zone such as \".com\"", truncate(z, 70))
		}
		if slices.Contains(zones[:i], z) {
			return invalid("zones", "%q is named twice", z)
		}
	}
	if !(minDropPercent >= 0 && minDropPercent <= 100) {
		return invalid("min_drop_percent", "must be between 0 and 100")
	}
	return nil
}

// The longest local part and domain label of an address (RFC 5321
// 4.5.3.1.1 and 4.5.3.1.2).
const (
	maxEmailLocal = 64
	maxEmailLabel = 63
)

// NormalizeEmail checks that s is a plain address (local@domain, no
// display name, no comments, ASCII) of at most MaxEmailLen bytes, with a
// local part of at most 64 and domain labels of at most 63, and returns it
// trimmed with its domain in lower case. Addresses are ASCII only: a UTF-8
// address needs SMTPUTF8 of every relay on its way.
func NormalizeEmail(s string) (string, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return "", invalid("email", "missing")
	case len(s) > MaxEmailLen:
		return "", invalid("email", "longer than %d characters", MaxEmailLen)
	}
	for _, r := range s {
		if r <= ' ' || r >= 0x7f {
			return "", invalid("email", "must be a plain ASCII address such as name@example.org")
		}
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s {
		return "", invalid("email", "is not an address such as name@example.org")
	}
	at := strings.LastIndexByte(s, '@')
	local, domain := s[:at], strings.ToLower(s[at+1:])
	if !strings.Contains(domain, ".") || strings.HasPrefix(domain, "[") {
		return "", invalid("email", "needs a domain name such as example.org")
	}
	// RFC 5321 4.5.3.1: no relay need take a longer local part or domain
	// label, so mail to one may never arrive.
	if len(local) > maxEmailLocal {
		return "", invalid("email", "the part before @ is longer than %d characters", maxEmailLocal)
	}
	for label := range strings.SplitSeq(domain, ".") {
		if len(label) > maxEmailLabel {
			return "", invalid("email", "a label of the domain is longer than %d characters", maxEmailLabel)
		}
	}
	return local + "@" + domain, nil
}

// SubscriberKey is the key of address email in SubscribersBucket: the hex
// SHA-256 of the address in lower case (one person, one record, however
// they type it), so that the key names no one. email is an address
// NormalizeEmail accepted.
func SubscriberKey(email string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(email)))
	return hex.EncodeToString(sum[:])
}

// ValidSubscriberKey reports whether key can be a SubscriberKey.
func ValidSubscriberKey(key string) bool { return hashPattern.MatchString(key) }
