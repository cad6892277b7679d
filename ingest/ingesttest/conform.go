package ingesttest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"net/http"
	"os"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/kit"
)

// Suite is what Conform needs to know of a source: how to build it, its
// parser, and its fixtures, which a fake of its registrar serves.
type Suite struct {
	// Name is the source's name, Registrar the registrar it prices.
	Name, Registrar string
	// New builds the source reading url (with any path the source adds)
	// through client, stamping what it observes with now.
	New func(url string, client *fetch.Client, now func() time.Time) (ingest.Source, error)
	// Observed is when the sources Source builds observe their lists, and
	// Tax what their price sets declare (Set).
	Observed time.Time
	Tax      contracts.Tax
	// Validate checks a configuration reading url: the Config's Validate.
	Validate func(url string) error
	// Parse reads a saved response, as --file does.
	Parse ingest.ParseFunc
	// Fixtures are the testdata files of a good answer: one document, or
	// the pages of a paged one in order. Shrunk is a good answer with
	// fewer than half their zones, Errors are answers the registrar gives
	// instead of a list (an error envelope).
	Fixtures []string
	Shrunk   string
	Errors   []string
	// Saved, when set, is a saved response holding the whole list, for a
	// paged source whose first page alone is not (Drift edits it).
	Saved func(t testing.TB) []byte
	// Page, for a paged source, is the page (from 1) a request asks for;
	// the fake answers it with that fixture, and past the last with the
	// Empty body when set, or a 404.
	Page  func(r *http.Request) int
	Empty []byte
	// Path is the path the source asks for below the fake's address
	// ("" for the address itself).
	Path string
	// Check says what is wrong with a request the registrar would not
	// expect; nil accepts all.
	Check func(r *http.Request) error
	// Conditional says whether the source's requests are conditional (a
	// GET of a document), which they must then be, and otherwise must
	// not.
	Conditional bool
	// Drift says where to change the first fixture to drift from its
	// format (Drift); a zero one skips that test (a format that is no
	// JSON). Spoil is the path of a price in it (in Drift's paths:
	// "pricing.com.renewal", "tlds[].createPrice"): made unreadable, its
	// row is skipped and keeps its zone's last price.
	Drift DriftPaths
	Spoil string
	// Golden is the pattern of the fixtures whose golden files hold what
	// they put on the stream (Golden); "" for "*.json".
	Golden string
}

// Conform runs every behaviour test a registrar source must pass, as
// fstest.TestFS does for a file system: its configuration errors name
// the field; it retries what is worth retrying and no more; it asks
// conditionally when it should; a truncated, foreign or error answer
// fails the round and keeps the last good prices; a shrunken list is
// refused; an unreadable row is skipped, counted and keeps its price; its
// parser survives mangled input (a deterministic fuzz); drift from its
// format is counted and logged; every real capture parses; and its
// fixtures put on the stream what their golden files say.
func Conform(t *testing.T, s Suite) {
	t.Helper()
	if s.Golden == "" {
		s.Golden = "*.json"
	}
	t.Run("Config", func(t *testing.T) { s.config(t) })
	t.Run("Retries", func(t *testing.T) { s.retries(t) })
	t.Run("Conditional", func(t *testing.T) { s.conditional(t) })
	t.Run("BadBodyKeepsLastPrices", func(t *testing.T) { s.badBodies(t) })
	t.Run("ShrunkListRefused", func(t *testing.T) { s.shrunk(t) })
	if s.Spoil != "" {
		t.Run("UnreadableRowKeepsLastPrice", func(t *testing.T) { s.unreadable(t) })
	}
	t.Run("Mangled", func(t *testing.T) { s.mangled(t) })
	if s.Drift != (DriftPaths{}) {
		t.Run("Drift", func(t *testing.T) { Drift(t, s.Name, s.Parse, s.saved(t), s.Drift) })
	}
	if _, err := os.Stat(CaptureDir); err == nil {
		t.Run("Captures", func(t *testing.T) { Captures(t, s.Parse, s.Registrar, s.Name) })
	}
	t.Run("Golden", func(t *testing.T) { Golden(t, s.Parse, s.Golden) })
}

