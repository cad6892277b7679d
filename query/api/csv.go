package api

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v5"

	"github.com/zoneprice/zoneprice/cache"
)

// CSV, for spreadsheets: the catalog and a zone's comparison as tables
// (RFC 4180: UTF-8, a header row, CRLF line ends), asked for with
// format=csv or an Accept that prefers text/csv. A CSV body is made from
// the JSON body of the same request the first time a client asks for it,
// and kept with it (cache.Body.CSV): once per data version and options,
// with the same rows in the same order, and money as the same decimal text
// in the same currency, so the two can never say different things.

// The headers of a negotiated route and of a CSV body. Never modified.
var (
	// varyNegotiated is the Vary of a route whose answer also depends on
	// Accept (JSON or CSV), on its JSON answers too: a shared cache must
	// not give a spreadsheet's CSV to a JSON client.
	varyNegotiated = []string{"Accept, Accept-Encoding"}
	contentTypeCSV = []string{"text/csv; charset=utf-8; header=present"}
	catalogCSVName = []string{`attachment; filename="zoneprice-domains.csv"`}
)

// wantsCSV reports whether a request asks for CSV: format=csv; without
// format, an Accept that prefers text/csv to JSON. format=json is JSON
// whatever Accept says; any other format is a 400 naming it.
func wantsCSV(c *echo.Context) (bool, error) {
	if c.Request().URL.RawQuery != "" {
		f, err := newParams(c.QueryParams()).one("format")
		switch {
		case err != nil:
			return false, err
		case strings.EqualFold(f, "csv"):
			return true, nil
		case strings.EqualFold(f, "json"):
			return false, nil
		case f != "":
			return false, invalidParam("format", "must be json or csv, not "+strconv.Quote(f))
		}
	}
	return prefersCSV(c.Request().Header.Values("Accept")), nil
}

// prefersCSV reads Accept: text/csv named with a weight above zero, and
// above JSON's when application/json is named too (a tie is JSON, the
// default). Wildcards name neither: "text/csv, */*" asks for CSV.
func prefersCSV(lines []string) bool {
	named := false
	for _, line := range lines {
		named = named || strings.Contains(line, "csv") || strings.Contains(line, "CSV")
	}
	if !named {
		return false // the usual request: no parsing
	}
	csvQ, jsonQ := -1.0, -1.0
	for _, line := range lines {
		for part := range strings.SplitSeq(line, ",") {
			mt, params, _ := strings.Cut(part, ";")
			switch mt = strings.TrimSpace(mt); {
			case strings.EqualFold(mt, "text/csv"):
				csvQ = max(csvQ, weight(params))
			case strings.EqualFold(mt, "application/json"):
				jsonQ = max(jsonQ, weight(params))
			}
		}
	}
	return csvQ > 0 && csvQ > jsonQ
}

// weight is the q of a media range's parameters, 1 without one; an
// unreadable q counts as 0.
func weight(params string) float64 {
	for p := range strings.SplitSeq(params, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || q < 0 || q > 1 {
			return 0
		}
		return q
	}
	return 1
}

// writeCSV writes b's CSV form, made by render the first time, as an
// attachment named by disposition.
func (s *Server) writeCSV(c *echo.Context, b *cache.Body, disposition []string, render func(*cache.Body) (*cache.Body, error)) error {
	cb, err := b.CSV(render)
	if err != nil {
		return err
	}
	c.Response().Header()["Content-Disposition"] = disposition
	return s.writeBodyAs(c, cb, contentTypeCSV, s.cacheControl)
}

// comparisonCSVName is the attachment's name of a canonical zone's
// comparison: "zoneprice-co.uk.csv". An ASCII zone name needs no quoting.
func comparisonCSVName(zone string) []string {
	return []string{`attachment; filename="zoneprice-` + strings.TrimPrefix(zone, ".") + `.csv"`}
}

// The JSON bodies as the tables read them: money and times stay the text
// the JSON has.
type (
	catalogDoc struct {
		Currency string `json:"currency"`
		Zones    []struct {
			Zone       string   `json:"zone"`
			Unicode    string   `json:"unicode"`
			Type       *string  `json:"type"`
			Categories []string `json:"categories"`
			Registrars int      `json:"registrars"`
			Min        struct {
				Register, Renew, Transfer *minimumDoc
			} `json:"min"`
			Cost *struct {
				Years     int          `json:"years"`
				Price     *json.Number `json:"price"`
				Registrar *string      `json:"registrar"`
			} `json:"cost"`
		} `json:"zones"`
	}
	minimumDoc struct {
		Price     json.Number `json:"price"`
		Registrar string      `json:"registrar"`
	}
	comparisonDoc struct {
		Zone     string `json:"zone"`
		Unicode  string `json:"unicode"`
		Currency string `json:"currency"`
		Prices   []struct {
			Registrar   string       `json:"registrar"`
			Source      string       `json:"source"`
			Tax         string       `json:"tax"`
			Register    *json.Number `json:"register"`
			Renew       *json.Number `json:"renew"`
			Transfer    *json.Number `json:"transfer"`
			Converted   bool         `json:"converted"`
			RenewalTrap bool         `json:"renewal_trap"`
			Cheapest    []string     `json:"cheapest"`
			ObservedAt  string       `json:"observed_at"`
			Native      *struct {
				Currency                  string `json:"currency"`
				Register, Renew, Transfer *json.Number
			} `json:"native"`
			Promo map[string]struct {
				Regular json.Number `json:"regular"`
				EndsAt  *string     `json:"ends_at"`
			} `json:"promo"`
			Cost *struct {
				Years int          `json:"years"`
				Total *json.Number `json:"total"`
			} `json:"cost"`
		} `json:"prices"`
	}
)

