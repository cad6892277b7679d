package api_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/query/api"
)

// csvPod serves pageEvents (a promotion, a renewal trap), so that every
// kind of cell shows: nulls, native prices, promotions, lists.
func csvPod(t *testing.T) *pod {
	t.Helper()
	return startPod(t, nil, podConfig{snaps: serving(t, pageEvents()...)})
}

// csvColumns says where each CSV column's value is in the JSON body:
// the list the rows come from, and per column a path into the row
// ("min.register.price") or, starting with "/", into the body.
var csvColumns = map[string]struct {
	list    string
	columns map[string]string
}{
	"/api/domains": {"zones", map[string]string{
		"zone": "zone", "unicode": "unicode", "type": "type", "categories": "categories", "registrars": "registrars",
		"currency": "/currency", "register": "min.register.price", "register_registrar": "min.register.registrar",
		"renew": "min.renew.price", "renew_registrar": "min.renew.registrar", "transfer": "min.transfer.price",
		"transfer_registrar": "min.transfer.registrar", "cost_years": "cost.years", "cost": "cost.price", "cost_registrar": "cost.registrar",
	}},
	"/api/comparison/{zone}": {"prices", map[string]string{
		"zone": "/zone", "unicode": "/unicode", "currency": "/currency", "registrar": "registrar",
		"register": "register", "renew": "renew", "transfer": "transfer", "converted": "converted", "tax": "tax",
		"renewal_trap": "renewal_trap", "cheapest": "cheapest",
		"register_regular": "promo.register.regular", "register_promo_ends_at": "promo.register.ends_at",
		"renew_regular": "promo.renew.regular", "renew_promo_ends_at": "promo.renew.ends_at",
		"transfer_regular": "promo.transfer.regular", "transfer_promo_ends_at": "promo.transfer.ends_at",
		"native_currency": "native.currency", "native_register": "native.register", "native_renew": "native.renew",
		"native_transfer": "native.transfer", "source": "source", "observed_at": "observed_at",
		"cost_years": "cost.years", "cost": "cost.total",
	}},
}

// cellOf is the JSON value at path as a CSV cell: text as it is, numbers
// as their literal text, lists comma-separated, null or absent empty.
func cellOf(t *testing.T, body, row map[string]any, path string) string {
	t.Helper()
	var v any = row
	if rest, ok := strings.CutPrefix(path, "/"); ok {
		v, path = body, rest
	}
	for key := range strings.SplitSeq(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = m[key]
	}
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case json.Number:
		return v.String()
	case bool:
		if v {
			return "true"
		}
		return "false"
	case []any:
		items := make([]string, len(v))
		for i, x := range v {
			items[i] = x.(string)
		}
		return strings.Join(items, ",")
	}
	t.Fatalf("%s: a %T in the JSON", path, v)
	return ""
}

