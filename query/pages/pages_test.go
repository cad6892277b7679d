package pages

import (
	"encoding/json"
	"fmt"
	"html/template"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/cache"
)

func TestInline(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"`code` and text", "<code>code</code> and text"},
		{"<script>alert(1)</script> `<b>`", "&lt;script&gt;alert(1)&lt;/script&gt; <code>&lt;b&gt;</code>"},
		{"see [RFC 9457](https://www.rfc-editor.org/rfc/rfc9457)", `see <a href="https://www.rfc-editor.org/rfc/rfc9457">RFC 9457</a>`},
		{"[x](javascript:alert(1))", "[x](javascript:alert(1))"},
	} {
		if got := inline(tt.in); got != template.HTML(tt.want) {
			t.Errorf("inline(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestBlocks(t *testing.T) {
	got := blocks("A paragraph\nwrapped.\n\n## Heading\n\n- one\n- two\n  continued\n\n| a | b |\n| --- | --- |\n| 1 | `2` |")
	if len(got) != 4 {
		t.Fatalf("%d blocks, want 4: %+v", len(got), got)
	}
	if got[0].Paragraph != "A paragraph wrapped." || got[1].Heading != "Heading" {
		t.Errorf("paragraph %q, heading %q", got[0].Paragraph, got[1].Heading)
	}
	if !slices.Equal(got[2].List, []template.HTML{"one", "two continued"}) {
		t.Errorf("list %q", got[2].List)
	}
	if len(got[3].Table) != 2 || got[3].Table[1][1] != "<code>2</code>" {
		t.Errorf("table %q", got[3].Table)
	}
}

func TestNiceStep(t *testing.T) {
	for in, want := range map[int64]int64{1: 1, 3: 5, 7: 10, 12: 20, 250: 500, 501: 1000} {
		if got := niceStep(in); got != want {
			t.Errorf("niceStep(%d) = %d, want %d", in, got, want)
		}
	}
}

func TestPageQuery(t *testing.T) {
	q, _ := url.ParseQuery("q=&category=&currency=EUR&years=&sort=-cost&limit=5&cursor=x&utm_source=y")
	got := pageQuery(q, catalogFields)
	if want := "currency=EUR&sort=-cost&years=3"; got.Encode() != want {
		t.Errorf("pageQuery = %s, want %s: the form's empty fields and the paging left out, the default years", got.Encode(), want)
	}
}

func TestSortColumns(t *testing.T) {
	q := url.Values{"sort": {"renew"}, "years": {"3"}}
	cols := sortColumns("/", q, cache.SortZone, []column{{Key: "zone"}, {Key: "renew"}, {Label: "plain"}})
	if cols[0].Href != "/?years=3" || cols[0].Sort != "" {
		t.Errorf("zone column %+v: the default order needs no sort parameter", cols[0])
	}
	if cols[1].Href != "/?sort=-renew&years=3" || cols[1].Sort != "ascending" {
		t.Errorf("renew column %+v: sorted ascending, its link turns the order round", cols[1])
	}
	if cols[2].Href != "" {
		t.Errorf("a column without a key links to %s", cols[2].Href)
	}
}

// TestChart draws two registrars' histories: steps in time order, the
// cheapest now first, a gap where a price was withdrawn.
func TestChart(t *testing.T) {
	day := func(d int) string { return time.Date(2026, 1, 1+d, 0, 0, 0, 0, time.UTC).Format(time.RFC3339) }
	doc := `{"as_of":"` + day(30) + `","registrars":[
	 {"registrar":"dear","periods":[{"from":"` + day(20) + `","to":null,"register":20.00,"renew":30.00},
	   {"from":"` + day(0) + `","to":"` + day(10) + `","register":25.00,"renew":30.00}]},
	 {"registrar":"cheap","periods":[{"from":"` + day(0) + `","to":null,"register":10.00,"renew":null}]}]}`
	c := chartOf(t, doc)
	if c == nil || len(c.Series) != 2 {
		t.Fatalf("chart %+v, want two series", c)
	}
	if c.Series[0].Registrar != "cheap" || c.Series[0].Now != "10.00" || c.Series[0].Renew != "" {
		t.Errorf("first series %+v, want cheap at 10.00 now, without renewal", c.Series[0])
	}
	// dear: two registration steps with a gap between, so two moves.
	if got := strings.Count(c.Series[1].Register, "M"); got != 2 {
		t.Errorf("dear's registration %q: %d moves, want 2 (a gap while withdrawn)", c.Series[1].Register, got)
	}
	if last := c.YTicks[len(c.YTicks)-1]; last.Label != "40.00" {
		t.Errorf("top tick %q, want 40.00 (above 30.00, in steps of 10)", last.Label)
	}
	if c.XTicks[0].Label != "1 Jan 2026" || c.XTicks[2].Label != "31 Jan 2026" {
		t.Errorf("time axis %q to %q", c.XTicks[0].Label, c.XTicks[2].Label)
	}
}

// TestChartShortHistory draws a history that began a minute ago, as on a
// new deployment: its lines span the plot, not a stub at its edge, and its
// axis tells the time.
func TestChartShortHistory(t *testing.T) {
	asOf := time.Date(2026, 11, 26, 9, 44, 0, 0, time.UTC)
	doc := `{"as_of":"` + asOf.Format(time.RFC3339) + `","registrars":[
	 {"registrar":"one","periods":[{"from":"` + asOf.Add(-time.Minute).Format(time.RFC3339) + `","to":null,"register":10.00,"renew":12.00}]}]}`
	c := chartOf(t, doc)
	if c == nil || len(c.Series) != 1 {
		t.Fatalf("chart %+v, want one series", c)
	}
	want := "M" + strconv.Itoa(chartLeft) + " "
	if s := c.Series[0].Register; !strings.HasPrefix(s, want) || !strings.HasSuffix(s, "H"+strconv.Itoa(chartWidth-chartRight)) {
		t.Errorf("registration %q, want a line from the plot's left (%d) to its right (%d)", s, chartLeft, chartWidth-chartRight)
	}
	if c.XTicks[0].Label != "26 Nov 09:43" || c.XTicks[len(c.XTicks)-1].Label != "26 Nov 09:44" {
		t.Errorf("time axis %+v, want 26 Nov 09:43 to 26 Nov 09:44", c.XTicks)
	}
}

// TestChartNoSpan draws a history whose prices were first seen at its
// as_of (the sample, just published): one label, no division by zero.
func TestChartNoSpan(t *testing.T) {
	asOf := time.Date(2026, 11, 26, 9, 44, 0, 0, time.UTC).Format(time.RFC3339)
	doc := `{"as_of":"` + asOf + `","registrars":[{"registrar":"one","periods":[{"from":"` + asOf + `","to":null,"register":10.00,"renew":12.00}]}]}`
	c := chartOf(t, doc)
	if c == nil || len(c.XTicks) != 1 || c.XTicks[0].Label != "26 Nov 09:44" {
		t.Fatalf("chart %+v, want one time label", c)
	}
	if s := c.Series[0].Register; !strings.HasPrefix(s, fmt.Sprintf("M%d ", chartLeft)) || !strings.HasSuffix(s, fmt.Sprintf("H%d", chartWidth-chartRight)) {
		t.Errorf("registration %q, want a line across the plot", s)
	}
}

// chartOf draws the chart, in USD, of a zone's history body doc.
func chartOf(t *testing.T, doc string) *chart {
	t.Helper()
	var h historyJSON
	if err := json.Unmarshal([]byte(doc), &h); err != nil {
		t.Fatal(err)
	}
	return newChart(&h, "USD")
}
