package api_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/zoneprice/zoneprice/contracts"
)

// screenshotDir is where the browser test keeps its screenshots, to look
// at: bin/screenshots at the repository's root (bin/ is not committed).
const screenshotDir = "../../bin/screenshots"

// browser is a headless Debian chromium driven by chromedp, with what it
// reported: console errors and warnings, uncaught exceptions, and the
// policy's violations (the browser logs them as errors).
type browser struct {
	t        *testing.T
	ctx      context.Context
	mu       sync.Mutex
	problems []string
}

// newBrowser starts chromium for the test, with JavaScript on or off. It
// fails, never skips, without chromium: make test installs it (make
// tools-browser).
func newBrowser(t *testing.T, scripts bool) *browser {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium is not on PATH, so the pages cannot be tested in a browser: "+
			"`make tools-browser` installs it (Debian's chromium package), and `make test` does that first: %v", err)
	}
	opts := append(slices.Clone(chromedp.DefaultExecAllocatorOptions[:]),
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // tests run as root in containers
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1280, 900),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	b := &browser{t: t, ctx: ctx}
	messages := chromedp.Console(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			switch m.Type {
			case chromedp.ConsoleError, chromedp.ConsoleWarning, chromedp.ConsoleException:
				b.report(m.String() + " " + m.URL)
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
		<-done
	})
	setup := []chromedp.Action[chromedp.Void]{chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		// Violations of the policy as the page itself sees them, beside
		// what the browser logs.
		_, err := chromedp.Call(ctx, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: `window.__violations = [];
document.addEventListener("securitypolicyviolation", e => window.__violations.push(e.violatedDirective + " " + e.blockedURI));`})
		return err
	})}
	if !scripts {
		setup = append(setup, chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			_, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
			return err
		}))
	}
	// The first run starts the browser, on a context without a timeout.
	if err := chromedp.Do(ctx, setup...); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return b
}

func (b *browser) report(s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.problems = append(b.problems, s)
}

// do runs steps, failing the test on an error.
func (b *browser) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// value runs one action and returns its value.
func value[T any](b *browser, what string, a chromedp.Action[T]) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
	return v
}

// eval is the value of a JavaScript expression in the page.
func eval[T any](b *browser, expr string) T {
	b.t.Helper()
	return value(b, expr, chromedp.Evaluate[T](expr))
}

// check fails the test on anything the browser reported, and on policy
// violations the page saw.
func (b *browser) check() {
	b.t.Helper()
	violations := eval[[]string](b, `window.__violations || []`)
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range append(b.problems, violations...) {
		b.t.Errorf("browser: %s", p)
	}
	b.problems = nil
}

