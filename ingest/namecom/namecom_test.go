package namecom_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/namecom"
)

var observed = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// The credentials the tests configure; the token must never show in an
// error.
const (
	username = "zoneprice"
	token    = "2f6a9c0e4b7d1358a0c2e4f6b8d0a1c3e5f7a9b1"
)

// wantZones is how many usable zones the three pages hold: 24 rows less
// .store (a two-year row), .cat (nothing offered), .club (a price in
// exponent notation) and the second .com.
const wantZones = 20

func threePages(t testing.TB) map[int][]byte {
	return map[int][]byte{1: ingesttest.Fixture(t, "page1.json"), 2: ingesttest.Fixture(t, "page2.json"), 3: ingesttest.Fixture(t, "page3.json")}
}

// fakeAPI speaks name.com's TLD price list: it checks Basic auth and the
// query, records the pages asked for, and after any scripted answers
// serves the page asked for.
type fakeAPI struct {
	*ingesttest.API
	mu    sync.Mutex
	asked []int // pages asked for, in order
}

func newFakeAPI(t *testing.T, pages map[int][]byte) (*fakeAPI, *httptest.Server) {
	t.Helper()
	f := &fakeAPI{}
	api, srv := ingesttest.NewAPI(t, nil, f.check)
	f.API = api
	f.serve(pages)
	return f, srv
}

// check records the page asked for and says what is wrong with a request
// name.com would not expect.
func (f *fakeAPI) check(r *http.Request) error {
	q := r.URL.Query()
	page, err := strconv.Atoi(q.Get("page"))
	user, pass, ok := r.BasicAuth()
	f.mu.Lock()
	f.asked = append(f.asked, page)
	f.mu.Unlock()
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

// serve makes pages the current answer: each request gets the page it
// asks for, or a 404.
func (f *fakeAPI) serve(pages map[int][]byte) {
	f.SetHandler(func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		body, found := pages[page]
		if !found {
			http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
}

func (f *fakeAPI) askedFor() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.asked)
}

// status answers with code and an error body in name.com's shape.
func status(code int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"message":"`+http.StatusText(code)+`"}`, code)
	}
}

var op = ingesttest.USD

var promo = ingesttest.USDPromo

func TestFetchPages(t *testing.T) {
	f, srv := newFakeAPI(t, threePages(t))
	list, err := suite.Source(t, srv.URL+"/core/v1/tldpricing", nil).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := f.askedFor(), []int{1, 2, 3}; !reflect.DeepEqual(got, want) {
		t.Errorf("pages asked for = %v, want %v", got, want)
	}
	got := suite.ByZone(t, list)
	if len(got) != wantZones {
		t.Errorf("got %d zones, want %d", len(got), wantZones)
	}
	tests := []struct {
		name, zone                string
		register, renew, transfer *contracts.OpPrice
	}{
		{"page 1, plain; its repeat on page 3 is ignored", ".com", op(1199), op(1299), op(1199)},
		{"retail below original is a promotion", ".org", promo(1199, 799), op(1299), op(1199)},
		{"second-level zone, null transfer", ".co.uk", op(899), op(899), nil},
		{"only transfers offered", ".ai", nil, nil, op(7999)},
		{"account discount is not a public price", ".app", op(1499), op(1699), op(1699)},
		{"page 2, docs example without retail fields", ".dev", promo(1699, 1299), op(1699), op(1699)},
		{"retail above original is paid", ".me", op(2199), op(2199), op(2199)},
		{"float artifact read by its digits", ".info", promo(2499, 399), op(2499), op(2499)},
		{"unicode IDN", ".xn--q9jyb4c", promo(2999, 399), op(2999), op(2999)},
		{"free transfer", ".uk", op(899), op(899), op(0)},
		{"promotion under a dollar", ".online", promo(3999, 99), op(3999), op(3999)},
		{"page 3, promotion", ".co", promo(3299, 1199), op(3299), op(3299)},
		{"page 3, second-level zone", ".com.au", op(1499), op(1499), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok := got[tt.zone]
			if !ok {
				t.Fatalf("no price set for %s", tt.zone)
			}
			ingesttest.CheckOps(t, p, tt.register, tt.renew, tt.transfer)
		})
	}
	for _, zone := range []string{".store", ".cat", ".club"} {
		if _, ok := got[zone]; ok {
			t.Errorf("%s is listed; it should be skipped", zone)
		}
	}
	// .club's exponent cannot be read and .com's repeat is skipped; the
	// two-year .store and the unoffered .cat are left out.
	if want := []string{"prices.v1.namecom.club"}; list.Skipped != 2 || !slices.Equal(list.Keep, want) {
		t.Errorf("skipped %d, keep %q; want 2, %q", list.Skipped, list.Keep, want)
	}
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
	tests := []struct {
		name      string
		pages     map[int][]byte
		wantErr   string // "" for success
		wantZones int
		wantAsked int
	}{
		{"one page, nextPage absent", map[int][]byte{1: []byte(`{"totalCount":1,"pricing":[{"tld":"com","duration":1,"registrationPrice":9.99}]}`)}, "", 1, 1},
		{"nextPage 0 ends", map[int][]byte{1: pageOf("0", 1, "com")}, "", 1, 1},
		{"pages skipped by nextPage", map[int][]byte{1: pageOf("3", 2, "com"), 3: pageOf("null", 2, "net")}, "", 2, 2},
		{"nextPage pointing back", map[int][]byte{1: pageOf("2", 3, "com"), 2: pageOf("1", 3, "net")}, "points back to page 1", 0, 2},
		{"nextPage repeating itself", map[int][]byte{1: pageOf("1", 3, "com")}, "points back to page 1", 0, 1},
		{"fewer rows than totalCount", map[int][]byte{1: pageOf("2", 3, "com"), 2: pageOf("null", 3, "net")}, "ended after 2 of 3 rows", 0, 2},
		{"next page missing", map[int][]byte{1: pageOf("2", 2, "com")}, "HTTP 404", 0, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, srv := newFakeAPI(t, tt.pages)
			list, err := suite.Source(t, srv.URL, nil).Fetch(context.Background())
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Fetch error = %v, want one containing %q", err, tt.wantErr)
				}
				if list != nil {
					t.Error("Fetch returned a list with its error")
				}
			} else if err != nil {
				t.Fatal(err)
			} else if len(list.Prices) != tt.wantZones {
				t.Errorf("got %d zones, want %d", len(list.Prices), tt.wantZones)
			}
			if got := f.Requests(); got != tt.wantAsked {
				t.Errorf("server saw %d requests, want %d", got, tt.wantAsked)
			}
		})
	}
	t.Run("endless pages stop at the limit", func(t *testing.T) {
		var n atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n.Add(1)
			p, _ := strconv.Atoi(r.URL.Query().Get("page"))
			_, _ = w.Write(pageOf(strconv.Itoa(p+1), 1_000_000, "com"))
		}))
		t.Cleanup(srv.Close)
		_, err := suite.Source(t, srv.URL, nil).Fetch(context.Background())
		if err == nil || !strings.Contains(err.Error(), "more than 1000 pages") {
			t.Fatalf("Fetch error = %v, want the page limit", err)
		}
		if got := n.Load(); got != namecom.MaxPages {
			t.Errorf("server saw %d requests, want %d", got, namecom.MaxPages)
		}
	})
}

func TestFailedPageFailsFetch(t *testing.T) {
	for _, tt := range []struct {
		name, wantErr string
		page2         []byte
		steps         []http.HandlerFunc
	}{
		{name: "server errors on page 2", wantErr: "fetch namecom price list page 2",
			steps: []http.HandlerFunc{nil, status(500), status(500), status(500), status(500)}},
		{name: "page 2 truncated", wantErr: "page 2: decode", page2: []byte(`{"lastPage":3,"nextPage":3,"totalCount":24,"pricing":[{"tld":"dev","dura`)},
		{name: "page 2 malformed", wantErr: "page 2: decode", page2: []byte(`<html>502 Bad Gateway</html>`)},
		{name: "page 2 is an error message", wantErr: `page 2: name.com answered "Internal Server Error: try again"`, page2: []byte(`{"message":"Internal Server Error","details":"try again"}`)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pages := threePages(t)
			if tt.page2 != nil {
				pages[2] = tt.page2
			}
			f, srv := newFakeAPI(t, pages)
			// A nil step stands for "serve the page asked for": page 1
			// is served, then every attempt at page 2 meets a 500.
			for _, s := range tt.steps {
				if s == nil {
					s = func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(pages[1]) }
				}
				f.Serve(s)
			}
			list, err := suite.Source(t, srv.URL, nil).Fetch(context.Background())
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Fetch error = %v, want one containing %q", err, tt.wantErr)
			}
			if list != nil {
				t.Errorf("Fetch returned %d price sets with its error", len(list.Prices))
			}
			for _, p := range f.askedFor() {
				if p == 3 {
					t.Error("page 3 was fetched after page 2 failed")
				}
			}
		})
	}
}

