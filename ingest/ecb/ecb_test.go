package ecb_test

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/ecb"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

var observed = time.Date(2024, 6, 28, 16, 5, 0, 0, time.UTC)

func clock() time.Time { return observed }

func newSource(t *testing.T, url string, c *fetch.Client) *ecb.Source {
	t.Helper()
	src, err := ecb.New(ecb.Config{URL: url}, c, clock)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// only returns the one Rates event of a list, checked against the
// contract.
func only(t *testing.T, list *ingest.List) contracts.Rates {
	t.Helper()
	if len(list.Prices) != 0 || len(list.Zones) != 0 || len(list.Rates) != 1 {
		t.Fatalf("list has %d prices, %d zones, %d rates; want one rates event only", len(list.Prices), len(list.Zones), len(list.Rates))
	}
	r := list.Rates[0]
	if err := r.Validate(); err != nil {
		t.Fatalf("rates do not validate: %v", err)
	}
	return r
}

func TestParseDaily(t *testing.T) {
	list, err := ecb.Parse(ingesttest.Fixture(t, "eurofxref-daily.xml"), observed)
	if err != nil {
		t.Fatal(err)
	}
	r := only(t, list)
	if r.V != contracts.SchemaVersion || r.Kind != contracts.KindRates || r.Base != "EUR" || r.Date != "2024-06-28" ||
		r.Source != "ecb" || !r.ObservedAt.Equal(observed) {
		t.Errorf("got header v=%d kind=%s base=%s date=%s source=%s observed=%v", r.V, r.Kind, r.Base, r.Date, r.Source, r.ObservedAt)
	}
	for code, want := range map[string]string{
		"USD": "1.0705", "JPY": "171.94", "GBP": "0.84638", "HUF": "395.10", "IDR": "17487.21", "ZAR": "19.4970", "ISK": "148.90",
	} {
		if got := r.Rates[code]; got != want {
			t.Errorf("rate of %s = %q, want %q exactly as published", code, got, want)
		}
	}
	if len(r.Rates) != 30 {
		t.Errorf("got %d currencies, want the file's 30", len(r.Rates))
	}
}

// doc wraps days in the daily file's envelope.
func doc(days string) []byte {
	return []byte(`<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
	<gesmes:subject>Reference rates</gesmes:subject>
	<gesmes:Sender>
		<gesmes:name>European Central Bank</gesmes:name>
	</gesmes:Sender>
	<Cube>` + days + `</Cube>
</gesmes:Envelope>`)
}

func TestParseQuirks(t *testing.T) {
	for _, tc := range []struct {
		name     string
		body     []byte
		date     string
		want     map[string]string // rates that must be there, exactly
		absent   []string          // currencies that must not be
		count    int               // currencies in all; 0 skips the check
		skipped  int               // currencies that could not be read
		wantErr  string            // a fragment of the error; "" for success
		wantErr2 string            // a second fragment
	}{
		{
			name: "90-day file takes the newest day, trailing zeros as published",
			body: ingesttest.Fixture(t, "eurofxref-hist-90d.xml"),
			date: "2024-06-28", want: map[string]string{"USD": "1.0705", "HUF": "395.1", "PLN": "4.309", "GBP": "0.84638"}, count: 30,
		},
		{
			name: "newest day wherever it stands in the document",
			body: doc(`<Cube time="2024-06-26"><Cube currency="USD" rate="1.0713"/></Cube>` +
				`<Cube time="2024-06-28"><Cube currency="USD" rate="1.0705"/></Cube>` +
				`<Cube time="2024-06-27"><Cube currency="USD" rate="1.0692"/></Cube>`),
			date: "2024-06-28", want: map[string]string{"USD": "1.0705"}, count: 1,
		},
		{
			name: "currency the contracts do not know is skipped",
			body: ingesttest.Fixture(t, "eurofxref-daily-2015.xml"),
			date: "2015-02-12", want: map[string]string{"USD": "1.1328", "RUB": "75.2935", "GBP": "0.73760"}, absent: []string{"HRK"}, count: 30,
		},
		{
			name: "EUR itself is skipped",
			body: doc(`<Cube time='2024-06-28'><Cube currency='EUR' rate='1'/><Cube currency='USD' rate='1.0705'/></Cube>`),
			date: "2024-06-28", want: map[string]string{"USD": "1.0705"}, absent: []string{"EUR"}, count: 1,
		},
		{
			name: "currency listed twice keeps the first",
			body: doc(`<Cube time='2024-06-28'><Cube currency='USD' rate='1.0705'/><Cube currency='USD' rate='9.9999'/></Cube>`),
			date: "2024-06-28", want: map[string]string{"USD": "1.0705"}, count: 1, skipped: 1,
		},
		{
			name: "unreadable rates are skipped",
			body: doc(`<Cube time='2024-06-28'><Cube currency='USD' rate='1.0705'/><Cube currency='JPY' rate='1,71.94'/>` +
				`<Cube currency='GBP' rate='0'/><Cube currency='CHF' rate='-0.96'/><Cube currency='SEK' rate=''/>` +
				`<Cube currency='NOK' rate='1e1'/><Cube currency='PLN'/><Cube rate='4.3'/></Cube>`),
			date: "2024-06-28", want: map[string]string{"USD": "1.0705"}, absent: []string{"JPY", "GBP", "CHF", "SEK", "NOK", "PLN"}, count: 1,
			skipped: 7,
		},
		{
			name: "unreadable rates are counted, unknown currencies and EUR are not",
			body: doc(`<Cube time='2024-06-28'><Cube currency='EUR' rate='1'/><Cube currency='HRK' rate='7.5345'/>` +
				`<Cube currency='usd' rate='1.0705'/><Cube currency='USD' rate='x'/><Cube currency='USD' rate='1.0705'/>` +
				`<Cube currency='GBP' rate='0.84638'/><Cube currency='GBP' rate='0.9'/></Cube>`),
			date: "2024-06-28", want: map[string]string{"USD": "1.0705", "GBP": "0.84638"}, absent: []string{"EUR", "HRK", "usd"}, count: 2,
			skipped: 3,
		},
		{
			name: "cubes without the eurofxref namespace",
			body: []byte(`<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01"><Cube><Cube time="2024-06-28"><Cube currency="USD" rate="1.0705"/></Cube></Cube></gesmes:Envelope>`),
			date: "2024-06-28", want: map[string]string{"USD": "1.0705"}, count: 1,
		},
		{
			name: "trailing comment after the root",
			body: append(ingesttest.Fixture(t, "eurofxref-daily.xml"), "\n<!-- cache: 28 June 2024 16:10 -->\n"...),
			date: "2024-06-28", want: map[string]string{"USD": "1.0705"}, count: 30,
		},
		{name: "day without currencies", body: doc(`<Cube time='2024-06-28'></Cube>`), wantErr: "2024-06-28 hold no currency"},
		{name: "no day at all", body: doc(``), wantErr: "hold no day"},
		{name: "day without time", body: doc(`<Cube><Cube currency='USD' rate='1.0705'/></Cube>`), wantErr: "no time attribute"},
		{name: "time not a date", body: doc(`<Cube time='2024-13-01'><Cube currency='USD' rate='1.0705'/></Cube>`), wantErr: `time "2024-13-01" is not a date`},
		{name: "time with a clock", body: doc(`<Cube time='2024-06-28T16:00:00Z'><Cube currency='USD' rate='1.0705'/></Cube>`), wantErr: "is not a date"},
		{
			name:    "newest day twice",
			body:    doc(`<Cube time='2024-06-28'><Cube currency='USD' rate='1.0705'/></Cube><Cube time='2024-06-28'><Cube currency='USD' rate='1.0706'/></Cube>`),
			wantErr: "list 2024-06-28 twice",
		},
		{
			name:    "nothing usable",
			body:    doc(`<Cube time='2024-06-28'><Cube currency='HRK' rate='7.5'/><Cube currency='USD' rate='x'/></Cube>`),
			wantErr: "no usable rate", wantErr2: `"HRK" is not a currency this service knows`,
		},
		{name: "HTML error page", body: ingesttest.Fixture(t, "error.html"), wantErr: "root element is <html>"},
		{name: "plain text", body: []byte("Service Unavailable"), wantErr: "no XML element"},
		{name: "empty body", body: nil, wantErr: "no XML element"},
		{name: "JSON", body: []byte(`{"rates":{"USD":1.07}}`), wantErr: "no XML element"},
		{
			name:    "envelope in another namespace",
			body:    []byte(`<Envelope xmlns="urn:other"><Cube><Cube time="2024-06-28"><Cube currency="USD" rate="1.0705"/></Cube></Cube></Envelope>`),
			wantErr: "root element is <urn:other Envelope>",
		},
		{name: "truncated", body: ingesttest.Fixture(t, "eurofxref-daily.xml")[:900], wantErr: "decode ecb reference rates", wantErr2: "unexpected EOF"},
		{name: "truncated in the prolog", body: []byte(`<?xml version="1.0" encoding="UT`), wantErr: "not XML"},
		{
			name:    "not well formed",
			body:    doc(`<Cube time='2024-06-28'><Cube currency='USD' rate='1.0705'></Cube>`),
			wantErr: "decode ecb reference rates",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			list, err := ecb.Parse(tc.body, observed)
			if tc.wantErr != "" {
				if err == nil {
					t.Fatalf("got %+v, want an error mentioning %q", list, tc.wantErr)
				}
				if !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), tc.wantErr2) {
					t.Fatalf("error %q does not mention %q and %q", err, tc.wantErr, tc.wantErr2)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			r := only(t, list)
			if r.Date != tc.date {
				t.Errorf("date = %s, want %s", r.Date, tc.date)
			}
			for code, want := range tc.want {
				if got := r.Rates[code]; got != want {
					t.Errorf("rate of %s = %q, want %q", code, got, want)
				}
			}
			for _, code := range tc.absent {
				if got, ok := r.Rates[code]; ok {
					t.Errorf("rate of %s = %q, want it skipped", code, got)
				}
			}
			if tc.count > 0 && len(r.Rates) != tc.count {
				t.Errorf("got %d currencies, want %d", len(r.Rates), tc.count)
			}
			if list.Skipped != tc.skipped || list.Keep != nil {
				t.Errorf("skipped %d, keep %q; want %d, none", list.Skipped, list.Keep, tc.skipped)
			}
		})
	}
}