// screenshot saves the whole page as name.png in screenshotDir; a long
// page (the docs) only its first screen.
func (b *browser) screenshot(name string) {
	b.t.Helper()
	shot := chromedp.FullScreenshot(100) // quality 100 is PNG
	if eval[bool](b, `document.documentElement.scrollHeight > 4000`) {
		shot = chromedp.CaptureScreenshot()
	}
	png := value(b, "screenshot "+name, shot)
	if err := os.MkdirAll(screenshotDir, 0o755); err != nil {
		b.t.Fatal(err)
	}
	path := filepath.Join(screenshotDir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	abs, _ := filepath.Abs(path)
	b.t.Logf("screenshot: %s", abs)
}

// column is the expression for the texts of a column's cells in the rows
// a table shows.
func column(table string, col int) string {
	return fmt.Sprintf(`Array.from(document.querySelectorAll("#%s tbody tr")).filter(r => !r.hidden).map(r => r.cells[%d].textContent.trim())`, table, col)
}

// TestBrowser opens the pages in a real chromium from a server on
// 127.0.0.1 and looks at what a person sees: the catalog's rows, sorting
// in place, filtering as one types, the form, a zone's page with its
// chart; on a desktop and a phone. It fails on any console error or policy
// violation, and keeps screenshots in bin/screenshots.
func TestBrowser(t *testing.T) {
	p := pagePod(t)
	b := newBrowser(t, true)

	// The catalog, then the keyboard: the first Tab reaches the skip link.
	b.do("open the catalog", chromedp.Navigate(p.url+"/"), chromedp.WaitVisible(chromedp.CSS(`#zones tbody tr`)))
	if got, want := eval[[]string](b, column("zones", 0)), []string{".co.uk", ".com", ".shop", ".рф .xn--p1ai"}; !slices.Equal(got, want) {
		t.Errorf("catalog rows %q, want %q", got, want)
	}
	b.do("press Tab", chromedp.KeyEvent("\t"))
	if got := eval[string](b, `document.activeElement.className`); got != "skip" {
		t.Errorf("the first Tab focuses %q, want the skip link", got)
	}
	b.screenshot("catalog-desktop")

	// Sorting in place: no navigation (the page's own marker survives),
	// the order and aria-sort change, and the address follows.
	eval[bool](b, `window.__marker = true`)
	b.do("sort by registration", chromedp.Click(chromedp.CSS(`th a[data-sort=register]`)))
	if !eval[bool](b, `window.__marker === true`) {
		t.Error("sorting reloaded the page; it should sort in place")
	}
	if got, want := eval[[]string](b, column("zones", 2)), []string{"1.99alpha", "3.00bravo", "5.99alpha", "9.68alpha"}; !slices.Equal(got, want) {
		t.Errorf("sorted by registration: %q, want %q", got, want)
	}
	sortState := eval[string](b, `document.querySelector("th a[data-sort=register]").parentNode.getAttribute("aria-sort")`)
	if search := eval[string](b, `location.search`); sortState != "ascending" || !strings.Contains(search, "sort=register") {
		t.Errorf("after sorting: aria-sort %q, address %q", sortState, search)
	}
	b.do("sort descending", chromedp.Click(chromedp.CSS(`th a[data-sort=register]`)))
	if got := eval[[]string](b, column("zones", 2)); got[0] != "9.68alpha" {
		t.Errorf("sorted by registration descending: %q", got)
	}

	// Filtering as one types, then the form submitted to the server.
	b.do("type a search", chromedp.SendKeys(chromedp.CSS(`#q`), "co"))
	if got, want := eval[[]string](b, column("zones", 0)), []string{".com", ".co.uk"}; !slices.Equal(got, want) {
		t.Errorf("typing co shows %q, want %q (in the order sorted)", got, want)
	}
	if got := value(b, "count", chromedp.Text(chromedp.CSS(`#count`))); got != "2 zones shown." {
		t.Errorf("count says %q", got)
	}
	b.do("submit the form with years and currency",
		chromedp.SetValue(chromedp.CSS(`#years`), "5"),
		chromedp.SetValue(chromedp.CSS(`#currency`), "EUR"),
		chromedp.Click(chromedp.CSS(`form.filters button`)),
		// Only the server's answer marks the choice selected.
		chromedp.WaitVisible(chromedp.CSS(`#zones`), chromedp.AtLeast(1)),
		chromedp.WaitReady(chromedp.CSS(`#years option[value="5"][selected]`)),
	)
	search := eval[string](b, `location.search`)
	for _, want := range []string{"q=co", "years=5", "currency=EUR", "sort=-register"} {
		if !strings.Contains(search, want) {
			t.Errorf("the form sent %q, without %s", search, want)
		}
	}
	rows := eval[[]string](b, column("zones", 0))
	// Read in one evaluation: the page's script may replace the table's
	// nodes between a query and a read (chromedp: "No node with given id").
	if heading := eval[string](b, `document.querySelector("th a[data-sort=cost]")?.textContent.trim() ?? ""`); !slices.Equal(rows, []string{".com", ".co.uk"}) || heading != "5-year cost" {
		t.Errorf("the server's answer: rows %q, cost column %q", rows, heading)
	}
	b.check()

	// A zone's page, reached by its link.
	b.do("open .com", chromedp.Click(chromedp.CSS(`#zones a[href="/zones/.com"]`)), chromedp.WaitVisible(chromedp.CSS(`figure.chart svg`)))
	if rows := eval[[]string](b, column("registrars", 0)); len(rows) != 4 || !strings.HasPrefix(rows[3], "india") {
		t.Errorf(".com rows %q", rows)
	}
	if paths := eval[int](b, `document.querySelectorAll("figure.chart path").length`); paths < 6 {
		t.Errorf("the chart draws %d lines", paths)
	}
	if width := eval[int](b, `Math.round(document.querySelector("figure.chart svg").getBoundingClientRect().width)`); width < 600 {
		t.Errorf("the chart is %d pixels wide on a desktop", width)
	}
	b.screenshot("zone-desktop")
	b.do("sort registrars by name", chromedp.Click(chromedp.CSS(`th a[data-sort=registrar]`)))
	if got, want := eval[[]string](b, column("registrars", 0)), []string{"alpha", "bravo", "charlie", "india no exchange rate"}; !slices.Equal(got, want) {
		t.Errorf("registrars sorted by name: %q, want %q", got, want)
	}
	b.do("open .shop by a form the API takes", chromedp.Navigate(p.url+"/zones/SHOP"), chromedp.WaitVisible(chromedp.CSS(`.badge.trap`)))
	if got := eval[string](b, `location.pathname`); got != "/zones/.shop" {
		t.Errorf("/zones/SHOP ended at %s", got)
	}
	b.check()

	// A phone: nothing wider than the screen but the tables' own
	// scrolling regions.
	b.do("a phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateScale(2)))
	for _, target := range []string{"/", "/zones/.com", "/docs"} {
		b.do("open "+target+" on a phone", chromedp.Navigate(p.url+target), chromedp.WaitVisible(chromedp.CSS(`h1`)))
		if eval[bool](b, `document.documentElement.scrollWidth > window.innerWidth`) {
			t.Errorf("%s is wider than a phone's screen", target)
		}
		b.screenshot(map[string]string{"/": "catalog-phone", "/zones/.com": "zone-phone", "/docs": "docs-phone"}[target])
	}
	b.do("docs", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(p.url+"/docs"), chromedp.WaitVisible(chromedp.CSS(`h1`)))
	b.screenshot("docs-desktop")
	b.check()
}

// TestBrowserRegistrars opens the directory of registrars from the
// navigation in a real chromium and looks at it: the stale registrar
// marked, a name with markup shown as text, sorting in place; then a
// zone's rows naming the registrars with links to their sites; on a
// desktop and a phone, with screenshots.
func TestBrowserRegistrars(t *testing.T) {
	p := directoryPod(t)
	b := newBrowser(t, true)
	b.do("open the catalog and follow Registrars",
		chromedp.Navigate(p.url+"/"),
		chromedp.WaitVisible(chromedp.CSS(`#zones tbody tr`)),
		chromedp.Click(chromedp.CSS(`header nav a[href="/registrars"]`)),
		heading("Registrars"),
	)
	if got := eval[string](b, `document.querySelector('header nav a[href="/registrars"]').getAttribute("aria-current")`); got != "page" {
		t.Errorf("on the directory, the navigation's Registrars has aria-current %q, want page", got)
	}
	if got, want := eval[[]string](b, column("directory", 0)), []string{"Alphaalpha", "Bravo & Sonsbravo", `<b>Charlie</b> "EU"charlie`, "india"}; !slices.Equal(got, want) {
		t.Errorf("the directory's rows %q, want %q", got, want)
	}
	if n := eval[int](b, `document.querySelectorAll("#directory tbody b").length`); n != 0 {
		t.Errorf("%d <b> elements in the directory: a name's markup was not escaped", n)
	}
	if got := eval[[]string](b, `Array.from(document.querySelectorAll("#directory tr.stale th")).map(th => th.textContent)`); !slices.Equal(got, []string{"Bravo & Sonsbravo"}) {
		t.Errorf("rows marked stale %q, want bravo's", got)
	}
	if got := eval[string](b, `getComputedStyle(document.querySelector("#directory tr.stale td")).backgroundColor`); got == "rgba(0, 0, 0, 0)" {
		t.Error("the stale row has no background of its own")
	}
	b.screenshot("registrars-desktop")
	b.do("sort by zones, most first", chromedp.Click(chromedp.CSS(`th a[data-sort=zones]`)), chromedp.Click(chromedp.CSS(`th a[data-sort=zones]`)))
	if got, want := eval[[]string](b, column("directory", 2)), []string{"4", "34 names skipped", "1", "1"}; !slices.Equal(got, want) {
		t.Errorf("sorted by zones, most first: %q, want %q", got, want)
	}
	b.check()

	b.do("open .com", chromedp.Navigate(p.url+"/zones/.com"), chromedp.WaitVisible(chromedp.CSS(`#registrars tbody tr`)))
	if got := eval[string](b, `document.querySelector('#registrars th a[href="https://alpha.example"]').textContent`); got != "Alpha" {
		t.Errorf("alpha's row links its site as %q, want Alpha", got)
	}
	b.check()

	b.do("a phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateScale(2)),
		chromedp.Navigate(p.url+"/registrars"), heading("Registrars"))
	if eval[bool](b, `document.documentElement.scrollWidth > window.innerWidth`) {
		t.Error("the directory is wider than a phone's screen")
	}
	b.screenshot("registrars-phone")
	b.check()
}

// TestBrowserWithoutJavaScript sorts the catalog, searches and opens a
// zone with scripts off: the column headers are links and the form
// submits.
func TestBrowserWithoutJavaScript(t *testing.T) {
	p := pagePod(t)
	b := newBrowser(t, false)
	b.do("open the catalog and sort by renewal",
		chromedp.Navigate(p.url+"/"),
		chromedp.WaitVisible(chromedp.CSS(`#zones tbody tr`)),
		chromedp.Click(chromedp.CSS(`th a[data-sort=renew]`)),
		chromedp.WaitVisible(chromedp.CSS(`th[aria-sort=ascending] a[data-sort=renew]`)),
	)
	if url := value(b, "address", chromedp.Location()); !strings.Contains(url, "sort=renew") {
		t.Errorf("the sort link led to %s", url)
	}
	if first := eval[[]string](b, column("zones", 0))[0]; first != ".рф .xn--p1ai" {
		t.Errorf("sorted by renewal, the first row is %q, want .рф (3.00)", first)
	}
	b.do("search with the form",
		chromedp.SendKeys(chromedp.CSS(`#q`), "shop"),
		chromedp.Submit(chromedp.CSS(`#q`)),
		// Only the server's answer writes the search into the field's
		// value attribute: #zones alone may still be the page before.
		chromedp.WaitReady(chromedp.CSS(`#q[value="shop"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#zones`)),
	)
	if url := value(b, "address", chromedp.Location()); !strings.Contains(url, "q=shop") {
		t.Errorf("the search led to %s", url)
	}
	if rows := eval[[]string](b, column("zones", 0)); !slices.Equal(rows, []string{".shop"}) {
		t.Errorf("searched for shop: rows %q", rows)
	}
	b.screenshot("catalog-no-javascript")
	b.check()
}

// TestBrowserSubscribe subscribes as a person does, with scripts on and
// off: from the catalog to the form by the navigation's link, the address,
// interests, zones and threshold filled in and sent; the confirmation mail
// read from the relay, its link opened, the confirmed page seen; then the
// mail's unsubscribe link, its button, and the address gone. Price drops
// and renewal increases are ticked, each a choice of its own. With scripts
// on, a zone page's link to its alerts fills in the form, and the form is
// looked at on a phone. It fails on any console error or policy violation,
// and keeps screenshots.
func TestBrowserSubscribe(t *testing.T) {
	for _, scripts := range []bool{true, false} {
		name := map[bool]string{true: "javascript", false: "no-javascript"}[scripts]
		t.Run(name, func(t *testing.T) {
			s := startSubscription(t, nil)
			b := newBrowser(t, scripts)
			email := "ann." + name + "@example.org"

			b.do("open the catalog and follow Subscribe",
				chromedp.Navigate(s.pod.url+"/"),
				chromedp.WaitVisible(chromedp.CSS(`#zones tbody tr`)),
				chromedp.Click(chromedp.CSS(`header nav a[href="/subscribe"]`)),
				heading("Subscribe"),
			)
			if got := eval[string](b, `document.querySelector('header nav a[href="/subscribe"]').getAttribute("aria-current")`); got != "page" {
				t.Errorf("on the form, the navigation's Subscribe has aria-current %q, want page", got)
			}
			// The site's stylesheet is applied: the header is a flex row.
			if got := eval[string](b, `getComputedStyle(document.querySelector("header.site")).display`); got != "flex" {
				t.Errorf("the form's header is displayed %q: the site's stylesheet is not applied", got)
			}
			b.do("fill in the form",
				chromedp.SendKeys(chromedp.CSS(`#email`), email),
				chromedp.Click(chromedp.CSS(`#interest-price-drops`)),
				chromedp.Click(chromedp.CSS(`#interest-renewal-increases`)),
				chromedp.Click(chromedp.CSS(`#interest-articles`)),
				chromedp.SendKeys(chromedp.CSS(`#zones`), ".com, .рф"),
				chromedp.SetValue(chromedp.CSS(`#min_drop`), "5"),
			)
			b.screenshot("subscribe-" + name)
			b.do("send the form", chromedp.Click(chromedp.CSS(`form.subscribe button`)), heading("Check your inbox"))
			b.check()

			text, _ := s.waitMails(t, 1)[0].Parts(t)
			b.do("open the confirmation link", chromedp.Navigate(s.link(t, text, "/subscribe/confirm")), heading("Subscription confirmed"))
			b.screenshot("subscribe-confirmed-" + name)
			sub := s.record(t, email)
			if sub == nil || !sub.Confirmed || !slices.Equal(sub.Zones, []string{".com", ".xn--p1ai"}) || sub.MinDropPercent != 5 ||
				!sub.Wants(contracts.InterestPriceDrops) || !sub.Wants(contracts.InterestRenewalIncreases) || !sub.Wants(contracts.InterestArticles) ||
				sub.Wants(contracts.InterestAPIUpdates) {
				t.Fatalf("the record after confirming: %+v", sub)
			}
			b.check()

			b.do("open the unsubscribe link and press its button",
				chromedp.Navigate(s.link(t, text, "/subscribe/unsubscribe")),
				heading("Unsubscribe"),
				chromedp.Click(chromedp.CSS(`form.subscribe button`)),
				heading("Unsubscribed"),
			)
			if sub := s.record(t, email); sub != nil {
				t.Errorf("the record after unsubscribing: %+v", sub)
			}
			b.check()
			if !scripts {
				return
			}

			// A zone's alerts link fills in the form; on a phone, the form
			// is no wider than the screen.
			b.do("follow a zone's alerts link",
				chromedp.Navigate(s.pod.url+"/zones/.com"),
				chromedp.Click(chromedp.CSS(`a[href="/subscribe?zone=.com"]`)),
				heading("Subscribe"),
			)
			if zones, drops := eval[string](b, `document.getElementById("zones").value`), eval[bool](b, `document.getElementById("interest-price-drops").checked`); zones != ".com" || !drops {
				t.Errorf("the zone's link: zones %q, price drops ticked %v; want .com, ticked", zones, drops)
			}
			b.do("a phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateScale(2)),
				chromedp.Navigate(s.pod.url+"/subscribe?zone=.com"), heading("Subscribe"))
			if eval[bool](b, `document.documentElement.scrollWidth > window.innerWidth`) {
				t.Error("the form is wider than a phone's screen")
			}
			b.screenshot("subscribe-phone")
			b.check()
		})
	}
}

// heading waits for the page whose h1 says text.
func heading(text string) chromedp.Action[chromedp.Void] {
	return chromedp.WaitVisible(chromedp.Search(`//h1[normalize-space()="` + text + `"]`))
}
