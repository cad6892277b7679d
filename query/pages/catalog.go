package pages

import (
	"encoding/json"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"github.com/zoneprice/zoneprice/cache"
	"github.com/zoneprice/zoneprice/contracts"
)

// defaultYears is the years of the cost column when the form does not
// choose: long enough that a cheap first year followed by dear renewals
// shows, short enough to be a common purchase.
const defaultYears = "3"

// drops is how many of the latest price drops the catalog shows.
const drops = 10

// The form fields each page reads and passes on to the API; any other
// parameter is left out, as the API ignores what it does not know.
var (
	catalogFields = []string{"q", "category", "sort", "currency", "years", "tax"}
	zoneFields    = []string{"sort", "currency", "years", "tax"}
)

// pageQuery is the request's query as the API takes it: only fields, and
// only those the form filled in (a form sends its empty fields too, and the
// API refuses an empty parameter), with the page's default years where
// the page has years.
func pageQuery(q url.Values, fields []string) url.Values {
	out := url.Values{}
	for _, f := range fields {
		for _, v := range q[f] {
			if v = strings.TrimSpace(v); v != "" {
				out[f] = append(out[f], v)
			}
		}
	}
	if _, ok := out["years"]; !ok && slices.Contains(fields, "years") {
		out.Set("years", defaultYears)
	}
	return out
}

// historyVersion names the history view a page was rendered with.
func historyVersion(v *cache.HistoryView, loaded bool) string {
	if !loaded {
		return "-"
	}
	return strconv.FormatUint(v.Version, 36)
}

// Catalog serves /: every zone with its cheapest prices, filtered and
// sorted by the form's query as /api/domains would be, and the latest
// price drops.
func (p *Pages) Catalog() echo.HandlerFunc {
	return func(c *echo.Context) error {
		snap, err := p.b.Snapshot()
		if err != nil {
			return p.fail(c, err)
		}
		hist, loaded := p.b.History()
		plain := len(c.Request().URL.RawQuery) == 0
		hv := uint64(0)
		if loaded {
			hv = hist.Version + 1
		}
		if v := p.catalog.Load(); plain && v != nil && v.snap == snap.Version && v.hist == hv {
			return p.write(c, v.body)
		}
		q := pageQuery(c.QueryParams(), catalogFields)
		api, err := p.b.Catalog(snap, q)
		if err != nil {
			return p.fail(c, err)
		}
		body := p.b.Derived(snap.Version, "page /?"+q.Encode()+"#"+historyVersion(hist, loaded), func() *cache.Body {
			return p.renderCatalog(snap, hist, loaded, q, api)
		})
		if len(body.JSON) == 0 {
			return p.fail(c, errRender)
		}
		if plain {
			// The page most people open is kept for its data version
			// here, never left to the response cache's admission.
			p.catalog.Store(&versioned{snap: snap.Version, hist: hv, body: body})
		}
		return p.write(c, body)
	}
}

// errRender is a page whose template failed; the failure is logged where
// it happened.
var errRender = &Error{Status: 500, Detail: "The page could not be made; the error has been logged."}

// The API's bodies as the pages read them. Money stays the decimal text
// the API wrote.
type (
	catalogJSON struct {
		Currency string     `json:"currency"`
		AsOf     *time.Time `json:"as_of"`
		Rates    *ratesJSON `json:"rates"`
		Count    int        `json:"count"`
		Zones    []struct {
			Zone       string   `json:"zone"`
			Unicode    string   `json:"unicode"`
			Type       *string  `json:"type"`
			Categories []string `json:"categories"`
			Registrars int      `json:"registrars"`
			Min        struct {
				Register, Renew, Transfer *minimumJSON
			} `json:"min"`
			Cost *struct {
				Years     int          `json:"years"`
				Price     *json.Number `json:"price"`
				Registrar *string      `json:"registrar"`
			} `json:"cost"`
		} `json:"zones"`
	}
	ratesJSON struct {
		Base   string `json:"base"`
		Date   string `json:"date"`
		Source string `json:"source"`
	}
	minimumJSON struct {
		Price     json.Number `json:"price"`
		Registrar string      `json:"registrar"`
	}
	changesJSON struct {
		Currency string `json:"currency"`
		Changes  []struct {
			ID         string     `json:"id"`
			Zone       string     `json:"zone"`
			Unicode    string     `json:"unicode"`
			Registrar  string     `json:"registrar"`
			Kind       string     `json:"kind"`
			Dropped    bool       `json:"dropped"`
			ObservedAt time.Time  `json:"observed_at"`
			Source     string     `json:"source"`
			Before     *offerJSON `json:"before"`
			After      *offerJSON `json:"after"`
		} `json:"changes"`
	}
	offerJSON struct {
		Tax                       string `json:"tax"`
		Register, Renew, Transfer *json.Number
		Native                    *struct {
			Currency                  string `json:"currency"`
			Register, Renew, Transfer *json.Number
		} `json:"native"`
		Promo map[string]promoJSON `json:"promo"`
	}
)

