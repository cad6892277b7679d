package iana_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/iana"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

var observed = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func clock() time.Time { return observed }

const (
	tldsPath   = "/TLD/tlds-alpha-by-domain.txt"
	rootDBPath = "/domains/root/db"
)

// The fixtures: 32 delegated TLDs, and a root zone database page typing
// them plus four rows that are not delegated (.active and .bl, "Not
// assigned"; two IDN test TLDs).
const (
	fixtureTLDs         = 32
	fixtureNotDelegated = 4
)

// newFakeIANA serves the two documents at IANA's paths: scripted steps
// answer the first requests (whichever document they ask for), then each
// path serves its document.
func newFakeIANA(t *testing.T, tlds, db []byte) (*ingesttest.API, *httptest.Server) {
	t.Helper()
	api, srv := ingesttest.NewAPI(t, nil, nil)
	api.SetHandler(documents(tlds, db))
	return api, srv
}

// documents answers each of IANA's paths with its document.
func documents(tlds, db []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case tldsPath:
			w.Header().Set("Content-Type", "text/plain; charset=UTF-8")
			w.Write(tlds)
		case rootDBPath:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(db)
		default:
			http.NotFound(w, r)
		}
	}
}

// logBuffer collects a source's log lines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

type options struct {
	hc      *http.Client
	log     *logBuffer
	offline bool
}

func newSource(t *testing.T, srv *httptest.Server, o options) *iana.Source {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	if o.log != nil {
		log = slog.New(slog.NewTextHandler(o.log, nil))
	}
	src, err := iana.New(iana.Config{
		TLDsURL: srv.URL + tldsPath, RootDBURL: srv.URL + rootDBPath, Offline: o.offline,
	}, ingesttest.Client(o.hc), log, clock)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return src
}

func fetchList(t *testing.T, src *iana.Source) *ingest.List {
	t.Helper()
	list, err := src.Fetch(context.Background())
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	return list
}

func byZone(t *testing.T, metas []contracts.ZoneMeta) map[string]contracts.ZoneMeta {
	t.Helper()
	out := make(map[string]contracts.ZoneMeta, len(metas))
	for _, m := range metas {
		if err := m.Validate(); err != nil {
			t.Errorf("zone meta %s: %v", m.Zone, err)
		}
		if _, dup := out[m.Zone]; dup {
			t.Errorf("zone %s listed twice", m.Zone)
		}
		out[m.Zone] = m
	}
	return out
}

func builtin(t testing.TB) *iana.Catalog {
	t.Helper()
	cat, err := iana.Builtin()
	if err != nil {
		t.Fatalf("Builtin: %v", err)
	}
	return cat
}

// secondLevelUnder counts the builtin second-level zones under the TLDs.
func secondLevelUnder(t testing.TB, tlds []string) int {
	t.Helper()
	n := 0
	for _, z := range builtin(t).Zones() {
		if strings.Count(z.ASCII, ".") == 2 && slices.Contains(tlds, z.ASCII[strings.LastIndexByte(z.ASCII, '.'):]) {
			n++
		}
	}
	return n
}

func TestParseTLDs(t *testing.T) {
	got, err := iana.ParseTLDs(ingesttest.Fixture(t, "tlds-alpha-by-domain.txt"))
	if err != nil {
		t.Fatalf("ParseTLDs: %v", err)
	}
	if got.Version != "2026112200" {
		t.Errorf("version %q, want 2026112200", got.Version)
	}
	if len(got.TLDs) != fixtureTLDs || got.Skipped != 0 {
		t.Errorf("got %d TLDs, %d skipped; want %d, 0", len(got.TLDs), got.Skipped, fixtureTLDs)
	}
	for _, want := range []string{".aero", ".com", ".za", ".xn--p1ai", ".xn--mgbaam7a8h"} {
		if !slices.Contains(got.TLDs, want) {
			t.Errorf("TLDs lack %s", want)
		}
	}
}

