package pages

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zoneprice/zoneprice/cache"
)

// The catalog and a zone's comparison as CSV tables, for spreadsheets
// (RFC 4180: UTF-8, a header row, CRLF line ends), read from the API's
// JSON body like a page: a row per element of its list in the same order,
// money as the JSON's decimal text in the body's currency (a currency
// column says which), null an empty cell, a list one comma-separated
// cell. The API serves them (format=csv) and keeps each beside its JSON
// body (cache.Body.CSV).

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

// CatalogCSV is a catalog body (/api/domains) as a table: a row per zone,
// with the cost columns when withCost (the request had years).
func CatalogCSV(b *cache.Body, withCost bool) (*cache.Body, error) {
	var doc catalogJSON
	t, costColumns, err := startTable(b, &doc, catalogColumns, catalogCostColumns, withCost)
	if err != nil {
		return nil, err
	}
	for _, z := range doc.Zones {
		row := []string{z.Zone, z.Unicode, text(z.Type), strings.Join(z.Categories, ","), strconv.Itoa(z.Registrars), doc.Currency}
		for _, m := range [...]*minimumJSON{z.Min.Register, z.Min.Renew, z.Min.Transfer} {
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

// ComparisonCSV is a comparison body (/api/comparison/{zone}) as a table:
// a row per registrar, with the cost columns when withCost (the request
// had years).
func ComparisonCSV(b *cache.Body, withCost bool) (*cache.Body, error) {
	var doc comparisonJSON
	t, costColumns, err := startTable(b, &doc, comparisonColumns, comparisonCostColumns, withCost)
	if err != nil {
		return nil, err
	}
	for _, r := range doc.Prices {
		row := []string{doc.Zone, doc.Unicode, r.Registrar, doc.Currency, number(r.Register), number(r.Renew), number(r.Transfer),
			strconv.FormatBool(r.Converted), r.Tax, strconv.FormatBool(r.RenewalTrap), strings.Join(r.Cheapest, ",")}
		for _, op := range [...]string{"register", "renew", "transfer"} {
			p, ok := r.Promo[op]
			if !ok {
				row = append(row, "", "")
				continue
			}
			ends := ""
			if p.EndsAt != nil {
				ends = p.EndsAt.UTC().Format(time.RFC3339) // as the API writes it
			}
			row = append(row, p.Regular.String(), ends)
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

// startTable decodes the JSON body b into doc and starts its table with
// the header row: columns, then costs when withCost. It returns how many
// cost cells each row then has.
func startTable(b *cache.Body, doc any, columns, costs []string, withCost bool) (*table, int, error) {
	if err := json.Unmarshal(b.JSON, doc); err != nil {
		return nil, 0, err
	}
	t := &table{}
	t.buf.Grow(len(b.JSON) / 2)
	t.w = csv.NewWriter(&t.buf)
	t.w.UseCRLF = true // RFC 4180
	costColumns := 0
	if withCost {
		costColumns = len(costs)
	}
	t.row(columns, costColumns, costs)
	return t, costColumns, nil
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
	if t.err == nil {
		t.err = t.w.Error()
	}
	if t.err != nil {
		return nil, t.err
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