func TestConfig(t *testing.T) {
	for _, tc := range []struct {
		name, url string
		ok        bool
	}{
		{"default", "", true},
		{"https", "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist-90d.xml", true},
		{"relative", "eurofxref-daily.xml", false},
		{"ftp", "ftp://example.org/eurofxref-daily.xml", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ecb.Config{URL: tc.url}.Validate()
			if (err == nil) != tc.ok {
				t.Fatalf("Validate(%q) = %v, want ok=%v", tc.url, err, tc.ok)
			}
			if err != nil && !strings.Contains(err.Error(), "ecb URL") {
				t.Errorf("error %q does not name the field", err)
			}
		})
	}
	if _, err := ecb.New(ecb.Config{}, nil, nil); err == nil {
		t.Error("New without a fetch client succeeded")
	}
}

func TestFetch(t *testing.T) {
	var path, ua string
	api, srv := ingesttest.NewAPI(t, ingesttest.Fixture(t, "eurofxref-daily.xml"), func(r *http.Request) error {
		path, ua = r.URL.Path, r.Header.Get("User-Agent")
		return nil
	})
	src := newSource(t, srv.URL+"/stats/eurofxref/eurofxref-daily.xml", ingesttest.Client(nil))
	if src.Name() != "ecb" {
		t.Errorf("Name() = %q, want ecb", src.Name())
	}
	list, err := src.Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r := only(t, list)
	if r.Rates["USD"] != "1.0705" || r.Rates["JPY"] != "171.94" || r.Rates["GBP"] != "0.84638" || !r.ObservedAt.Equal(observed) {
		t.Errorf("got rates USD %s JPY %s GBP %s observed %v", r.Rates["USD"], r.Rates["JPY"], r.Rates["GBP"], r.ObservedAt)
	}
	if n := api.Requests(); n != 1 || path != "/stats/eurofxref/eurofxref-daily.xml" || ua != fetch.DefaultUserAgent {
		t.Errorf("%d requests, last for %q with User-Agent %q", n, path, ua)
	}
}