// TestCSV asks for the catalog and comparisons as CSV, by format=csv and by
// Accept, reads each back with encoding/csv and compares every row, cell
// by cell, with the JSON body of the same request.
func TestCSV(t *testing.T) {
	p := csvPod(t)
	for _, tt := range []struct {
		name     string
		target   string // the JSON request
		path     string
		byAccept bool // ask by Accept, not format=csv
		filename string
		costs    bool
	}{
		{name: "catalog", target: "/api/domains", path: "/api/domains", filename: "zoneprice-domains.csv"},
		{name: "catalog by Accept", target: "/api/domains", path: "/api/domains", byAccept: true, filename: "zoneprice-domains.csv"},
		{name: "catalog with costs in EUR", target: "/api/domains?years=3&sort=cost&currency=EUR", path: "/api/domains", filename: "zoneprice-domains.csv", costs: true},
		{name: "catalog by Accept with options", target: "/api/domains?category=generic", path: "/api/domains", byAccept: true, filename: "zoneprice-domains.csv"},
		{name: "comparison", target: "/api/comparison/.com", path: "/api/comparison/{zone}", filename: "zoneprice-com.csv"},
		{name: "comparison as typed, by Accept", target: "/api/comparison/COM", path: "/api/comparison/{zone}", byAccept: true, filename: "zoneprice-com.csv"},
		{name: "comparison of an IDN", target: "/api/comparison/.%D1%80%D1%84", path: "/api/comparison/{zone}", filename: "zoneprice-xn--p1ai.csv"},
		{name: "comparison without a transfer", target: "/api/comparison/co.uk", path: "/api/comparison/{zone}", filename: "zoneprice-co.uk.csv"},
		{name: "comparison with a promotion and costs", target: "/api/comparison/.shop?years=2", path: "/api/comparison/{zone}", filename: "zoneprice-shop.csv", costs: true},
		{name: "comparison with costs in EUR", target: "/api/comparison/.com?sort=cost&currency=eur", path: "/api/comparison/{zone}", filename: "zoneprice-com.csv", costs: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			j := send(t, http.MethodGet, p.url+tt.target)
			if j.resp.StatusCode != http.StatusOK || !strings.HasPrefix(j.resp.Header.Get("Content-Type"), "application/json") {
				t.Fatalf("JSON: %d %s", j.resp.StatusCode, j.resp.Header.Get("Content-Type"))
			}
			target, header := tt.target, []string{}
			if tt.byAccept {
				header = []string{"Accept", "text/csv"}
			} else if strings.Contains(target, "?") {
				target += "&format=csv"
			} else {
				target += "?format=csv"
			}
			x := send(t, http.MethodGet, p.url+target, header...)
			if x.resp.StatusCode != http.StatusOK {
				t.Fatalf("CSV: %d %s", x.resp.StatusCode, x.body)
			}
			h := x.resp.Header
			if got := h.Get("Content-Type"); got != "text/csv; charset=utf-8; header=present" {
				t.Errorf("Content-Type %q", got)
			}
			if got, want := h.Get("Content-Disposition"), `attachment; filename="`+tt.filename+`"`; got != want {
				t.Errorf("Content-Disposition %q, want %q", got, want)
			}
			for _, r := range []*http.Response{j.resp, x.resp} {
				if got := r.Header.Values("Vary"); !slices.Equal(got, []string{"Accept, Accept-Encoding"}) {
					t.Errorf("%s: Vary %q: caches must keep JSON and CSV apart", r.Header.Get("Content-Type"), got)
				}
			}
			if h.Get("ETag") == "" || h.Get("ETag") == j.resp.Header.Get("ETag") {
				t.Errorf("ETag %q beside JSON's %q: each representation has its own", h.Get("ETag"), j.resp.Header.Get("ETag"))
			}
			if h.Get("Last-Modified") != j.resp.Header.Get("Last-Modified") {
				t.Errorf("Last-Modified %q, JSON's %q", h.Get("Last-Modified"), j.resp.Header.Get("Last-Modified"))
			}
			if !utf8.Valid(x.body) || bytes.Count(x.body, []byte("\r\n")) != bytes.Count(x.body, []byte("\n")) || !bytes.HasSuffix(x.body, []byte("\r\n")) {
				t.Errorf("not UTF-8 with CRLF line ends: %q", x.body)
			}
			compareCSV(t, tt.path, j.body, x.body, tt.costs)

			// The CSV is revalidated by its own tag.
			re, _ := get(t, p.url+target, append(header, "If-None-Match", h.Get("ETag"))...)
			if re.StatusCode != http.StatusNotModified || re.Header.Get("Vary") != "Accept, Accept-Encoding" {
				t.Errorf("revalidated CSV: %d, Vary %q", re.StatusCode, re.Header.Get("Vary"))
			}
		})
	}
}

