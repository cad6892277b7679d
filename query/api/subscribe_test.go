package api_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
	"github.com/zoneprice/zoneprice/query/access"
	"github.com/zoneprice/zoneprice/query/api"
	"github.com/zoneprice/zoneprice/query/mail"
	"github.com/zoneprice/zoneprice/query/mail/smtptest"
	"github.com/zoneprice/zoneprice/query/querytest"
	"github.com/zoneprice/zoneprice/query/subscribe"
)

// subscription is a pod with the subscription form, its relay, its
// subscribers bucket, its log and its clock.
type subscription struct {
	pod   *pod
	relay *smtptest.Server
	kv    jetstream.KeyValue
	log   *querytest.LogBuffer
	clock *querytest.Clock
}

// startSubscription starts a pod whose form mails through a relay started
// in the test (STARTTLS with the relay's own certificate, AUTH PLAIN);
// edit changes the service's configuration.
func startSubscription(t *testing.T, edit func(*subscribe.Config)) *subscription {
	t.Helper()
	_, js := bustest.Provisioned(t)
	relay := smtptest.Start(t)
	clk := querytest.NewClock(time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC))
	buf := &querytest.LogBuffer{}
	log := slog.New(slog.NewJSONHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	reg := prometheus.NewRegistry()

	cfg := subscribe.DefaultConfig()
	cfg.PublicURL = "http://127.0.0.1"
	cfg.Secret = []byte(strings.Repeat("s", 32))
	if edit != nil {
		edit(&cfg)
	}
	mailer, err := mail.New(relay.Config("zoneprice <alerts@zoneprice.test>"), clk.Now)
	if err != nil {
		t.Fatal(err)
	}
	sender, err := mail.NewSender(mailer, log, reg)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := subscribe.New(cfg, subscribe.NewStore(bus.Subscribers(js)), sender, log, reg, clk.Now)
	if err != nil {
		t.Fatal(err)
	}
	background(t, "mail", svc.Run)
	qcfg := api.DefaultConfig()
	qcfg.Limits.Anonymous = access.Rate{}
	qcfg.AccessLog = true
	qcfg.Subscriptions = svc
	p := startPod(t, nil, podConfig{cfg: &qcfg, snaps: serving(t, baseEvents()...), log: log, reg: reg})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	kv, err := js.KeyValue(ctx, contracts.SubscribersBucket)
	if err != nil {
		t.Fatal(err)
	}
	return &subscription{pod: p, relay: relay, kv: kv, log: buf, clock: clk}
}

// cookieClient is a client with its own cookies, as a browser is.
func cookieClient(t *testing.T) *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// formToken opens path's form and returns its CSRF token.
func formToken(t *testing.T, c *http.Client, u string) string {
	t.Helper()
	status, body := fetch(t, c, http.MethodGet, u, nil)
	m := csrfField.FindStringSubmatch(body)
	if status != http.StatusOK || m == nil {
		t.Fatalf("GET %s: %d without a CSRF token:\n%s", u, status, body)
	}
	return m[1]
}

// fetch makes a request (a form post when form is not nil) and returns
// the status and the body.
func fetch(t *testing.T, c *http.Client, method, u string, form url.Values) (int, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("%s %s: Content-Type %q, want a page", method, u, ct)
	}
	if resp.Header.Get("Cache-Control") != "no-store" || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "form-action 'self'") {
		t.Errorf("%s %s: Cache-Control %q, policy %q; want no-store and the pages' policy", method, u,
			resp.Header.Get("Cache-Control"), resp.Header.Get("Content-Security-Policy"))
	}
	return resp.StatusCode, string(b)
}

// subscribeForm is a filled-in form.
func subscribeForm(email, csrf string, interests ...contracts.Interest) url.Values {
	f := url.Values{"email": {email}, "csrf": {csrf}, "zones": {".com, рф"}, "min_drop": {"5"}, "website": {""}}
	for _, i := range interests {
		f.Add("interests", string(i))
	}
	return f
}

// waitMails waits until the relay has received n mails, and returns them.
func (s *subscription) waitMails(t *testing.T, n int) []smtptest.Message {
	t.Helper()
	querytest.Until(t, "mails", func() bool { return len(s.relay.Messages()) >= n })
	msgs := s.relay.Messages()
	if len(msgs) != n {
		t.Fatalf("relay received %d mails, want %d", len(msgs), n)
	}
	return msgs
}

