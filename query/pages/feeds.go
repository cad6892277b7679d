package pages

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"github.com/zoneprice/zoneprice/cache"
	"github.com/zoneprice/zoneprice/contracts"
)

// The Atom feeds (RFC 4287) of price changes, for feed readers: every
// change (/changes.atom), the price drops (/drops.atom) and one zone's
// changes (/zones/{zone}/changes.atom), the latest feedEntries of each,
// newest first. A feed is made from the API's own page of /api/changes
// for the same selection, like a page, and is rendered once per data
// version (the snapshot's and the history's), then kept in the response
// cache: a request is a lookup and a write, with the API's ETag, 304 and
// gzip.
//
// An entry is one change: its id is the change's (the same on every pod
// and in every feed that shows it), its time when the change was
// observed, its title what a person wants to know (".com at Porkbun:
// register $9.58 → $10.37"), its link the zone's page. Prices are the
// registrar's own, in its own currency, so an entry never changes with
// the exchange rates. Links are relative to the feed's address: the
// service does not know the name people reach it by.

// feedEntries is how many changes a feed holds: a reader that polls once
// a day misses none but on the busiest days.
const feedEntries = 50

var contentTypeAtom = []string{"application/atom+xml; charset=utf-8"}

// FeedPaths are the feeds' routes as routes.go registers them.
func FeedPaths() []string {
	return []string{"/changes.atom", "/drops.atom", "/zones/:zone/changes.atom"}
}

// feed is one feed: what it selects and how it presents itself.
type feed struct {
	path, id, title, subtitle string
	// zone is a zone's feed's zone (canonical), whose title is made with
	// the feed.
	zone string
	// html is the page that shows the same: the feed's alternate link.
	html string
	// query selects the feed's changes from /api/changes.
	query url.Values
}

// changesFeed, dropsFeed and zoneFeed are the three feeds.
var (
	changesFeed = feed{path: "/changes.atom", id: "urn:zoneprice:feed:changes", title: "zoneprice: price changes",
		subtitle: "The latest changes of registrars' domain prices, in every zone.", html: "/",
		query: url.Values{"limit": {strconv.Itoa(feedEntries)}}}
	dropsFeed = feed{path: "/drops.atom", id: "urn:zoneprice:feed:drops", title: "zoneprice: price drops",
		subtitle: "The latest domain prices that dropped: a registration or renewal that costs less than before, in every zone.", html: "/",
		query: url.Values{"kind": {"dropped"}, "limit": {strconv.Itoa(feedEntries)}}}
)

// zoneFeed is a canonical zone's feed, its title still to make.
func zoneFeed(zone string) feed {
	return feed{path: zoneURL(zone) + "/changes.atom", id: "urn:zoneprice:feed:zone:" + zone, zone: zone,
		html: zoneURL(zone), query: url.Values{"zone": {zone}, "limit": {strconv.Itoa(feedEntries)}}}
}

// titled is f with its title: a zone's by its Unicode name.
func (f feed) titled() feed {
	if f.zone == "" {
		return f
	}
	name := f.zone
	if z, err := contracts.NormalizeZone(f.zone); err == nil {
		name = z.Unicode
	}
	f.title = "zoneprice: " + name + " price changes"
	f.subtitle = "The latest changes of what registrars charge for " + name + "."
	return f
}

// feedLink is a feed as a page's head and text link to it.
type feedLink struct{ Title, Href string }

func (f feed) link() feedLink { f = f.titled(); return feedLink{Title: f.title, Href: f.path} }

// ChangesFeed serves /changes.atom: every change.
func (p *Pages) ChangesFeed() echo.HandlerFunc { return p.serveFeed(always(changesFeed)) }

// DropsFeed serves /drops.atom: the price drops.
func (p *Pages) DropsFeed() echo.HandlerFunc { return p.serveFeed(always(dropsFeed)) }

// always picks f for every request.
func always(f feed) func(*echo.Context, *cache.Snapshot, *cache.HistoryView) (feed, error) {
	return func(*echo.Context, *cache.Snapshot, *cache.HistoryView) (feed, error) { return f, nil }
}

// ZoneFeed serves /zones/{zone}/changes.atom: one zone's changes. A zone
// written in another form than its canonical one is redirected there, as
// its page is; a zone neither priced nor in the history is a 404.
func (p *Pages) ZoneFeed() echo.HandlerFunc {
	return p.serveFeed(func(c *echo.Context, snap *cache.Snapshot, hist *cache.HistoryView) (feed, error) {
		zone := c.Param("zone")
		if _, priced := snap.Comparison(zone); priced || hist.HasZone(zone) {
			return zoneFeed(zone), nil
		}
		z, err := p.b.Zone(c.Request(), zone)
		if err != nil {
			return feed{}, err
		}
		if z.ASCII == zone {
			return feed{}, &Error{Status: http.StatusNotFound, Detail: "No registrar prices " + z.Unicode + ", and no change of its prices is recorded."}
		}
		return feed{}, redirect(zoneFeed(z.ASCII).path)
	})
}

