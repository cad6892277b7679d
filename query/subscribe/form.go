package subscribe

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/query/mail"
	"github.com/zoneprice/zoneprice/query/pages"
)

// The headers of every page: the site's policy (pages.Policy), and never
// cached: a page holds a form token or a person's subscription.
var (
	contentTypeHTML = []string{"text/html; charset=utf-8"}
	pagePolicy      = []string{pages.Policy}
	noStore         = []string{"no-store"}
)

// csrfCookie holds a random value the form's hidden token is signed from.
const csrfCookie = "zp_csrf"

// maxFormBytes bounds a form post: an address, interests and fifty zones.
const maxFormBytes = 16 << 10

// page is what every page template reads: the head of the site's layout.
type page = pages.Head

// formPage is the form: new on /subscribe, a subscription's own on
// /subscribe/manage.
type formPage struct {
	page
	CSRF      string
	Email     string
	Interests []interestChoice
	Zones     string
	MinDrop   string
	Error     string
	// The manage page's.
	Action, Unsubscribe string
	Confirmed, Saved    bool
}

type interestChoice struct {
	Value   contracts.Interest
	Label   string
	Checked bool
}

type messagePage struct {
	page
	Paragraphs     []string
	Link, LinkText string
}

type unsubscribePage struct {
	page
	Unsubscribe string
}

// choice is what a form post asks for.
type choice struct {
	email     string
	interests []contracts.Interest
	zones     []string
	minDrop   float64
	// raw are the fields as sent, to show again with an error.
	rawZones, rawMinDrop string
}

// defaultMinDrop is the threshold the form proposes.
const defaultMinDrop = 10

// Form answers GET /subscribe: the form, with a fresh CSRF token.
// ?zone= checks price drops and fills in that zone.
func (s *Service) Form() echo.HandlerFunc {
	return func(c *echo.Context) error {
		if s == nil {
			return unavailable(c)
		}
		f := formPage{page: formHead, MinDrop: strconv.Itoa(defaultMinDrop), CSRF: s.csrf(c)}
		var picked []contracts.Interest
		if z, err := contracts.NormalizeZone(c.QueryParam("zone")); err == nil {
			f.Zones, picked = z.Unicode, []contracts.Interest{contracts.InterestPriceDrops}
		}
		f.Interests = choices(picked)
		return s.render(c, http.StatusOK, "form.html", f)
	}
}

// Subscribe answers POST /subscribe. Every well-formed post that passes
// the CSRF check and the client's limit gets the same page, whatever the
// address: new (a confirmation is sent), not yet confirmed (another
// confirmation, once MailInterval has passed since the last), already
// confirmed (a notice that it is, likewise), or a bot's (the honeypot
// filled: nothing happens).
func (s *Service) Subscribe() echo.HandlerFunc {
	return func(c *echo.Context) error {
		if s == nil {
			return unavailable(c)
		}
		if !s.csrfValid(c) {
			s.m.submissions.WithLabelValues("csrf").Inc()
			return s.message(c, http.StatusForbidden, "Form expired", "The form was too old, or not ours. Reload the subscription page and send it again.", "/subscribe", "Subscribe")
		}
		if ok, wait := s.clients.allow(c.RealIP()); !ok {
			s.m.submissions.WithLabelValues("client_limited").Inc()
			c.Response().Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds())+1))
			return s.message(c, http.StatusTooManyRequests, "Too many subscriptions", "This connection has sent too many subscriptions in the last hour. Try again later.", "", "")
		}
		form := c.Request().PostForm
		if form.Get("website") != "" {
			s.m.submissions.WithLabelValues("honeypot").Inc()
			return s.sent(c)
		}
		ch, err := parseChoice(form, true)
		if err != nil {
			s.m.submissions.WithLabelValues("invalid").Inc()
			f := formPage{page: formHead, CSRF: s.csrf(c), Email: form.Get("email"), Interests: choices(ch.interests),
				Zones: ch.rawZones, MinDrop: ch.rawMinDrop, Error: problemText(err)}
			return s.render(c, http.StatusBadRequest, "form.html", f)
		}
		var notify func(*contracts.Subscriber) (*mail.Message, error)
		created := false
		now := s.now().UTC()
		sub, err := s.store.Change(c.Request().Context(), contracts.SubscriberKey(ch.email), func(cur *contracts.Subscriber) (*contracts.Subscriber, error) {
			notify, created = nil, cur == nil
			if cur != nil && cur.FormMailAt != nil && now.Sub(*cur.FormMailAt) < s.cfg.MailInterval {
				return nil, bus.ErrUnchanged
			}
			switch {
			case cur == nil:
				notify = s.confirmation
				return &contracts.Subscriber{Email: ch.email, Interests: ch.interests, Zones: ch.zones, MinDropPercent: ch.minDrop,
					CreatedAt: now, FormMailAt: &now}, nil
			case !cur.Confirmed:
				next := *cur
				next.Interests, next.Zones, next.MinDropPercent, next.FormMailAt = ch.interests, ch.zones, ch.minDrop, &now
				notify = s.confirmation
				return &next, nil
			default:
				next := *cur
				next.FormMailAt = &now
				notify = s.notice
				return &next, nil
			}
		})
		if err != nil {
			return s.storeFailed(c, err)
		}
		s.m.submissions.WithLabelValues("accepted").Inc()
		if notify != nil {
			if created {
				s.m.changes.WithLabelValues("created").Inc()
			}
			msg, err := notify(sub)
			if err != nil {
				return err
			}
			s.enqueue(msg)
		}
		return s.sent(c)
	}
}