func TestParseTLDsQuirks(t *testing.T) {
	const version = "# Version 2026112200, Last Updated Sun Nov 22 07:07:01 2026 UTC\n"
	tests := []struct {
		name    string
		body    string
		want    []string
		skipped int
		err     string // substring of the error; empty means success
	}{
		{"CRLF line endings", strings.ReplaceAll(version+"COM\nNET\n", "\n", "\r\n"), []string{".com", ".net"}, 0, ""},
		{"blank lines and later comments", version + "\nCOM\n# a comment\n\nNET\n", []string{".com", ".net"}, 0, ""},
		{"lower case", version + "com\nXn--P1Ai\n", []string{".com", ".xn--p1ai"}, 0, ""},
		{"duplicates", version + "COM\nCOM\n", []string{".com"}, 0, ""},
		{"unusable lines skipped", version + "COM\nNOT A TLD\n-BAD\nCO.UK\n123\nрф\n", []string{".com"}, 5, ""},
		{"no version line", "COM\nNET\n", nil, 0, "version line"},
		{"version line not first", "COM\n" + version + "NET\n", nil, 0, "version line"},
		{"truncated", version + "COM\nNE", nil, 0, "truncated"},
		{"empty", "", nil, 0, "empty"},
		{"only the version", version, nil, 0, "no valid TLD"},
		{"nothing usable", version + "<html>\n<body>\n", nil, 0, "no valid TLD"},
		{"an HTML error page", "<!doctype html>\n<html><body>Service unavailable</body></html>\n", nil, 0, "version line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := iana.ParseTLDs([]byte(tt.body))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParseTLDs error = %v, want one saying %q", err, tt.err)
				}
				if got != nil {
					t.Errorf("ParseTLDs returned a partial list with its error: %+v", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseTLDs: %v", err)
			}
			if !slices.Equal(got.TLDs, tt.want) || got.Skipped != tt.skipped {
				t.Errorf("got %v (%d skipped), want %v (%d skipped)", got.TLDs, got.Skipped, tt.want, tt.skipped)
			}
		})
	}
}

func TestParseRootDB(t *testing.T) {
	got, err := iana.ParseRootDB(ingesttest.Fixture(t, "root-db.html"))
	if err != nil {
		t.Fatalf("ParseRootDB: %v", err)
	}
	if n := len(got.Entries); n != fixtureTLDs+fixtureNotDelegated || got.Skipped != 0 {
		t.Errorf("got %d entries, %d skipped; want %d, 0", n, got.Skipped, fixtureTLDs+fixtureNotDelegated)
	}
	for _, want := range []iana.RootDBEntry{
		{Zone: ".com", Type: "generic", Manager: "VeriSign Global Registry Services"},
		{Zone: ".aero", Type: "sponsored", Manager: "Societe Internationale de Telecommunications Aeronautique (SITA INC USA)"},
		{Zone: ".arpa", Type: "infrastructure", Manager: "Internet Architecture Board (IAB)"},
		{Zone: ".biz", Type: "generic-restricted", Manager: "Registry Services, LLC"},
		{Zone: ".berlin", Type: "generic", Manager: "dotBERLIN GmbH & Co. KG"},
		{Zone: ".xn--p1ai", Type: "country-code", Manager: "Coordination Center for TLD RU"},
		{Zone: ".xn--mgbaam7a8h", Type: "country-code", Manager: "Telecommunications and Digital Government Regulatory Authority (TDRA)"},
		{Zone: ".xn--zckzah", Type: iana.TypeTest, Manager: "Not assigned"},
		{Zone: ".active", Type: "generic", Manager: "Not assigned"},
	} {
		if e := got.Entries[want.Zone]; e != want {
			t.Errorf("entry %s = %+v, want %+v", want.Zone, e, want)
		}
	}
}

