package namecom_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/namecom"
)

// The credentials the tests configure; the token must never show in an
// error.
const (
	username = "zoneprice"
	token    = "2f6a9c0e4b7d1358a0c2e4f6b8d0a1c3e5f7a9b1"
)

var (
	op    = ingesttest.USD
	promo = ingesttest.USDPromo
)

// TestFetch reads the three pages: 20 zones, 24 rows less .store (a
// two-year row) and .cat (nothing offered), left out, and .club (a price
// in exponent notation) and the second .com, skipped.
func TestFetch(t *testing.T) {
	got := suite.FetchedPages(t, 20, 2)
	ingesttest.CheckEach(t, got, []ingesttest.Ops{
		{Name: "page 1, plain; its repeat on page 3 is ignored", Zone: ".com", Register: op(1199), Renew: op(1299), Transfer: op(1199)},
		{Name: "retail below original is a promotion", Zone: ".org", Register: promo(1199, 799), Renew: op(1299), Transfer: op(1199)},
		{Name: "second-level zone, null transfer", Zone: ".co.uk", Register: op(899), Renew: op(899)},
		{Name: "only transfers offered", Zone: ".ai", Transfer: op(7999)},
		{Name: "account discount is not a public price", Zone: ".app", Register: op(1499), Renew: op(1699), Transfer: op(1699)},
		{Name: "page 2, docs example without retail fields", Zone: ".dev", Register: promo(1699, 1299), Renew: op(1699), Transfer: op(1699)},
		{Name: "retail above original is paid", Zone: ".me", Register: op(2199), Renew: op(2199), Transfer: op(2199)},
		{Name: "float artifact read by its digits", Zone: ".info", Register: promo(2499, 399), Renew: op(2499), Transfer: op(2499)},
		{Name: "unicode IDN", Zone: ".xn--q9jyb4c", Register: promo(2999, 399), Renew: op(2999), Transfer: op(2999)},
		{Name: "free transfer", Zone: ".uk", Register: op(899), Renew: op(899), Transfer: op(0)},
		{Name: "promotion under a dollar", Zone: ".online", Register: promo(3999, 99), Renew: op(3999), Transfer: op(3999)},
		{Name: "page 3, promotion", Zone: ".co", Register: promo(3299, 1199), Renew: op(3299), Transfer: op(3299)},
		{Name: "page 3, second-level zone", Zone: ".com.au", Register: op(1499), Renew: op(1499)},
	}, ".store", ".cat", ".club")
}

// TestPaging covers how Fetch follows and guards the pages.
func TestPaging(t *testing.T) {
	pageOf := func(next string, total int, tlds ...string) []byte {
		var rows []string
		for _, tld := range tlds {
			rows = append(rows, fmt.Sprintf(`{"tld":%q,"duration":1,"registrationPrice":9.99,"registrationRetailPrice":9.99,"registrationOriginalPrice":9.99,"renewalPrice":9.99,"renewalRetailPrice":9.99,"renewalOriginalPrice":9.99,"domainRestorationPrice":null,"domainRestorationRetailPrice":null,"domainRestorationOriginalPrice":null,"transferInPrice":null,"transferInRetailPrice":null,"transferInOriginalPrice":null}`, tld))
		}
		return fmt.Appendf(nil, `{"nextPage":%s,"totalCount":%d,"from":1,"to":%d,"pricing":[%s]}`, next, total, len(rows), strings.Join(rows, ","))
	}
	all := map[int][]byte{1: ingesttest.Fixture(t, "page1.json"), 2: ingesttest.Fixture(t, "page2.json"), 3: ingesttest.Fixture(t, "page3.json")}
	suite.Paging(t, nil, []ingesttest.PageCase{
		{Name: "the fixture's pages", Pages: all, Zones: 20, Skipped: 2, Keep: []string{"prices.v1.namecom.club"}, Asked: []int{1, 2, 3}},
		{Name: "one page, nextPage absent", Pages: map[int][]byte{1: []byte(`{"totalCount":1,"pricing":[{"tld":"com","duration":1,"registrationPrice":9.99}]}`)}, Zones: 1, Asked: []int{1}},
		{Name: "nextPage 0 ends", Pages: map[int][]byte{1: pageOf("0", 1, "com")}, Zones: 1, Asked: []int{1}},
		{Name: "pages skipped by nextPage", Pages: map[int][]byte{1: pageOf("3", 2, "com"), 3: pageOf("null", 2, "net")}, Zones: 2, Asked: []int{1, 3}},
		{Name: "nextPage pointing back", Pages: map[int][]byte{1: pageOf("2", 3, "com"), 2: pageOf("1", 3, "net")}, WantErr: "points back to page 1", Asked: []int{1, 2}},
		{Name: "nextPage repeating itself", Pages: map[int][]byte{1: pageOf("1", 3, "com")}, WantErr: "points back to page 1", Asked: []int{1}},
		{Name: "fewer rows than totalCount", Pages: map[int][]byte{1: pageOf("2", 3, "com"), 2: pageOf("null", 3, "net")}, WantErr: "ended after 2 of 3 rows", Asked: []int{1, 2}},
		{Name: "next page missing", Pages: map[int][]byte{1: pageOf("2", 2, "com")}, WantErr: "HTTP 404", Asked: []int{1, 2}},
	})
	suite.Endless(t, namecom.MaxPages, func(n int) []byte { return pageOf(strconv.Itoa(n+1), 1_000_000, "com") })
}

