package iwantmyname_test

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/iwantmyname"
)

const listPath = "/Prices-getPrices.html"

var op = ingesttest.USD

// pageOf is one page of rows priced 9.99 throughout, with totalRows total.
func pageOf(total string, zones ...string) []byte {
	rows := make([]string, 0, len(zones))
	for _, z := range zones {
		rows = append(rows, fmt.Sprintf(`%q:{"registration":{"price":"9.99"},"renewal":{"price":"9.99"},"transfer":{"price":"9.99"}}`, z))
	}
	return fmt.Appendf(nil, `{"totalRows":%s,"rows":{%s}}`, total, strings.Join(rows, ","))
}

// TestFetch reads both pages, the second from the offset after the
// first's 12 rows: 18 zones, 20 rows less .pl (zero throughout) and
// ".forever/" (a Handshake name), left out, not skipped.
func TestFetch(t *testing.T) {
	got := suite.FetchedPages(t, 18, 0)
	ingesttest.CheckEach(t, got, []ingesttest.Ops{
		{Name: "page 1, plain", Zone: ".com", Register: op(1700), Renew: op(1700), Transfer: op(1700)},
		{Name: "second-level zone, free transfer", Zone: ".co.nz", Register: op(2250), Renew: op(2250), Transfer: op(0)},
		{Name: "second-level zone beside its parent", Zone: ".co.uk", Register: op(1250), Renew: op(1250), Transfer: op(0)},
		{Name: "free transfer", Zone: ".nz", Register: op(2250), Renew: op(2250), Transfer: op(0)},
		{Name: "thousands separator", Zone: ".security", Register: op(206023), Renew: op(206023), Transfer: op(206023)},
		{Name: "IDN as an A-label", Zone: ".xn--q9jyb4c", Register: op(3000), Renew: op(3000), Transfer: op(3000)},
		{Name: "IDN in Unicode", Zone: ".xn--80asehdb", Register: op(3400), Renew: op(3400), Transfer: op(3400)},
		{Name: "n/a transfer is not offered", Zone: ".es", Register: op(1400), Renew: op(1400)},
		{Name: "absent transfer is not offered", Zone: ".io", Register: op(5900), Renew: op(5900)},
		{Name: "page 2, empty transfer is not offered", Zone: ".online", Register: op(3900), Renew: op(3900)},
		{Name: "-1 renewal is not offered", Zone: ".xyz", Register: op(1500), Transfer: op(1500)},
		{Name: "prices as JSON numbers", Zone: ".app", Register: op(2000), Renew: op(2000), Transfer: op(2000)},
		{Name: "null transfer price is not offered", Zone: ".shop", Register: op(4200), Renew: op(4200)},
		{Name: "null renewal is not offered", Zone: ".club", Register: op(1800), Transfer: op(1800)},
	}, ".pl", ".forever")
}

// offset is the row a request asks its page to start at.
func offset(r *http.Request) int {
	n, _ := strconv.Atoi(r.URL.Query().Get("offset"))
	return n
}