// compareCSV reads the CSV back and compares it with the JSON body: the
// header names the columns, cost columns only with costs, and row i is the
// list's element i, column by column.
func compareCSV(t *testing.T, path string, jsonBody, csvBody []byte, costs bool) {
	t.Helper()
	r := csv.NewReader(bytes.NewReader(csvBody))
	records, err := r.ReadAll()
	if err != nil {
		t.Fatalf("encoding/csv: %v\n%s", err, csvBody)
	}
	var body map[string]any
	decode(t, jsonBody, &body)
	spec := csvColumns[path]
	rows, _ := body[spec.list].([]any)
	if len(records) != len(rows)+1 || len(rows) == 0 {
		t.Fatalf("%d records for %d %s (a header and a row each)", len(records), len(rows), spec.list)
	}
	header := records[0]
	if slices.Contains(header, "cost") != costs {
		t.Errorf("header %q: cost columns %v, want %v", header, !costs, costs)
	}
	for _, col := range header {
		if _, ok := spec.columns[col]; !ok {
			t.Errorf("column %q: not known to the test", col)
		}
	}
	seen := map[string]bool{}
	for i, rec := range records[1:] {
		row := rows[i].(map[string]any)
		for c, col := range header {
			want := cellOf(t, body, row, spec.columns[col])
			if rec[c] != want {
				t.Errorf("row %d, %s: %q, JSON has %q", i+1, col, rec[c], want)
			}
			if rec[c] != "" {
				seen[col] = true
			}
		}
	}
	for _, col := range []string{"zone", "currency", "register"} {
		if !seen[col] {
			t.Errorf("column %s is empty in every row", col)
		}
	}
}

// TestCSVSpecialCells checks the cells a spreadsheet could misread: a
// list with commas is one quoted cell, and a missing price an empty one.
func TestCSVSpecialCells(t *testing.T) {
	p := csvPod(t)
	_, body := get(t, p.url+"/api/domains?format=csv&q=shop")
	if !bytes.Contains(body, []byte(`,"generic,new-gtld,shopping",`)) {
		t.Errorf("categories are not one quoted cell: %s", body)
	}
	_, body = get(t, p.url+"/api/comparison/.com?format=csv")
	recs := mustRecords(t, body)
	col := func(name string) int { return slices.Index(recs[0], name) }
	i := slices.IndexFunc(recs, func(r []string) bool { return r[col("registrar")] == "india" })
	if i < 0 {
		t.Fatalf("no row of india: %q", recs)
	}
	if r := recs[i]; r[col("register")] != "" || r[col("converted")] != "false" || r[col("native_currency")] != "INR" || r[col("native_register")] != "500.00" {
		t.Errorf("a price without a rate: %q, want an empty register beside its native 500.00 INR", r)
	}
}

// TestCSVNegotiation: which requests get CSV, and what format refuses.
func TestCSVNegotiation(t *testing.T) {
	p := csvPod(t)
	for _, tt := range []struct {
		name, target, accept string
		status               int
		csv                  bool
	}{
		{name: "nothing asked", target: "/api/domains", status: 200},
		{name: "any", target: "/api/domains", accept: "*/*", status: 200},
		{name: "csv", target: "/api/comparison/.com", accept: "text/csv", status: 200, csv: true},
		{name: "csv upper case", target: "/api/comparison/.com", accept: "Text/CSV", status: 200, csv: true},
		{name: "csv before any", target: "/api/domains", accept: "text/csv, */*;q=0.8", status: 200, csv: true},
		{name: "json preferred", target: "/api/domains", accept: "application/json, text/csv;q=0.5", status: 200},
		{name: "csv preferred", target: "/api/domains", accept: "application/json;q=0.5, text/csv", status: 200, csv: true},
		{name: "a tie is JSON", target: "/api/domains", accept: "text/csv, application/json", status: 200},
		{name: "csv refused", target: "/api/domains", accept: "text/csv;q=0", status: 200},
		{name: "format=csv", target: "/api/domains?format=csv", status: 200, csv: true},
		{name: "format=CSV", target: "/api/comparison/.com?format=CSV", status: 200, csv: true},
		{name: "format=json beats Accept", target: "/api/domains?format=json", accept: "text/csv", status: 200},
		{name: "format=csv beats Accept", target: "/api/domains?format=csv", accept: "application/json", status: 200, csv: true},
		{name: "unknown format", target: "/api/domains?format=xml", status: 400},
		{name: "unknown format on a comparison", target: "/api/comparison/.com?format=xlsx", accept: "text/csv", status: 400},
		{name: "empty format", target: "/api/domains?format=", status: 400},
		{name: "format twice", target: "/api/comparison/.com?format=csv&format=csv", status: 400},
		{name: "other routes ignore format", target: "/api/changes?format=csv", status: 503},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var header []string
			if tt.accept != "" {
				header = []string{"Accept", tt.accept}
			}
			resp, body := get(t, p.url+tt.target, header...)
			if resp.StatusCode != tt.status {
				t.Fatalf("%d, want %d: %s", resp.StatusCode, tt.status, body)
			}
			ct := resp.Header.Get("Content-Type")
			switch {
			case tt.status == http.StatusBadRequest:
				var pr contracts.Problem
				decode(t, body, &pr)
				if pr.Code != contracts.CodeInvalidParameter || pr.Param != "format" {
					t.Errorf("problem %+v: want invalid-parameter naming format", pr)
				}
			case tt.status != http.StatusOK:
			case tt.csv != strings.HasPrefix(ct, "text/csv"):
				t.Errorf("Content-Type %q, want CSV %v", ct, tt.csv)
			}
		})
	}
}

