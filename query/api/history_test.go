package api_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/zoneprice/zoneprice/cache"
	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/eventtest"
	"github.com/zoneprice/zoneprice/contracts/openapitest"
	"github.com/zoneprice/zoneprice/query/querytest"
)

// daysAgo is n days before epoch: when the fixture history's changes were
// observed.
func daysAgo(n int) time.Time { return epoch.AddDate(0, 0, -n) }

// offer offers all three operations at regular prices in one currency.
func offer(currency string, register, renew, transfer int64) *contracts.Offer {
	return &contracts.Offer{Register: eventtest.Regular(currency, register), Renew: eventtest.Regular(currency, renew),
		Transfer: eventtest.Regular(currency, transfer)}
}

// change is a change of registrar's offer for zone, observed at at; before
// and after are nil where the change has none.
func change(kind contracts.Change, registrar, zone string, at time.Time, before, after *contracts.Offer) *contracts.PriceChange {
	return &contracts.PriceChange{V: contracts.SchemaVersion, Kind: contracts.KindPriceChange, Change: kind,
		Registrar: registrar, Zone: zone, Before: before, After: after, ObservedAt: at, Source: eventtest.Source}
}

// historyEvents is the history most history tests serve beside
// baseEvents, at sequences 1 to 14: alpha's .com price known from before
// history was kept, then dropped; bravo's added, then raised; charlie's,
// in EUR, added, then dropped; delta's added and withdrawn; .рф's two
// registrars added and one's transfer lowered (not a drop); alpha's .co.uk
// price only known; and a sample registrar's additions, which the real
// registrars hide.
func historyEvents() []*contracts.PriceChange {
	alphaOld, alphaNew := offer("USD", 1068, 1137, 1068), offer("USD", 968, 1037, 968)
	bravoOld, bravoNew := offer("USD", 999, 1199, 1099), offer("USD", 1099, 1199, 1099)
	charlieOld, charlieNew := offer("EUR", 999, 1299, 1299), offer("EUR", 899, 1299, 1299)
	delta := offer("USD", 1500, 1500, 1500)
	rfOld, rfNew := offer("USD", 300, 300, 300), offer("USD", 300, 300, 250)
	return []*contracts.PriceChange{
		change(contracts.ChangeKnown, "alpha", ".com", daysAgo(30), nil, alphaOld),
		change(contracts.ChangeAdded, "bravo", ".com", daysAgo(20), nil, bravoOld),
		change(contracts.ChangeChanged, "alpha", ".com", daysAgo(10), alphaOld, alphaNew),
		change(contracts.ChangeAdded, "charlie", ".com", daysAgo(9), nil, charlieOld),
		change(contracts.ChangeAdded, "alpha", ".xn--p1ai", daysAgo(8), nil, offer("USD", 350, 350, 350)),
		change(contracts.ChangeAdded, "bravo", ".xn--p1ai", daysAgo(7), nil, rfOld),
		change(contracts.ChangeAdded, "delta", ".com", daysAgo(6), nil, delta),
		change(contracts.ChangeWithdrawn, "delta", ".com", daysAgo(5), delta, nil),
		change(contracts.ChangeChanged, "charlie", ".com", daysAgo(4), charlieOld, charlieNew),
		change(contracts.ChangeChanged, "bravo", ".com", daysAgo(3), bravoOld, bravoNew),
		change(contracts.ChangeChanged, "bravo", ".xn--p1ai", daysAgo(2), rfOld, rfNew),
		change(contracts.ChangeKnown, "alpha", ".co.uk", daysAgo(2), nil, offer("USD", 599, 699, 599)),
		change(contracts.ChangeAdded, "sample-alpha", ".com", daysAgo(1), nil, offer("USD", 100, 100, 100)),
		change(contracts.ChangeAdded, "sample-alpha", ".zz", daysAgo(1), nil, offer("USD", 100, 100, 100)),
	}
}

