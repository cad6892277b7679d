package iwantmyname_test

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
	"github.com/zoneprice/zoneprice/ingest/iwantmyname"
	"github.com/zoneprice/zoneprice/ingest/kit"
)

var observed = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

const listPath = "/Prices-getPrices.html"

// wantZones is how many zones the two pages price: 20 rows less .pl (zero
// throughout) and ".forever/" (a Handshake name).
const wantZones = 18

// twoPages are the fixture's pages by the offset they start at: 12 rows,
// then 8.
func twoPages(t testing.TB) map[int][]byte {
	return map[int][]byte{0: ingesttest.Fixture(t, "page1.json"), 12: ingesttest.Fixture(t, "page2.json")}
}

// fakeAPI speaks iwantmyname's price list: it checks the query and the
// header the site's script sends, records the offsets asked for, and
// after any scripted answers serves the page starting at the offset.
type fakeAPI struct {
	*ingesttest.API
	mu    sync.Mutex
	asked []int
}

func newFakeAPI(t *testing.T, pages map[int][]byte) (*fakeAPI, string) {
	t.Helper()
	f := &fakeAPI{}
	api, srv := ingesttest.NewAPI(t, nil, f.check)
	f.API = api
	f.serve(pages)
	return f, srv.URL + listPath
}

// check records the offset asked for and says what is wrong with a request
// the site would not expect.
func (f *fakeAPI) check(r *http.Request) error {
	q := r.URL.Query()
	offset, err := strconv.Atoi(q.Get("offset"))
	f.mu.Lock()
	f.asked = append(f.asked, offset)
	f.mu.Unlock()
	switch {
	case r.Method != http.MethodGet || r.URL.Path != listPath:
		return errors.New(r.Method + " " + r.URL.Path)
	case r.Header.Get("X-Requested-With") != "XMLHttpRequest":
		return fmt.Errorf("X-Requested-With %q", r.Header.Get("X-Requested-With"))
	case err != nil || q.Get("ajax") != "1" || q.Get("limit") != "500" || q.Get("level") != "IWMN" || q.Get("currency") != "USD":
		return errors.New("query " + r.URL.RawQuery)
	case r.Header.Get("If-None-Match") != "" || r.Header.Get("If-Modified-Since") != "":
		return errors.New("a paged request is conditional")
	}
	return nil
}

// serve makes pages the current answer: each request gets the page that
// starts at the offset it asks for, or a 404.
func (f *fakeAPI) serve(pages map[int][]byte) {
	f.SetHandler(func(w http.ResponseWriter, r *http.Request) {
		offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		body, found := pages[offset]
		if !found {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		w.Header().Set("ETag", `"same"`)
		ingesttest.Body(body)(w, r)
	})
}

func (f *fakeAPI) askedFor() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.asked)
}

var op = ingesttest.USD

// pageOf is one page of rows priced 9.99 throughout, with totalRows total.
func pageOf(total string, zones ...string) []byte {
	rows := make([]string, 0, len(zones))
	for _, z := range zones {
		rows = append(rows, fmt.Sprintf(`%q:{"registration":{"price":"9.99"},"renewal":{"price":"9.99"},"transfer":{"price":"9.99"}}`, z))
	}
	return fmt.Appendf(nil, `{"totalRows":%s,"rows":{%s}}`, total, strings.Join(rows, ","))
}