// TestFailedPageFailsFetch shows a page that fails fails the fetch, and
// no page after it is asked for.
func TestFailedPageFailsFetch(t *testing.T) {
	p1, p3 := ingesttest.Fixture(t, "page1.json"), ingesttest.Fixture(t, "page3.json")
	failing := func(page2 []byte) map[int][]byte { return map[int][]byte{1: p1, 2: page2, 3: p3} }
	fail := ingesttest.Status(http.StatusInternalServerError)
	suite.Paging(t, nil, []ingesttest.PageCase{
		{Name: "server errors on page 2", WantErr: "fetch namecom price list page 2", Pages: failing(ingesttest.Fixture(t, "page2.json")),
			Steps: []http.HandlerFunc{ingesttest.Body(p1), fail, fail, fail, fail}, Asked: []int{1, 2, 2, 2, 2}},
		{Name: "page 2 truncated", WantErr: "page 2: decode", Pages: failing([]byte(`{"lastPage":3,"nextPage":3,"totalCount":24,"pricing":[{"tld":"dev","dura`)), Asked: []int{1, 2}},
		{Name: "page 2 malformed", WantErr: "page 2: decode", Pages: failing([]byte(`<html>502 Bad Gateway</html>`)), Asked: []int{1, 2}},
		{Name: "page 2 is an error message", WantErr: `page 2: name.com answered "Internal Server Error: try again"`, Pages: failing([]byte(`{"message":"Internal Server Error","details":"try again"}`)), Asked: []int{1, 2}},
	})
}

func TestCredentials(t *testing.T) {
	t.Run("401 fails at once", func(t *testing.T) {
		f, srv := ingesttest.NewAPI(t, nil, suite.Check)
		f.Serve(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write(ingesttest.Fixture(t, "unauthorized.json"))
		})
		_, err := suite.Source(t, srv.URL, nil).Fetch(context.Background())
		var se *fetch.StatusError
		if !errors.As(err, &se) || se.Status != http.StatusUnauthorized {
			t.Fatalf("Fetch error = %v, want a wrapped HTTP 401", err)
		}
		for _, want := range []string{"refused the credentials", "username", "API token"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
		}
		if got := f.Requests(); got != 1 {
			t.Errorf("server saw %d requests, want 1: a 401 must not be retried", got)
		}
	})
	t.Run("basic auth is sent", func(t *testing.T) {
		var header atomic.Value
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			header.Store(r.Header.Get("Authorization"))
			_, _ = w.Write(ingesttest.Fixture(t, "shrunk.json"))
		}))
		t.Cleanup(srv.Close)
		if _, err := suite.Source(t, srv.URL, nil).Fetch(context.Background()); err != nil {
			t.Fatal(err)
		}
		// base64("zoneprice:2f6a9c0e4b7d1358a0c2e4f6b8d0a1c3e5f7a9b1")
		got, _ := header.Load().(string)
		if want := "Basic em9uZXByaWNlOjJmNmE5YzBlNGI3ZDEzNThhMGMyZTRmNmI4ZDBhMWMzZTVmN2E5YjE="; got != want {
			t.Errorf("Authorization = %q, want %q", got, want)
		}
	})
	t.Run("token echoed by the server is redacted", func(t *testing.T) {
		f, srv := ingesttest.NewAPI(t, nil, suite.Check)
		f.Serve(func(w http.ResponseWriter, r *http.Request) {
			_, pass, _ := r.BasicAuth()
			http.Error(w, `{"message":"Permission denied","details":"token `+pass+` lacks access"}`, http.StatusForbidden)
		})
		_, err := suite.Source(t, srv.URL, nil).Fetch(context.Background())
		if err == nil || strings.Contains(err.Error(), token) || !strings.Contains(err.Error(), "[REDACTED]") {
			t.Fatalf("Fetch error = %v, want the token redacted", err)
		}
		var se *fetch.StatusError
		if !errors.As(err, &se) || se.Status != http.StatusForbidden {
			t.Errorf("Fetch error = %v, want a wrapped HTTP 403", err)
		}
	})
}

