package gandi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest/gandi"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

func eur(cents int64) *contracts.OpPrice {
	return &contracts.OpPrice{Regular: contracts.Price{Amount: cents, Currency: "EUR"}}
}

// pageOf is the page a request asks for (1 without a page).
func pageOf(r *http.Request) int {
	n, err := strconv.Atoi(r.URL.Query().Get("page"))
	if err != nil {
		return 0
	}
	return n
}

// checkRequest says what is wrong with a request that is not a GET of a
// page.
func checkRequest(r *http.Request) error {
	if r.Method != http.MethodGet || pageOf(r) < 1 || r.ContentLength > 0 {
		return fmt.Errorf("%s %s", r.Method, r.URL)
	}
	return nil
}

// TestFetch reads the two pages of zones and stops at the third, empty:
// 16 zones, the note rows no zone's.
func TestFetch(t *testing.T) {
	pages := [][]byte{ingesttest.Fixture(t, "page1.html"), ingesttest.Fixture(t, "page2.html"), ingesttest.Fixture(t, "page3.html")}
	var (
		mu    sync.Mutex
		asked []int
	)
	api, srv := ingesttest.NewAPI(t, nil, checkRequest)
	api.SetHandler(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, pageOf(r))
		mu.Unlock()
		ingesttest.Body(pages[min(pageOf(r), 3)-1])(w, r)
	})
	list, err := suite.Source(t, srv.URL+"/en/domain/tld", nil).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := suite.ByZone(t, list)
	if len(got) != 16 || list.Skipped != 0 || list.Drift == nil || !list.Drift.Empty() {
		t.Errorf("%d zones, %d skipped, drift %+v; want 16, none skipped, no drift", len(got), list.Skipped, list.Drift)
	}
	mu.Lock()
	defer mu.Unlock()
	if fmt.Sprint(asked) != "[1 2 3]" {
		t.Errorf("pages asked for: %v, want [1 2 3]", asked)
	}
	ingesttest.CheckEach(t, got, []ingesttest.Ops{
		{Name: "page 1", Zone: ".com", Register: eur(1550), Renew: eur(2130), Transfer: eur(1550)},
		{Name: "free transfer", Zone: ".co.uk", Register: eur(700), Renew: eur(900), Transfer: eur(0)},
		{Name: "dash transfer", Zone: ".de", Register: eur(900), Renew: eur(900)},
		{Name: "thousands separator", Zone: ".cars", Register: eur(270000), Renew: eur(270000), Transfer: eur(270000)},
		{Name: "page 2, Unicode zone", Zone: ".xn--p1ai", Register: eur(1200), Renew: eur(1200), Transfer: eur(1200)},
		{Name: "page 2, N/A transfer", Zone: ".ch", Register: eur(1000), Renew: eur(1200)},
	})
}

// TestPaging covers how the pages end the list, fetched and saved.
func TestPaging(t *testing.T) {
	page := func(rows ...string) string {
		return `<html><body><table><tr><th>Extension</th><th>Registration</th><th>Renewal</th><th>Transfer</th></tr>` +
			strings.Join(rows, "") + `</table></body></html>`
	}
	row := func(zone, price string) string {
		return `<tr><td>` + zone + `</td><td>` + price + `</td><td>` + price + `</td><td>` + price + `</td></tr>`
	}
	com, net, org := row(".com", "€15.50"), row(".net", "€18.00"), row(".org", "€16.00")
	for _, tt := range []struct {
		name    string
		pages   []string
		zones   int
		asked   int64
		wantErr string
	}{
		{"an empty page ends it", []string{page(com), page(net), `<html><body><p>No extension</p></body></html>`}, 2, 3, ""},
		{"a page of no zone's rows ends it", []string{page(com), page(`<tr><td colspan="4">Nothing here</td></tr>`)}, 1, 2, ""},
		{"the last page again ends it", []string{page(com), page(net, org), page(net, org)}, 3, 3, ""},
		{"a zone on two pages is skipped once", []string{page(com, net), page(net, org), page()}, 3, 3, ""},
		{"a page past the end that is missing fails", []string{page(com)}, 0, 2, "page 2"},
		{"a page whose rows cannot be read fails", []string{page(com), page(row(".net", "18.00"))}, 0, 2, "page 2: no usable zone"},
		{"an empty first page fails", []string{page()}, 0, 1, "page 1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var asked atomic.Int64
			api, srv := ingesttest.NewAPI(t, nil, checkRequest)
			api.SetHandler(func(w http.ResponseWriter, r *http.Request) {
				asked.Add(1)
				if n := pageOf(r); n <= len(tt.pages) {
					ingesttest.Body([]byte(tt.pages[n-1]))(w, r)
					return
				}
				http.NotFound(w, r)
			})
			list, err := suite.Source(t, srv.URL, nil).Fetch(context.Background())
			switch {
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Fetch error = %v, want one containing %q", err, tt.wantErr)
			case tt.wantErr == "" && err != nil:
				t.Fatal(err)
			case tt.wantErr == "" && len(list.Prices) != tt.zones:
				t.Errorf("%d zones, want %d", len(list.Prices), tt.zones)
			}
			if asked.Load() != tt.asked {
				t.Errorf("%d pages asked for, want %d", asked.Load(), tt.asked)
			}
			if tt.wantErr != "" {
				return
			}
			saved, _ := json.Marshal(tt.pages)
			if l, err := gandi.Declaration().Read(saved, suite.Observed); err != nil || len(l.Prices) != tt.zones {
				t.Errorf("the pages saved: %v, %v; want %d zones", l, err, tt.zones)
			}
		})
	}
}