// historyOf is the published view of a history holding changes at
// sequences 1, 2, … in order.
func historyOf(t testing.TB, changes ...*contracts.PriceChange) *cache.HistoryView {
	t.Helper()
	h := cache.NewHistory()
	for i, c := range changes {
		if err := c.Validate(); err != nil {
			t.Fatalf("fixture change %d is not valid: %v", i+1, err)
		}
		if err := h.Add(uint64(i+1), c); err != nil {
			t.Fatalf("add change %d: %v", i+1, err)
		}
	}
	h.Publish()
	return h.View()
}

// servingHistory is baseEvents' prices with historyEvents' history loaded.
func servingHistory(t testing.TB) fixedSnapshots {
	t.Helper()
	f := serving(t, baseEvents()...)
	f.hist = historyOf(t, historyEvents()...)
	return f
}

// publishHistory publishes changes onto the history stream.
func publishHistory(t testing.TB, js jetstream.JetStream, changes ...*contracts.PriceChange) {
	t.Helper()
	events := make([]contracts.Event, len(changes))
	for i, c := range changes {
		events[i] = c
	}
	publish(t, js, events...)
}

// waitHistory waits until the pod's consumer has loaded the history
// stream as it was when the consumer started reading it.
func (p *pod) waitHistory(t testing.TB) {
	t.Helper()
	querytest.Until(t, "the history loaded", func() bool {
		_, loaded := p.consumer.History()
		return loaded
	})
}

// historyOffer is an offer as the history endpoints show it.
type historyOffer struct {
	Tax       string       `json:"tax"`
	Register  *json.Number `json:"register"`
	Renew     *json.Number `json:"renew"`
	Transfer  *json.Number `json:"transfer"`
	Converted bool         `json:"converted"`
	Native    *struct {
		Currency string       `json:"currency"`
		Register *json.Number `json:"register"`
	} `json:"native"`
	Promo map[string]json.RawMessage `json:"promo"`
}

type zoneHistory struct {
	Zone       string     `json:"zone"`
	Unicode    string     `json:"unicode"`
	Currency   string     `json:"currency"`
	AsOf       *time.Time `json:"as_of"`
	Type       *string    `json:"type"`
	Categories []string   `json:"categories"`
	Registrars []struct {
		Registrar string `json:"registrar"`
		Periods   []struct {
			From   time.Time  `json:"from"`
			To     *time.Time `json:"to"`
			Kind   string     `json:"kind"`
			Source string     `json:"source"`
			historyOffer
		} `json:"periods"`
	} `json:"registrars"`
}

// periods summarises the history: per registrar, each period as
// "registrar kind from..to register", days before epoch, "now" while
// current.
func (h zoneHistory) periods() []string {
	ago := func(t time.Time) string { return "-" + strconv.Itoa(int(epoch.Sub(t)/(24*time.Hour))) + "d" }
	var out []string
	for _, r := range h.Registrars {
		for _, p := range r.Periods {
			to := "now"
			if p.To != nil {
				to = ago(*p.To)
			}
			out = append(out, r.Registrar+" "+p.Kind+" "+ago(p.From)+".."+to+" "+numberText(p.Register))
		}
	}
	return out
}

type changesPage struct {
	Currency   string     `json:"currency"`
	AsOf       *time.Time `json:"as_of"`
	NextCursor *string    `json:"next_cursor"`
	Changes    []struct {
		ID         string        `json:"id"`
		Zone       string        `json:"zone"`
		Unicode    string        `json:"unicode"`
		Registrar  string        `json:"registrar"`
		Kind       string        `json:"kind"`
		Dropped    bool          `json:"dropped"`
		ObservedAt time.Time     `json:"observed_at"`
		Source     string        `json:"source"`
		Before     *historyOffer `json:"before"`
		After      *historyOffer `json:"after"`
	} `json:"changes"`
}

// ids are the page's change ids, in order.
func (p changesPage) ids() string {
	var ids []string
	for _, c := range p.Changes {
		ids = append(ids, c.ID)
	}
	return strings.Join(ids, " ")
}