// sent is the one answer to a subscription.
func (s *Service) sent(c *echo.Context) error {
	return s.message(c, http.StatusOK, "Check your inbox",
		"If the address can be subscribed, a mail is on its way to it: follow its link to confirm. Nothing else is sent before you do.", "/", "Back to the prices")
}

// Confirm answers GET /subscribe/confirm?token=…: the address is
// confirmed, and the page links to its manage page.
func (s *Service) Confirm() echo.HandlerFunc {
	return func(c *echo.Context) error {
		if s == nil {
			return unavailable(c)
		}
		key, err := s.tok.check(purposeConfirm, c.QueryParam("token"))
		if err != nil {
			return s.badToken(c, err)
		}
		now := s.now().UTC()
		confirmed := false
		sub, err := s.store.Change(c.Request().Context(), key, func(cur *contracts.Subscriber) (*contracts.Subscriber, error) {
			if cur == nil || cur.Confirmed {
				return nil, bus.ErrUnchanged
			}
			next := *cur
			next.Confirmed, next.ConfirmedAt, confirmed = true, &now, true
			return &next, nil
		})
		if err != nil {
			return s.storeFailed(c, err)
		}
		if sub == nil {
			return s.message(c, http.StatusNotFound, "Nothing to confirm", "This address has no subscription waiting: it was unsubscribed, or not confirmed in time. Subscribe again.", "/subscribe", "Subscribe")
		}
		if confirmed {
			s.m.changes.WithLabelValues("confirmed").Inc()
		}
		return s.message(c, http.StatusOK, "Subscription confirmed", "Thank you: the address is confirmed, and will be sent what it chose.", s.Links(key).Manage, "Change what you get")
	}
}

// Manage answers GET /subscribe/manage?token=…: the subscription's form.
func (s *Service) Manage() echo.HandlerFunc {
	return func(c *echo.Context) error {
		if s == nil {
			return unavailable(c)
		}
		key, sub, err := s.manageTarget(c)
		if err != nil || sub == nil {
			return err
		}
		return s.render(c, http.StatusOK, "manage.html", s.managePage(c, key, sub, nil))
	}
}