func TestParseRootDBQuirks(t *testing.T) {
	const head = `<table id="tld-table" class="iana-table"><thead><tr><th>Domain</th><th>Type</th><th>TLD Manager</th></tr></thead><tbody>`
	const tail = "</tbody></table>"
	row := func(href, text, typ string) string {
		return `<tr><td><span class="domain tld"><a href="` + href + `">` + text + `</a></span></td><td>` + typ + `</td><td>Someone</td></tr>`
	}
	tests := []struct {
		name    string
		body    string
		want    map[string]string // zone -> type
		skipped int
		err     string
	}{
		{"link names the zone, not the text", head + row("/domains/root/db/xn--p1ai.html", ".something else", "country-code") + tail,
			map[string]string{".xn--p1ai": "country-code"}, 0, ""},
		{"absolute link", head + row("https://www.iana.org/domains/root/db/com.html", ".com", "generic") + tail,
			map[string]string{".com": "generic"}, 0, ""},
		{"no link: text with direction marks", head + `<tr><td>&#x200f;.امارات&#x200e;</td><td>country-code</td><td>TDRA</td></tr>` + tail,
			map[string]string{".xn--mgbaam7a8h": "country-code"}, 0, ""},
		{"no link: text with entities", head + `<tr><td>.&#x440;&#x444;</td><td>country-code</td></tr>` + tail,
			map[string]string{".xn--p1ai": "country-code"}, 0, ""},
		{"missing closing tags", head + `<tr><td><a href="/domains/root/db/com.html">.com</a><td>generic<td>VeriSign<tr><td><a href="/domains/root/db/net.html">.net</a><td>generic<td>VeriSign` + tail,
			map[string]string{".com": "generic", ".net": "generic"}, 0, ""},
		{"upper-case tags, spaced type", strings.ToUpper(head) + `<TR><TD><A HREF="/domains/root/db/org.html">.org</A></TD><TD>  Generic
			</TD></TR>` + tail, map[string]string{".org": "generic"}, 0, ""},
		{"rows in comments ignored", head + `<!-- ` + row("/domains/root/db/old.html", ".old", "generic") + ` -->` + row("/domains/root/db/com.html", ".com", "generic") + tail,
			map[string]string{".com": "generic"}, 0, ""},
		{"unusable rows skipped", head + row("/domains/root/db/com.html", ".com", "generic") + row("/domains/root/db/bad_label.html", ".bad_label", "generic") +
			row("/domains/root/db/empty.html", ".empty", "") + `<tr><td>not a tld</td><td>generic</td></tr>` + tail,
			map[string]string{".com": "generic"}, 3, ""},
		{"no rows", head + tail, nil, 0, "no TLD rows"},
		{"no table", `<html><body><p>Service unavailable</p></body></html>`, nil, 0, "no TLD rows"},
		{"empty", ``, nil, 0, "no TLD rows"},
		{"truncated in a row", head + row("/domains/root/db/com.html", ".com", "generic") + `<tr><td><a href="/domains/root/db/net.html">.net</a></td><td>gen`, nil, 0, "truncated"},
		{"truncated between rows", head + row("/domains/root/db/com.html", ".com", "generic"), nil, 0, "truncated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := iana.ParseRootDB([]byte(tt.body))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParseRootDB error = %v, want one saying %q", err, tt.err)
				}
				if got != nil {
					t.Errorf("ParseRootDB returned a partial result with its error: %+v", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseRootDB: %v", err)
			}
			types := map[string]string{}
			for z, e := range got.Entries {
				types[z] = e.Type
			}
			if !reflect.DeepEqual(types, tt.want) || got.Skipped != tt.skipped {
				t.Errorf("got %v (%d skipped), want %v (%d skipped)", types, got.Skipped, tt.want, tt.skipped)
			}
		})
	}
}