// Source builds the source reading url through a client over hc (nil for
// the default) that retries at once, observing at Observed.
func (s Suite) Source(t testing.TB, url string, hc *http.Client) ingest.Source {
	t.Helper()
	src, err := s.New(url, Client(hc), func() time.Time { return s.Observed })
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// ByZone checks a list of the source's (CheckList) and returns its price
// sets by zone.
func (s Suite) ByZone(t testing.TB, list *ingest.List) map[string]contracts.PriceSet {
	t.Helper()
	return CheckList(t, list, s.Registrar, s.Name, s.Observed)
}

// Quirks runs the parser over quirks (Quirks).
func (s Suite) Quirks(t *testing.T, quirks []Quirk) {
	t.Helper()
	Quirks(t, s.Parse, s.Observed, s.Registrar, s.Name, quirks)
}

// serve is the fake registrar answering with pages (the fixtures, or
// others of the same count), one by the page each request asks for.
func (s Suite) serve(pages [][]byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		n := 1
		if s.Page != nil {
			n = s.Page(r)
		}
		switch {
		case n >= 1 && n <= len(pages):
			Body(pages[n-1])(w, r)
		case s.Empty != nil:
			Body(s.Empty)(w, r)
		default:
			http.NotFound(w, r)
		}
	}
}

// saved is a saved response of the whole list.
func (s Suite) saved(t testing.TB) []byte {
	if s.Saved != nil {
		return s.Saved(t)
	}
	return Fixture(t, s.Fixtures[0])
}

// pages are the fixtures' bodies.
func (s Suite) pages(t testing.TB) [][]byte {
	out := make([][]byte, len(s.Fixtures))
	for i, f := range s.Fixtures {
		out[i] = Fixture(t, f)
	}
	return out
}

// start serves the fixtures and builds the source on them.
func (s Suite) start(t *testing.T, hc *http.Client) (*API, ingest.Source) {
	t.Helper()
	api, srv := NewAPI(t, nil, s.Check)
	api.SetHandler(s.serve(s.pages(t)))
	src, err := s.New(srv.URL+s.Path, Client(hc), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	return api, src
}

// fetch fetches once and returns the list's zones.
func fetchZones(t *testing.T, src ingest.Source) int {
	t.Helper()
	list, err := src.Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return len(list.Prices)
}

func (s Suite) config(t *testing.T) {
	for _, url := range []string{"", "https://registrar.example/prices"} {
		if err := s.Validate(url); err != nil {
			t.Errorf("Validate(%q) = %v", url, err)
		}
	}
	for _, url := range []string{"/relative/prices", "ftp://registrar.example/prices", "https://"} {
		err := s.Validate(url)
		var ve *contracts.ValidationError
		if err == nil || !(errors.As(err, &ve) && ve.Field == "URL" || strings.Contains(err.Error(), "URL")) {
			t.Errorf("Validate(%q) = %v, want an error naming the field URL", url, err)
		}
		if _, err := s.New(url, Client(nil), time.Now); err == nil {
			t.Errorf("New accepted the URL %q", url)
		}
	}
	if _, err := s.New("", nil, time.Now); err == nil {
		t.Error("New accepted a nil client")
	}
	if src, err := s.New("", Client(nil), time.Now); err != nil || src.Name() != s.Name {
		t.Errorf("New with the default URL = %v, %v; want a source named %s", src, err, s.Name)
	}
}

func (s Suite) retries(t *testing.T) {
	api, src := s.start(t, nil)
	want := fetchZones(t, src)
	plain := api.Requests()
	for _, tc := range []struct {
		name  string
		steps func(t *testing.T) []http.HandlerFunc
		extra int
		hc    *http.Client
	}{
		{"500s then success", func(*testing.T) []http.HandlerFunc {
			return []http.HandlerFunc{Status(http.StatusInternalServerError), Status(http.StatusBadGateway)}
		}, 2, nil},
		{"timeout then success", func(t *testing.T) []http.HandlerFunc { return []http.HandlerFunc{Hang(t)} }, 1,
			&http.Client{Timeout: 100 * time.Millisecond}},
		{"429 with Retry-After then success", func(*testing.T) []http.HandlerFunc {
			return []http.HandlerFunc{Status(http.StatusTooManyRequests, "Retry-After", "1")}
		}, 1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api, src := s.start(t, tc.hc)
			api.Serve(tc.steps(t)...)
			if got := fetchZones(t, src); got != want {
				t.Errorf("got %d zones, want %d", got, want)
			}
			if got := api.Requests(); got != plain+tc.extra {
				t.Errorf("server saw %d requests, want %d", got, plain+tc.extra)
			}
		})
	}
	t.Run("400 is not retried", func(t *testing.T) {
		api, src := s.start(t, nil)
		api.Serve(Status(http.StatusBadRequest))
		_, err := src.Fetch(context.Background())
		var se *fetch.StatusError
		if !errors.As(err, &se) || se.Status != http.StatusBadRequest {
			t.Fatalf("Fetch error = %v, want a wrapped HTTP 400", err)
		}
		if got := api.Requests(); got != 1 {
			t.Errorf("server saw %d requests, want 1", got)
		}
	})
}

