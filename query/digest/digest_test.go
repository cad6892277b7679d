package digest_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
	"github.com/zoneprice/zoneprice/contracts/eventtest"
	"github.com/zoneprice/zoneprice/query/digest"
	"github.com/zoneprice/zoneprice/query/mail"
	"github.com/zoneprice/zoneprice/query/mail/smtptest"
	"github.com/zoneprice/zoneprice/query/querytest"
	"github.com/zoneprice/zoneprice/query/subscribe"
)

// fixture is a subscription with its relay, bucket and clock, and
// subscribers.
type fixture struct {
	svc    *subscribe.Service
	js     jetstream.JetStream
	kv     jetstream.KeyValue
	relay  *smtptest.Server
	clock  *querytest.Clock
	mailer *refusing
	log    *querytest.LogBuffer
	// reg is the registry of the digests that runDigests ran last.
	reg *prometheus.Registry
}

var day = time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)

func newFixture(t *testing.T) *fixture {
	t.Helper()
	_, js := bustest.Provisioned(t)
	relay := smtptest.Start(t)
	clk := querytest.NewClock(day.Add(9 * time.Hour))
	cfg := subscribe.DefaultConfig()
	cfg.PublicURL, cfg.Secret = "https://zoneprice.test", []byte(strings.Repeat("s", 32))
	mailer, err := mail.New(relay.Config("zoneprice <alerts@zoneprice.test>"), clk.Now)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{js: js, relay: relay, clock: clk, mailer: &refusing{Mailer: mailer}, log: &querytest.LogBuffer{}}
	log, reg := slog.New(slog.NewJSONHandler(f.log, nil)), prometheus.NewRegistry()
	sender, err := mail.NewSender(f.mailer, log, reg)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := subscribe.New(cfg, subscribe.NewStore(bus.Subscribers(js)), sender, log, reg, clk.Now)
	if err != nil {
		t.Fatal(err)
	}
	kv, err := js.KeyValue(context.Background(), contracts.SubscribersBucket)
	if err != nil {
		t.Fatal(err)
	}
	f.svc, f.kv = svc, kv
	return f
}

// refusing is the relay's mailer, or a relay that refuses every mail
// while refuse is set.
type refusing struct {
	mail.Mailer
	refuse atomic.Bool
}

func (r *refusing) Send(ctx context.Context, msg *mail.Message) error {
	if r.refuse.Load() {
		return errors.New("451 4.3.0 try again later")
	}
	return r.Mailer.Send(ctx, msg)
}

// put stores a subscriber as the form would have.
func (f *fixture) put(t *testing.T, email string, confirmed bool, minDrop float64, zones []string, interests ...contracts.Interest) {
	t.Helper()
	sub := contracts.Subscriber{Email: email, Interests: interests, Zones: zones, MinDropPercent: minDrop, CreatedAt: f.clock.Now()}
	if confirmed {
		at := f.clock.Now()
		sub.Confirmed, sub.ConfirmedAt = true, &at
	}
	b, err := json.Marshal(sub)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.kv.Put(context.Background(), sub.Key(), b); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) get(t *testing.T, email string) *contracts.Subscriber {
	t.Helper()
	e, err := f.kv.Get(context.Background(), contracts.SubscriberKey(email))
	if err != nil {
		t.Fatalf("subscriber: %v", err)
	}
	var sub contracts.Subscriber
	if err := json.Unmarshal(e.Value(), &sub); err != nil {
		t.Fatal(err)
	}
	return &sub
}

// runDigests runs the digests until the returned stop is called or the
// test ends, once the history consumer exists.
func (f *fixture) runDigests(t *testing.T) (stop func()) {
	t.Helper()
	f.reg = prometheus.NewRegistry()
	a, err := digest.New(f.svc, bus.NewDurable(f.js, contracts.HistoryStream, bus.AlertsConsumerConfig()), slog.New(slog.NewJSONHandler(f.log, nil)),
		f.reg, f.clock.Now, 10*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("digests: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	querytest.Until(t, "the digests' consumer", func() bool {
		_, err := f.js.Consumer(context.Background(), contracts.HistoryStream, digest.AlertsConsumer)
		return err == nil
	})
	return stop
}