func TestCredentials(t *testing.T) {
	t.Run("401 fails at once", func(t *testing.T) {
		f, srv := newFakeAPI(t, threePages(t))
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
		f, srv := newFakeAPI(t, threePages(t))
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
	if _, err := namecom.Parse(ingesttest.Fixture(t, "page1.json"), observed); err == nil || !strings.Contains(err.Error(), "stop before page 2") {
		t.Errorf("page 1 of 3 alone: err = %v, want it refused as part of the list", err)
	}
	all := "[" + string(ingesttest.Fixture(t, "page1.json")) + "," + string(ingesttest.Fixture(t, "page2.json")) + "," + string(ingesttest.Fixture(t, "page3.json")) + "]"
	list, err := namecom.Parse([]byte(all), observed)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Prices) != wantZones {
		t.Errorf("three saved pages gave %d zones, want %d", len(list.Prices), wantZones)
	}
	short := `{"nextPage":null,"totalCount":5,"pricing":[` + row("com", "9.99", "9.99", "9.99") + `]}`
	if _, err := namecom.Parse([]byte(short), observed); err == nil || !strings.Contains(err.Error(), "1 of 5 rows") {
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
	Fixtures: []string{"page1.json", "page2.json", "page3.json"}, Shrunk: "shrunk.json", Errors: []string{"unauthorized.json"},
	Check: (&fakeAPI{}).check, Page: func(r *http.Request) int { n, _ := strconv.Atoi(r.URL.Query().Get("page")); return n },
	Observed: observed,
}

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, namecom.Parse, "*.json") }

func config(url string) namecom.Config {
	return namecom.Config{URL: url, Username: username, Token: token}
}