func (s Suite) conditional(t *testing.T) {
	const etag = `W/"conform"`
	api, src := s.start(t, nil)
	serve := s.serve(s.pages(t))
	var conditional, unchanged atomic.Int32
	api.SetHandler(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") != "" || r.Header.Get("If-Modified-Since") != "" {
			conditional.Add(1)
		}
		if r.Header.Get("If-None-Match") == etag {
			unchanged.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", etag)
		serve(w, r)
	})
	want := fetchZones(t, src)
	if got := fetchZones(t, src); got != want {
		t.Errorf("the second fetch gave %d zones, the first %d", got, want)
	}
	switch {
	case s.Conditional && unchanged.Load() == 0:
		t.Error("the second fetch did not ask with the first one's ETag")
	case !s.Conditional && conditional.Load() > 0:
		t.Errorf("%d requests were conditional; the answer depends on more than the URL", conditional.Load())
	}
}

// badBodies are answers no parser may take for a list.
func (s Suite) badBodies(t *testing.T) {
	good := Fixture(t, s.Fixtures[0])
	bodies := map[string][]byte{
		"truncated":                   good[:len(good)/2],
		"html error page with 200":    []byte(`<!DOCTYPE html><html><head><title>Just a moment...</title></head><body>Checking your browser</body></html>`),
		"empty":                       {},
		"null":                        []byte("null"),
		"an object of something else": []byte(`{"unrelated":true}`),
	}
	for _, name := range s.Errors {
		bodies[name] = Fixture(t, name)
	}
	api, src := s.start(t, nil)
	h := New(t, src)
	before := h.Round(t, s.Registrar)
	if len(before) == 0 {
		t.Fatal("the first round published nothing")
	}
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			api.SetHandler(Body(body))
			h.RoundFails(t, s.Registrar, before, nil)
			if _, err := s.Parse(body, time.Now()); err == nil {
				t.Error("Parse took it for a list")
			}
		})
	}
}

func (s Suite) shrunk(t *testing.T) {
	api, src := s.start(t, nil)
	h := New(t, src)
	before := h.Round(t, s.Registrar)
	api.SetHandler(Body(Fixture(t, s.Shrunk)))
	h.RoundFails(t, s.Registrar, before, ingest.ErrShrunk)
}

func (s Suite) unreadable(t *testing.T) {
	pages := s.pages(t)
	api, src := s.start(t, nil)
	h := New(t, src)
	before := h.Round(t, s.Registrar)
	pages[0] = edited(t, pages[0], s.Spoil, func(_ any, set func(any)) { set("TBD") })
	api.SetHandler(s.serve(pages))
	if err := h.Once(t); err != nil {
		t.Fatalf("a round with one unreadable row failed: %v", err)
	}
	if after := h.Prices(t, s.Registrar); !reflect.DeepEqual(after, before) {
		t.Errorf("a round with one unreadable row changed the prices: %d zones before, %d after", len(before), len(after))
	}
	if got := h.Counter(t, "zoneprice_ingest_rows_skipped_total"); got != 1 {
		t.Errorf("zoneprice_ingest_rows_skipped_total = %v, want 1", got)
	}
}