// change publishes a change of registrar's price for zone on the history
// stream, from register/renew before to after (USD cents).
func (f *fixture) change(t *testing.T, registrar, zone string, at time.Time, before, after int64) {
	t.Helper()
	f.changeOps(t, registrar, zone, at, ops{before, before}, ops{after, after})
}

// ops are the register and renew prices of a change's side (USD cents).
type ops struct{ register, renew int64 }

// changeOps publishes a change of registrar's register and renew prices
// for zone on the history stream.
func (f *fixture) changeOps(t *testing.T, registrar, zone string, at time.Time, before, after ops) {
	t.Helper()
	c := &contracts.PriceChange{V: contracts.SchemaVersion, Kind: contracts.KindPriceChange, Change: contracts.ChangeChanged,
		Registrar: registrar, Zone: zone, ObservedAt: at, Source: registrar,
		Before: eventtest.Priced(registrar, zone, at, "USD", before.register, before.renew, before.register).Offer(),
		After:  eventtest.Priced(registrar, zone, at, "USD", after.register, after.renew, after.register).Offer()}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.js.Publish(context.Background(), c.Subject(), b); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) mailsTo(email string) []smtptest.Message {
	var out []smtptest.Message
	for _, m := range f.relay.Messages() {
		if len(m.To) == 1 && m.To[0] == email {
			out = append(out, m)
		}
	}
	return out
}

func TestDigest(t *testing.T) {
	f := newFixture(t)
	com := []string{".com"}
	f.put(t, "ann@example.org", true, 5, com, contracts.InterestPriceDrops)
	f.put(t, "bob@example.org", false, 5, com, contracts.InterestPriceDrops)              // not confirmed
	f.put(t, "carol@example.org", true, 50, com, contracts.InterestPriceDrops)            // above her threshold
	f.put(t, "dave@example.org", true, 5, []string{".net"}, contracts.InterestPriceDrops) // another zone
	f.put(t, "erin@example.org", true, 5, com, contracts.InterestArticles)                // no drops
	stop := f.runDigests(t)

	morning := day.Add(8 * time.Hour)
	f.change(t, "porkbun", ".com", morning, 1000, 900)                // -10%
	f.change(t, "inwx", ".com", morning.Add(time.Hour), 1000, 800)    // -20%
	f.change(t, "inwx", ".org", morning.Add(time.Hour), 1000, 800)    // nobody's zone
	f.change(t, "sample-alpha", ".com", morning, 1000, 100)           // the sample
	f.change(t, "openprovider", ".com", morning, 1000, 1100)          // a rise
	f.change(t, "joker", ".com", morning.Add(2*time.Hour), 1000, 970) // -3%, below every threshold
	querytest.Until(t, "ann's two drops", func() bool { return len(f.get(t, "ann@example.org").Pending) == 2 })

	// A restart in the day loses nothing: a drop stored while no process
	// runs is collected by the next. (The process stops once it has
	// acknowledged every change: one stopped with a change in hand leaves
	// it to be collected again after the consumer's AckWait.)
	querytest.Until(t, "every change acknowledged", func() bool {
		c, err := f.js.Consumer(context.Background(), contracts.HistoryStream, digest.AlertsConsumer)
		if err != nil {
			return false
		}
		info, err := c.Info(context.Background())
		return err == nil && info.NumPending == 0 && info.NumAckPending == 0
	})
	stop()
	f.change(t, "dynadot", ".com", morning.Add(3*time.Hour), 2000, 1000) // -50%
	f.runDigests(t)
	querytest.Until(t, "the drop stored during the restart", func() bool {
		return len(f.get(t, "ann@example.org").Pending) == 3 && len(f.get(t, "carol@example.org").Pending) == 1
	})
	time.Sleep(50 * time.Millisecond) // several ticks: nothing is due before the day ends
	if n := len(f.relay.Messages()); n != 0 {
		t.Fatalf("%d mails sent during the day", n)
	}

	// After midnight, one digest of the day's drops each.
	f.clock.Set(day.Add(24*time.Hour + 30*time.Minute))
	querytest.Until(t, "the digests", func() bool { return len(f.relay.Messages()) == 2 })
	time.Sleep(50 * time.Millisecond)
	if got := len(f.relay.Messages()); got != 2 {
		t.Fatalf("%d mails, want one each for ann and carol", got)
	}
	mails := f.mailsTo("ann@example.org")
	if len(mails) != 1 {
		t.Fatalf("ann got %d mails, want one digest", len(mails))
	}
	m := mails[0].Parse(t)
	text, html := mails[0].Parts(t)
	if m.Header.Get("Subject") != "Price drops: 3 in your zones" || m.Header.Get("Precedence") != "bulk" ||
		m.Header.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" || !strings.HasPrefix(m.Header.Get("List-Unsubscribe"), "<https://zoneprice.test/subscribe/unsubscribe?token=") {
		t.Errorf("digest headers: %v", m.Header)
	}
	for _, want := range []string{"porkbun", "inwx", "dynadot", ".com at porkbun: register 10.00 USD -> 9.00 USD (-10%)", "(-50%)", "https://zoneprice.test/zones/.com", "/subscribe/manage?token="} {
		if !strings.Contains(text, want) {
			t.Errorf("digest text lacks %q:\n%s", want, text)
		}
	}
	if !strings.Contains(html, "<td>porkbun</td><td>register</td><td>10.00 USD</td>") {
		t.Errorf("digest HTML lacks porkbun's drop with its operation:\n%s", html)
	}
	for _, absent := range []string{"sample-alpha", "openprovider", "joker", ".org"} {
		if strings.Contains(text, absent) || strings.Contains(html, absent) {
			t.Errorf("digest holds %q:\n%s", absent, text)
		}
	}
	ann := f.get(t, "ann@example.org")
	if len(ann.Pending) != 0 || ann.LastDigestAt == nil || ann.DigestedThrough == 0 {
		t.Errorf("ann after her digest: %+v", ann)
	}

	// A drop of the new day waits for the next; the day's digest is sent.
	f.change(t, "porkbun", ".com", day.Add(25*time.Hour), 900, 800)
	querytest.Until(t, "the new day's drop", func() bool { return len(f.get(t, "ann@example.org").Pending) == 1 })
	time.Sleep(50 * time.Millisecond)
	if n := len(f.mailsTo("ann@example.org")); n != 1 {
		t.Fatalf("ann got %d mails on the second day, want still 1", n)
	}
	f.clock.Set(day.Add(48*time.Hour + time.Minute))
	querytest.Until(t, "the second digest", func() bool { return len(f.mailsTo("ann@example.org")) == 2 })
	for _, who := range []string{"bob@example.org", "dave@example.org", "erin@example.org"} {
		if n := len(f.mailsTo(who)); n != 0 {
			t.Errorf("%s got %d mails", who, n)
		}
	}
}