// TestCSVPages: a page of the catalog as CSV links the next page as CSV,
// and HEAD and gzip answer as for JSON.
func TestCSVPages(t *testing.T) {
	p := csvPod(t)
	x := send(t, http.MethodGet, p.url+"/api/domains?limit=1&format=csv")
	link := x.resp.Header.Get("Link")
	target, _, ok := strings.Cut(strings.TrimPrefix(link, "<"), ">")
	if !ok {
		t.Fatalf("Link %q", link)
	}
	u, err := url.Parse(target)
	if err != nil || u.Query().Get("format") != "csv" || u.Query().Get("cursor") == "" {
		t.Fatalf("Link %q: the next page must stay CSV", link)
	}
	next := send(t, http.MethodGet, p.url+target)
	recs, err := csv.NewReader(bytes.NewReader(next.body)).ReadAll()
	if err != nil || len(recs) != 2 || slices.Equal(recs[1], mustRecords(t, x.body)[1]) {
		t.Errorf("next page: %q, %v", recs, err)
	}

	plain := send(t, http.MethodGet, p.url+"/api/domains?format=csv")
	head, body := do(t, http.MethodHead, p.url+"/api/domains?format=csv")
	if head.StatusCode != 200 || len(body) != 0 || head.Header.Get("Content-Length") != strconv.Itoa(len(plain.body)) ||
		head.Header.Get("Content-Disposition") == "" {
		t.Errorf("HEAD: %d, %d bytes, Content-Length %s (GET's body: %d bytes), Content-Disposition %q",
			head.StatusCode, len(body), head.Header.Get("Content-Length"), len(plain.body), head.Header.Get("Content-Disposition"))
	}
	gz := send(t, http.MethodGet, p.url+"/api/domains?format=csv", "Accept-Encoding", "gzip")
	if gz.resp.Header.Get("Content-Encoding") != "gzip" || !bytes.Equal(gz.body, plain.body) {
		t.Errorf("gzip CSV: Content-Encoding %q, same bytes %v", gz.resp.Header.Get("Content-Encoding"), bytes.Equal(gz.body, plain.body))
	}
}

func mustRecords(t *testing.T, b []byte) [][]string {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// FuzzPrefersCSV reads any Accept: it never panics, and only a field that
// names CSV, in some case, with a weight above zero, gets CSV.
func FuzzPrefersCSV(f *testing.F) {
	for _, s := range []string{"", "*/*", "text/csv", "Text/CSV;q=0.5, application/json;q=0.4", "text/csv;q=0",
		"text/csv;q=abc", "text/csv;q=1.5", ";;;,,,q=", "application/json, text/csv"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, accept string) {
		got := api.PrefersCSV([]string{accept})
		if got && !strings.Contains(strings.ToLower(accept), "text/csv") {
			t.Errorf("%q: CSV, though it names no text/csv", accept)
		}
		if got != api.PrefersCSV([]string{"application/xml", accept}) {
			t.Errorf("%q: another field line beside it changed the answer", accept)
		}
	})
}