func TestParse(t *testing.T) {
	tlds, db := ingesttest.Fixture(t, "tlds-alpha-by-domain.txt"), ingesttest.Fixture(t, "root-db.html")
	list, err := iana.Parse(tlds, db, observed)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if len(list.Prices) != 0 || len(list.Rates) != 0 {
		t.Errorf("zone metadata source returned %d prices and %d rates", len(list.Prices), len(list.Rates))
	}
	got := byZone(t, list.Zones)
	parsed, err := iana.ParseTLDs(tlds)
	if err != nil {
		t.Fatal(err)
	}
	second := secondLevelUnder(t, parsed.TLDs)
	if second < 10 {
		t.Errorf("only %d builtin second-level zones under the fixture's TLDs", second)
	}
	if want := fixtureTLDs + second; len(got) != want {
		t.Errorf("got %d zones, want %d TLDs + %d second-level", len(got), fixtureTLDs, second)
	}
	for _, m := range got {
		if m.Source != iana.Name || !m.ObservedAt.Equal(observed) {
			t.Errorf("%s: source %q observed %v, want %q %v", m.Zone, m.Source, m.ObservedAt, iana.Name, observed)
		}
	}
	tests := []struct {
		zone, unicode, typ string
		cats               []string
	}{
		{".com", ".com", contracts.TypeGeneric, []string{"generic", "legacy-gtld"}},
		{".app", ".app", contracts.TypeGeneric, []string{"generic", "new-gtld", "technology"}},
		{".berlin", ".berlin", contracts.TypeGeneric, []string{"generic", "new-gtld", "geographic"}},
		{".biz", ".biz", contracts.TypeGenericRestricted, []string{"generic-restricted", "legacy-gtld", "business"}},
		{".aero", ".aero", contracts.TypeSponsored, []string{"sponsored"}},
		{".cat", ".cat", contracts.TypeSponsored, []string{"sponsored", "geographic"}},
		{".edu", ".edu", contracts.TypeSponsored, []string{"sponsored", "education"}},
		{".arpa", ".arpa", contracts.TypeInfrastructure, []string{"infrastructure"}},
		{".io", ".io", contracts.TypeCountryCode, []string{"country-code", "cctld-as-generic", "technology"}},
		{".uk", ".uk", contracts.TypeCountryCode, []string{"country-code"}},
		{".co.uk", ".co.uk", contracts.TypeCountryCode, []string{"country-code", "second-level"}},
		{".com.au", ".com.au", contracts.TypeCountryCode, []string{"country-code", "second-level"}},
		{".com.co", ".com.co", contracts.TypeCountryCode, []string{"country-code", "second-level"}},
		// The Public Suffix List has co.za but no za rule: the live
		// catalog has both, since the TLD list delegates za.
		{".za", ".za", contracts.TypeCountryCode, []string{"country-code"}},
		{".co.za", ".co.za", contracts.TypeCountryCode, []string{"country-code", "second-level"}},
		{".xn--p1ai", ".рф", contracts.TypeCountryCode, []string{"country-code", "idn"}},
		{".xn--mgbaam7a8h", ".امارات", contracts.TypeCountryCode, []string{"country-code", "idn"}},
		{".xn--80asehdb", ".онлайн", contracts.TypeGeneric, []string{"generic", "idn", "new-gtld"}},
	}
	for _, tt := range tests {
		t.Run(tt.zone, func(t *testing.T) {
			m, ok := got[tt.zone]
			if !ok {
				t.Fatalf("no metadata for %s", tt.zone)
			}
			if m.Unicode != tt.unicode || m.Type != tt.typ || !slices.Equal(m.Categories, tt.cats) {
				t.Errorf("got %s %s %v, want %s %s %v", m.Unicode, m.Type, m.Categories, tt.unicode, tt.typ, tt.cats)
			}
		})
	}
	// Not delegated (retired, test TLDs), or under a TLD the list does not
	// delegate.
	for _, zone := range []string{".active", ".bl", ".xn--zckzah", ".xn--0zwm56d", ".com.br", ".net", ".onion"} {
		if _, ok := got[zone]; ok != (zone == ".net") {
			t.Errorf("zone %s present = %v", zone, ok)
		}
	}
}