// noMoreMails checks that the relay has received no more than n mails,
// once the form's queue has had time to send any.
func (s *subscription) noMoreMails(t *testing.T, n int) {
	t.Helper()
	time.Sleep(200 * time.Millisecond) // a mail queued would be sent within it; absence cannot be polled for
	if got := len(s.relay.Messages()); got != n {
		t.Fatalf("relay received %d mails, want %d", got, n)
	}
}

// record reads the subscriber of email, or nil.
func (s *subscription) record(t *testing.T, email string) *contracts.Subscriber {
	t.Helper()
	e, err := s.kv.Get(context.Background(), contracts.SubscriberKey(email))
	if err != nil {
		return nil
	}
	var sub contracts.Subscriber
	decode(t, e.Value(), &sub)
	return &sub
}

var linkPattern = regexp.MustCompile(`https?://[^\s"<>]+`)

// link returns the mail's link to path, on the pod.
func (s *subscription) link(t *testing.T, text, path string) string {
	t.Helper()
	for _, l := range linkPattern.FindAllString(text, -1) {
		u, err := url.Parse(l)
		if err == nil && u.Path == path {
			return s.pod.url + u.RequestURI()
		}
	}
	t.Fatalf("no link to %s in:\n%s", path, text)
	return ""
}

func TestSubscribeConfirmUnsubscribe(t *testing.T) {
	s := startSubscription(t, nil)
	c := cookieClient(t)
	const email = "Ann.Subscriber@Example.ORG"

	status, sent := fetch(t, c, http.MethodPost, s.pod.url+"/subscribe",
		subscribeForm(email, formToken(t, c, s.pod.url+"/subscribe"), contracts.InterestPriceDrops, contracts.InterestRenewalIncreases, contracts.InterestArticles))
	if status != http.StatusOK || !strings.Contains(sent, "Check your inbox") {
		t.Fatalf("subscribe: %d\n%s", status, sent)
	}
	mail := s.waitMails(t, 1)[0]
	if !mail.TLS || mail.User != smtptest.Username || len(mail.To) != 1 || mail.To[0] != "Ann.Subscriber@example.org" {
		t.Errorf("mail to %v, over TLS %v, as %q; want to the address, over STARTTLS, authenticated", mail.To, mail.TLS, mail.User)
	}
	m := mail.Parse(t)
	if got := m.Header.Get("List-Unsubscribe-Post"); got != "List-Unsubscribe=One-Click" {
		t.Errorf("List-Unsubscribe-Post %q", got)
	}
	if got := m.Header.Get("List-Unsubscribe"); !strings.HasPrefix(got, "<http://127.0.0.1/subscribe/unsubscribe?token=") {
		t.Errorf("List-Unsubscribe %q", got)
	}
	if m.Header.Get("Message-Id") == "" || m.Header.Get("Date") == "" || m.Header.Get("Subject") != "Confirm your zoneprice subscription" {
		t.Errorf("headers %v", m.Header)
	}
	text, html := mail.Parts(t)
	for _, part := range []string{text, html} {
		for _, want := range []string{"/subscribe/confirm?token=", "/subscribe/manage?token=", "/subscribe/unsubscribe?token=", "of at least 5% in .com, .рф, in a daily digest",
			"Every rise of the renewal price in .com, .рф, in the same daily digest"} {
			if !strings.Contains(part, want) {
				t.Errorf("mail part lacks %q:\n%s", want, part)
			}
		}
	}
	sub := s.record(t, email)
	if sub == nil || sub.Confirmed || sub.MinDropPercent != 5 || len(sub.Zones) != 2 {
		t.Fatalf("record before confirmation: %+v", sub)
	}

	// Subscribing the address again before it is confirmed answers the
	// same, and sends nothing within the per-address limit.
	s.clock.Advance(time.Minute)
	status, again := fetch(t, c, http.MethodPost, s.pod.url+"/subscribe",
		subscribeForm(email, formToken(t, c, s.pod.url+"/subscribe"), contracts.InterestAPIUpdates))
	if status != http.StatusOK || again != sent {
		t.Errorf("again: %d, a different page:\n%s", status, again)
	}
	s.noMoreMails(t, 1)

	// The confirmation link confirms.
	status, body := fetch(t, c, http.MethodGet, s.link(t, text, "/subscribe/confirm"), nil)
	if status != http.StatusOK || !strings.Contains(body, "Subscription confirmed") {
		t.Fatalf("confirm: %d\n%s", status, body)
	}
	if sub := s.record(t, email); sub == nil || !sub.Confirmed || sub.ConfirmedAt == nil || !sub.ConfirmedAt.Equal(s.clock.Now()) {
		t.Fatalf("record after confirmation: %+v", sub)
	}

	// A confirmed address subscribed again, from another browser after the
	// limit: the same page, and at most a notice that it is subscribed.
	s.clock.Advance(time.Hour)
	other := cookieClient(t)
	status, third := fetch(t, other, http.MethodPost, s.pod.url+"/subscribe",
		subscribeForm("ann.subscriber@example.org", formToken(t, other, s.pod.url+"/subscribe"), contracts.InterestAPIUpdates))
	if status != http.StatusOK || third != sent {
		t.Errorf("a confirmed address: %d, a different page:\n%s", status, third)
	}
	notice := s.waitMails(t, 2)[1]
	if got := notice.Parse(t).Header.Get("Subject"); got != "You are already subscribed to zoneprice" {
		t.Errorf("second mail %q", got)
	}
	if sub := s.record(t, email); !sub.Wants(contracts.InterestArticles) || sub.Wants(contracts.InterestAPIUpdates) {
		t.Errorf("the form changed a confirmed subscription: %v", sub.Interests)
	}

	// One-click: a mail client posts to the List-Unsubscribe URL, with no
	// cookie and no form token.
	unsub := strings.Trim(notice.Parse(t).Header.Get("List-Unsubscribe"), "<>")
	u, _ := url.Parse(unsub)
	status, body = fetch(t, http.DefaultClient, http.MethodPost, s.pod.url+u.RequestURI(), url.Values{"List-Unsubscribe": {"One-Click"}})
	if status != http.StatusOK || !strings.Contains(body, "Unsubscribed") {
		t.Fatalf("one-click unsubscribe: %d\n%s", status, body)
	}
	if sub := s.record(t, email); sub != nil {
		t.Errorf("record after unsubscribing: %+v", sub)
	}

	// The address is in no log line and no metric.
	if !strings.Contains(s.log.String(), `"path":"/subscribe"`) {
		t.Errorf("the log has no line of the requests: it would prove nothing\n%s", s.log.String())
	}
	// The relay has a mail a moment before its sender counts it.
	var metrics []byte
	querytest.Until(t, "the two mails counted", func() bool {
		_, metrics = get(t, s.pod.url+"/metrics")
		return strings.Contains(string(metrics), `zoneprice_subscribe_mails_total{kind="form",result="sent"} 2`)
	})
	for what, text := range map[string]string{"log": s.log.String(), "metrics": string(metrics)} {
		for _, addr := range []string{"ann.subscriber", "Ann.Subscriber", "example.org", url.QueryEscape(email)} {
			if strings.Contains(strings.ToLower(text), strings.ToLower(addr)) {
				t.Errorf("the %s holds %q", what, addr)
			}
		}
	}
	if !strings.Contains(string(metrics), `zoneprice_subscribe_mails_total{kind="form",result="sent"} 2`) {
		t.Errorf("metrics lack the two mails sent")
	}
}