// TestPagingBounded stops a list that never ends at MaxPages pages, each
// asked for once, and fails the round rather than publish part of it.
func TestPagingBounded(t *testing.T) {
	var asked atomic.Int64
	api, srv := ingesttest.NewAPI(t, nil, checkRequest)
	api.SetHandler(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		page := fmt.Sprintf(`<html><body><table><tr><th>Extension</th><th>Registration</th><th>Renewal</th><th>Transfer</th></tr>`+
			`<tr><td>.z%d</td><td>€15.50</td><td>€15.50</td><td>€15.50</td></tr></table></body></html>`, pageOf(r))
		ingesttest.Body([]byte(page))(w, r)
	})
	list, err := suite.Source(t, srv.URL, nil).Fetch(context.Background())
	if want := fmt.Sprintf("more than %d pages", gandi.MaxPages); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Fetch = %v, %v; want an error containing %q", list, err, want)
	}
	if asked.Load() != gandi.MaxPages {
		t.Errorf("%d pages asked for, want %d", asked.Load(), gandi.MaxPages)
	}
}

// TestParseQuirks covers the page's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	page := func(rows string) string {
		return `<html><body><table><tr><th>Extension</th><th>Registration</th><th>Renewal</th><th>Transfer</th></tr>` +
			`<tr><td>.net</td><td>€18.00</td><td>€24.00</td><td>€18.00</td></tr>` + rows + `</table></body></html>`
	}
	suite.Quirks(t, []ingesttest.Quirk{
		{
			Name: "dollars where the visitor pays them", Body: page(`<tr><td>.com</td><td>$17.99</td><td>$24.49</td><td>$17.99</td></tr>`),
			Zone: ".com", Want: suite.Set(".com", usd(1799), usd(2449), usd(1799)),
		},
		{
			Name: "a promotion beside its regular price skips the row", Body: page(`<tr><td>.com</td><td>Promo €17.26 €11.99</td><td>€21.30</td><td>€15.50</td></tr>`),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.gandi.com"},
		},
		{
			Name: "prices without a mark skip the row", Body: page(`<tr><td>.com</td><td>15.50</td><td>21.30</td><td>15.50</td></tr>`),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.gandi.com"},
		},
		{
			Name: "a zone without its dot is no zone's row", Body: page(`<tr><td>com</td><td>€15.50</td><td>€21.30</td><td>€15.50</td></tr>`),
			Zone: ".com",
		},
		{Name: "no saved page", Body: `[]`, WantErr: "saved pages"},
		{Name: "a page cut short", Body: page("")[:90], WantErr: "does not end with </html>"},
	})
}

func usd(cents int64) *contracts.OpPrice {
	return &contracts.OpPrice{Regular: contracts.Price{Amount: cents, Currency: "USD"}}
}

// suite is the source, for the conformance suite and the tests above: the
// pages page1.html and page2.html, then page3.html, empty.
var suite = func() ingesttest.Suite {
	s := ingesttest.Declared(gandi.Declaration()).Reads("page1.html", "page_shrunk.html")
	s.Fixtures, s.Check, s.Page = []string{"page1.html", "page2.html"}, checkRequest, pageOf
	s.Empty = []byte(`<!DOCTYPE html><html><body><p class="empty">No extension matches your search.</p></body></html>`)
	s.Saved = func(t testing.TB) []byte { return savedPages(t, "page1.html", "page2.html", "page3.html") }
	return s
}()

// savedPages is the JSON array of saved pages --file imports.
func savedPages(t testing.TB, names ...string) []byte {
	var pages []string
	for _, n := range names {
		pages = append(pages, string(ingesttest.Fixture(t, n)))
	}
	b, err := json.Marshal(pages)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

// TestSavedPages imports the three pages saved as --file reads them.
func TestSavedPages(t *testing.T) {
	list, err := gandi.Declaration().Read(savedPages(t, "page1.html", "page2.html", "page3.html"), suite.Observed)
	if err != nil || len(list.Prices) != 16 || list.Drift == nil || !list.Drift.Empty() {
		t.Fatalf("saved pages: %v, %v; want 16 zones and no drift", list, err)
	}
}

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, gandi.Declaration().Read, "*.html") }