// TestParseAgreesWithBuiltin checks the builtin catalog's rules against
// IANA's types for the fixture: apart from the source, the two publish the
// same document for every zone they share.
func TestParseAgreesWithBuiltin(t *testing.T) {
	list, err := iana.Parse(ingesttest.Fixture(t, "tlds-alpha-by-domain.txt"), ingesttest.Fixture(t, "root-db.html"), observed)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	cat := builtin(t)
	shared := 0
	for _, m := range list.Zones {
		b, ok := cat.Meta(m.Zone, observed)
		if !ok {
			continue
		}
		shared++
		b.Source = m.Source
		if !reflect.DeepEqual(m, b) {
			t.Errorf("live %+v, builtin %+v", m, b)
		}
	}
	if shared < len(list.Zones)-1 { // .za is the one the builtin lacks
		t.Errorf("only %d of %d live zones are in the builtin catalog", shared, len(list.Zones))
	}
}

func TestParseMismatch(t *testing.T) {
	tlds, db := string(ingesttest.Fixture(t, "tlds-alpha-by-domain.txt")), string(ingesttest.Fixture(t, "root-db.html"))
	t.Run("delegated TLD the page does not list", func(t *testing.T) {
		cat, st, err := iana.Live([]byte(tlds+"NEWTLD\n"), []byte(db))
		if err != nil {
			t.Fatalf("Live: %v", err)
		}
		if !slices.Equal(st.Untyped, []string{".newtld"}) || st.Delegated != fixtureTLDs+1 {
			t.Errorf("stats %+v, want .newtld untyped of %d", st, fixtureTLDs+1)
		}
		if _, ok := cat.Type(".newtld"); ok {
			t.Error(".newtld is in the catalog without a type")
		}
	})
	t.Run("type this package does not know", func(t *testing.T) {
		changed := strings.Replace(db, `tech.html">.tech</a></span></td>

            <td>generic</td>`, `tech.html">.tech</a></span></td>

            <td>brand</td>`, 1)
		if changed == db {
			t.Fatal("fixture has no .tech row to change")
		}
		cat, st, err := iana.Live([]byte(tlds), []byte(changed))
		if err != nil {
			t.Fatalf("Live: %v", err)
		}
		if _, ok := cat.Type(".tech"); ok || !slices.Equal(st.Untyped, []string{".tech"}) {
			t.Errorf(".tech in catalog = %v, untyped %v; want it left out", ok, st.Untyped)
		}
	})
	t.Run("rows not delegated", func(t *testing.T) {
		_, st, err := iana.Live([]byte(tlds), []byte(db))
		if err != nil {
			t.Fatalf("Live: %v", err)
		}
		if st.NotDelegated != fixtureNotDelegated || len(st.Untyped) != 0 {
			t.Errorf("stats %+v, want %d rows not delegated and none untyped", st, fixtureNotDelegated)
		}
	})
	t.Run("tld list cut at a line", func(t *testing.T) {
		_, st, err := iana.Live(cutLines(t, []byte(tlds), 3), []byte(db))
		if err == nil || !strings.Contains(err.Error(), "truncated or out of step") {
			t.Errorf("Live error = %v, want a refusal", err)
		}
		if want := []string{".xn--mgbaam7a8h", ".xn--p1ai", ".za"}; !slices.Equal(st.Unlisted, want) {
			t.Errorf("unlisted %v, want %v", st.Unlisted, want)
		}
	})
	t.Run("one TLD removed between the documents' updates", func(t *testing.T) {
		cat, st, err := iana.Live(cutLines(t, []byte(tlds), 1), []byte(db))
		if err != nil {
			t.Fatalf("Live: %v", err)
		}
		if _, ok := cat.Type(".za"); ok || !slices.Equal(st.Unlisted, []string{".za"}) {
			t.Errorf(".za in catalog = %v, unlisted %v", ok, st.Unlisted)
		}
	})
	t.Run("page types too few of the delegated TLDs", func(t *testing.T) {
		start := strings.Index(db, `        <tr>
            <td>

                <span class="domain tld"><a href="/domains/root/db/bl.html">`)
		end := strings.Index(db, "    </tbody>")
		if start < 0 || end < start {
			t.Fatal("fixture layout changed")
		}
		_, _, err := iana.Live([]byte(tlds), []byte(db[:start]+db[end:]))
		if err == nil || !strings.Contains(err.Error(), "types only") {
			t.Errorf("Live error = %v, want a refusal", err)
		}
	})
	t.Run("either document malformed", func(t *testing.T) {
		for name, docs := range map[string][2]string{
			"tlds":    {"<html></html>\n", db},
			"root db": {tlds, string(ingesttest.Fixture(t, "root-db-maintenance.html"))},
		} {
			list, err := iana.Parse([]byte(docs[0]), []byte(docs[1]), observed)
			if err == nil || list != nil {
				t.Errorf("%s malformed: Parse = %v, %v; want an error and no list", name, list, err)
			}
		}
	})
}

