package gname_test

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
	"github.com/zoneprice/zoneprice/ingest/gname"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

var observed = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// perPage is the limit the tests configure: page1.json is a full page of
// 10 rows, page2.json a short one of 7.
const perPage = 10

// wantZones is how many zones the two pages price: 17 rows less .pl,
// which offers nothing.
const wantZones = 16

// emptyPage is Gname's answer to a page past the end.
const emptyPage = `{"code":1,"msg":"success","data":{"ymjg":[]}}`

func twoPages(t testing.TB) map[int][]byte {
	return map[int][]byte{1: ingesttest.Fixture(t, "page1.json"), 2: ingesttest.Fixture(t, "page2.json")}
}

// fakeAPI speaks Gname's price list: it checks the form POST, records the
// pages and limits asked for, and after any scripted answers serves the
// page asked for (an empty one past the pages it has).
type fakeAPI struct {
	*ingesttest.API
	mu     sync.Mutex
	asked  []int
	limits []string
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
// Gname's own script would not send.
func (f *fakeAPI) check(r *http.Request) error {
	err := r.ParseForm()
	page, perr := strconv.Atoi(r.PostForm.Get("page"))
	f.mu.Lock()
	f.asked = append(f.asked, page)
	f.limits = append(f.limits, r.PostForm.Get("limit"))
	f.mu.Unlock()
	switch {
	case r.Method != http.MethodPost:
		return errors.New("method " + r.Method)
	case r.Header.Get("Content-Type") != "application/x-www-form-urlencoded":
		return errors.New("content type " + r.Header.Get("Content-Type"))
	case r.Header.Get("X-Requested-With") != "XMLHttpRequest":
		return errors.New("no X-Requested-With")
	case err != nil || perr != nil || r.URL.RawQuery != "" || len(r.PostForm) != 2:
		return fmt.Errorf("form %v query %q: %v %v", r.PostForm, r.URL.RawQuery, err, perr)
	}
	return nil
}

// serve makes pages the current answer.
func (f *fakeAPI) serve(pages map[int][]byte) {
	f.SetHandler(func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.PostForm.Get("page"))
		body, found := pages[page]
		if !found {
			body = []byte(emptyPage)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
}

func (f *fakeAPI) askedFor() ([]int, []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.asked), slices.Clone(f.limits)
}

func newSource(t testing.TB, url string, perPage int, hc *http.Client) *gname.Source {
	t.Helper()
	src, err := gname.New(gname.Config{URL: url, PerPage: perPage}, ingesttest.Client(hc), func() time.Time { return observed })
	if err != nil {
		t.Fatal(err)
	}
	return src
}

var op = ingesttest.USD

func TestFetchPages(t *testing.T) {
	f, srv := newFakeAPI(t, twoPages(t))
	list, err := newSource(t, srv.URL+"/request/get_price", perPage, nil).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	asked, limits := f.askedFor()
	if want := []int{1, 2}; !reflect.DeepEqual(asked, want) {
		t.Errorf("pages asked for = %v, want %v (page 2 is short: the last)", asked, want)
	}
	if want := []string{"10", "10"}; !reflect.DeepEqual(limits, want) {
		t.Errorf("limits asked for = %v, want %v", limits, want)
	}
	got := suite.ByZone(t, list)
	if len(got) != wantZones {
		t.Errorf("got %d zones, want %d", len(got), wantZones)
	}
	if list.Skipped != 0 || list.Keep != nil {
		t.Errorf("skipped %d, keep %q; want none", list.Skipped, list.Keep)
	}
	tests := []struct {
		name, zone                string
		register, renew, transfer *contracts.OpPrice
	}{
		{"page 1, plain", ".com", op(968), op(1058), op(998)},
		{"cheap first year", ".xyz", op(99), op(1328), op(1298)},
		{"second-level zone, free transfer", ".co.uk", op(699), op(699), op(0)},
		{"thousands separator", ".security", op(258800), op(258800), op(258800)},
		{"IDN in Unicode", ".xn--q9jyb4c", op(999), op(2999), op(2999)},
		{"IDN as A-label without a dot, empty transfer", ".xn--p1ai", op(499), op(799), nil},
		{"prices as JSON numbers", ".io", op(3588), op(4588), op(4588)},
		{"page 2, dash transfer not offered", ".vip", op(268), op(1288), nil},
		{"upper case", ".ltd", op(388), op(1688), op(1688)},
		{"second-level zone, null transfer", ".com.au", op(1299), op(1299), nil},
		{"zero registration not offered", ".shop", nil, op(3188), op(3188)},
		{"no leading dot, n/a transfer", ".me", op(358), op(1898), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok := got[tt.zone]
			if !ok {
				t.Fatalf("no price set for %s", tt.zone)
			}
			ingesttest.CheckOps(t, p, tt.register, tt.renew, tt.transfer)
			if p.Tax != contracts.TaxUnknown {
				t.Errorf("%s tax = %q, want %q", tt.zone, p.Tax, contracts.TaxUnknown)
			}
		})
	}
	if _, ok := got[".pl"]; ok {
		t.Error(".pl is listed; nothing is offered there")
	}
}