// TestPaging covers how Fetch follows and guards the pages, by the
// offsets it asks for.
func TestPaging(t *testing.T) {
	p1, p2 := ingesttest.Fixture(t, "page1.json"), ingesttest.Fixture(t, "page2.json")
	suite.Paging(t, offset, []ingesttest.PageCase{
		{Name: "the fixture's pages", Pages: map[int][]byte{0: p1, 12: p2}, Zones: 18, Asked: []int{0, 12}},
		{Name: "one page holds all", Pages: map[int][]byte{0: pageOf("2", "com", "net")}, Zones: 2, Asked: []int{0}},
		{Name: "short pages are followed by offset", Pages: map[int][]byte{0: pageOf("3", "com"), 1: pageOf("3", "net"), 2: pageOf("3", "org")}, Zones: 3, Asked: []int{0, 1, 2}},
		{Name: "the list shifted: the repeat is skipped", Pages: map[int][]byte{0: pageOf("3", "com", "net"), 2: pageOf("3", "net")}, Zones: 2, Skipped: 1, Asked: []int{0, 2}},
		{Name: "empty rows list on an empty list", Pages: map[int][]byte{0: []byte(`{"totalRows":0,"rows":[]}`)}, WantErr: "no zones", Asked: []int{0}},
		{Name: "pages disagree on totalRows", Pages: map[int][]byte{0: pageOf("3", "com"), 1: pageOf("4", "net")}, WantErr: "page 2: totalRows 4 disagrees with the 3", Asked: []int{0, 1}},
		{Name: "a page with no rows stops early", Pages: map[int][]byte{0: pageOf("3", "com"), 1: []byte(`{"totalRows":3,"rows":[]}`)}, WantErr: "stopped after 1 of 3 rows", Asked: []int{0, 1}},
		{Name: "next page missing", Pages: map[int][]byte{0: pageOf("3", "com")}, WantErr: "page 2: GET", Asked: []int{0, 1}},
		{Name: "rows as a populated list", Pages: map[int][]byte{0: []byte(`{"totalRows":1,"rows":[{"tld":".com"}]}`)}, WantErr: "rows is a list", Asked: []int{0}},
		{Name: "page in another currency", Pages: map[int][]byte{0: []byte(`{"totalRows":1,"currency":"NZD","rows":{}}`)}, WantErr: `page priced in "NZD"`, Asked: []int{0}},
		{Name: "no totalRows", Pages: map[int][]byte{0: []byte(`{"rows":{}}`)}, WantErr: "no rows or no totalRows", Asked: []int{0}},
		{Name: "totalRows not a count", Pages: map[int][]byte{0: []byte(`{"totalRows":"many","rows":{}}`)}, WantErr: "not a count", Asked: []int{0}},
	})
	suite.Endless(t, iwantmyname.MaxPages, func(n int) []byte { return pageOf("1000000", fmt.Sprintf("z%d", n)) })
}

// TestFailedPageFailsFetch shows a page that fails fails the fetch.
func TestFailedPageFailsFetch(t *testing.T) {
	p1, p2 := ingesttest.Fixture(t, "page1.json"), ingesttest.Fixture(t, "page2.json")
	failing := func(page2 []byte) map[int][]byte { return map[int][]byte{0: p1, 12: page2} }
	fail := ingesttest.Status(http.StatusInternalServerError)
	suite.Paging(t, offset, []ingesttest.PageCase{
		{Name: "server errors on page 2", WantErr: "fetch iwantmyname price list page 2", Pages: failing(p2),
			Steps: []http.HandlerFunc{ingesttest.Body(p1), fail, fail, fail, fail}, Asked: []int{0, 12, 12, 12, 12}},
		{Name: "page 2 truncated", WantErr: "page 2: decode", Pages: failing(p2[:200]), Asked: []int{0, 12}},
		{Name: "page 2 is the HTML page", WantErr: "page 2: decode", Pages: failing([]byte(`<!DOCTYPE html><html><head><title>Domain prices | iwantmyname</title></head></html>`)), Asked: []int{0, 12}},
		{Name: "page 2 is an error", WantErr: `page 2: iwantmyname answered "Too many requests, please slow down"`, Pages: failing(ingesttest.Fixture(t, "error.json")), Asked: []int{0, 12}},
	})
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
	p1, p2 := ingesttest.Fixture(t, "page1.json"), ingesttest.Fixture(t, "page2.json")
	list, err := suite.Parse(slices.Concat([]byte("["), p1, []byte(","), p2, []byte("]")), suite.Observed)
	if err != nil {
		t.Fatal(err)
	}
	if got := suite.ByZone(t, list); len(got) != 18 {
		t.Errorf("got %d zones, want 18", len(got))
	}
	if _, err := suite.Parse(p1, suite.Observed); err == nil || !strings.Contains(err.Error(), "12 of 20 rows") {
		t.Errorf("Parse(page 1 alone) error = %v, want the missing rows named", err)
	}
}

// suite is the source, for the conformance suite and the tests above.
var suite = ingesttest.Declared(iwantmyname.Declaration()).Pages("shrunk.json", "page1.json", "page2.json").With(ingesttest.Suite{
	Path: listPath, Errors: []string{"error.json"}, Check: check, Saved: onePage,
	Page:  func(r *http.Request) int { return map[int]int{0: 1, 12: 2}[offset(r)] },
	Spoil: "rows.*.renewal.price",
	Drift: ingesttest.DriftPaths{Row: "rows.*", Field: "renewal", Shape: "rows"},
})

// check says what is wrong with a request the site would not expect: a
// GET with the query and the header the site's script sends, never
// conditional (the pages' offsets shift as the list changes).
func check(r *http.Request) error {
	q := r.URL.Query()
	_, err := strconv.Atoi(q.Get("offset"))
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

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, iwantmyname.Declaration().Read, "*.json") }