// cutLines drops the last n lines of a document.
func cutLines(t testing.TB, doc []byte, n int) []byte {
	t.Helper()
	lines := strings.SplitAfter(string(doc), "\n")
	lines = lines[:len(lines)-1] // after the final newline
	if len(lines) <= n {
		t.Fatalf("document has only %d lines", len(lines))
	}
	return []byte(strings.Join(lines[:len(lines)-n], ""))
}

func TestFetch(t *testing.T) {
	f, srv := newFakeIANA(t, ingesttest.Fixture(t, "tlds-alpha-by-domain.txt"), ingesttest.Fixture(t, "root-db.html"))
	logs := &logBuffer{}
	list := fetchList(t, newSource(t, srv, options{log: logs}))
	got := byZone(t, list.Zones)
	if m := got[".xn--p1ai"]; m.Source != iana.Name || m.Type != contracts.TypeCountryCode {
		t.Errorf(".xn--p1ai: %+v", m)
	}
	want, err := iana.Parse(ingesttest.Fixture(t, "tlds-alpha-by-domain.txt"), ingesttest.Fixture(t, "root-db.html"), observed)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(list, want) {
		t.Error("Fetch and Parse of the same documents differ")
	}
	if n := f.Requests(); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
	if strings.Contains(logs.String(), "builtin") {
		t.Errorf("a live fetch logged the builtin fallback: %s", logs)
	}
}

func TestFetchRetries(t *testing.T) {
	tests := []struct {
		name     string
		hc       *http.Client
		steps    []http.HandlerFunc
		requests int
	}{
		{"500s then success", nil, []http.HandlerFunc{ingesttest.Status(500), ingesttest.Status(502), ingesttest.Status(503)}, 5},
		{"a timeout then success", &http.Client{Timeout: 100 * time.Millisecond}, []http.HandlerFunc{ingesttest.Hang(t)}, 3},
		{"429 with Retry-After then success", nil, []http.HandlerFunc{
			func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", "1")
				http.Error(w, "slow down", http.StatusTooManyRequests)
			},
		}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, srv := newFakeIANA(t, ingesttest.Fixture(t, "tlds-alpha-by-domain.txt"), ingesttest.Fixture(t, "root-db.html"))
			f.Serve(tt.steps...)
			list := fetchList(t, newSource(t, srv, options{hc: tt.hc}))
			if n := f.Requests(); n != tt.requests {
				t.Errorf("%d requests, want %d", n, tt.requests)
			}
			if m, ok := byZone(t, list.Zones)[".com"]; !ok || m.Source != iana.Name {
				t.Errorf(".com from the retried fetch: %+v, %v; want live metadata", m, ok)
			}
		})
	}
}