// mangled feeds the parser its fixtures cut short and with bytes
// changed, from a fixed seed, and checks whatever it returns (CheckParsed):
// the fuzz test's invariants on every run, beside go test -fuzz.
func (s Suite) mangled(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = `{}[]":,.-0123456789 aeEn\`
	for _, name := range append(append([]string{}, s.Fixtures...), s.Shrunk) {
		body := Fixture(t, name)
		for i := range 200 {
			b := bytes.Clone(body)
			if i%4 == 0 {
				b = b[:rng.IntN(len(b)+1)]
			}
			for range 1 + rng.IntN(4) {
				if len(b) > 0 {
					b[rng.IntN(len(b))] = alphabet[rng.IntN(len(alphabet))]
				}
			}
			list, err := s.Parse(b, time.Now())
			CheckParsed(t, list, err)
		}
	}
}

// Fuzz is a parser's fuzz test: every fixture matching pattern seeds it,
// and whatever Parse returns keeps CheckParsed's invariants.
func Fuzz(f *testing.F, parse ingest.ParseFunc, pattern string) {
	f.Helper()
	Seed(f, pattern)
	f.Fuzz(func(t *testing.T, body []byte) {
		list, err := parse(body, time.Now())
		CheckParsed(t, list, err)
	})
}

// SavedPages is the JSON array of saved pages that --file imports for a
// paged source.
func SavedPages(t testing.TB, names ...string) []byte {
	t.Helper()
	pages := make([]json.RawMessage, len(names))
	for i, n := range names {
		pages[i] = Fixture(t, n)
	}
	b, err := json.Marshal(pages)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Set is a price set of the source's for zone, as its parser gives it.
func (s Suite) Set(zone string, register, renew, transfer *contracts.OpPrice) *contracts.PriceSet {
	return &contracts.PriceSet{
		V: contracts.SchemaVersion, Kind: contracts.KindPriceSet, Registrar: s.Registrar, Zone: zone,
		Register: register, Renew: renew, Transfer: transfer, ObservedAt: s.Observed, Source: s.Name, Tax: s.Tax,
	}
}

// Promo is a regular price of regular minor units of cur with a
// promotion, without an end, to promo.
func Promo(regular, promo int64, cur string) *contracts.OpPrice {
	return &contracts.OpPrice{
		Regular: contracts.Price{Amount: regular, Currency: cur},
		Promo:   &contracts.Promo{Price: contracts.Price{Amount: promo, Currency: cur}},
	}
}

// Regular is an operation's regular price of amount minor units of cur,
// the price set a test most often expects.
func Regular(amount int64, cur string) *contracts.OpPrice {
	return &contracts.OpPrice{Regular: contracts.Price{Amount: amount, Currency: cur}}
}

// In is Regular in cur: a test's eur(cents) or cny(fen).
func In(cur string) func(amount int64) *contracts.OpPrice {
	return func(amount int64) *contracts.OpPrice { return Regular(amount, cur) }
}

// USD is Regular in US cents, the currency most registrars price in: a
// test's op(cents).
func USD(cents int64) *contracts.OpPrice { return Regular(cents, "USD") }

// USDPromo is Promo in US cents.
func USDPromo(regular, promo int64) *contracts.OpPrice { return Promo(regular, promo, "USD") }

// Declared is the Suite of a source declared with the adapter kit, built
// and parsed as its registration does, observing on 2026-11-28 at noon;
// the caller adds its fixtures and what else its format needs.
func Declared(d *kit.Declaration) Suite {
	return Suite{
		Name: d.Name, Registrar: d.Registrar.ID, Parse: d.Read, Tax: d.Tax, Observed: observed,
		New: func(url string, client *fetch.Client, now func() time.Time) (ingest.Source, error) {
			return kit.New(d, kit.Config{URL: url}, client, now)
		},
		Validate: func(url string) error { return kit.Config{URL: url}.Validate() },
	}
}