func TestFetchConditional(t *testing.T) {
	body := ingesttest.Fixture(t, "eurofxref-daily.xml")
	var revalidated atomic.Bool
	api, srv := ingesttest.NewAPI(t, nil, nil)
	api.SetHandler(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") == `"rates-2024-06-28"` {
			revalidated.Store(true)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", `"rates-2024-06-28"`)
		ingesttest.Body(body)(w, r)
	})
	src := newSource(t, srv.URL, ingesttest.Client(nil))
	for round := 1; round <= 2; round++ {
		list, err := src.Fetch(context.Background())
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if r := only(t, list); r.Rates["USD"] != "1.0705" {
			t.Errorf("round %d: USD = %q, want 1.0705", round, r.Rates["USD"])
		}
	}
	if n := api.Requests(); !revalidated.Load() || n != 2 {
		t.Errorf("%d requests, revalidated %v: want the second request conditional", n, revalidated.Load())
	}
}

func TestFetchRetriesServerErrors(t *testing.T) {
	api, srv := ingesttest.NewAPI(t, ingesttest.Fixture(t, "eurofxref-daily.xml"), nil)
	api.Serve(ingesttest.Status(500), ingesttest.Status(502))
	list, err := newSource(t, srv.URL, ingesttest.Client(nil)).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r, n := only(t, list), api.Requests(); r.Rates["USD"] != "1.0705" || n != 3 {
		t.Errorf("USD = %q after %d requests, want 1.0705 after 3", r.Rates["USD"], n)
	}
}

func TestFetchRetriesTimeout(t *testing.T) {
	api, srv := ingesttest.NewAPI(t, ingesttest.Fixture(t, "eurofxref-daily.xml"), nil)
	api.Serve(ingesttest.Hang(t))
	c := ingesttest.Client(&http.Client{Timeout: 100 * time.Millisecond})
	list, err := newSource(t, srv.URL, c).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r, n := only(t, list), api.Requests(); r.Rates["USD"] != "1.0705" || n != 2 {
		t.Errorf("USD = %q after %d requests, want 1.0705 after 2", r.Rates["USD"], n)
	}
}

