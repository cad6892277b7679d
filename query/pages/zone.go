package pages

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v5"

	"github.com/zoneprice/zoneprice/cache"
	"github.com/zoneprice/zoneprice/contracts"
)

// Zone serves /zones/{zone}: every registrar's prices for the zone, as
// /api/comparison/{zone} gives them for the form's query, and the price
// history as a chart. A zone written in any other form than its canonical
// one (".com", ".xn--p1ai") is redirected there, the query kept: one
// address per zone page, to share, bookmark and cache.
func (p *Pages) Zone() echo.HandlerFunc {
	return func(c *echo.Context) error {
		snap, err := p.b.Snapshot()
		if err != nil {
			return p.fail(c, err)
		}
		req := c.Request()
		zone := c.Param("zone")
		if _, known := snap.Comparison(zone); !known {
			// Not a zone's canonical name, or not a zone priced: only
			// then is the name read as a person types it.
			z, err := p.b.Zone(req, zone)
			if err != nil {
				return p.fail(c, err)
			}
			if z.ASCII == zone {
				return p.fail(c, &Error{Status: http.StatusNotFound, Detail: "No registrar prices " + z.Unicode + "; the catalog lists the zones that have prices."})
			}
			target := zoneURL(z.ASCII)
			if req.URL.RawQuery != "" {
				target += "?" + req.URL.RawQuery
			}
			c.Response().Header()["Content-Security-Policy"] = pagePolicy
			return c.Redirect(http.StatusMovedPermanently, target)
		}
		q, query := p.zoneDefault, p.zoneDefaultKey
		if req.URL.RawQuery != "" {
			q = pageQuery(c.QueryParams(), zoneFields)
			query = q.Encode()
			// The options as the API takes them, or the 400 it answers.
			if _, err := p.b.Comparison(snap, zone, q); err != nil {
				return p.fail(c, err)
			}
		}
		hist, loaded := p.b.History()
		// The zone is canonical here: the key needs no escaping.
		body := p.b.Derived(snap.Version, "page /zones/"+zone+"?"+query+"#"+historyVersion(hist, loaded), func() *cache.Body {
			return p.renderZone(snap, hist, loaded, zone, q)
		})
		if len(body.JSON) == 0 {
			return p.fail(c, errRender)
		}
		return p.write(c, body)
	}
}

// The comparison and history bodies as the zone page reads them.
type (
	comparisonJSON struct {
		Zone       string     `json:"zone"`
		Unicode    string     `json:"unicode"`
		Currency   string     `json:"currency"`
		AsOf       *time.Time `json:"as_of"`
		Type       *string    `json:"type"`
		Categories []string   `json:"categories"`
		Rates      *ratesJSON `json:"rates"`
		Prices     []struct {
			Registrar string       `json:"registrar"`
			Tax       string       `json:"tax"`
			Register  *json.Number `json:"register"`
			Renew     *json.Number `json:"renew"`
			Transfer  *json.Number `json:"transfer"`
			Converted bool         `json:"converted"`
			Native    *struct {
				Currency                  string `json:"currency"`
				Register, Renew, Transfer *json.Number
			} `json:"native"`
			Promo       map[string]promoJSON `json:"promo"`
			RenewalTrap bool                 `json:"renewal_trap"`
			Cost        *struct {
				Years int          `json:"years"`
				Total *json.Number `json:"total"`
			} `json:"cost"`
			Cheapest   []string `json:"cheapest"`
			Source     string   `json:"source"`
			ObservedAt string   `json:"observed_at"`
		} `json:"prices"`
	}
	promoJSON struct {
		Regular json.Number `json:"regular"`
		EndsAt  *time.Time  `json:"ends_at"`
	}
	historyJSON struct {
		AsOf       time.Time `json:"as_of"`
		Registrars []struct {
			Registrar string       `json:"registrar"`
			Periods   []periodJSON `json:"periods"`
		} `json:"registrars"`
	}
	periodJSON struct {
		From     time.Time    `json:"from"`
		To       *time.Time   `json:"to"`
		Register *json.Number `json:"register"`
		Renew    *json.Number `json:"renew"`
	}
)

type zonePage struct {
	Head
	ASCII, Unicode, Type string
	Categories           []string
	Currency, AsOf       string
	Sample               bool
	Years, Sort          string
	Currencies           []option
	YearsOptions         []option
	Columns              []column
	Rows                 []zoneRow
	Chart                *chart
	HistoryNote          string
	JSON, HistoryJSON    string
	CSV                  string
}

type zoneRow struct {
	// registrarName is how the row names its registrar: by name, linked
	// to its website, where the directory knows them.
	registrarName
	Registrar, Tax string
	Ops            [3]opCell
	Cost           cell
	Trap           bool
	// Native is the registrar's own prices when it prices in another
	// currency; without a rate they are all it shows.
	Native    string
	Converted bool
}

// opCell is one operation's price, the regular price while a promotion
// runs, and when the promotion ends.
type opCell struct {
	cell
	Cheapest      bool
	Regular, Ends string
}