func TestSubscribeRefuses(t *testing.T) {
	s := startSubscription(t, func(c *subscribe.Config) { c.PerClientLimit = 3 })
	c := cookieClient(t)
	token := formToken(t, c, s.pod.url+"/subscribe")

	for _, tc := range []struct {
		name   string
		client *http.Client
		csrf   string
	}{
		{"no token", c, ""},
		{"another token", c, strings.Repeat("A", 43)},
		{"no cookie", http.DefaultClient, token},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := fetch(t, tc.client, http.MethodPost, s.pod.url+"/subscribe", subscribeForm("bob@example.org", tc.csrf, contracts.InterestArticles))
			if status != http.StatusForbidden {
				t.Errorf("got %d, want 403:\n%s", status, body)
			}
		})
	}

	// A bot that fills the honeypot gets the page a person gets, and
	// nothing is stored or sent.
	f := subscribeForm("bot@example.org", token, contracts.InterestArticles)
	f.Set("website", "https://spam.example")
	if status, body := fetch(t, c, http.MethodPost, s.pod.url+"/subscribe", f); status != http.StatusOK || !strings.Contains(body, "Check your inbox") {
		t.Errorf("honeypot: %d\n%s", status, body)
	}
	if s.record(t, "bot@example.org") != nil {
		t.Error("the honeypot stored the address")
	}

	// A bad address is named.
	if status, body := fetch(t, c, http.MethodPost, s.pod.url+"/subscribe", subscribeForm("not an address", token, contracts.InterestArticles)); status != http.StatusBadRequest || !strings.Contains(body, "Email address") {
		t.Errorf("bad address: %d\n%s", status, body)
	}
	// The client's limit (3 an hour: the honeypot's, the bad address's
	// and this one) ends the hour's posts.
	if status, _ := fetch(t, c, http.MethodPost, s.pod.url+"/subscribe", subscribeForm("carol@example.org", token, contracts.InterestArticles)); status != http.StatusOK {
		t.Errorf("third post: %d", status)
	}
	if status, body := fetch(t, c, http.MethodPost, s.pod.url+"/subscribe", subscribeForm("dave@example.org", token, contracts.InterestArticles)); status != http.StatusTooManyRequests {
		t.Errorf("fourth post: %d, want 429\n%s", status, body)
	}
	s.waitMails(t, 1) // carol's confirmation, and nothing else
	s.noMoreMails(t, 1)
}