// Page parts shared by the pages.
type (
	// option is one choice of a select.
	option struct {
		Value, Label string
		Selected     bool
	}
	// column is a table header; a sortable one links to its order.
	column struct {
		Label, Key, Href string
		// Sort is the column's aria-sort: "ascending", "descending" or "".
		Sort    string
		Numeric bool
	}
	// cell is a price with who asks it; Value is its amount in minor
	// units, for sorting in place.
	cell struct {
		Price, Registrar string
		Value            int64
		OK               bool
	}
)

type catalogPage struct {
	Head
	Currency string
	AsOf     string
	Count    int
	Sample   bool
	Years    string
	// The form's values.
	Q, Category, Sort string
	Categories        []option
	Currencies        []option
	YearsOptions      []option
	Columns           []column
	Zones             []catalogRow
	Drops             []dropRow
	HistoryLoading    bool
	JSON, DropsJSON   string
	CSV               string
}

type catalogRow struct {
	URL, ASCII, Unicode string
	Type                string
	Categories          []string
	Registrars          int
	Ops                 [3]cell
	Cost                cell
}

type dropRow struct {
	URL, Zone, Registrar, Date string
	Changes                    []string
}

// renderCatalog renders the catalog page for the query q from api, the
// catalog's body for it; an empty body when it fails, which it logs.
func (p *Pages) renderCatalog(snap *cache.Snapshot, hist *cache.HistoryView, loaded bool, q url.Values, api *cache.Body) *cache.Body {
	var doc catalogJSON
	if err := json.Unmarshal(api.JSON, &doc); err != nil {
		p.log.Error("catalog page: read the catalog", "err", err)
		return cache.NewBody(nil, time.Time{})
	}
	pg := newCatalogPage(snap, q, &doc)
	pg.Zones = catalogRows(&doc)
	dropsModified, ok := p.addDrops(&pg, snap, hist, loaded, q)
	if !ok {
		return cache.NewBody(nil, time.Time{})
	}
	return p.renderBody("catalog.html", pg, later(api.Modified, dropsModified), "catalog page: render")
}

// newCatalogPage is the catalog page for the query q without its zones
// and drops: the form, with every category to choose from, and the
// table's columns.
func newCatalogPage(snap *cache.Snapshot, q url.Values, doc *catalogJSON) catalogPage {
	_, sample := snap.Sources[contracts.SampleSource]
	pg := catalogPage{
		Head: Head{Title: "Domain prices by zone", Description: "What it costs to register, renew and transfer a domain in every zone, compared across registrars.", Nav: "catalog",
			Feeds: []feedLink{dropsFeed.link(), changesFeed.link()}},
		Currency: doc.Currency, Count: doc.Count, Sample: sample,
		Years: q.Get("years"), Q: q.Get("q"), Category: q.Get("category"), Sort: q.Get("sort"),
		JSON: "/api/domains?" + q.Encode(), CSV: "/api/domains?" + csvQuery(q),
	}
	if doc.AsOf != nil {
		pg.AsOf = doc.AsOf.Format("2 January 2006, 15:04 UTC")
	}
	pg.Categories = append(pg.Categories, option{Value: "", Label: "All categories", Selected: pg.Category == ""})
	cats := contracts.Categories()
	slices.SortFunc(cats, func(a, b contracts.Category) int { return strings.Compare(a.Name, b.Name) })
	for _, cat := range cats {
		pg.Categories = append(pg.Categories, option{Value: cat.ID, Label: cat.Name, Selected: cat.ID == pg.Category})
	}
	pg.Currencies = currencyOptions(snap, doc.Currency)
	pg.YearsOptions = yearsOptions(pg.Years)
	pg.Columns = sortColumns("/", q, cache.SortZone, []column{
		{Label: "Zone", Key: "zone"}, {Label: "Type and categories"},
		{Label: "Register", Key: "register", Numeric: true}, {Label: "Renew", Key: "renew", Numeric: true},
		{Label: "Transfer", Key: "transfer", Numeric: true}, {Label: pg.Years + "-year cost", Key: "cost", Numeric: true},
	})
	return pg
}

