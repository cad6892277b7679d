package api

import (
	"strconv"
	"strings"

	"github.com/labstack/echo/v5"

	"github.com/zoneprice/zoneprice/cache"
	"github.com/zoneprice/zoneprice/query/pages"
)

// CSV, for spreadsheets: the catalog and a zone's comparison as tables,
// asked for with format=csv or an Accept that prefers text/csv. A CSV body
// is made from the JSON body of the same request (pages.CatalogCSV,
// pages.ComparisonCSV) the first time a client asks for it, and kept with
// it (cache.Body.CSV): once per data version and options, with the same
// rows in the same order, so the two can never say different things.

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

// catalogTables and comparisonTables make a body's CSV form, without and
// with the cost columns (costTable): made once, so that a request makes no
// closure.
var (
	catalogTables = [2]func(*cache.Body) (*cache.Body, error){
		func(b *cache.Body) (*cache.Body, error) { return pages.CatalogCSV(b, false) },
		func(b *cache.Body) (*cache.Body, error) { return pages.CatalogCSV(b, true) },
	}
	comparisonTables = [2]func(*cache.Body) (*cache.Body, error){
		func(b *cache.Body) (*cache.Body, error) { return pages.ComparisonCSV(b, false) },
		func(b *cache.Body) (*cache.Body, error) { return pages.ComparisonCSV(b, true) },
	}
)

// costTable is which of a pair of tables fits the body of the options
// key: 1, with the cost columns, when the options have years (the body
// then has costs), else 0.
func costTable(key string) int {
	if strings.Contains("&"+key, "&years=") {
		return 1
	}
	return 0
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