// TestDigestRefused: a digest the relay refuses is put back, and sent
// whole at the next try.
func TestDigestRefused(t *testing.T) {
	f := newFixture(t)
	f.put(t, "ann@example.org", true, 5, []string{".com"}, contracts.InterestPriceDrops)
	f.mailer.refuse.Store(true)
	f.runDigests(t)
	f.change(t, "porkbun", ".com", day.Add(8*time.Hour), 1000, 900)
	f.change(t, "inwx", ".com", day.Add(9*time.Hour), 1000, 800)
	querytest.Until(t, "two drops", func() bool { return len(f.get(t, "ann@example.org").Pending) == 2 })
	f.clock.Set(day.Add(25 * time.Hour))
	time.Sleep(100 * time.Millisecond) // ticks that try and fail
	// Each try claims the digest and puts it back; between two, the
	// record holds both drops and no digest.
	querytest.Until(t, "the drops put back", func() bool {
		ann := f.get(t, "ann@example.org")
		return len(ann.Pending) == 2 && ann.LastDigestAt == nil && ann.DigestedThrough == 0
	})
	if n := len(f.relay.Messages()); n != 0 {
		t.Fatalf("%d mails while the relay refuses", n)
	}
	f.mailer.refuse.Store(false)
	querytest.Until(t, "the digest", func() bool { return len(f.relay.Messages()) == 1 })
	if got := f.relay.Messages()[0].Parse(t).Header.Get("Subject"); got != "Price drops: 2 in your zones" {
		t.Errorf("digest %q", got)
	}
	if ann := f.get(t, "ann@example.org"); len(ann.Pending) != 0 || ann.LastDigestAt == nil {
		t.Errorf("after the digest: %+v", ann)
	}
}