func numberText(n *json.Number) string {
	if n == nil {
		return "null"
	}
	return n.String()
}

// TestZoneHistory checks /api/comparison/{zone}/history's periods and
// options, every answer validated against the document: periods newest
// first, a known price as a registrar's first period, a withdrawal ending
// one, the sample hidden beside real registrars.
func TestZoneHistory(t *testing.T) {
	p := startPod(t, nil, podConfig{cfg: apiConfig(), snaps: servingHistory(t)})
	d := openapitest.Load(t)
	all := []string{
		"alpha changed -10d..now 9.68",
		"alpha known -30d..-10d 10.68",
		"bravo changed -3d..now 10.99",
		"bravo added -20d..-3d 9.99",
		"charlie changed -4d..now 9.74",
		"charlie added -9d..-4d 10.82",
		"delta added -6d..-5d 15.00",
	}
	tests := []struct {
		name, query string
		want        []string
	}{
		{"everything", "", all},
		{"registrars", "registrars=delta,alpha", []string{all[0], all[1], all[6]}},
		{"exclude", "exclude=alpha&exclude=charlie", []string{all[2], all[3], all[6]}},
		{"registrars and exclude", "registrars=alpha,bravo&exclude=bravo", all[:2]},
		{"no such registrar", "registrars=zulu", nil},
		{"since a time", "since=" + url.QueryEscape(daysAgo(7).Format(time.RFC3339)), slices.Delete(slices.Clone(all), 1, 2)},
		// Periods that had not ended by midnight: delta's ended at noon
		// the day before.
		{"since a date", "since=2026-11-16", []string{all[0], all[2], all[3], all[4], all[5]}},
		{"since a day ago", "since=2026-11-19T00:00:00Z", []string{all[0], all[2], all[4]}},
		{"since after every change", "since=2030-01-01", []string{all[0], all[2], all[4]}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := apiCase{target: "/api/comparison/.com/history?" + tt.query, path: "/api/comparison/{zone}/history", status: 200}.run(t, d, p.url)
			var h zoneHistory
			decode(t, x.body, &h)
			if got := h.periods(); !slices.Equal(got, tt.want) {
				t.Errorf("periods:\n got %q\nwant %q", got, tt.want)
			}
			// as_of is the zone's, whatever the options show: bravo's
			// raise is the newest change of a real registrar.
			if h.AsOf == nil || !h.AsOf.Equal(daysAgo(3)) || h.Zone != ".com" || h.Currency != "USD" ||
				h.Type == nil || *h.Type != "generic" || strings.Join(h.Categories, ",") != "generic,legacy-gtld" {
				t.Errorf("got zone %s currency %s as_of %v type %v categories %v; want .com USD, as_of bravo's raise, the zone's metadata",
					h.Zone, h.Currency, h.AsOf, h.Type, h.Categories)
			}
		})
	}

	t.Run("prices", func(t *testing.T) {
		var h zoneHistory
		decode(t, send(t, http.MethodGet, p.url+"/api/comparison/.com/history").body, &h)
		for _, r := range h.Registrars {
			for _, period := range r.Periods {
				native := period.Native != nil
				if period.Source != eventtest.Source || period.Tax != "unknown" || !period.Converted || native != (r.Registrar == "charlie") {
					t.Errorf("%s from %s: source %s tax %s converted %v native %v; want the fixture's, converted, native for charlie's EUR",
						r.Registrar, period.From, period.Source, period.Tax, period.Converted, period.Native)
				}
			}
		}
	})
	t.Run("currency", func(t *testing.T) {
		var h zoneHistory
		decode(t, send(t, http.MethodGet, p.url+"/api/comparison/.com/history?currency=eur").body, &h)
		for _, r := range h.Registrars {
			for _, period := range r.Periods {
				if native := period.Native != nil; native != (r.Registrar != "charlie") {
					t.Errorf("in EUR, %s from %s: native %v; want it for the USD prices only", r.Registrar, period.From, period.Native)
				}
			}
		}
		if h.Currency != "EUR" || h.periods()[4] != "charlie changed -4d..now 8.99" {
			t.Errorf("in EUR: currency %s, periods %q; want charlie's own 8.99", h.Currency, h.periods())
		}
	})
}