// catalogRows are the catalog's zones as the page's table shows them.
func catalogRows(doc *catalogJSON) []catalogRow {
	rows := make([]catalogRow, len(doc.Zones))
	for i, z := range doc.Zones {
		r := &rows[i]
		r.URL, r.ASCII, r.Unicode, r.Registrars = zoneURL(z.Zone), z.Zone, z.Unicode, z.Registrars
		if z.Type != nil {
			r.Type = *z.Type
		}
		for _, cat := range z.Categories {
			if cat != r.Type {
				r.Categories = append(r.Categories, cat)
			}
		}
		for op, m := range []*minimumJSON{z.Min.Register, z.Min.Renew, z.Min.Transfer} {
			if m != nil {
				r.Ops[op] = priceCell(m.Price, m.Registrar)
			}
		}
		if z.Cost != nil && z.Cost.Price != nil && z.Cost.Registrar != nil {
			r.Cost = priceCell(*z.Cost.Price, *z.Cost.Registrar)
		}
	}
	return rows
}

// addDrops gives the catalog page the latest price drops, in the
// currency of q, or says the history is still loading. It returns when
// they last changed (zero without them), and false when they could not be
// read, which it logs.
func (p *Pages) addDrops(pg *catalogPage, snap *cache.Snapshot, hist *cache.HistoryView, loaded bool, q url.Values) (time.Time, bool) {
	if !loaded {
		pg.HistoryLoading = true
		return time.Time{}, true
	}
	dq := url.Values{"kind": {"dropped"}, "limit": {strconv.Itoa(drops)}}
	if cur := q.Get("currency"); cur != "" {
		dq.Set("currency", cur)
	}
	pg.DropsJSON = "/api/changes?" + dq.Encode()
	changes, err := p.b.Changes(snap, hist, dq)
	if err != nil {
		p.log.Error("catalog page: the latest drops", "err", err)
		return time.Time{}, false
	}
	var cd changesJSON
	if err := json.Unmarshal(changes.JSON, &cd); err != nil {
		p.log.Error("catalog page: read the latest drops", "err", err)
		return time.Time{}, false
	}
	for _, ch := range cd.Changes {
		d := dropRow{URL: zoneURL(ch.Zone), Zone: ch.Unicode, Registrar: ch.Registrar, Date: ch.ObservedAt.Format("2 Jan 2006")}
		if ch.Before != nil && ch.After != nil {
			for _, op := range []struct {
				name          string
				before, after *json.Number
			}{{"register", ch.Before.Register, ch.After.Register}, {"renew", ch.Before.Renew, ch.After.Renew}} {
				if op.before != nil && op.after != nil && minor(*op.after) < minor(*op.before) {
					d.Changes = append(d.Changes, op.name+" "+op.before.String()+" → "+op.after.String())
				}
			}
		}
		pg.Drops = append(pg.Drops, d)
	}
	return changes.Modified, true
}

// csvQuery is q with format=csv: the same view as a CSV table.
func csvQuery(q url.Values) string {
	c := maps.Clone(q)
	c.Set("format", "csv")
	return c.Encode()
}

// priceCell is a price as the API wrote it, with its registrar.
func priceCell(n json.Number, registrar string) cell {
	return cell{Price: n.String(), Registrar: registrar, Value: minor(n), OK: true}
}

// minor is an amount the API wrote with its currency's decimals, in minor
// units: every amount of one body has the same number of decimals, so
// dropping the point orders and scales them exactly.
func minor(n json.Number) int64 {
	v, err := strconv.ParseInt(strings.Replace(n.String(), ".", "", 1), 10, 64)
	if err != nil {
		return 0
	}
	return v
}

// currencyOptions are the currencies the snapshot shows prices in.
func currencyOptions(snap *cache.Snapshot, current string) []option {
	var out []option
	for _, code := range snap.Currencies() {
		out = append(out, option{Value: code, Label: code, Selected: code == current})
	}
	return out
}

// yearsOptions are 1 to cache.MaxYears years.
func yearsOptions(current string) []option {
	out := make([]option, cache.MaxYears)
	for i := range out {
		v := strconv.Itoa(i + 1)
		label := v + " years"
		if i == 0 {
			label = "1 year"
		}
		out[i] = option{Value: v, Label: label, Selected: v == current}
	}
	return out
}

// sortColumns links each sortable column to its order, keeping the rest
// of the query: ascending first, descending when it is already ascending.
// def is the order without a sort parameter.
func sortColumns(path string, q url.Values, def cache.Sort, cols []column) []column {
	cur, desc := strings.CutPrefix(q.Get("sort"), "-")
	if cur == "" {
		cur = def.String()
	}
	for i := range cols {
		c := &cols[i]
		if c.Key == "" {
			continue
		}
		next := c.Key
		if c.Key == cur {
			c.Sort = "ascending"
			if desc {
				c.Sort = "descending"
			} else {
				next = "-" + c.Key
			}
		}
		lq := url.Values{}
		for k, v := range q {
			lq[k] = v
		}
		if next == def.String() {
			lq.Del("sort")
		} else {
			lq.Set("sort", next)
		}
		c.Href = path
		if enc := lq.Encode(); enc != "" {
			c.Href += "?" + enc
		}
	}
	return cols
}