// renderZone renders a zone's page for the query q; an empty body when it
// fails, which it logs.
func (p *Pages) renderZone(snap *cache.Snapshot, hist *cache.HistoryView, loaded bool, zone string, q url.Values) *cache.Body {
	api, err := p.b.Comparison(snap, zone, q)
	var doc comparisonJSON
	if err == nil {
		err = json.Unmarshal(api.JSON, &doc)
	}
	if err != nil {
		p.log.Error("zone page: read the comparison", "zone", zone, "err", err)
		return cache.NewBody(nil, time.Time{})
	}
	pg := newZonePage(snap, zone, q, &doc)
	pg.Rows = zoneRows(&doc, p.registrarNames(snap))
	histModified, ok := p.addHistory(&pg, snap, hist, loaded, q)
	if !ok {
		return cache.NewBody(nil, time.Time{})
	}
	return p.renderBody("zone.html", pg, later(api.Modified, histModified), "zone page: render", "zone", pg.ASCII)
}

// newZonePage is a zone's page for the query q without its rows and
// history: the zone, the form and the table's columns.
func newZonePage(snap *cache.Snapshot, zone string, q url.Values, doc *comparisonJSON) zonePage {
	_, sample := snap.Sources[contracts.SampleSource]
	z := contracts.Zone{ASCII: zone, Unicode: doc.Unicode}
	name := z.Unicode
	pg := zonePage{
		Head: Head{Title: name + " domain prices", Description: "What " + name + " costs to register, renew and transfer at every registrar, and how its prices changed.",
			Feeds: []feedLink{zoneFeed(z.ASCII).link()}},
		ASCII: z.ASCII, Unicode: z.Unicode, Categories: doc.Categories, Currency: doc.Currency, Sample: sample,
		Years: q.Get("years"), Sort: q.Get("sort"),
		JSON: "/api/comparison/" + url.PathEscape(z.ASCII) + "?" + q.Encode(),
		CSV:  "/api/comparison/" + url.PathEscape(z.ASCII) + "?" + csvQuery(q),
	}
	if doc.Type != nil {
		pg.Type = *doc.Type
	}
	if doc.AsOf != nil {
		pg.AsOf = doc.AsOf.Format("2 January 2006, 15:04 UTC")
	}
	pg.Currencies = currencyOptions(snap, doc.Currency)
	pg.YearsOptions = yearsOptions(pg.Years)
	pg.Columns = sortColumns(zoneURL(z.ASCII), q, cache.SortRegister, []column{
		{Label: "Registrar", Key: "registrar"},
		{Label: "Register", Key: "register", Numeric: true}, {Label: "Renew", Key: "renew", Numeric: true},
		{Label: "Transfer", Key: "transfer", Numeric: true}, {Label: pg.Years + "-year total", Key: "cost", Numeric: true},
		{Label: "Tax"},
	})
	return pg
}

// zoneRows are the comparison's rows as the page's table shows them,
// each registrar as names shows it (by its id where it does not).
func zoneRows(doc *comparisonJSON, names map[string]registrarName) []zoneRow {
	var rows []zoneRow
	for _, r := range doc.Prices {
		row := zoneRow{Registrar: r.Registrar, Tax: r.Tax, Trap: r.RenewalTrap, Converted: r.Converted}
		row.registrarName = names[r.Registrar]
		if row.Name == "" {
			row.Name = r.Registrar
		}
		for op, price := range []*json.Number{r.Register, r.Renew, r.Transfer} {
			c := &row.Ops[op]
			opName := contracts.Ops[op].String()
			if price != nil {
				c.cell = priceCell(*price, r.Registrar)
			}
			for _, ch := range r.Cheapest {
				c.Cheapest = c.Cheapest || ch == opName
			}
			if pr, ok := r.Promo[opName]; ok {
				c.Regular = pr.Regular.String()
				if pr.EndsAt != nil {
					c.Ends = pr.EndsAt.Format("2 Jan 2006")
				}
			}
		}
		if r.Cost != nil && r.Cost.Total != nil {
			row.Cost = priceCell(*r.Cost.Total, r.Registrar)
		}
		if n := r.Native; n != nil {
			row.Native = n.Currency
			for op, v := range []*json.Number{n.Register, n.Renew, n.Transfer} {
				if v != nil {
					row.Native += " " + contracts.Ops[op].String() + " " + v.String()
				}
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// addHistory gives a zone's page its price history, in the currency of q:
// the chart, or a note saying why there is none. It returns when the
// history last changed (zero without one), and false when it failed,
// which it logs.
func (p *Pages) addHistory(pg *zonePage, snap *cache.Snapshot, hist *cache.HistoryView, loaded bool, q url.Values) (time.Time, bool) {
	hq := url.Values{}
	if cur := q.Get("currency"); cur != "" {
		hq.Set("currency", cur)
	}
	pg.HistoryJSON = "/api/comparison/" + url.PathEscape(pg.ASCII) + "/history"
	if enc := hq.Encode(); enc != "" {
		pg.HistoryJSON += "?" + enc
	}
	if !loaded {
		pg.HistoryNote = "The price history is still loading; reload the page in a moment to see it."
		return time.Time{}, true
	}
	hb, err := p.b.ZoneHistory(snap, hist, pg.ASCII, hq)
	var pe *Error
	switch {
	case errors.As(err, &pe) && pe.Status == http.StatusNotFound:
		pg.HistoryNote = "No price history has been recorded for this zone yet."
		return time.Time{}, true
	case err != nil:
		p.log.Error("zone page: the history", "zone", pg.ASCII, "err", err)
		return time.Time{}, false
	}
	var h historyJSON
	if err := json.Unmarshal(hb.JSON, &h); err != nil {
		p.log.Error("zone page: read the history", "zone", pg.ASCII, "err", err)
		return time.Time{}, false
	}
	pg.Chart = newChart(&h, pg.Currency)
	return hb.Modified, true
}