// TestZoneHistoryZones checks the zone of a history: every form a person
// types answers the same body, and a zone without history, or whose
// history only the hidden sample has, is a 404 naming the parameter.
func TestZoneHistoryZones(t *testing.T) {
	p := startPod(t, nil, podConfig{cfg: apiConfig(), snaps: servingHistory(t)})
	d := openapitest.Load(t)
	path := "/api/comparison/{zone}/history"
	_, com := get(t, p.url+"/api/comparison/.com/history")
	_, rf := get(t, p.url+"/api/comparison/.xn--p1ai/history")
	tests := []struct {
		name, zone string
		status     int
		want       []byte
		code       string
	}{
		{"dotted", ".com", 200, com, ""},
		{"bare", "com", 200, com, ""},
		{"upper", "COM", 200, com, ""},
		{"root dot", ".com.", 200, com, ""},
		{"a-label", "xn--p1ai", 200, rf, ""},
		{"a-label upper", ".XN--P1AI", 200, rf, ""},
		{"unicode", ".%D1%80%D1%84", 200, rf, ""},
		{"unicode bare", "%D1%80%D1%84", 200, rf, ""},
		{"unicode upper", "%D0%A0%D0%A4", 200, rf, ""},
		{"only known", "co.uk", 200, nil, ""},
		{"no history", ".nope", 404, nil, contracts.CodeUnknownZone},
		{"only the hidden sample", ".zz", 404, nil, contracts.CodeUnknownZone},
		{"malformed", "exa_mple", 400, nil, contracts.CodeMalformedZone},
		{"encoded slash", "co%2Fuk", 400, nil, contracts.CodeMalformedZone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Twice: the second answer comes from the response cache.
			for range 2 {
				x := apiCase{target: "/api/comparison/" + tt.zone + "/history", path: path, status: tt.status, wantCode: tt.code}.run(t, d, p.url)
				if tt.want != nil && !bytes.Equal(x.body, tt.want) {
					t.Errorf("body: got %s, want %s", x.body, tt.want)
				}
				if tt.code != "" {
					var pr contracts.Problem
					decode(t, x.body, &pr)
					if pr.Param != "zone" {
						t.Errorf("problem param: got %q, want zone", pr.Param)
					}
				}
			}
		})
	}
	var h zoneHistory
	decode(t, rf, &h)
	if h.Zone != ".xn--p1ai" || h.Unicode != ".рф" || !slices.Equal(h.periods(), []string{
		"alpha added -8d..now 3.50", "bravo changed -2d..now 3.00", "bravo added -7d..-2d 3.00",
	}) {
		t.Errorf(".рф: zone %s (%s), periods %q", h.Zone, h.Unicode, h.periods())
	}
}