// TestStopHandsBack stops the digests again and again while changes stream
// in, until a stop has come with a change in hand (taken, not yet
// collected; the consumer delivers it again). That change is handed back
// as the process stops, without an error and without waiting: every change
// is collected once the process is back, well within the consumer's
// AckWait (30 s, longer than the poll's deadline), and none twice.
func TestStopHandsBack(t *testing.T) {
	f := newFixture(t)
	f.put(t, "ann@example.org", true, 5, []string{".com"}, contracts.InterestPriceDrops)
	stop := f.runDigests(t)
	// More than a digest keeps one by one (MaxPendingDrops): past it a
	// change delivered again is counted once too.
	const n = contracts.MaxPendingDrops + 10
	morning := day.Add(8 * time.Hour)
	for i := range n {
		f.change(t, "porkbun", ".com", morning.Add(time.Duration(i)*time.Minute), 1000, 900) // -10% each
	}
	collected := func() int {
		ann := f.get(t, "ann@example.org")
		return len(ann.Pending) + ann.PendingMore
	}
	cons, err := f.js.Consumer(context.Background(), contracts.HistoryStream, digest.AlertsConsumer)
	if err != nil {
		t.Fatal(err)
	}
	// A change delivered again takes a consumer sequence of its own.
	redelivered := func() bool {
		info, err := cons.Info(context.Background())
		return err == nil && info.Delivered.Consumer > info.Delivered.Stream
	}
	for stops := 0; !redelivered(); stops++ {
		got := collected()
		if got == n || stops == 50 {
			t.Fatalf("%d stops, none with a change in hand (%d of %d collected): the test proves nothing", stops, got, n)
		}
		querytest.Until(t, "a drop collected", func() bool { return collected() > got || redelivered() })
		stop()
		stop = f.runDigests(t)
		querytest.Until(t, "the restarted process collecting", func() bool { return collected() > got+1 || redelivered() })
	}
	querytest.Until(t, "every drop collected", func() bool { return collected() == n })
	time.Sleep(50 * time.Millisecond) // a drop collected twice would show by now
	if got := collected(); got != n {
		t.Errorf("%d drops collected, want %d: none lost, none twice", got, n)
	}
	if strings.Contains(f.log.String(), `"level":"ERROR"`) {
		t.Errorf("a stop logged an error:\n%s", f.log.String())
	}
}

