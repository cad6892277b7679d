package gname_test

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/gname"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

// perPage is the limit the suite configures: page1.json is a full page of
// 10 rows, page2.json a short one of 7.
const perPage = 10

// emptyPage is Gname's answer to a page past the end.
const emptyPage = `{"code":1,"msg":"success","data":{"ymjg":[]}}`

var op = ingesttest.USD

// TestFetch reads both pages, asking for page 2 as page 1 is full: 16
// zones, 17 rows less .pl, which offers nothing.
func TestFetch(t *testing.T) {
	got := suite.FetchedPages(t, 16, 0)
	ingesttest.CheckEach(t, got, []ingesttest.Ops{
		{Name: "page 1, plain", Zone: ".com", Register: op(968), Renew: op(1058), Transfer: op(998)},
		{Name: "cheap first year", Zone: ".xyz", Register: op(99), Renew: op(1328), Transfer: op(1298)},
		{Name: "second-level zone, free transfer", Zone: ".co.uk", Register: op(699), Renew: op(699), Transfer: op(0)},
		{Name: "thousands separator", Zone: ".security", Register: op(258800), Renew: op(258800), Transfer: op(258800)},
		{Name: "IDN in Unicode", Zone: ".xn--q9jyb4c", Register: op(999), Renew: op(2999), Transfer: op(2999)},
		{Name: "IDN as A-label without a dot, empty transfer", Zone: ".xn--p1ai", Register: op(499), Renew: op(799)},
		{Name: "prices as JSON numbers", Zone: ".io", Register: op(3588), Renew: op(4588), Transfer: op(4588)},
		{Name: "page 2, dash transfer not offered", Zone: ".vip", Register: op(268), Renew: op(1288)},
		{Name: "upper case", Zone: ".ltd", Register: op(388), Renew: op(1688), Transfer: op(1688)},
		{Name: "second-level zone, null transfer", Zone: ".com.au", Register: op(1299), Renew: op(1299)},
		{Name: "zero registration not offered", Zone: ".shop", Renew: op(3188), Transfer: op(3188)},
		{Name: "no leading dot, n/a transfer", Zone: ".me", Register: op(358), Renew: op(1898)},
	}, ".pl")
}

// limited is the suite asking for limit rows a page (0 for the default),
// and refusing a request that asks for another.
func limited(limit int) ingesttest.Suite {
	s := suite
	s.New = func(url string, client *fetch.Client, now func() time.Time) (ingest.Source, error) {
		return gname.New(gname.Config{URL: url, PerPage: limit}, client, now)
	}
	want := strconv.Itoa(cmp.Or(limit, gname.DefaultPerPage))
	s.Check = func(r *http.Request) error {
		if err := check(r); err != nil || r.PostForm.Get("limit") == want {
			return err
		}
		return errors.New("limit " + r.PostForm.Get("limit") + ", want " + want)
	}
	return s
}

// pageOf is a page of rows for the zones hz, each at 9.99.
func pageOf(hz ...string) []byte {
	rows := make([]string, len(hz))
	for i, z := range hz {
		rows[i] = fmt.Sprintf(`{"hz":%q,"zcjg":"9.99","xfjg":"9.99","zrjg":"9.99"}`, z)
	}
	return []byte(`{"code":1,"msg":"success","data":{"ymjg":[` + strings.Join(rows, ",") + `]}}`)
}

// TestPaging covers how Fetch follows, ends and guards the pages: with a
// limit of ten page 1 is full and page 2 follows; with the default limit
// page 1's ten rows are a short page, the list; with a limit of two rows
// a page, the rest.
func TestPaging(t *testing.T) {
	p1, p2 := ingesttest.Fixture(t, "page1.json"), ingesttest.Fixture(t, "page2.json")
	limited(perPage).Paging(t, nil, []ingesttest.PageCase{
		{Name: "page 1 is full", Pages: map[int][]byte{1: p1, 2: p2}, Zones: 16, Asked: []int{1, 2}},
	})
	limited(0).Paging(t, nil, []ingesttest.PageCase{
		{Name: "default limit", Pages: map[int][]byte{1: p1, 2: p2}, Zones: 10, Asked: []int{1}},
	})
	limited(2).Paging(t, nil, []ingesttest.PageCase{
		{Name: "short first page ends", Pages: map[int][]byte{1: pageOf(".com")}, Zones: 1, Asked: []int{1}},
		{Name: "full page, then an empty one", Pages: map[int][]byte{1: pageOf(".com", ".net")}, Zones: 2, Asked: []int{1, 2}},
		{Name: "full pages, then a short one", Pages: map[int][]byte{1: pageOf(".com", ".net"), 2: pageOf(".org", ".io"), 3: pageOf(".me")}, Zones: 5, Asked: []int{1, 2, 3}},
		{Name: "past the end the last page again", Pages: map[int][]byte{1: pageOf(".com", ".net"), 2: pageOf(".org", ".io"), 3: pageOf(".org", ".io")}, Zones: 4, Asked: []int{1, 2, 3}},
		{Name: "data as PHP's empty array ends", Pages: map[int][]byte{1: pageOf(".com", ".net"), 2: []byte(`{"code":1,"msg":"","data":[]}`)}, Zones: 2, Asked: []int{1, 2}},
		{Name: "null ymjg ends", Pages: map[int][]byte{1: pageOf(".com", ".net"), 2: []byte(`{"code":"1","data":{"ymjg":null}}`)}, Zones: 2, Asked: []int{1, 2}},
		{Name: "list shifted between pages", Pages: map[int][]byte{1: pageOf(".com", ".net"), 2: pageOf(".net", ".org"), 3: pageOf(".io")}, Zones: 4, Skipped: 1, Asked: []int{1, 2, 3}},
		{Name: "page 2 repeating page 1", Pages: map[int][]byte{1: pageOf(".com", ".net"), 2: pageOf(".com", ".net")}, WantErr: "page 2 repeats page 1", Asked: []int{1, 2}},
		{Name: "empty first page", Pages: map[int][]byte{1: []byte(emptyPage)}, WantErr: "no usable zone", Asked: []int{1}},
	})
	limited(2).Endless(t, gname.MaxPages, func(n int) []byte { return pageOf(fmt.Sprint(".a", n), fmt.Sprint(".b", n)) })
}