func TestDefaultPerPage(t *testing.T) {
	f, srv := newFakeAPI(t, twoPages(t))
	list, err := newSource(t, srv.URL, 0, nil).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	asked, limits := f.askedFor()
	if !reflect.DeepEqual(asked, []int{1}) || !reflect.DeepEqual(limits, []string{strconv.Itoa(gname.DefaultPerPage)}) {
		t.Errorf("asked for pages %v with limits %v, want page 1 with limit %d", asked, limits, gname.DefaultPerPage)
	}
	// With the default limit, page 1's ten rows are a short page: the list.
	if len(list.Prices) != 10 {
		t.Errorf("got %d zones, want 10", len(list.Prices))
	}
}

// pageOf is a page of rows for the zones hz, each at 9.99.
func pageOf(hz ...string) []byte {
	rows := make([]string, len(hz))
	for i, z := range hz {
		rows[i] = fmt.Sprintf(`{"hz":%q,"zcjg":"9.99","xfjg":"9.99","zrjg":"9.99"}`, z)
	}
	return []byte(`{"code":1,"msg":"success","data":{"ymjg":[` + strings.Join(rows, ",") + `]}}`)
}

// TestPaging covers how Fetch follows, ends and guards the pages, with a
// limit of two rows a page.
func TestPaging(t *testing.T) {
	tests := []struct {
		name      string
		pages     map[int][]byte
		wantErr   string // "" for success
		wantZones int
		wantAsked []int
		skipped   int
	}{
		{"short first page ends", map[int][]byte{1: pageOf(".com")}, "", 1, []int{1}, 0},
		{"full page, then an empty one", map[int][]byte{1: pageOf(".com", ".net")}, "", 2, []int{1, 2}, 0},
		{"full pages, then a short one", map[int][]byte{1: pageOf(".com", ".net"), 2: pageOf(".org", ".io"), 3: pageOf(".me")}, "", 5, []int{1, 2, 3}, 0},
		{"past the end the last page again", map[int][]byte{1: pageOf(".com", ".net"), 2: pageOf(".org", ".io"), 3: pageOf(".org", ".io")}, "", 4, []int{1, 2, 3}, 0},
		{"data as PHP's empty array ends", map[int][]byte{1: pageOf(".com", ".net"), 2: []byte(`{"code":1,"msg":"","data":[]}`)}, "", 2, []int{1, 2}, 0},
		{"null ymjg ends", map[int][]byte{1: pageOf(".com", ".net"), 2: []byte(`{"code":"1","data":{"ymjg":null}}`)}, "", 2, []int{1, 2}, 0},
		{"list shifted between pages", map[int][]byte{1: pageOf(".com", ".net"), 2: pageOf(".net", ".org"), 3: pageOf(".io")}, "", 4, []int{1, 2, 3}, 1},
		{"page 2 repeating page 1", map[int][]byte{1: pageOf(".com", ".net"), 2: pageOf(".com", ".net")}, "page 2 repeats page 1", 0, []int{1, 2}, 0},
		{"empty first page", map[int][]byte{1: []byte(emptyPage)}, "no usable zone", 0, []int{1}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, srv := newFakeAPI(t, tt.pages)
			list, err := newSource(t, srv.URL, 2, nil).Fetch(context.Background())
			switch {
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Fetch error = %v, want one containing %q", err, tt.wantErr)
				}
				if list != nil {
					t.Error("Fetch returned a list with its error")
				}
			case err != nil:
				t.Fatal(err)
			default:
				if len(list.Prices) != tt.wantZones || list.Skipped != tt.skipped || list.Keep != nil {
					t.Errorf("got %d zones, %d skipped, keep %q; want %d, %d, none", len(list.Prices), list.Skipped, list.Keep, tt.wantZones, tt.skipped)
				}
			}
			if asked, _ := f.askedFor(); !reflect.DeepEqual(asked, tt.wantAsked) {
				t.Errorf("pages asked for = %v, want %v", asked, tt.wantAsked)
			}
		})
	}
	t.Run("endless pages stop at the limit", func(t *testing.T) {
		var n atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n.Add(1)
			p := r.FormValue("page")
			_, _ = w.Write(pageOf(".a"+p, ".b"+p))
		}))
		t.Cleanup(srv.Close)
		_, err := newSource(t, srv.URL, 2, nil).Fetch(context.Background())
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("more than %d pages", gname.MaxPages)) {
			t.Fatalf("Fetch error = %v, want the page limit", err)
		}
		if got := n.Load(); got != gname.MaxPages {
			t.Errorf("server saw %d requests, want %d", got, gname.MaxPages)
		}
	})
}