// TestDigestRenewalIncreases: a subscriber who chose renewal increases is
// told of every rise of the renewal price in their zones, in a section of
// its own beside the drops (text and HTML), in the same one digest a day;
// one who chose drops alone is not, nor is one not confirmed. The digests'
// metrics count both sections.
func TestDigestRenewalIncreases(t *testing.T) {
	f := newFixture(t)
	both, zones := []contracts.Interest{contracts.InterestPriceDrops, contracts.InterestRenewalIncreases}, []string{".bond", ".com"}
	f.put(t, "ann@example.org", true, 5, zones, both...)
	f.put(t, "bob@example.org", true, 0, []string{".bond"}, contracts.InterestRenewalIncreases)
	f.put(t, "carol@example.org", true, 5, zones, contracts.InterestPriceDrops)
	f.put(t, "dave@example.org", false, 0, []string{".bond"}, contracts.InterestRenewalIncreases) // not confirmed
	f.runDigests(t)

	morning := day.Add(8 * time.Hour)
	f.changeOps(t, "porkbun", ".bond", morning, ops{199, 6999}, ops{199, 73625})               // the renewal that owners fear
	f.changeOps(t, "dynadot", ".com", morning.Add(time.Hour), ops{1000, 1400}, ops{800, 1500}) // both: -20% and +7.1%
	f.changeOps(t, "inwx", ".bond", morning.Add(2*time.Hour), ops{500, 5000}, ops{500, 4000})  // a renewal drop
	f.changeOps(t, "sample-alpha", ".bond", morning, ops{100, 100}, ops{100, 900})             // the sample
	f.changeOps(t, "porkbun", ".org", morning, ops{1000, 1000}, ops{1000, 2000})               // nobody's zone
	querytest.Until(t, "the changes collected", func() bool {
		ann, bob, carol := f.get(t, "ann@example.org"), f.get(t, "bob@example.org"), f.get(t, "carol@example.org")
		return len(ann.Pending) == 2 && len(ann.Increases) == 2 && len(bob.Increases) == 1 && len(carol.Pending) == 2
	})
	if carol := f.get(t, "carol@example.org"); len(carol.Increases) != 0 {
		t.Errorf("carol, who chose drops alone, holds increases: %+v", carol.Increases)
	}

	f.clock.Set(day.Add(24*time.Hour + 30*time.Minute))
	querytest.Until(t, "the digests", func() bool { return len(f.relay.Messages()) == 3 })
	subject := func(email string) string {
		t.Helper()
		m := f.mailsTo(email)
		if len(m) != 1 {
			t.Fatalf("%s got %d mails, want one digest", email, len(m))
		}
		return m[0].Parse(t).Header.Get("Subject")
	}
	for email, want := range map[string]string{
		"ann@example.org":   "Price drops: 2, renewal increases: 2 in your zones",
		"bob@example.org":   "Renewal increases: 1 in your zones",
		"carol@example.org": "Price drops: 2 in your zones",
	} {
		if got := subject(email); got != want {
			t.Errorf("%s's digest is %q, want %q", email, got, want)
		}
	}
	text, html := f.mailsTo("ann@example.org")[0].Parts(t)
	text = strings.ReplaceAll(text, "\r\n", "\n") // the relay's line ends
	for _, want := range []string{
		"Price drops on 26 November 2026 in the zones you follow:\n",
		".com at dynadot: register 10.00 USD -> 8.00 USD (-20%)",
		".bond at inwx: renew 50.00 USD -> 40.00 USD (-20%)",
		"\n\nRenewal increases on 26 November 2026 in the zones you follow:\n",
		".bond at porkbun: renew 69.99 USD -> 736.25 USD (+951.9%)\n  https://zoneprice.test/zones/.bond",
		".com at dynadot: renew 14.00 USD -> 15.00 USD (+7.1%)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("ann's digest text lacks %q:\n%s", want, text)
		}
	}
	for _, want := range []string{
		"<title>Price drops and renewal increases on 26 November 2026</title>",
		`<tr><td><a href="https://zoneprice.test/zones/.bond">.bond</a></td><td>porkbun</td><td>69.99 USD</td><td>736.25 USD</td><td>+951.9%</td></tr>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("ann's digest HTML lacks %s:\n%s", want, html)
		}
	}
	for _, absent := range []string{"sample-alpha", ".org"} {
		if strings.Contains(text, absent) || strings.Contains(html, absent) {
			t.Errorf("ann's digest holds %q:\n%s", absent, text)
		}
	}
	if text, _ := f.mailsTo("bob@example.org")[0].Parts(t); strings.Contains(text, "Price drops") || !strings.Contains(text, "+951.9%") {
		t.Errorf("bob's digest, of increases alone:\n%s", text)
	}
	if text, _ := f.mailsTo("carol@example.org")[0].Parts(t); strings.Contains(text, "Renewal increases") || strings.Contains(text, "736.25") {
		t.Errorf("carol's digest, of drops alone:\n%s", text)
	}
	if ann := f.get(t, "ann@example.org"); len(ann.Pending)+len(ann.Increases) != 0 || ann.LastDigestAt == nil {
		t.Errorf("ann after her digest: %+v", ann)
	}
	want := `
# HELP zoneprice_subscribe_digest_collected_total Price changes added to a subscriber's next digest, one per subscriber, by section: drops, increases (renewal increases).
# TYPE zoneprice_subscribe_digest_collected_total counter
zoneprice_subscribe_digest_collected_total{section="drops"} 4
zoneprice_subscribe_digest_collected_total{section="increases"} 3
# HELP zoneprice_subscribe_digest_mailed_total Price changes told in the digests sent, by section (drops, increases), those told as "and N more" included.
# TYPE zoneprice_subscribe_digest_mailed_total counter
zoneprice_subscribe_digest_mailed_total{section="drops"} 4
zoneprice_subscribe_digest_mailed_total{section="increases"} 3
`
	// The relay has the last mail a moment before its sender counts it.
	querytest.Until(t, "the digests to be counted", func() bool {
		return testutil.GatherAndCompare(f.reg, strings.NewReader(want)) == nil
	})
	if err := testutil.GatherAndCompare(f.reg, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
	if problems, err := testutil.GatherAndLint(f.reg); err != nil || len(problems) > 0 {
		t.Errorf("metric lint: %v %v", problems, err)
	}
}