// The tables' header rows; the cost columns only with years, as the JSON
// has cost only then.
var (
	catalogColumns = []string{"zone", "unicode", "type", "categories", "registrars", "currency",
		"register", "register_registrar", "renew", "renew_registrar", "transfer", "transfer_registrar"}
	catalogCostColumns = []string{"cost_years", "cost", "cost_registrar"}
	comparisonColumns  = []string{"zone", "unicode", "registrar", "currency", "register", "renew", "transfer",
		"converted", "tax", "renewal_trap", "cheapest",
		"register_regular", "register_promo_ends_at", "renew_regular", "renew_promo_ends_at", "transfer_regular", "transfer_promo_ends_at",
		"native_currency", "native_register", "native_renew", "native_transfer", "source", "observed_at"}
	comparisonCostColumns = []string{"cost_years", "cost"}
)

// catalogCSV is a catalog body as a table: a row per zone, with the cost
// columns when withCost (the request had years).
func catalogCSV(b *cache.Body, withCost bool) (*cache.Body, error) {
	var doc catalogDoc
	if err := json.Unmarshal(b.JSON, &doc); err != nil {
		return nil, err
	}
	costColumns := 0
	if withCost {
		costColumns = len(catalogCostColumns)
	}
	t := newTable(len(b.JSON) / 2)
	t.row(catalogColumns, costColumns, catalogCostColumns)
	for _, z := range doc.Zones {
		row := []string{z.Zone, z.Unicode, text(z.Type), strings.Join(z.Categories, ","), strconv.Itoa(z.Registrars), doc.Currency}
		for _, m := range [...]*minimumDoc{z.Min.Register, z.Min.Renew, z.Min.Transfer} {
			if m == nil {
				row = append(row, "", "")
				continue
			}
			row = append(row, m.Price.String(), m.Registrar)
		}
		var cost []string
		if c := z.Cost; c != nil {
			cost = []string{strconv.Itoa(c.Years), number(c.Price), text(c.Registrar)}
		}
		t.row(row, costColumns, cost)
	}
	return t.body(b)
}

// comparisonCSV is a comparison body as a table: a row per registrar, with
// the cost columns when withCost (the request had years).
func comparisonCSV(b *cache.Body, withCost bool) (*cache.Body, error) {
	var doc comparisonDoc
	if err := json.Unmarshal(b.JSON, &doc); err != nil {
		return nil, err
	}
	costColumns := 0
	if withCost {
		costColumns = len(comparisonCostColumns)
	}
	t := newTable(len(b.JSON) / 2)
	t.row(comparisonColumns, costColumns, comparisonCostColumns)
	for _, r := range doc.Prices {
		row := []string{doc.Zone, doc.Unicode, r.Registrar, doc.Currency, number(r.Register), number(r.Renew), number(r.Transfer),
			strconv.FormatBool(r.Converted), r.Tax, strconv.FormatBool(r.RenewalTrap), strings.Join(r.Cheapest, ",")}
		for _, op := range [...]string{"register", "renew", "transfer"} {
			p, ok := r.Promo[op]
			if !ok {
				row = append(row, "", "")
				continue
			}
			row = append(row, p.Regular.String(), text(p.EndsAt))
		}
		if n := r.Native; n != nil {
			row = append(row, n.Currency, number(n.Register), number(n.Renew), number(n.Transfer))
		} else {
			row = append(row, "", "", "", "")
		}
		row = append(row, r.Source, r.ObservedAt)
		var cost []string
		if c := r.Cost; c != nil {
			cost = []string{strconv.Itoa(c.Years), number(c.Total)}
		}
		t.row(row, costColumns, cost)
	}
	return t.body(b)
}

// table is a CSV body being written.
type table struct {
	buf bytes.Buffer
	w   *csv.Writer
	err error
}

func newTable(size int) *table {
	t := &table{}
	t.buf.Grow(size)
	t.w = csv.NewWriter(&t.buf)
	t.w.UseCRLF = true // RFC 4180
	return t
}

// row writes cells, then costColumns cost cells: cost, or empty ones
// where it is nil (a zone or row without a cost).
func (t *table) row(cells []string, costColumns int, cost []string) {
	if costColumns > 0 {
		if cost == nil {
			cost = make([]string, costColumns)
		}
		cells = slices.Concat(cells, cost)
	}
	if t.err == nil {
		t.err = t.w.Write(cells)
	}
}

// body is the table as the CSV form of the JSON body b: b's time, and its
// next page's cursor (the Link header).
func (t *table) body(b *cache.Body) (*cache.Body, error) {
	t.w.Flush()
	if err := t.err; err != nil {
		return nil, err
	}
	if err := t.w.Error(); err != nil {
		return nil, err
	}
	cb := cache.NewBody(t.buf.Bytes(), b.Modified)
	cb.Next = b.Next
	return cb, nil
}

// text is a nullable string's cell: empty for null.
func text(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// number is a nullable amount's cell: the JSON's decimal text, empty for
// null.
func number(n *json.Number) string {
	if n == nil {
		return ""
	}
	return n.String()
}

// writeNegotiated answers with b as JSON, or as CSV when csv (the table
// made by render), on a route whose answer depends on Accept.
func (s *Server) writeNegotiated(c *echo.Context, b *cache.Body, csv bool, disposition []string, render func(*cache.Body) (*cache.Body, error)) error {
	c.Response().Header()["Vary"] = varyNegotiated
	if !csv {
		return s.writeBody(c, b)
	}
	return s.writeCSV(c, b, disposition, render)
}