func TestSubscribeManage(t *testing.T) {
	s := startSubscription(t, nil)
	c := cookieClient(t)
	if status, _ := fetch(t, c, http.MethodPost, s.pod.url+"/subscribe", subscribeForm("erin@example.org", formToken(t, c, s.pod.url+"/subscribe"), contracts.InterestArticles)); status != http.StatusOK {
		t.Fatal(status)
	}
	text, _ := s.waitMails(t, 1)[0].Parts(t)
	manage := s.link(t, text, "/subscribe/manage")
	status, page := fetch(t, c, http.MethodGet, manage, nil)
	if status != http.StatusOK || !strings.Contains(page, "erin@example.org") || !strings.Contains(page, "not confirmed yet") {
		t.Fatalf("manage: %d\n%s", status, page)
	}
	f := url.Values{"csrf": {csrfField.FindStringSubmatch(page)[1]}, "interests": {"price-drops", "api-updates"}, "zones": {"CO.UK"}, "min_drop": {"12.5"}}
	if status, page = fetch(t, c, http.MethodPost, manage, f); status != http.StatusOK || !strings.Contains(page, "Saved.") {
		t.Fatalf("save: %d\n%s", status, page)
	}
	sub := s.record(t, "erin@example.org")
	if sub == nil || !sub.Wants(contracts.InterestAPIUpdates) || sub.Wants(contracts.InterestArticles) || len(sub.Zones) != 1 || sub.Zones[0] != ".co.uk" || sub.MinDropPercent != 12.5 {
		t.Fatalf("record after saving: %+v", sub)
	}
	// Renewal increases are a choice of their own, for zones too: the page
	// names the field a choice without zones lacks, and saves one with.
	f = url.Values{"csrf": f["csrf"], "interests": {"renewal-increases"}, "zones": {""}, "min_drop": {""}}
	if status, page = fetch(t, c, http.MethodPost, manage, f); status != http.StatusBadRequest || !strings.Contains(page, "Zones: renewal-increase alerts need at least one zone") {
		t.Fatalf("renewal increases without zones: %d\n%s", status, page)
	}
	f.Set("zones", ".bond")
	if status, page = fetch(t, c, http.MethodPost, manage, f); status != http.StatusOK || !strings.Contains(page, `value="renewal-increases" id="interest-renewal-increases" checked`) ||
		!strings.Contains(page, `id="min_drop" value="10"`) {
		t.Fatalf("save renewal increases: %d\n%s", status, page)
	}
	if sub := s.record(t, "erin@example.org"); sub == nil || !sub.Wants(contracts.InterestRenewalIncreases) || sub.Wants(contracts.InterestPriceDrops) ||
		len(sub.Zones) != 1 || sub.Zones[0] != ".bond" {
		t.Fatalf("record after choosing renewal increases: %+v", sub)
	}
	// The page's button unsubscribes, as one-click does.
	unsub := s.link(t, text, "/subscribe/unsubscribe")
	if status, page = fetch(t, c, http.MethodGet, unsub, nil); status != http.StatusOK || s.record(t, "erin@example.org") == nil {
		t.Fatalf("GET unsubscribe: %d, or it deleted the record\n%s", status, page)
	}
	if status, _ = fetch(t, c, http.MethodPost, unsub, url.Values{}); status != http.StatusOK || s.record(t, "erin@example.org") != nil {
		t.Fatalf("POST unsubscribe: %d, or the record is still there", status)
	}
	if status, _ = fetch(t, c, http.MethodGet, manage, nil); status != http.StatusNotFound {
		t.Errorf("manage after unsubscribing: %d, want 404", status)
	}
	// A link altered by one character is refused, and one past its time
	// has expired.
	if status, _ = fetch(t, c, http.MethodGet, manage[:len(manage)-1]+"A", nil); status != http.StatusBadRequest {
		t.Errorf("an altered link: %d, want 400", status)
	}
	confirm := s.link(t, text, "/subscribe/confirm")
	s.clock.Advance(49 * time.Hour)
	if status, _ = fetch(t, c, http.MethodGet, confirm, nil); status != http.StatusGone {
		t.Errorf("an expired confirmation: %d, want 410", status)
	}
}