// redirect is the error that sends a client to another address.
type redirect string

func (r redirect) Error() string { return "moved to " + string(r) }

// serveFeed serves the feed which picks for a request: rendered once per
// data version, or the 503 page while the history loads.
func (p *Pages) serveFeed(which func(*echo.Context, *cache.Snapshot, *cache.HistoryView) (feed, error)) echo.HandlerFunc {
	return func(c *echo.Context) error {
		snap, err := p.b.Snapshot()
		if err != nil {
			return p.fail(c, err)
		}
		hist, loaded := p.b.History()
		if !loaded {
			return p.fail(c, &Error{Status: http.StatusServiceUnavailable, Detail: "The price history is still loading; retry in a moment."})
		}
		f, err := which(c, snap, hist)
		var moved redirect
		if errors.As(err, &moved) {
			return c.Redirect(http.StatusMovedPermanently, string(moved))
		}
		if err != nil {
			return p.fail(c, err)
		}
		body := p.b.Derived(snap.Version, "feed "+f.path+"#"+historyVersion(hist, loaded), func() *cache.Body {
			return p.renderFeed(snap, hist, f)
		})
		if len(body.JSON) == 0 {
			return p.fail(c, errRender)
		}
		return p.b.WriteBody(c, body, contentTypeAtom, nil)
	}
}

// The Atom document, as encoding/xml writes it: every text escaped.
type (
	atomFeed struct {
		XMLName  xml.Name    `xml:"http://www.w3.org/2005/Atom feed"`
		Lang     string      `xml:"http://www.w3.org/XML/1998/namespace lang,attr"`
		ID       string      `xml:"id"`
		Title    string      `xml:"title"`
		Subtitle string      `xml:"subtitle"`
		Updated  string      `xml:"updated"`
		Links    []atomLink  `xml:"link"`
		Author   atomAuthor  `xml:"author"`
		Entries  []atomEntry `xml:"entry"`
	}
	atomLink struct {
		Rel  string `xml:"rel,attr"`
		Type string `xml:"type,attr,omitempty"`
		Href string `xml:"href,attr"`
	}
	atomAuthor struct {
		Name string `xml:"name"`
	}
	atomEntry struct {
		ID         string         `xml:"id"`
		Title      string         `xml:"title"`
		Updated    string         `xml:"updated"`
		Published  string         `xml:"published"`
		Links      []atomLink     `xml:"link"`
		Categories []atomCategory `xml:"category"`
		Summary    string         `xml:"summary"`
	}
	atomCategory struct {
		Term string `xml:"term,attr"`
	}
)

// renderFeed renders f from the API's page of its changes; an empty body
// when that fails, which it logs.
func (p *Pages) renderFeed(snap *cache.Snapshot, hist *cache.HistoryView, f feed) *cache.Body {
	f = f.titled()
	api, err := p.b.Changes(snap, hist, f.query)
	var doc changesJSON
	if err == nil {
		err = json.Unmarshal(api.JSON, &doc)
	}
	if err != nil {
		p.log.Error("feed: read the changes", "feed", f.path, "err", err)
		return cache.NewBody(nil, time.Time{})
	}
	out := atomFeed{Lang: "en", ID: f.id, Title: f.title, Subtitle: f.subtitle, Updated: atomTime(api.Modified),
		Links: []atomLink{
			{Rel: "self", Type: "application/atom+xml", Href: f.path},
			{Rel: "alternate", Type: "text/html", Href: f.html},
			{Rel: "alternate", Type: "application/json", Href: "/api/changes?" + f.query.Encode()},
		},
		Author: atomAuthor{Name: "zoneprice"}}
	names := p.registrarNames(snap)
	for _, ch := range doc.Changes {
		name := names[ch.Registrar].Name
		if name == "" {
			name = ch.Registrar
		}
		at := atomTime(ch.ObservedAt)
		e := atomEntry{ID: "urn:zoneprice:change:" + ch.ID, Updated: at, Published: at,
			Title:      ch.Unicode + " at " + name + ": " + changeText(ch.Kind, ch.Before, ch.After, doc.Currency),
			Links:      []atomLink{{Rel: "alternate", Type: "text/html", Href: zoneURL(ch.Zone)}},
			Categories: []atomCategory{{Term: ch.Kind}}}
		if ch.Dropped {
			e.Categories = append(e.Categories, atomCategory{Term: "dropped"})
		}
		e.Summary = changeSummary(ch.Zone, ch.Unicode, name, ch.Registrar, ch.Kind, ch.ObservedAt, ch.Source, ch.Before, ch.After, doc.Currency)
		out.Entries = append(out.Entries, e)
	}
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	if err := enc.Encode(out); err != nil {
		p.log.Error("feed: render", "feed", f.path, "err", err)
		return cache.NewBody(nil, time.Time{})
	}
	buf.WriteByte('\n')
	return cache.NewBody(buf.Bytes(), api.Modified)
}