// TestFailedPageFailsFetch shows a page that fails fails the fetch, and
// no page after it is asked for.
func TestFailedPageFailsFetch(t *testing.T) {
	p1, p2 := ingesttest.Fixture(t, "page1.json"), ingesttest.Fixture(t, "page2.json")
	failing := func(page2 []byte) map[int][]byte { return map[int][]byte{1: p1, 2: page2} }
	fail := ingesttest.Status(http.StatusInternalServerError)
	suite.Paging(t, nil, []ingesttest.PageCase{
		{Name: "server errors on page 2", WantErr: "fetch gname price list page 2", Pages: failing(p2),
			Steps: []http.HandlerFunc{ingesttest.Body(p1), fail, ingesttest.Status(502), fail, ingesttest.Status(503)}, Asked: []int{1, 2, 2, 2, 2}},
		{Name: "page 2 truncated", WantErr: "page 2: decode", Pages: failing([]byte(`{"code":1,"msg":"success","data":{"ymjg":[{"hz":".cc","zc`)), Asked: []int{1, 2}},
		{Name: "page 2 is an HTML page", WantErr: "page 2: decode", Pages: failing([]byte(`<html><body>502 Bad Gateway</body></html>`)), Asked: []int{1, 2}},
		{Name: "page 2 is an error envelope", WantErr: `page 2: gname answered code 0: "请求过于频繁，请稍后再试"`, Pages: failing(ingesttest.Fixture(t, "error.json")), Asked: []int{1, 2}},
		{Name: "page 2 has no ymjg", WantErr: "page 2: page has no ymjg list", Pages: failing([]byte(`{"code":1,"data":{"list":[]}}`)), Asked: []int{1, 2}},
		{Name: "page 2 data is a string", WantErr: "page 2: data", Pages: failing([]byte(`{"code":1,"data":"none"}`)), Asked: []int{1, 2}},
		{Name: "page 2 ymjg is an object", WantErr: "page 2: ymjg", Pages: failing([]byte(`{"code":1,"data":{"ymjg":{"hz":".cc"}}}`)), Asked: []int{1, 2}},
		{Name: "page 2 has no code", WantErr: "page 2: page has no code", Pages: failing([]byte(`{"data":{"ymjg":[]}}`)), Asked: []int{1, 2}},
	})
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
		{"both pages", "[" + p1 + "," + p2 + "]", "", 16},
		{"both pages and the empty one past them", "[" + p1 + "," + p2 + "," + emptyPage + "]", "", 16},
		{"one page is the whole list", p1, "", 10},
		{"an array of one page", "[" + p2 + "]", "", 6},
		{"pages ending with a full one", "[" + p1 + "," + string(pageOf(".a", ".b", ".c", ".d", ".e", ".f", ".g", ".h", ".i", ".j")) + "]", "end with page 2, as long as the first", 0},
		{"a short page followed by more", "[" + p1 + "," + p2 + "," + string(pageOf(".a")) + "]", "saved page 2 ends the list, yet page 3 brings more rows", 0},
		{"a short page followed by its repeat", "[" + p1 + "," + p2 + "," + p2 + "]", "", 16},
		{"page 2 repeating page 1", "[" + p1 + "," + p1 + "]", "page 2 repeats page 1", 0},
		{"a bad page among them", "[" + p1 + `,{"code":0,"msg":"busy"}]`, `page 2: gname answered code 0: "busy"`, 0},
		{"no pages", "[]", "no saved pages", 0},
		{"truncated array", "[" + p1 + ",", "saved pages do not decode", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list, err := gname.Parse([]byte(tt.body), suite.Observed)
			if ingesttest.CheckOutcome(t, list, err, tt.wantErr, 0, nil) && len(list.Prices) != tt.wantZones {
				t.Errorf("got %d zones, want %d", len(list.Prices), tt.wantZones)
			}
		})
	}
}

// suite is the source, for the conformance suite and the tests above.
var suite = ingesttest.Suite{
	Name: gname.Name, Registrar: gname.Name, Parse: gname.Parse, Tax: contracts.TaxUnknown,
	New: func(url string, client *fetch.Client, now func() time.Time) (ingest.Source, error) {
		return gname.New(gname.Config{URL: url, PerPage: perPage}, client, now)
	},
	Validate: func(url string) error { return gname.Config{URL: url}.Validate() },
	Errors:   []string{"error.json"}, Check: check, Empty: []byte(emptyPage), Page: func(r *http.Request) int { n, _ := strconv.Atoi(r.PostForm.Get("page")); return n },
	Spoil: "data.ymjg.0.xfjg",
	Drift: ingesttest.DriftPaths{Row: "data.ymjg[]", Field: "xfjg", Shape: "data.ymjg"},
}.Pages("shrunk.json", "page1.json", "page2.json")

// check says what is wrong with a request Gname's own script would not
// send: a form POST of page and limit.
func check(r *http.Request) error {
	err := r.ParseForm()
	_, perr := strconv.Atoi(r.PostForm.Get("page"))
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

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, gname.Parse, "*.json") }