// Update answers POST /subscribe/manage?token=…: the subscription takes the
// form's interests.
func (s *Service) Update() echo.HandlerFunc {
	return func(c *echo.Context) error {
		if s == nil {
			return unavailable(c)
		}
		if !s.csrfValid(c) {
			s.m.submissions.WithLabelValues("csrf").Inc()
			return s.message(c, http.StatusForbidden, "Form expired", "The form was too old, or not ours. Open the link in your mail again.", "", "")
		}
		key, sub, err := s.manageTarget(c)
		if err != nil || sub == nil {
			return err
		}
		ch, err := parseChoice(c.Request().PostForm, false)
		if err != nil {
			p := s.managePage(c, key, sub, &ch)
			p.Error = problemText(err)
			return s.render(c, http.StatusBadRequest, "manage.html", p)
		}
		sub, err = s.store.Change(c.Request().Context(), key, func(cur *contracts.Subscriber) (*contracts.Subscriber, error) {
			if cur == nil {
				return nil, bus.ErrUnchanged
			}
			next := *cur
			next.Interests, next.Zones, next.MinDropPercent = ch.interests, ch.zones, ch.minDrop
			if !next.Wants(contracts.InterestPriceDrops) {
				next.Pending, next.PendingMore = nil, 0
			}
			if !next.Wants(contracts.InterestRenewalIncreases) {
				next.Increases, next.IncreasesMore = nil, 0
			}
			return &next, nil
		})
		if err != nil {
			return s.storeFailed(c, err)
		}
		if sub == nil {
			return s.notSubscribed(c)
		}
		s.m.changes.WithLabelValues("updated").Inc()
		p := s.managePage(c, key, sub, nil)
		p.Saved = true
		return s.render(c, http.StatusOK, "manage.html", p)
	}
}

// UnsubscribePage answers GET /subscribe/unsubscribe?token=…: a button
// that posts the unsubscription. A GET changes nothing: mail scanners
// open links.
func (s *Service) UnsubscribePage() echo.HandlerFunc {
	return func(c *echo.Context) error {
		if s == nil {
			return unavailable(c)
		}
		if _, err := s.unsubscribeKey(c); err != nil {
			return s.badToken(c, err)
		}
		return s.render(c, http.StatusOK, "unsubscribe.html", unsubscribePage{page: titled("Unsubscribe"), Unsubscribe: c.Request().URL.RequestURI()})
	}
}

// Unsubscribe answers POST /subscribe/unsubscribe?token=…, from the page's
// button or from a mail client's one-click (RFC 8058: the body is
// List-Unsubscribe=One-Click, no cookie, no CSRF token: the signed link is
// the authority). The record is deleted. A link past its LinkTTL still
// unsubscribes: its signature is what matters, and nobody should be kept
// subscribed by an old mail.
func (s *Service) Unsubscribe() echo.HandlerFunc {
	return func(c *echo.Context) error {
		if s == nil {
			return unavailable(c)
		}
		key, err := s.unsubscribeKey(c)
		if err != nil {
			return s.badToken(c, err)
		}
		deleted := false
		if _, err := s.store.Change(c.Request().Context(), key, func(cur *contracts.Subscriber) (*contracts.Subscriber, error) {
			deleted = cur != nil
			return nil, nil
		}); err != nil {
			return s.storeFailed(c, err)
		}
		if deleted {
			s.m.changes.WithLabelValues("unsubscribed").Inc()
		}
		return s.message(c, http.StatusOK, "Unsubscribed", "The address is deleted, with everything kept with it. Nothing more is sent to it.", "/", "Back to the prices")
	}
}

// unsubscribeKey is the key of the request's manage token, expired or not.
func (s *Service) unsubscribeKey(c *echo.Context) (string, error) {
	token := c.QueryParam("token")
	key, err := s.tok.check(purposeManage, token)
	if errors.Is(err, errExpiredToken) {
		return tokens{secret: s.tok.secret, now: func() time.Time { return time.Unix(0, 0) }}.check(purposeManage, token)
	}
	return key, err
}

// manageTarget reads the subscription the request's manage token names;
// when it cannot, it answers the request and returns a nil subscriber.
func (s *Service) manageTarget(c *echo.Context) (string, *contracts.Subscriber, error) {
	key, err := s.tok.check(purposeManage, c.QueryParam("token"))
	if err != nil {
		return "", nil, s.badToken(c, err)
	}
	sub, err := s.store.Get(c.Request().Context(), key)
	if err != nil {
		return "", nil, s.storeFailed(c, err)
	}
	if sub == nil {
		return "", nil, s.notSubscribed(c)
	}
	return key, sub, nil
}