// row is one row in the real format, every price of an operation the same.
func row(tld, reg, ren, tra string) string {
	return fmt.Sprintf(`{"tld":%q,"duration":1,"registrationPrice":%s,"registrationRetailPrice":%[2]s,"registrationOriginalPrice":%[2]s,"renewalPrice":%s,"renewalRetailPrice":%[3]s,"renewalOriginalPrice":%[3]s,"domainRestorationPrice":89.99,"domainRestorationRetailPrice":89.99,"domainRestorationOriginalPrice":89.99,"transferInPrice":%s,"transferInRetailPrice":%[4]s,"transferInOriginalPrice":%[4]s}`,
		tld, reg, ren, tra)
}

func body(rows ...string) string {
	return `{"nextPage":null,"totalCount":` + strconv.Itoa(len(rows)) + `,"pricing":[` + strings.Join(rows, ",") + `]}`
}

// TestParseQuirks covers the format's quirks one page body at a time.
func TestParseQuirks(t *testing.T) {
	net := row("net", "13.99", "15.99", "13.99")
	suite.Quirks(t, []ingesttest.Quirk{
		{
			Name: "integral prices",
			Body: body(row("com", "12", "13", "12")),
			Zone: ".com", Want: suite.Set(".com", op(1200), op(1300), op(1200)),
		},
		{
			Name: "prices as strings",
			Body: body(row("com", `"11.99"`, `"12.99"`, `"11.99"`)),
			Zone: ".com", Want: suite.Set(".com", op(1199), op(1299), op(1199)),
		},
		{
			Name: "sub-cent price rounds half up",
			Body: body(row("com", "11.985", "12.99", "11.99")),
			Zone: ".com", Want: suite.Set(".com", op(1199), op(1299), op(1199)),
		},
		{
			Name: "null account-level price is not offered whatever the rest says",
			Body: body(`{"tld":"com","duration":1,"registrationPrice":null,"registrationRetailPrice":11.99,"registrationOriginalPrice":11.99,"renewalPrice":12.99}`),
			Zone: ".com", Want: suite.Set(".com", nil, op(1299), nil),
		},
		{
			Name: "missing operation fields are not offered",
			Body: body(`{"tld":"com","duration":1,"renewalPrice":12.99}`),
			Zone: ".com", Want: suite.Set(".com", nil, op(1299), nil),
		},
		{
			Name: "null original price falls back to retail",
			Body: body(`{"tld":"com","duration":1,"registrationPrice":8.00,"registrationRetailPrice":11.99,"registrationOriginalPrice":null}`),
			Zone: ".com", Want: suite.Set(".com", op(1199), nil, nil),
		},
		{
			Name: "zero original price falls back to retail",
			Body: body(`{"tld":"com","duration":1,"registrationPrice":11.99,"registrationRetailPrice":11.99,"registrationOriginalPrice":0}`),
			Zone: ".com", Want: suite.Set(".com", op(1199), nil, nil),
		},
		{
			Name: "zero registration is not offered, whatever the original price",
			Body: body(`{"tld":"com","duration":1,"registrationPrice":0,"registrationRetailPrice":0,"registrationOriginalPrice":11.99,"renewalPrice":12.99}`),
			Zone: ".com", Want: suite.Set(".com", nil, op(1299), nil),
		},
		{
			Name: "zero renewal is not offered",
			Body: body(row("com", "11.99", "0", "11.99")),
			Zone: ".com", Want: suite.Set(".com", op(1199), nil, op(1199)),
		},
		{
			Name: "zero retail registration price is missing, not a free sale",
			Body: body(`{"tld":"com","duration":1,"registrationPrice":11.99,"registrationRetailPrice":0,"registrationOriginalPrice":11.99}`),
			Zone: ".com", Want: suite.Set(".com", op(1199), nil, nil),
		},
		{
			Name: "zero registration and renewal leave the transfer",
			Body: body(row("com", "0", "0.00", "11.99")),
			Zone: ".com", Want: suite.Set(".com", nil, nil, op(1199)),
		},
		{
			Name: "zero transfer is a free transfer",
			Body: body(row("uk", "8.99", "8.99", "0")),
			Zone: ".uk", Want: suite.Set(".uk", op(899), op(899), op(0)),
		},
		{
			Name: "free transfer promotion",
			Body: body(`{"tld":"uk","duration":1,"registrationPrice":8.99,"transferInPrice":0,"transferInRetailPrice":0,"transferInOriginalPrice":4.99}`),
			Zone: ".uk", Want: suite.Set(".uk", op(899), nil, promo(499, 0)),
		},
		{
			Name: "missing duration is the year asked for",
			Body: body(`{"tld":"com","registrationPrice":11.99}`),
			Zone: ".com", Want: suite.Set(".com", op(1199), nil, nil),
		},
		{
			Name: "upper-case tld with a dot",
			Body: body(row(".COM", "11.99", "12.99", "11.99")),
			Zone: ".com", Want: suite.Set(".com", op(1199), op(1299), op(1199)),
		},
		{
			Name: "first listing on a page stands",
			Body: body(row("com", "11.99", "12.99", "11.99"), row("com", "1.00", "1.00", "1.00")),
			Zone: ".com", Want: suite.Set(".com", op(1199), op(1299), op(1199)),
			Skipped: 1,
		},
		{Name: "two-year row skipped", Body: body(strings.Replace(row("com", "23.98", "25.98", "23.98"), `"duration":1`, `"duration":2`, 1), net), Zone: ".com"},
		{Name: "fractional duration skipped", Body: body(strings.Replace(row("com", "11.99", "12.99", "11.99"), `"duration":1`, `"duration":1.5`, 1), net), Zone: ".com"},
		{Name: "all free skipped", Body: body(row("com", "0", "0", "0"), net), Zone: ".com"},
		{Name: "zero registration and renewal without a transfer left out", Body: body(row("com", "0", "0", "null"), net), Zone: ".com"},
		{Name: "nothing offered skipped", Body: body(row("com", "null", "null", "null"), net), Zone: ".com"},
		{Name: "negative price skips the zone", Body: body(row("com", "-1", "12.99", "11.99"), net), Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.namecom.com"}},
		{Name: "exponent skips the zone", Body: body(row("com", "1.199e1", "12.99", "11.99"), net), Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.namecom.com"}},
		{Name: "empty string price skips the zone", Body: body(row("com", `""`, "12.99", "11.99"), net), Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.namecom.com"}},
		{Name: "boolean price skips the zone", Body: body(row("com", "true", "12.99", "11.99"), net), Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.namecom.com"}},
		{Name: "tld not a string", Body: body(`{"tld":7,"registrationPrice":1}`, net), Zone: ".7", Skipped: 1},
		{Name: "row not an object", Body: body(`"com"`, net), Zone: ".com", Skipped: 1},
		{Name: "tld not a zone", Body: body(row("foo bar", "1", "1", "1"), net), Zone: ".foo bar", Skipped: 1},
		{
			Name: "unreadable rows are counted and kept, rows of other durations are not",
			Body: body(
				strings.Replace(row("org", "23.98", "25.98", "23.98"), `"duration":1`, `"duration":2`, 1),
				row("cat", "null", "null", "null"),
				row("pl", "0", "0", "0"),
				row("CO.UK", "8.99", `"x"`, "null"),
				strings.Replace(row("io", "44.99", "59.99", "59.99"), `"duration":1`, `"duration":true`, 1),
				`{"tld":["de"]}`,
				net),
			Zone: ".net", Want: suite.Set(".net", op(1399), op(1599), op(1399)),
			Skipped: 3, Keep: []string{"prices.v1.namecom.co_uk", "prices.v1.namecom.io"},
		},
		{
			Name: "unreadable row beside a readable listing of its zone",
			Body: body(row("com", `"TBD"`, "12.99", "11.99"), row("com", "11.99", "12.99", "11.99")),
			Zone: ".com", Want: suite.Set(".com", op(1199), op(1299), op(1199)),
			Skipped: 1,
		},
		{Name: "unauthorized body", Body: string(ingesttest.Fixture(t, "unauthorized.json")), WantErr: `name.com answered "Unauthorized"`},
		{Name: "no pricing", Body: `{"nextPage":null,"totalCount":0}`, WantErr: "page has no pricing"},
		{Name: "empty pricing", Body: `{"nextPage":null,"totalCount":0,"pricing":[]}`, WantErr: "no usable zone"},
		{Name: "nothing usable", Body: body(row("cat", "null", "null", "null")), WantErr: "no usable zone"},
		{Name: "pricing is an object", Body: `{"pricing":{}}`, WantErr: "decode"},
		{Name: "nextPage is a string", Body: `{"nextPage":"2","pricing":[]}`, WantErr: "decode"},
		{Name: "trailing garbage", Body: body(net) + `}`, WantErr: "decode"},
		{Name: "truncated", Body: string(ingesttest.Fixture(t, "page1.json")[:500]), WantErr: "decode"},
		{Name: "html", Body: `<html><body>504 Gateway Timeout</body></html>`, WantErr: "decode"},
	})
}

// TestParseSavedPages checks that Parse imports a whole saved list, one
// page or an array of every page, and refuses part of one.
func TestParseSavedPages(t *testing.T) {
	if _, err := namecom.Parse(ingesttest.Fixture(t, "page1.json"), suite.Observed); err == nil || !strings.Contains(err.Error(), "stop before page 2") {
		t.Errorf("page 1 of 3 alone: err = %v, want it refused as part of the list", err)
	}
	all := "[" + string(ingesttest.Fixture(t, "page1.json")) + "," + string(ingesttest.Fixture(t, "page2.json")) + "," + string(ingesttest.Fixture(t, "page3.json")) + "]"
	list, err := namecom.Parse([]byte(all), suite.Observed)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Prices) != 20 {
		t.Errorf("three saved pages gave %d zones, want 20", len(list.Prices))
	}
	short := `{"nextPage":null,"totalCount":5,"pricing":[` + row("com", "9.99", "9.99", "9.99") + `]}`
	if _, err := namecom.Parse([]byte(short), suite.Observed); err == nil || !strings.Contains(err.Error(), "1 of 5 rows") {
		t.Errorf("a page short of totalCount: err = %v, want it refused", err)
	}
}

// suite is the source, for the conformance suite and the tests below.
var suite = ingesttest.Suite{
	Name: namecom.Name, Registrar: namecom.Name, Parse: namecom.Parse,
	New: func(url string, client *fetch.Client, now func() time.Time) (ingest.Source, error) {
		return namecom.New(config(url), client, now)
	},
	Validate: func(url string) error { return config(url).Validate() },
	Errors:   []string{"unauthorized.json"},
	Check:    check, Page: func(r *http.Request) int { n, _ := strconv.Atoi(r.URL.Query().Get("page")); return n },
}.Pages("shrunk.json", "page1.json", "page2.json", "page3.json")

// check says what is wrong with a request name.com would not expect: a
// GET of a page with Basic auth.
func check(r *http.Request) error {
	q := r.URL.Query()
	_, err := strconv.Atoi(q.Get("page"))
	user, pass, ok := r.BasicAuth()
	switch {
	case r.Method != http.MethodGet:
		return errors.New("method " + r.Method)
	case !ok || user != username || pass != token:
		return fmt.Errorf("basic auth %q %q %v", user, pass, ok)
	case err != nil || q.Get("duration") != "1" || q.Get("perPage") != "1000":
		return errors.New("query " + r.URL.RawQuery)
	}
	return nil
}

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, namecom.Parse, "*.json") }

func config(url string) namecom.Config {
	return namecom.Config{URL: url, Username: username, Token: token}
}