func TestFetchPages(t *testing.T) {
	f, url := newFakeAPI(t, twoPages(t))
	list, err := suite.Source(t, url, nil).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := f.askedFor(), []int{0, 12}; !reflect.DeepEqual(got, want) {
		t.Errorf("offsets asked for = %v, want %v", got, want)
	}
	got := suite.ByZone(t, list)
	if len(got) != wantZones {
		t.Errorf("got %d zones, want %d", len(got), wantZones)
	}
	if list.Skipped != 0 || list.Keep != nil {
		t.Errorf("skipped %d, keep %q; a Handshake name and a zone priced at zero are left out, not skipped", list.Skipped, list.Keep)
	}
	tests := []struct {
		name, zone                string
		register, renew, transfer *contracts.OpPrice
	}{
		{"page 1, plain", ".com", op(1700), op(1700), op(1700)},
		{"second-level zone, free transfer", ".co.nz", op(2250), op(2250), op(0)},
		{"second-level zone beside its parent", ".co.uk", op(1250), op(1250), op(0)},
		{"free transfer", ".nz", op(2250), op(2250), op(0)},
		{"thousands separator", ".security", op(206023), op(206023), op(206023)},
		{"IDN as an A-label", ".xn--q9jyb4c", op(3000), op(3000), op(3000)},
		{"IDN in Unicode", ".xn--80asehdb", op(3400), op(3400), op(3400)},
		{"n/a transfer is not offered", ".es", op(1400), op(1400), nil},
		{"absent transfer is not offered", ".io", op(5900), op(5900), nil},
		{"page 2, empty transfer is not offered", ".online", op(3900), op(3900), nil},
		{"-1 renewal is not offered", ".xyz", op(1500), nil, op(1500)},
		{"prices as JSON numbers", ".app", op(2000), op(2000), op(2000)},
		{"null transfer price is not offered", ".shop", op(4200), op(4200), nil},
		{"null renewal is not offered", ".club", op(1800), nil, op(1800)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok := got[tt.zone]
			if !ok {
				t.Fatalf("no price set for %s", tt.zone)
			}
			ingesttest.CheckOps(t, p, tt.register, tt.renew, tt.transfer)
			if p.Tax != contracts.TaxUnknown {
				t.Errorf("tax %q, want %q", p.Tax, contracts.TaxUnknown)
			}
		})
	}
	for _, zone := range []string{".pl", ".forever"} {
		if _, ok := got[zone]; ok {
			t.Errorf("%s is listed; it should be left out", zone)
		}
	}
}

// TestPaging covers how Fetch follows and guards the pages.
func TestPaging(t *testing.T) {
	tests := []struct {
		name      string
		pages     map[int][]byte
		wantErr   string // "" for success
		wantZones int
		wantAsked []int
	}{
		{"one page holds all", map[int][]byte{0: pageOf("2", "com", "net")}, "", 2, []int{0}},
		{"short pages are followed by offset", map[int][]byte{0: pageOf("3", "com"), 1: pageOf("3", "net"), 2: pageOf("3", "org")}, "", 3, []int{0, 1, 2}},
		{"the list shifted: the repeat is skipped", map[int][]byte{0: pageOf("3", "com", "net"), 2: pageOf("3", "net")}, "", 2, []int{0, 2}},
		{"empty rows list on an empty list", map[int][]byte{0: []byte(`{"totalRows":0,"rows":[]}`)}, "no zones", 0, []int{0}},
		{"pages disagree on totalRows", map[int][]byte{0: pageOf("3", "com"), 1: pageOf("4", "net")}, "page 2: totalRows 4 disagrees with the 3", 0, []int{0, 1}},
		{"a page with no rows stops early", map[int][]byte{0: pageOf("3", "com"), 1: []byte(`{"totalRows":3,"rows":[]}`)}, "stopped after 1 of 3 rows", 0, []int{0, 1}},
		{"next page missing", map[int][]byte{0: pageOf("3", "com")}, "page 2: GET", 0, []int{0, 1}},
		{"rows as a populated list", map[int][]byte{0: []byte(`{"totalRows":1,"rows":[{"tld":".com"}]}`)}, "rows is a list", 0, []int{0}},
		{"page in another currency", map[int][]byte{0: []byte(`{"totalRows":1,"currency":"NZD","rows":{}}`)}, `page priced in "NZD"`, 0, []int{0}},
		{"no totalRows", map[int][]byte{0: []byte(`{"rows":{}}`)}, "no rows or no totalRows", 0, []int{0}},
		{"totalRows not a count", map[int][]byte{0: []byte(`{"totalRows":"many","rows":{}}`)}, "not a count", 0, []int{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, url := newFakeAPI(t, tt.pages)
			list, err := suite.Source(t, url, nil).Fetch(context.Background())
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
			if got := f.askedFor(); !reflect.DeepEqual(got, tt.wantAsked) {
				t.Errorf("offsets asked for = %v, want %v", got, tt.wantAsked)
			}
		})
	}
	t.Run("endless pages stop at the limit", func(t *testing.T) {
		var n atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			i := n.Add(1)
			_, _ = w.Write(pageOf("1000000", fmt.Sprintf("z%d", i)))
		}))
		t.Cleanup(srv.Close)
		_, err := suite.Source(t, srv.URL, nil).Fetch(context.Background())
		if err == nil || !strings.Contains(err.Error(), "more than 100 pages") {
			t.Fatalf("Fetch error = %v, want the page limit", err)
		}
		if got := n.Load(); got != iwantmyname.MaxPages {
			t.Errorf("server saw %d requests, want %d", got, iwantmyname.MaxPages)
		}
	})
}