func TestSubscribeUnavailable(t *testing.T) {
	p := startPod(t, nil, podConfig{snaps: serving(t, baseEvents()...)})
	for _, path := range []string{"/subscribe", "/subscribe/confirm?token=x", "/subscribe/manage?token=x"} {
		status, body := fetch(t, http.DefaultClient, http.MethodGet, p.url+path, nil)
		if status != http.StatusServiceUnavailable || !strings.Contains(body, "sends no mail") {
			t.Errorf("GET %s: %d\n%s", path, status, body)
		}
		checkPage(t, []byte(body))
	}
}

// TestSubscribePagesHTML holds the subscription's pages to the site's:
// each is parsed as TestPagesHTML parses the others (nothing inline, a
// label on every control, one h1, the skip link), is in the site's layout
// (its stylesheet, script and icon by their hashed addresses, the same as
// the catalog's, and the navigation with Subscribe marked current), and
// a zone in the address fills in the form.
func TestSubscribePagesHTML(t *testing.T) {
	s := startSubscription(t, nil)
	c := cookieClient(t)
	_, catalog := get(t, s.pod.url+"/")
	assetLinks := regexp.MustCompile(`(?:href|src)="(/assets/[^"]+)"`)
	want := assetLinks.FindAllString(string(catalog), -1)
	if len(want) != 3 {
		t.Fatalf("the catalog links %q, want the stylesheet, the icon and the script", want)
	}
	if !strings.Contains(string(catalog), `<a href="/subscribe">Subscribe</a>`) {
		t.Error("the catalog's navigation has no link to the subscription")
	}

	token := formToken(t, c, s.pod.url+"/subscribe")
	if status, _ := fetch(t, c, http.MethodPost, s.pod.url+"/subscribe", subscribeForm("fay@example.org", token, contracts.InterestPriceDrops)); status != http.StatusOK {
		t.Fatalf("subscribe: %d", status)
	}
	text, _ := s.waitMails(t, 1)[0].Parts(t)
	confirm, manage, unsub := s.link(t, text, "/subscribe/confirm"), s.link(t, text, "/subscribe/manage"), s.link(t, text, "/subscribe/unsubscribe")
	bad := url.Values{"email": {"fay"}, "csrf": {token}, "interests": {"price-drops"}, "zones": {"not a zone!"}}

	for _, tc := range []struct {
		name, method, target string
		form                 url.Values
		status               int
		says                 []string
	}{
		{"form", http.MethodGet, "/subscribe", nil, 200, []string{`<h1>Subscribe</h1>`, `<meta name="description"`}},
		{"form for a zone", http.MethodGet, "/subscribe?zone=xn--p1ai", nil, 200, []string{`id="zones" value=".рф"`, `value="price-drops" id="interest-price-drops" checked`}},
		{"form with an error", http.MethodPost, "/subscribe", bad, 400, []string{`role="alert">Email address:`}},
		{"check your inbox", http.MethodPost, "/subscribe", subscribeForm("gus@example.org", token, contracts.InterestArticles), 200, []string{`<h1>Check your inbox</h1>`}},
		{"confirmed", http.MethodGet, confirm, nil, 200, []string{`<h1>Subscription confirmed</h1>`, `<meta name="robots" content="noindex">`}},
		{"manage", http.MethodGet, manage, nil, 200, []string{`<h1>Your subscription</h1>`, `fay@example.org`}},
		{"unsubscribe", http.MethodGet, unsub, nil, 200, []string{`<h1>Unsubscribe</h1>`}},
		{"a bad link", http.MethodGet, "/subscribe/manage?token=x", nil, 400, []string{`<h1>Link not valid</h1>`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := tc.target
			if strings.HasPrefix(target, "/") {
				target = s.pod.url + target
			}
			status, body := fetch(t, c, tc.method, target, tc.form)
			if status != tc.status {
				t.Fatalf("%d, want %d\n%s", status, tc.status, body)
			}
			checkPage(t, []byte(body))
			if got := assetLinks.FindAllString(body, -1); !slices.Equal(got, want) {
				t.Errorf("links %q, want the catalog's %q", got, want)
			}
			for _, w := range append(tc.says, `<a href="/subscribe" aria-current="page">Subscribe</a>`) {
				if !strings.Contains(body, w) {
					t.Errorf("does not say %s:\n%s", w, body)
				}
			}
		})
	}
}