// TestChanges checks /api/changes's filters, every answer validated
// against the document: newest first, known prices and the hidden sample
// never shown.
func TestChanges(t *testing.T) {
	p := startPod(t, nil, podConfig{cfg: apiConfig(), snaps: servingHistory(t)})
	d := openapitest.Load(t)
	tests := []struct {
		name, query, want string
	}{
		{"everything", "", "11 10 9 8 7 6 5 4 3 2"},
		{"dropped", "kind=dropped", "9 3"},
		{"changed", "kind=changed", "11 10 9 3"},
		{"added", "kind=ADDED", "7 6 5 4 2"},
		{"withdrawn", "kind=withdrawn", "8"},
		{"changed or withdrawn", "kind=changed,withdrawn", "11 10 9 8 3"},
		{"kinds repeated", "kind=withdrawn&kind=added", "8 7 6 5 4 2"},
		{"zone", "zone=.com", "10 9 8 7 4 3 2"},
		{"zone bare, upper", "zone=COM", "10 9 8 7 4 3 2"},
		{"zone unicode", "zone=" + url.QueryEscape(".рф"), "11 6 5"},
		{"zone a-label", "zone=xn--p1ai", "11 6 5"},
		{"zone with only a known price", "zone=co.uk", ""},
		{"zone with only the hidden sample", "zone=.zz", ""},
		{"zone without history", "zone=.nope", ""},
		{"registrar", "registrar=alpha", "5 3"},
		{"registrars", "registrar=bravo,delta", "11 10 8 7 6 2"},
		{"registrar without changes", "registrar=india", ""},
		{"category", "category=idn", "11 6 5"},
		{"category upper", "category=LEGACY-GTLD", "10 9 8 7 4 3 2"},
		{"category without changes", "category=finance", ""},
		{"since a time", "since=" + url.QueryEscape(daysAgo(6).Format(time.RFC3339)), "11 10 9 8 7"},
		{"since a date", "since=2026-11-15", "11 10 9 8"},
		{"since an offset time", "since=" + url.QueryEscape("2026-11-18T13:00:00+01:00"), "11"},
		{"since after every change", "since=2030-01-01", ""},
		{"drops of a zone", "kind=dropped&zone=.com", "9 3"},
		{"everything at once", "kind=dropped,withdrawn&zone=com&registrar=charlie,delta&category=generic&since=2026-11-01&currency=EUR&limit=2", "9 8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := apiCase{target: "/api/changes?" + tt.query, path: "/api/changes", status: 200}.run(t, d, p.url)
			var page changesPage
			decode(t, x.body, &page)
			if got := page.ids(); got != tt.want {
				t.Errorf("ids: got %q, want %q", got, tt.want)
			}
			// as_of is the history's newest change shown, whatever the
			// page's options leave out; the sample's, newer and hidden,
			// does not count.
			if page.AsOf == nil || !page.AsOf.Equal(daysAgo(2)) {
				t.Errorf("as_of %v, want the newest real change's %v", page.AsOf, daysAgo(2))
			}
		})
	}

	var page changesPage
	decode(t, send(t, http.MethodGet, p.url+"/api/changes").body, &page)
	if page.Currency != "USD" || page.NextCursor != nil {
		t.Errorf("currency %s next_cursor %v; want USD and the only page", page.Currency, page.NextCursor)
	}
	byID := map[string]int{}
	for i, c := range page.Changes {
		byID[c.ID] = i
	}
	summary := func(id string) string {
		c := page.Changes[byID[id]]
		side := func(o *historyOffer) string {
			if o == nil {
				return "null"
			}
			s := numberText(o.Register) + "/" + numberText(o.Renew) + "/" + numberText(o.Transfer)
			if o.Native != nil {
				s += " (" + o.Native.Currency + " " + numberText(o.Native.Register) + ")"
			}
			return s
		}
		return strings.Join([]string{c.Zone, c.Unicode, c.Registrar, c.Kind, strconv.FormatBool(c.Dropped),
			c.ObservedAt.Format(time.DateOnly), c.Source, side(c.Before), side(c.After)}, " ")
	}
	for id, want := range map[string]string{
		"11": ".xn--p1ai .рф bravo changed false 2026-11-18 test 3.00/3.00/3.00 3.00/3.00/2.50",
		"10": ".com .com bravo changed false 2026-11-17 test 9.99/11.99/10.99 10.99/11.99/10.99",
		"9":  ".com .com charlie changed true 2026-11-16 test 10.82/14.07/14.07 (EUR 9.99) 9.74/14.07/14.07 (EUR 8.99)",
		"8":  ".com .com delta withdrawn false 2026-11-15 test 15.00/15.00/15.00 null",
		"3":  ".com .com alpha changed true 2026-11-10 test 10.68/11.37/10.68 9.68/10.37/9.68",
		"2":  ".com .com bravo added false 2026-10-31 test null 9.99/11.99/10.99",
	} {
		if got := summary(id); got != want {
			t.Errorf("change %s:\n got %s\nwant %s", id, got, want)
		}
	}
}