// TestFetchFallsBack checks the offline default: a fetch that fails
// before any live success returns the builtin catalog, labelled builtin,
// and says so in a warning.
func TestFetchFallsBack(t *testing.T) {
	tlds, db := ingesttest.Fixture(t, "tlds-alpha-by-domain.txt"), ingesttest.Fixture(t, "root-db.html")
	tests := []struct {
		name       string
		tlds, db   []byte
		steps      []http.HandlerFunc
		rootDBPath string
	}{
		{"500s on every attempt", tlds, db, []http.HandlerFunc{ingesttest.Status(500), ingesttest.Status(500), ingesttest.Status(500), ingesttest.Status(500)}, rootDBPath},
		{"root db not found", tlds, db, nil, "/no/such/page"},
		{"malformed root db", tlds, ingesttest.Fixture(t, "root-db-maintenance.html"), nil, rootDBPath},
		{"truncated root db", tlds, db[:len(db)/2], nil, rootDBPath},
		{"truncated tld list", tlds[:len(tlds)-2], db, nil, rootDBPath},
		{"tld list cut at a line", cutLines(t, tlds, 5), db, nil, rootDBPath},
	}
	want := builtin(t).Metas(observed)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, srv := newFakeIANA(t, tt.tlds, tt.db)
			f.Serve(tt.steps...)
			logs := &logBuffer{}
			src, err := iana.New(iana.Config{TLDsURL: srv.URL + tldsPath, RootDBURL: srv.URL + tt.rootDBPath},
				ingesttest.Client(nil), slog.New(slog.NewTextHandler(logs, nil)), clock)
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			list := fetchList(t, src)
			if !reflect.DeepEqual(list.Zones, want) {
				t.Errorf("got %d zone metadata events, want the builtin catalog's %d", len(list.Zones), len(want))
			}
			if m := byZone(t, list.Zones)[".com"]; m.Source != iana.BuiltinSource {
				t.Errorf("fallback source %q, want %q", m.Source, iana.BuiltinSource)
			}
			if l := logs.String(); !strings.Contains(l, "level=WARN") || !strings.Contains(l, "builtin zone catalog") {
				t.Errorf("no warning about serving the builtin catalog; logs:\n%s", l)
			}
		})
	}
}

func TestFetchOffline(t *testing.T) {
	f, srv := newFakeIANA(t, ingesttest.Fixture(t, "tlds-alpha-by-domain.txt"), ingesttest.Fixture(t, "root-db.html"))
	list := fetchList(t, newSource(t, srv, options{offline: true}))
	if n := f.Requests(); n != 0 {
		t.Errorf("offline source made %d requests", n)
	}
	if !reflect.DeepEqual(list.Zones, builtin(t).Metas(observed)) {
		t.Error("offline source did not return the builtin catalog")
	}
	src, err := iana.New(iana.Config{Offline: true}, nil, nil, clock)
	if err != nil {
		t.Fatalf("New offline without a client: %v", err)
	}
	if list := fetchList(t, src); len(list.Zones) != builtin(t).Len() {
		t.Errorf("offline source without a client returned %d zones", len(list.Zones))
	}
}