func TestFailedPageFailsFetch(t *testing.T) {
	for _, tt := range []struct {
		name, wantErr string
		page2         []byte
		steps         []http.HandlerFunc
	}{
		{name: "server errors on page 2", wantErr: "fetch gname price list page 2",
			steps: []http.HandlerFunc{nil, ingesttest.Status(500), ingesttest.Status(502), ingesttest.Status(500), ingesttest.Status(503)}},
		{name: "page 2 truncated", wantErr: "page 2: decode", page2: []byte(`{"code":1,"msg":"success","data":{"ymjg":[{"hz":".cc","zc`)},
		{name: "page 2 is an HTML page", wantErr: "page 2: decode", page2: []byte(`<html><body>502 Bad Gateway</body></html>`)},
		{name: "page 2 is an error envelope", wantErr: `page 2: gname answered code 0: "请求过于频繁，请稍后再试"`, page2: ingesttest.Fixture(t, "error.json")},
		{name: "page 2 has no ymjg", wantErr: "page 2: page has no ymjg list", page2: []byte(`{"code":1,"data":{"list":[]}}`)},
		{name: "page 2 data is a string", wantErr: "page 2: data", page2: []byte(`{"code":1,"data":"none"}`)},
		{name: "page 2 ymjg is an object", wantErr: "page 2: ymjg", page2: []byte(`{"code":1,"data":{"ymjg":{"hz":".cc"}}}`)},
		{name: "page 2 has no code", wantErr: "page 2: page has no code", page2: []byte(`{"data":{"ymjg":[]}}`)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pages := twoPages(t)
			if tt.page2 != nil {
				pages[2] = tt.page2
			}
			f, srv := newFakeAPI(t, pages)
			// A nil step stands for "serve page 1": page 1 is served,
			// then every attempt at page 2 meets a server error.
			for _, s := range tt.steps {
				if s == nil {
					s = func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(pages[1]) }
				}
				f.Serve(s)
			}
			list, err := newSource(t, srv.URL, perPage, nil).Fetch(context.Background())
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Fetch error = %v, want one containing %q", err, tt.wantErr)
			}
			if list != nil {
				t.Errorf("Fetch returned %d price sets with its error", len(list.Prices))
			}
			if asked, _ := f.askedFor(); slices.Contains(asked, 3) {
				t.Error("page 3 was fetched after page 2 failed")
			}
		})
	}
}