// TestChangesPaging follows /api/changes's pages by their Link to the end:
// every change comes once, newest first, and the last page says it is.
func TestChangesPaging(t *testing.T) {
	p := startPod(t, nil, podConfig{cfg: apiConfig(), snaps: servingHistory(t)})
	d := openapitest.Load(t)
	tests := []struct {
		name, first string
		pages       []string
	}{
		{"limit 3", "/api/changes?limit=3", []string{"11 10 9", "8 7 6", "5 4 3", "2"}},
		// The last change fills the page: what follows holds no change
		// the feed shows, so there is no next page.
		{"limit 5", "/api/changes?limit=5", []string{"11 10 9 8 7", "6 5 4 3 2"}},
		{"filtered", "/api/changes?limit=2&kind=added&currency=EUR", []string{"7 6", "5 4", "2"}},
		{"one zone", "/api/changes?zone=%D1%80%D1%84&limit=1", []string{"11", "6", "5"}},
		{"the default", "/api/changes", []string{"11 10 9 8 7 6 5 4 3 2"}},
		{"the largest", "/api/changes?limit=500", []string{"11 10 9 8 7 6 5 4 3 2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var pages []string
			for target := tt.first; target != ""; {
				x := apiCase{target: target, path: "/api/changes", status: 200}.run(t, d, p.url)
				var page changesPage
				decode(t, x.body, &page)
				pages = append(pages, page.ids())
				link := x.resp.Header.Get("Link")
				if page.NextCursor == nil {
					if link != "" {
						t.Errorf("%s: the last page, but Link %q", target, link)
					}
					break
				}
				next, ok := strings.CutSuffix(strings.TrimPrefix(link, "<"), `>; rel="next"`)
				u, err := url.Parse(next)
				if !ok || err != nil || u.Query().Get("cursor") != *page.NextCursor {
					t.Fatalf("next_cursor %s, but Link %q does not lead to it", *page.NextCursor, link)
				}
				if len(pages) > len(tt.pages) {
					t.Fatalf("pages %q and more", pages)
				}
				target = next
			}
			if !slices.Equal(pages, tt.pages) {
				t.Errorf("pages:\n got %q\nwant %q", pages, tt.pages)
			}
		})
	}

	for _, cursor := range []string{"forged", base64.RawURLEncoding.EncodeToString([]byte("c1|0")),
		base64.RawURLEncoding.EncodeToString([]byte("d1|5")), base64.RawURLEncoding.EncodeToString([]byte("c1|x"))} {
		x := apiCase{target: "/api/changes?limit=3&cursor=" + url.QueryEscape(cursor), path: "/api/changes", status: 400,
			wantCode: contracts.CodeInvalidParameter}.run(t, d, p.url)
		var pr contracts.Problem
		decode(t, x.body, &pr)
		if pr.Param != "cursor" {
			t.Errorf("cursor %q: problem param %q, want cursor", cursor, pr.Param)
		}
	}
}