func (s *Service) managePage(c *echo.Context, key string, sub *contracts.Subscriber, ch *choice) formPage {
	l := s.Links(key)
	p := formPage{page: titled("Your subscription"), CSRF: s.csrf(c), Email: sub.Email, Confirmed: sub.Confirmed,
		Action: c.Request().URL.RequestURI(), Unsubscribe: strings.TrimPrefix(l.Unsubscribe, s.cfg.base())}
	if ch != nil {
		p.Interests, p.Zones, p.MinDrop = choices(ch.interests), ch.rawZones, ch.rawMinDrop
		return p
	}
	p.Interests, p.Zones, p.MinDrop = choices(sub.Interests), unicodeZones(sub.Zones), strconv.FormatFloat(sub.MinDropPercent, 'f', -1, 64)
	if !sub.Wants(contracts.InterestPriceDrops) {
		p.MinDrop = strconv.Itoa(defaultMinDrop)
	}
	return p
}

// parseChoice reads a form post. The address is read only when withEmail
// (the manage form has none: its token names the address).
func parseChoice(form url.Values, withEmail bool) (choice, error) {
	ch := choice{rawZones: form.Get("zones"), rawMinDrop: form.Get("min_drop")}
	for _, v := range form["interests"] {
		if i := contracts.Interest(v); !slices.Contains(ch.interests, i) {
			ch.interests = append(ch.interests, i)
		}
	}
	if withEmail {
		email, err := contracts.NormalizeEmail(form.Get("email"))
		if err != nil {
			return ch, err
		}
		ch.email = email
	}
	if err := contracts.ValidateInterests(ch.interests); err != nil {
		return ch, err
	}
	drops, increases := slices.Contains(ch.interests, contracts.InterestPriceDrops), slices.Contains(ch.interests, contracts.InterestRenewalIncreases)
	if !drops && !increases {
		return ch, nil
	}
	for _, z := range strings.FieldsFunc(ch.rawZones, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' }) {
		n, err := contracts.NormalizeZone(z)
		if err != nil {
			return ch, contracts.Invalid("zones", "%v", err)
		}
		if !slices.Contains(ch.zones, n.ASCII) {
			ch.zones = append(ch.zones, n.ASCII)
		}
	}
	if len(ch.zones) == 0 {
		what := "price-drop alerts need"
		if !drops {
			what = "renewal-increase alerts need"
		}
		return ch, contracts.Invalid("zones", "%s at least one zone, such as .com", what)
	}
	if !drops {
		return ch, contracts.ValidateDropAlert(ch.zones, 0)
	}
	ch.minDrop = defaultMinDrop
	if raw := strings.TrimSpace(ch.rawMinDrop); raw != "" {
		f, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			return ch, contracts.Invalid("min_drop_percent", "%q is not a number", raw)
		}
		ch.minDrop = f
	}
	return ch, contracts.ValidateDropAlert(ch.zones, ch.minDrop)
}

// problemText is a validation error as the page says it.
func problemText(err error) string {
	var ve *contracts.ValidationError
	if errors.As(err, &ve) {
		field := map[string]string{"email": "Email address", "interests": "What to send", "zones": "Zones", "min_drop_percent": "Smallest drop"}[ve.Field]
		if field == "" {
			field = ve.Field
		}
		return field + ": " + ve.Problem
	}
	return err.Error()
}

func choices(picked []contracts.Interest) []interestChoice {
	var out []interestChoice
	for _, i := range contracts.Interests() {
		out = append(out, interestChoice{Value: i, Label: interestLabel[i], Checked: slices.Contains(picked, i)})
	}
	return out
}