// TestParseQuirks covers the format's quirks one saved page at a time.
func TestParseQuirks(t *testing.T) {
	page := func(rows ...string) string {
		return `{"code":1,"msg":"success","data":{"ymjg":[` + strings.Join(rows, ",") + `]}}`
	}
	const net = `{"hz":".net","zcjg":"12.00","xfjg":"12.00","zrjg":"12.00"}`
	suite.Quirks(t, []ingesttest.Quirk{
		{
			Name: "missing transfer is not offered",
			Body: page(`{"hz":".com","zcjg":"10.00","xfjg":"10.00"}`),
			Zone: ".com", Want: suite.Set(".com", op(1000), op(1000), nil),
		},
		{
			Name: "other fields are not read",
			Body: page(`{"id":7,"hz":".com","zcjg":"10.00","xfjg":"10.00","zrjg":"10.00","sfrm":1}`),
			Zone: ".com", Want: suite.Set(".com", op(1000), op(1000), op(1000)),
		},
		{
			Name: "zero renewal is not offered",
			Body: page(`{"hz":".com","zcjg":"10.00","xfjg":0,"zrjg":"10.00"}`),
			Zone: ".com", Want: suite.Set(".com", op(1000), nil, op(1000)),
		},
		{
			Name: "nothing but a free transfer is left out",
			Body: page(`{"hz":".pl","zcjg":"","xfjg":"","zrjg":"0.00"}`, net),
			Zone: ".pl",
		},
		{
			Name: "unicode and A-label rows keep the first",
			Body: page(`{"hz":".みんな","zcjg":"9.00","xfjg":"9.00","zrjg":"9.00"}`, `{"hz":"xn--q9jyb4c","zcjg":"8.00","xfjg":"8.00","zrjg":"8.00"}`),
			Zone: ".xn--q9jyb4c", Want: suite.Set(".xn--q9jyb4c", op(900), op(900), op(900)), Skipped: 1,
		},
		{
			Name: "unreadable price skips the zone and keeps its last price",
			Body: page(`{"hz":".com","zcjg":"面议","xfjg":"10.00","zrjg":"10.00"}`, net),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.gname.com"},
		},
		{
			Name: "dollar sign is not a price here",
			Body: page(`{"hz":".com","zcjg":"$10.00","xfjg":"10.00","zrjg":"10.00"}`, net),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.gname.com"},
		},
		{
			Name: "negative price skips the zone",
			Body: page(`{"hz":".com","zcjg":-1,"xfjg":"10.00","zrjg":"10.00"}`, net),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.gname.com"},
		},
		{
			Name: "price over the ceiling skips the zone",
			Body: page(`{"hz":".com","zcjg":"99999999999999","xfjg":"10.00","zrjg":"10.00"}`, net),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.gname.com"},
		},
		{
			Name: "row without hz is skipped",
			Body: page(`{"zcjg":"10.00"}`, net),
			Zone: ".net", Want: suite.Set(".net", op(1200), op(1200), op(1200)), Skipped: 1,
		},
		{
			Name: "row that is not an object is skipped",
			Body: page(`[".com","10.00"]`, net),
			Zone: ".com", Skipped: 1,
		},
		{
			Name: "hz that is not a zone is skipped",
			Body: page(`{"hz":"foo bar","zcjg":"10.00"}`, net),
			Zone: ".foo bar", Skipped: 1,
		},
		{Name: "error envelope", Body: string(ingesttest.Fixture(t, "error.json")), WantErr: "gname answered code 0"},
		{Name: "string error code", Body: `{"code":"-1","msg":"参数错误"}`, WantErr: `gname answered code "-1": "参数错误"`},
		{Name: "only zones not sold", Body: page(`{"hz":".pl","zcjg":"0","xfjg":"0","zrjg":"0"}`), WantErr: "no usable zone"},
		{Name: "html page", Body: `<!DOCTYPE html><html><body>Access denied</body></html>`, WantErr: "page 1: decode"},
		{Name: "truncated", Body: string(ingesttest.Fixture(t, "page1.json")[:300]), WantErr: "page 1: decode"},
		{Name: "json but not a page", Body: `"ok"`, WantErr: "page 1: decode"},
	})
}