func TestFailedPageFailsFetch(t *testing.T) {
	for _, tt := range []struct {
		name, wantErr string
		page2         []byte
		steps         []http.HandlerFunc
	}{
		{name: "server errors on page 2", wantErr: "fetch iwantmyname price list page 2",
			steps: []http.HandlerFunc{nil, ingesttest.Status(500), ingesttest.Status(500), ingesttest.Status(500), ingesttest.Status(500)}},
		{name: "page 2 truncated", wantErr: "page 2: decode", page2: ingesttest.Fixture(t, "page2.json")[:200]},
		{name: "page 2 is the HTML page", wantErr: "page 2: decode", page2: []byte(`<!DOCTYPE html><html><head><title>Domain prices | iwantmyname</title></head></html>`)},
		{name: "page 2 is an error", wantErr: `page 2: iwantmyname answered "Too many requests, please slow down"`, page2: ingesttest.Fixture(t, "error.json")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pages := twoPages(t)
			if tt.page2 != nil {
				pages[12] = tt.page2
			}
			f, url := newFakeAPI(t, pages)
			if tt.steps != nil {
				steps := slices.Clone(tt.steps)
				steps[0] = ingesttest.Body(pages[0])
				f.Serve(steps...)
			}
			list, err := suite.Source(t, url, nil).Fetch(context.Background())
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Fetch error = %v, want one containing %q", err, tt.wantErr)
			}
			if list != nil {
				t.Error("Fetch returned a list with its error")
			}
		})
	}
}