// atomTime is an Atom date (RFC 3339, UTC); the Unix epoch for none.
func atomTime(t time.Time) string {
	if t.IsZero() {
		t = time.Unix(0, 0)
	}
	return t.UTC().Format(time.RFC3339)
}

// changeText says what a change did to the prices a customer pays, in
// the registrar's own currency: "register $9.58 → $10.37, renew $10.37 →
// $11.20"; an addition lists the new prices, a withdrawal says so.
func changeText(kind string, before, after *offerJSON, currency string) string {
	switch {
	case kind == string(contracts.ChangeWithdrawn) || after == nil:
		return "no longer offered"
	case kind == string(contracts.ChangeAdded) || before == nil:
		return "now offered, " + offerText(after, currency)
	}
	var parts []string
	b, a := before.prices(currency), after.prices(currency)
	for op, name := range []string{"register", "renew", "transfer"} {
		if b[op] != a[op] {
			parts = append(parts, name+" "+orNone(b[op])+" → "+orNone(a[op]))
		}
	}
	if len(parts) == 0 {
		return "terms changed, prices unchanged"
	}
	return strings.Join(parts, ", ")
}

// offerText lists an offer's prices: "register $9.58, renew $10.37,
// transfer $9.58", the operations it offers only.
func offerText(o *offerJSON, currency string) string {
	var parts []string
	for op, price := range o.prices(currency) {
		if price != "" {
			parts = append(parts, []string{"register", "renew", "transfer"}[op]+" "+price)
		}
	}
	if len(parts) == 0 {
		return "no price"
	}
	return strings.Join(parts, ", ")
}

// changeSummary is an entry's text: the change, the offer after it with
// its tax declaration and promotions, and where it comes from.
func changeSummary(zone, unicode, name, registrar, kind string, at time.Time, source string, before, after *offerJSON, currency string) string {
	var b strings.Builder
	b.WriteString(name)
	if name != registrar {
		b.WriteString(" (" + registrar + ")")
	}
	b.WriteString(" on " + at.UTC().Format("2 January 2006, 15:04 UTC") + ", for " + unicode)
	if unicode != zone {
		b.WriteString(" (" + zone + ")")
	}
	b.WriteString(": ")
	switch {
	case after == nil:
		b.WriteString("no longer offered; it was " + offerText(before, currency) + ".")
	case before == nil:
		b.WriteString("now offered, " + offerText(after, currency) + ".")
	default:
		b.WriteString(changeText(kind, before, after, currency) + "; now " + offerText(after, currency) + ".")
	}
	if after != nil {
		for _, op := range []string{"register", "renew", "transfer"} {
			if pr, ok := after.Promo[op]; ok {
				b.WriteString(" The " + op + " price is a promotion")
				if pr.EndsAt != nil {
					b.WriteString(" until " + pr.EndsAt.UTC().Format("2 January 2006"))
				}
				b.WriteString("; the regular price is " + pr.Regular.String() + ".")
			}
		}
		b.WriteString(" Tax: " + after.Tax + ".")
	}
	b.WriteString(" Source: " + source + ".")
	if contracts.IsSampleRegistrar(registrar) {
		b.WriteString(" This registrar is an invented sample, not a real price.")
	}
	return b.String()
}

// prices are an offer's register, renew and transfer prices as a person
// reads them, in the registrar's own currency (the body's when it has no
// other); "" for an operation it does not offer.
func (o *offerJSON) prices(currency string) [3]string {
	amounts := [3]*json.Number{o.Register, o.Renew, o.Transfer}
	if n := o.Native; n != nil {
		currency, amounts = n.Currency, [3]*json.Number{n.Register, n.Renew, n.Transfer}
	}
	var out [3]string
	for op, a := range amounts {
		if a != nil {
			out[op] = money(a.String(), currency)
		}
	}
	return out
}

// money is an amount with its currency: a symbol for the few a reader
// cannot mistake ("$9.58" is the US dollar), the code before it otherwise
// ("CHF 12.00").
func money(amount, currency string) string {
	switch currency {
	case "USD":
		return "$" + amount
	case "EUR":
		return "€" + amount
	case "GBP":
		return "£" + amount
	case "JPY":
		return "¥" + amount
	}
	return currency + " " + amount
}

// orNone is a price, or "none" for an operation not offered.
func orNone(price string) string {
	if price == "" {
		return "none"
	}
	return price
}