func TestFetchCanceled(t *testing.T) {
	_, srv := newFakeIANA(t, ingesttest.Fixture(t, "tlds-alpha-by-domain.txt"), ingesttest.Fixture(t, "root-db.html"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := newSource(t, srv, options{}).Fetch(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Fetch with a canceled context: %v, want context.Canceled", err)
	}
}

// TestRunnerKeepsLiveMetadata runs the source through a real runner: the
// live catalog is published; a later bad fetch fails the round instead of
// replacing it with the builtin catalog, and the stream keeps it.
func TestRunnerKeepsLiveMetadata(t *testing.T) {
	tlds, db := ingesttest.Fixture(t, "tlds-alpha-by-domain.txt"), ingesttest.Fixture(t, "root-db.html")
	for _, tt := range []struct {
		name     string
		tlds, db []byte
	}{
		{"malformed root db", tlds, ingesttest.Fixture(t, "root-db-maintenance.html")},
		{"truncated root db", tlds, db[:len(db)*2/3]},
		{"truncated tld list", tlds[:len(tlds)/2], db},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, srv := newFakeIANA(t, tlds, db)
			h := ingesttest.New(t, newSource(t, srv, options{}))
			if err := h.Once(t); err != nil {
				t.Fatalf("first round: %v", err)
			}
			first := zoneEvents(t, h)
			if len(first) == 0 {
				t.Fatal("first round published no zone metadata")
			}
			for zone, m := range first {
				if m.Source != iana.Name {
					t.Fatalf("%s published with source %q", zone, m.Source)
				}
			}
			f.SetHandler(documents(tt.tlds, tt.db))
			if err := h.Once(t); err == nil {
				t.Error("second round with a bad document succeeded")
			}
			if got := zoneEvents(t, h); !reflect.DeepEqual(got, first) {
				t.Errorf("stream changed after a failed round: %d zones, was %d", len(got), len(first))
			}
		})
	}
}

// TestRunnerPublishesBuiltin runs the fallback through a real runner: with
// IANA unreachable the builtin catalog is published, labelled builtin.
func TestRunnerPublishesBuiltin(t *testing.T) {
	f, srv := newFakeIANA(t, nil, nil)
	f.Serve(ingesttest.Status(500), ingesttest.Status(500), ingesttest.Status(500), ingesttest.Status(500))
	h := ingesttest.New(t, newSource(t, srv, options{}))
	if err := h.Once(t); err != nil {
		t.Fatalf("Once: %v", err)
	}
	got := zoneEvents(t, h)
	if len(got) != builtin(t).Len() {
		t.Errorf("stream holds %d zones, want the builtin catalog's %d", len(got), builtin(t).Len())
	}
	if m := got[".com"]; m.Source != iana.BuiltinSource || m.Type != contracts.TypeGeneric {
		t.Errorf(".com on the stream: %+v", m)
	}
}

func zoneEvents(t *testing.T, h *ingesttest.Harness) map[string]contracts.ZoneMeta {
	t.Helper()
	out := map[string]contracts.ZoneMeta{}
	for subject, ev := range h.Events(t, contracts.ZoneSubjectPrefix+"*") {
		m, ok := ev.(*contracts.ZoneMeta)
		if !ok {
			t.Fatalf("%s holds a %T", subject, ev)
		}
		out[m.Zone] = *m
	}
	return out
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  iana.Config
		err  string
	}{
		{"defaults", iana.Config{}, ""},
		{"offline", iana.Config{Offline: true}, ""},
		{"custom URLs", iana.Config{TLDsURL: "http://mirror.example/tlds.txt", RootDBURL: "https://mirror.example/db"}, ""},
		{"relative TLDs URL", iana.Config{TLDsURL: "/tlds.txt"}, "TLDsURL"},
		{"ftp root db URL", iana.Config{RootDBURL: "ftp://example.com/db"}, "RootDBURL"},
		{"unparsable root db URL", iana.Config{RootDBURL: "http://exa mple.com/%zz"}, "RootDBURL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if tt.err == "" {
				if err != nil {
					t.Errorf("Validate: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Validate error = %v, want one naming %s", err, tt.err)
			}
			if _, nerr := iana.New(tt.cfg, fetch.New(fetch.Config{}, nil, slog.New(slog.DiscardHandler)), nil, nil); nerr == nil {
				t.Error("New accepted an invalid config")
			}
		})
	}
	if _, err := iana.New(iana.Config{}, nil, nil, nil); err == nil {
		t.Error("New without a client accepted a live configuration")
	}
}