// TestParseQuirks covers the format's quirks one page at a time.
func TestParseQuirks(t *testing.T) {
	one := func(rows string) string {
		return `{"totalRows":` + strconv.Itoa(strings.Count(rows, `"registration"`)) + `,"rows":{` + rows + `}}`
	}
	row := func(zone, reg, ren, tra string) string {
		return fmt.Sprintf(`%q:{"registration":{"price":%s},"renewal":{"price":%s},"transfer":{"price":%s}}`, zone, reg, ren, tra)
	}
	net := row(".net", `"19.00"`, `"19.00"`, `"19.00"`)
	suite.Quirks(t, []ingesttest.Quirk{
		{
			Name: "key without a leading dot",
			Body: one(row("com", `"17.00"`, `"17.00"`, `"17.00"`)),
			Zone: ".com", Want: suite.Set(".com", op(1700), op(1700), op(1700)),
		},
		{
			Name: "three decimals round half up, trailing zeros are exact",
			Body: one(row(".com", `"16.995"`, `"17.0000"`, `17`)),
			Zone: ".com", Want: suite.Set(".com", op(1700), op(1700), op(1700)),
		},
		{
			Name: "zero registration is not offered, zero transfer is free",
			Body: one(row(".uk", `"0.00"`, `"12.50"`, `0`)),
			Zone: ".uk", Want: suite.Set(".uk", nil, op(1250), op(0)),
		},
		{
			Name: "-1.00 is not offered",
			Body: one(row(".com", `"17.00"`, `-1.00`, `"17.00"`)),
			Zone: ".com", Want: suite.Set(".com", op(1700), nil, op(1700)),
		},
		{
			Name: "only a free transfer is left out, not skipped",
			Body: one(row(".uk", `null`, `""`, `"0.00"`) + `,` + net),
			Zone: ".uk",
		},
		{
			Name: "Handshake name is left out, not skipped",
			Body: one(row(".forever/", `"5.00"`, `"5.00"`, `"5.00"`) + `,` + net),
			Zone: ".forever",
		},
		{
			Name: "unicode key and its A-label keep the first in key order",
			Body: one(row(".みんな", `"9.99"`, `"9.99"`, `"9.99"`) + `,` + row(".xn--q9jyb4c", `"30.00"`, `"30.00"`, `"30.00"`)),
			Zone: ".xn--q9jyb4c", Want: suite.Set(".xn--q9jyb4c", op(3000), op(3000), op(3000)),
			Skipped: 1,
		},
		{
			Name: "unreadable price skips the zone",
			Body: one(row(".com", `"TBD"`, `"17.00"`, `"17.00"`) + `,` + net),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.iwantmyname.com"},
		},
		{
			Name: "price with a currency symbol skips the zone",
			Body: one(row(".com", `"$17.00"`, `"17.00"`, `"17.00"`) + `,` + net),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.iwantmyname.com"},
		},
		{
			Name: "negative price skips the zone",
			Body: one(row(".com", `"-17.00"`, `"17.00"`, `"17.00"`) + `,` + net),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.iwantmyname.com"},
		},
		{
			Name: "row that is not an object skips the zone",
			Body: `{"totalRows":2,"rows":{".com":"17.00",` + net + `}}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.iwantmyname.com"},
		},
		{
			Name: "key that is not a zone is skipped",
			Body: one(row("foo bar", `"1.00"`, `"1.00"`, `"1.00"`) + `,` + net),
			Zone: ".net", Want: suite.Set(".net", op(1900), op(1900), op(1900)),
			Skipped: 1,
		},
		{
			Name: "saved pages as an array",
			Body: `[` + string(pageOf("2", "com")) + `,` + string(pageOf("2", "net")) + `]`,
			Zone: ".net", Want: suite.Set(".net", op(999), op(999), op(999)),
		},
		{Name: "one page of several", Body: string(pageOf("3", "com")), WantErr: "the saved pages hold 1 of 3 rows"},
		{Name: "saved pages that disagree", Body: `[` + string(pageOf("2", "com")) + `,` + string(pageOf("3", "net")) + `]`, WantErr: "page 2: totalRows 3 disagrees"},
		{Name: "no saved pages", Body: `[]`, WantErr: "no saved pages"},
		{Name: "error", Body: string(ingesttest.Fixture(t, "error.json")), WantErr: `iwantmyname answered "Too many requests, please slow down"`},
		{Name: "only zones that cannot be used", Body: one(row(".pl", `"0.00"`, `"0.00"`, `"0.00"`)), WantErr: "no usable zone"},
		{Name: "no zones", Body: `{"totalRows":0,"rows":{}}`, WantErr: "no zones"},
		{Name: "html", Body: `<!DOCTYPE html><html><body>502 Bad Gateway</body></html>`, WantErr: "page 1: decode"},
		{Name: "truncated", Body: string(ingesttest.Fixture(t, "page1.json")[:300]), WantErr: "page 1: decode"},
	})
}

func TestParseSavedPages(t *testing.T) {
	pages := twoPages(t)
	saved := slices.Concat([]byte("["), pages[0], []byte(","), pages[12], []byte("]"))
	list, err := iwantmyname.Declaration().Read(saved, observed)
	if err != nil {
		t.Fatal(err)
	}
	if got := suite.ByZone(t, list); len(got) != wantZones {
		t.Errorf("got %d zones, want %d", len(got), wantZones)
	}
	if _, err := iwantmyname.Declaration().Read(pages[0], observed); err == nil || !strings.Contains(err.Error(), "12 of 20 rows") {
		t.Errorf("Parse(page 1 alone) error = %v, want the missing rows named", err)
	}
}

// suite is the source, for the conformance suite and the tests below.
var suite = ingesttest.Suite{
	Name: iwantmyname.Name, Registrar: iwantmyname.Name, Parse: iwantmyname.Declaration().Read,
	New: func(url string, client *fetch.Client, now func() time.Time) (ingest.Source, error) {
		return kit.New(iwantmyname.Declaration(), kit.Config{URL: url}, client, now)
	},
	Validate: func(url string) error { return kit.Config{URL: url}.Validate() },
	Path:     listPath, Fixtures: []string{"page1.json", "page2.json"}, Shrunk: "shrunk.json", Errors: []string{"error.json"},
	Check: (&fakeAPI{}).check, Saved: onePage, Page: func(r *http.Request) int { return map[string]int{"0": 1, "12": 2}[r.URL.Query().Get("offset")] },
	Spoil:    "rows.*.renewal.price",
	Drift:    ingesttest.DriftPaths{Row: "rows.*", Field: "renewal", Shape: "rows"},
	Observed: observed, Tax: contracts.TaxUnknown,
}

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, iwantmyname.Declaration().Read, "*.json") }