func TestFetchHonoursRetryAfter(t *testing.T) {
	api, srv := ingesttest.NewAPI(t, ingesttest.Fixture(t, "eurofxref-daily.xml"), nil)
	api.Serve(ingesttest.Status(http.StatusTooManyRequests, "Retry-After", "1"))
	list, err := newSource(t, srv.URL, ingesttest.Client(nil)).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r, n := only(t, list), api.Requests(); r.Rates["USD"] != "1.0705" || n != 2 {
		t.Errorf("USD = %q after %d requests, want 1.0705 after 2", r.Rates["USD"], n)
	}
}

func TestFetchGivesUp(t *testing.T) {
	api, srv := ingesttest.NewAPI(t, nil, nil)
	api.SetHandler(ingesttest.Status(http.StatusNotFound))
	_, err := newSource(t, srv.URL, ingesttest.Client(nil)).Fetch(context.Background())
	var se *fetch.StatusError
	if !errors.As(err, &se) || se.Status != http.StatusNotFound || !strings.Contains(err.Error(), "fetch ecb reference rates") {
		t.Fatalf("err = %v, want a wrapped 404", err)
	}
	if n := api.Requests(); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func badBodies(t *testing.T) []struct {
	name, wantErr string
	body          []byte
} {
	daily := ingesttest.Fixture(t, "eurofxref-daily.xml")
	return []struct {
		name, wantErr string
		body          []byte
	}{
		{"truncated", "unexpected EOF", daily[:len(daily)/2]},
		{"malformed", "decode ecb reference rates", []byte(strings.Replace(string(daily), "</Cube>", "</Cub>", 1))},
		{"HTML with status 200", "root element is <html>", ingesttest.Fixture(t, "error.html")},
	}
}

func TestFetchBadBody(t *testing.T) {
	for _, tc := range badBodies(t) {
		t.Run(tc.name, func(t *testing.T) {
			_, srv := ingesttest.NewAPI(t, tc.body, nil)
			list, err := newSource(t, srv.URL, ingesttest.Client(nil)).Fetch(context.Background())
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("got list %+v, err %v; want an error mentioning %q", list, err, tc.wantErr)
			}
		})
	}
}

// TestKeepsLastGoodRates runs the source through a real runner: a bad
// round fails and the stream keeps the last good rates. There is no shrink
// test here: the shrink guard counts a registrar's zones, and rates have
// neither; a day quoting fewer currencies simply replaces the last.
func TestKeepsLastGoodRates(t *testing.T) {
	for _, tc := range badBodies(t) {
		t.Run(tc.name, func(t *testing.T) {
			api, srv := ingesttest.NewAPI(t, ingesttest.Fixture(t, "eurofxref-daily.xml"), nil)
			h := ingesttest.New(t, newSource(t, srv.URL, ingesttest.Client(nil)))
			if err := h.Once(t); err != nil {
				t.Fatalf("first round: %v", err)
			}
			first := h.Events(t, "rates.v1.>")
			r, ok := first["rates.v1.EUR"].(*contracts.Rates)
			if len(first) != 1 || !ok || r.Rates["USD"] != "1.0705" || r.Date != "2024-06-28" {
				t.Fatalf("after the first round the stream holds %v", first)
			}
			api.SetBody(tc.body)
			if err := h.Once(t); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("second round: err = %v, want one mentioning %q", err, tc.wantErr)
			}
			after := h.Events(t, "rates.v1.>")
			r2, ok := after["rates.v1.EUR"].(*contracts.Rates)
			if len(after) != 1 || !ok || r2.Date != r.Date || !maps.Equal(r2.Rates, r.Rates) || !r2.ObservedAt.Equal(r.ObservedAt) {
				t.Errorf("after the bad round the stream holds %+v, want the first round's %+v", after["rates.v1.EUR"], r)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"eurofxref-daily.xml", "eurofxref-daily-2015.xml", "eurofxref-hist-90d.xml", "error.html"} {
		f.Add(ingesttest.Fixture(f, name))
	}
	f.Add(doc(`<Cube time='2024-06-28'><Cube currency='USD' rate='1.0705'/><Cube currency='EUR' rate='1'/></Cube>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		list, err := ecb.Parse(body, observed)
		if err != nil {
			return
		}
		if len(list.Rates) != 1 || len(list.Prices) != 0 {
			t.Fatalf("list has %d rates and %d prices, want one rates event", len(list.Rates), len(list.Prices))
		}
		if err := list.Rates[0].Validate(); err != nil {
			t.Fatalf("rates do not validate: %v\n%+v", err, list.Rates[0])
		}
	})
}