// csrf returns the form token of the request's CSRF cookie, setting a new
// cookie when it has none.
func (s *Service) csrf(c *echo.Context) string {
	if ck, err := c.Cookie(csrfCookie); err == nil && len(ck.Value) == 22 {
		return s.tok.csrf(ck.Value)
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	v := base64.RawURLEncoding.EncodeToString(b[:])
	c.SetCookie(&http.Cookie{Name: csrfCookie, Value: v, Path: "/subscribe", HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: strings.HasPrefix(s.cfg.PublicURL, "https:")})
	return s.tok.csrf(v)
}

// csrfValid parses the post (at most maxFormBytes) and reports whether
// its token is the one of its cookie. A browser that says the post comes
// from another site (Sec-Fetch-Site: cross-site) is refused too.
func (s *Service) csrfValid(c *echo.Context) bool {
	r := c.Request()
	r.Body = http.MaxBytesReader(c.Response(), r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		return false
	}
	if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		return false
	}
	ck, err := c.Cookie(csrfCookie)
	if err != nil || len(ck.Value) != 22 {
		return false
	}
	got, want := r.PostForm.Get("csrf"), s.tok.csrf(ck.Value)
	return len(got) == len(want) && hmacEqual(got, want)
}

// formHead is the form's head: the one page of the subscription search
// engines may keep.
var formHead = page{Title: "Subscribe", Nav: "subscribe",
	Description: "Price-drop and renewal-increase alerts by email for the zones you choose, new articles and changes to the API."}

// titled is the head of a page about one subscription, or an answer: kept
// out of search engines.
func titled(title string) page {
	return page{Title: title, Nav: "subscribe", NoIndex: true}
}

func (s *Service) message(c *echo.Context, status int, title, text, link, linkText string) error {
	return s.render(c, status, "message.html", messagePage{page: titled(title), Paragraphs: []string{text}, Link: link, LinkText: linkText})
}

func (s *Service) badToken(c *echo.Context, err error) error {
	if errors.Is(err, errExpiredToken) {
		return s.message(c, http.StatusGone, "Link expired", "This link has expired. Subscribe again, or use the link in a newer mail.", "/subscribe", "Subscribe")
	}
	return s.message(c, http.StatusBadRequest, "Link not valid", "This link is not one of ours, or it was cut short: copy the whole link from the mail.", "", "")
}

func (s *Service) notSubscribed(c *echo.Context) error {
	return s.message(c, http.StatusNotFound, "Not subscribed", "This address is not subscribed (any more).", "/subscribe", "Subscribe")
}

// storeFailed answers a subscription that cannot be read or written now,
// and logs why (errors of the store never hold an address).
func (s *Service) storeFailed(c *echo.Context, err error) error {
	var ve *contracts.ValidationError
	if errors.As(err, &ve) {
		return err
	}
	s.log.Error("subscribers bucket", "path", c.Request().URL.Path, "err", err)
	c.Response().Header().Set("Retry-After", "5")
	return s.message(c, http.StatusServiceUnavailable, "Try again shortly", "Subscriptions cannot be changed right now. Try again in a minute.", "", "")
}

func (s *Service) render(c *echo.Context, status int, name string, data any) error {
	return renderPage(c, status, name, data)
}

func renderPage(c *echo.Context, status int, name string, data any) error {
	var buf bytes.Buffer
	if err := pageTemplates.ExecuteTemplate(&buf, name, data); err != nil {
		return err
	}
	h := c.Response().Header()
	h["Content-Security-Policy"] = pagePolicy
	h["Cache-Control"] = noStore
	h["Content-Type"] = contentTypeHTML
	return c.Blob(status, contentTypeHTML[0], buf.Bytes())
}

// unavailable is every subscription page of a server that sends no mail.
func unavailable(c *echo.Context) error {
	c.Response().Header().Set("Retry-After", "3600")
	return renderPage(c, http.StatusServiceUnavailable, "message.html", messagePage{page: titled("Subscriptions unavailable"),
		Paragraphs: []string{"This server sends no mail, so it takes no subscriptions. The prices and the API work as ever."},
		Link:       "/", LinkText: "Back to the prices"})
}

// Paths are the routes of the subscription pages, for tests that tell
// them from the API's.
func Paths() []string {
	return []string{"/subscribe", "/subscribe/confirm", "/subscribe/manage", "/subscribe/unsubscribe"}
}