// TestParseSavedPages checks that Parse imports a whole saved list, one
// page or an array of every page, and refuses one that stops early.
func TestParseSavedPages(t *testing.T) {
	p1, p2 := string(ingesttest.Fixture(t, "page1.json")), string(ingesttest.Fixture(t, "page2.json"))
	tests := []struct {
		name, body, wantErr string
		wantZones           int
	}{
		{"both pages", "[" + p1 + "," + p2 + "]", "", wantZones},
		{"both pages and the empty one past them", "[" + p1 + "," + p2 + "," + emptyPage + "]", "", wantZones},
		{"one page is the whole list", p1, "", 10},
		{"an array of one page", "[" + p2 + "]", "", 6},
		{"pages ending with a full one", "[" + p1 + "," + string(pageOf(".a", ".b", ".c", ".d", ".e", ".f", ".g", ".h", ".i", ".j")) + "]", "end with page 2, as long as the first", 0},
		{"a short page followed by more", "[" + p1 + "," + p2 + "," + string(pageOf(".a")) + "]", "saved page 2 ends the list, yet page 3 brings more rows", 0},
		{"a short page followed by its repeat", "[" + p1 + "," + p2 + "," + p2 + "]", "", wantZones},
		{"page 2 repeating page 1", "[" + p1 + "," + p1 + "]", "page 2 repeats page 1", 0},
		{"a bad page among them", "[" + p1 + `,{"code":0,"msg":"busy"}]`, `page 2: gname answered code 0: "busy"`, 0},
		{"no pages", "[]", "no saved pages", 0},
		{"truncated array", "[" + p1 + ",", "saved pages do not decode", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list, err := gname.Parse([]byte(tt.body), observed)
			if ingesttest.CheckOutcome(t, list, err, tt.wantErr, 0, nil) && len(list.Prices) != tt.wantZones {
				t.Errorf("got %d zones, want %d", len(list.Prices), tt.wantZones)
			}
		})
	}
}

// suite is the source, for the conformance suite and the tests below.
var suite = ingesttest.Suite{
	Name: gname.Name, Registrar: gname.Name, Parse: gname.Parse,
	New: func(url string, client *fetch.Client, now func() time.Time) (ingest.Source, error) {
		return gname.New(gname.Config{URL: url, PerPage: perPage}, client, now)
	},
	Validate: func(url string) error { return gname.Config{URL: url}.Validate() },
	Fixtures: []string{"page1.json", "page2.json"}, Shrunk: "shrunk.json", Errors: []string{"error.json"},
	Check: (&fakeAPI{}).check, Empty: []byte(emptyPage), Page: func(r *http.Request) int { n, _ := strconv.Atoi(r.PostForm.Get("page")); return n },
	Spoil:    "data.ymjg.0.xfjg",
	Drift:    ingesttest.DriftPaths{Row: "data.ymjg[]", Field: "xfjg", Shape: "data.ymjg"},
	Observed: observed, Tax: contracts.TaxUnknown,
}

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, gname.Parse, "*.json") }