// TestHistorySampleRule checks that the history endpoints hide the sample
// as the others do: once a real registrar has a price, or a change, no
// sample registrar appears, and a zone only the sample has is unknown. The
// feed's as_of is its newest change shown: a hidden sample change, newer
// than the real ones, does not date it.
func TestHistorySampleRule(t *testing.T) {
	samplePrices := serving(t, eventtest.Priced("sample-alpha", ".com", epoch, "USD", 999, 999, 999))
	sample := []*contracts.PriceChange{
		change(contracts.ChangeAdded, "sample-alpha", ".com", daysAgo(2), nil, offer("USD", 999, 999, 999)),
		change(contracts.ChangeAdded, "sample-bravo", ".com", daysAgo(2), nil, offer("USD", 888, 888, 888)),
	}
	real := change(contracts.ChangeAdded, "alpha", ".net", daysAgo(3), nil, offer("USD", 1200, 1300, 1200))
	tests := []struct {
		name       string
		snaps      fixedSnapshots
		changes    []*contracts.PriceChange
		wantShown  bool   // the sample's changes are shown
		wantFeed   string // the registrars of /api/changes
		wantStatus int    // of .com's history
		wantAsOf   time.Time
	}{
		{"only the sample", samplePrices, sample, true, "sample-bravo sample-alpha", 200, daysAgo(2)},
		{"a real change", samplePrices, append(slices.Clone(sample), real), false, "alpha", 404, daysAgo(3)},
		{"a real price", serving(t, baseEvents()...), sample, false, "", 404, time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.snaps.hist = historyOf(t, tt.changes...)
			p := startPod(t, nil, podConfig{snaps: tt.snaps})
			resp, feed := get(t, p.url+"/api/changes")
			var page changesPage
			decode(t, feed, &page)
			var regs []string
			for _, c := range page.Changes {
				regs = append(regs, c.Registrar)
			}
			if resp.StatusCode != http.StatusOK || strings.Join(regs, " ") != tt.wantFeed {
				t.Errorf("/api/changes: got %d with %q, want %q", resp.StatusCode, regs, tt.wantFeed)
			}
			if got := page.AsOf; tt.wantAsOf.IsZero() != (got == nil) || got != nil && !got.Equal(tt.wantAsOf) {
				t.Errorf("/api/changes as_of %v, want %v (null for none shown)", got, tt.wantAsOf)
			}
			resp, history := get(t, p.url+"/api/comparison/.com/history")
			if resp.StatusCode != tt.wantStatus {
				t.Errorf(".com history: got %d %s, want %d", resp.StatusCode, history, tt.wantStatus)
			}
			for _, body := range [][]byte{feed, history} {
				if shown := bytes.Contains(body, []byte(`"sample-`)); shown != tt.wantShown {
					t.Errorf("sample shown %v, want %v: %s", shown, tt.wantShown, body)
				}
			}
		})
	}
}

// TestHistoryNotLoaded checks what a pod answers before it has loaded the
// history: 503 with Retry-After and a problem on the history endpoints,
// as documented, while the others serve the prices.
func TestHistoryNotLoaded(t *testing.T) {
	p := startPod(t, nil, podConfig{cfg: apiConfig(), snaps: serving(t, baseEvents()...)})
	d := openapitest.Load(t)
	tests := []apiCase{
		{name: "zone history", target: "/api/comparison/.com/history", path: "/api/comparison/{zone}/history", status: 503, wantCode: contracts.CodeNotReady},
		{name: "HEAD zone history", method: http.MethodHead, target: "/api/comparison/.com/history", path: "/api/comparison/{zone}/history", status: 503},
		{name: "changes", target: "/api/changes?kind=dropped", path: "/api/changes", status: 503, wantCode: contracts.CodeNotReady},
		{name: "HEAD changes", method: http.MethodHead, target: "/api/changes", path: "/api/changes", status: 503},
		{name: "catalog", target: "/api/domains", path: "/api/domains", status: 200},
		{name: "categories", target: "/api/domains/categories", path: "/api/domains/categories", status: 200},
		{name: "comparison zones", target: "/api/comparison/zones", path: "/api/comparison/zones", status: 200},
		{name: "comparison", target: "/api/comparison/.com", path: "/api/comparison/{zone}", status: 200},
		{name: "readyz", target: "/readyz", path: "/readyz", status: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := tt.run(t, d, p.url)
			if tt.status != http.StatusServiceUnavailable {
				return
			}
			if got := x.resp.Header.Get("Retry-After"); got != "5" {
				t.Errorf("Retry-After %q, want 5", got)
			}
			if tt.method == "" && !strings.Contains(string(x.body), "history") {
				t.Errorf("the problem does not say it is the history that loads: %s", x.body)
			}
		})
	}
}
