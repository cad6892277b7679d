// Package ecb reads the European Central Bank's euro foreign exchange
// reference rates, which the ECB publishes around 16:00 CET on every TARGET
// working day as https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml:
//
//	<?xml version="1.0" encoding="UTF-8"?>
//	<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
//		<gesmes:subject>Reference rates</gesmes:subject>
//		<gesmes:Sender>
//			<gesmes:name>European Central Bank</gesmes:name>
//		</gesmes:Sender>
//		<Cube>
//			<Cube time='2024-06-28'>
//				<Cube currency='USD' rate='1.0705'/>
//				<Cube currency='JPY' rate='171.94'/>
//				...
//
// One euro buys rate units of currency. The document becomes one Rates
// event with base EUR, the day's date and every currency's rate.
//
// How the format is read, decision by decision:
//
//   - The root element must be gesmes:Envelope in the namespace
//     http://www.gesmes.org/xml/2002-08-01. Anything else (an HTML error
//     page served with status 200, a captive portal, plain text) fails the
//     whole fetch with an error saying what arrived instead; so does XML
//     that is truncated or not well formed. There is never a partial list.
//     The Cube elements are matched by local name, so a copy that drops the
//     eurofxref default namespace still reads. gesmes:subject and
//     gesmes:Sender are not checked.
//   - The 90-day file (eurofxref-hist-90d.xml) and the full history
//     (eurofxref-hist.xml) have the same shape with one <Cube time=...> per
//     day, newest first, attributes in double quotes. The newest day by
//     date is taken, wherever it stands in the document; older days are
//     ignored. Two days with the newest date are an error: which one is
//     right cannot be told. Only the newest day is ever published: falling
//     back to an older day would publish rates older than the stream may
//     already hold.
//   - time must be a date, YYYY-MM-DD; it becomes the event's date as
//     written. A missing or malformed time is an error.
//   - Rates are kept as the text the ECB published ("0.84638", "171.94";
//     the history files drop trailing zeros, "395.1" where the daily file
//     has "395.10"), after checking it with contracts.ParseRate: no float
//     ever touches them.
//   - A currency the contracts package does not know (the ECB quoted HRK
//     until 2022, and LTL, LVL, EEK before that) and EUR itself are left
//     out: they are not rates this service publishes. A currency attribute
//     that is not a three-letter code, a rate that is not a positive plain
//     decimal, or a currency listed twice in one day (the first stands) is
//     skipped as unreadable: counted in the list's Skipped, which the
//     runner adds to zoneprice_ingest_rows_skipped_total and logs. The error
//     names the currencies left out and skipped only when the day has no
//     usable rate left; a day with no currency at all is an error.
//
// The fetch is a conditional GET: where the server sends validators, an
// unchanged file is answered with 304 and the remembered body parsed again.
package ecb

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
)

// Name is the source's name and the events' source field.
const Name = "ecb"

// DefaultURL is the ECB's daily reference rates file.
const DefaultURL = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml"

// Base is the currency every ECB reference rate is quoted against.
const Base = "EUR"

// The namespaces of the envelope and of the rate cubes.
const (
	gesmesNS    = "http://www.gesmes.org/xml/2002-08-01"
	eurofxrefNS = "http://www.ecb.int/vocabulary/2002-08-01/eurofxref"
)

// Config configures a Source.
type Config struct {
	// URL is the reference rates file; empty means DefaultURL. The 90-day
	// and full history files are read too (the newest day is taken).
	URL string
}

// Validate reports a configuration that cannot work, naming the field.
func (c Config) Validate() error {
	if err := fetch.CheckURL(c.URL); err != nil {
		return fmt.Errorf("ecb URL %w", err)
	}
	return nil
}

// Source fetches the ECB's reference rates.
type Source struct {
	url    string
	client *fetch.Client
	now    func() time.Time
}

var _ ingest.Source = (*Source)(nil)

// New returns a Source that fetches with client and stamps what it observes
// with now() (time.Now when nil).
func New(cfg Config, client *fetch.Client, now func() time.Time) (*Source, error) {
	now, err := fetch.Ready("ecb", cfg, client, now)
	if err != nil {
		return nil, err
	}
	u := cfg.URL
	if u == "" {
		u = DefaultURL
	}
	return &Source{url: u, client: client, now: now}, nil
}

// Name implements ingest.Source.
func (s *Source) Name() string { return Name }

// Fetch implements ingest.Source.
func (s *Source) Fetch(ctx context.Context) (*ingest.List, error) {
	resp, err := s.client.Get(ctx, s.url, http.Header{"Accept": {"application/xml, text/xml;q=0.9"}})
	if err != nil {
		return nil, fmt.Errorf("fetch ecb reference rates: %w", err)
	}
	return Parse(resp.Body, s.now())
}

// envelope is the part of the document this package reads. Cubes match by
// local name, whatever their namespace.
type envelope struct {
	Days []day `xml:"Cube>Cube"`
}

type day struct {
	Time  string `xml:"time,attr"`
	Rates []rate `xml:"Cube"`
}

type rate struct {
	Currency string `xml:"currency,attr"`
	Rate     string `xml:"rate,attr"`
}

// Parse reads one reference rates document (daily, 90-day or full history)
// into a list holding one Rates event, observed at observed. See the
// package comment for how each quirk of the format is read.
func Parse(body []byte, observed time.Time) (*ingest.List, error) {
	d := xml.NewDecoder(bytes.NewReader(body))
	root, err := rootElement(d)
	if err != nil {
		return nil, err
	}
	var env envelope
	if err := d.DecodeElement(&env, &root); err != nil {
		return nil, fmt.Errorf("decode ecb reference rates: %w", err)
	}
	if len(env.Days) == 0 {
		return nil, errors.New("ecb reference rates hold no day: no <Cube time=...> element")
	}
	newest := -1
	var newestDate time.Time
	for i, dy := range env.Days {
		if dy.Time == "" {
			return nil, fmt.Errorf("ecb reference rates: day %d has no time attribute", i+1)
		}
		t, err := time.Parse(time.DateOnly, dy.Time)
		if err != nil {
			return nil, fmt.Errorf("ecb reference rates: day %d: time %q is not a date (YYYY-MM-DD)", i+1, dy.Time)
		}
		switch {
		case newest < 0 || t.After(newestDate):
			newest, newestDate = i, t
		case t.Equal(newestDate):
			return nil, fmt.Errorf("ecb reference rates list %s twice", dy.Time)
		}
	}
	dy := env.Days[newest]
	if len(dy.Rates) == 0 {
		return nil, fmt.Errorf("ecb reference rates of %s hold no currency", dy.Time)
	}
	rates := make(map[string]string, len(dy.Rates))
	var (
		reasons []string // every currency not published, for the error
		skipped int      // those that could not be read
	)
	for _, r := range dy.Rates {
		code := r.Currency
		var why string
		unreadable := true
		_, known := contracts.CurrencyExponent(code)
		_, dup := rates[code]
		switch {
		case code == Base:
			why, unreadable = "is the base currency", false
		case !known && !isoCode(code):
			why = "is not a currency code"
		case !known:
			why, unreadable = "is not a currency this service knows", false
		case dup:
			why = "is listed twice; the first rate stands"
		default:
			if _, err := contracts.ParseRate(r.Rate); err != nil {
				why = fmt.Sprintf("rate %q: %v", r.Rate, err)
			}
		}
		if why != "" {
			reasons = append(reasons, fmt.Sprintf("%q %s", code, why))
			if unreadable {
				skipped++
			}
			continue
		}
		rates[code] = r.Rate
	}
	if len(rates) == 0 {
		return nil, fmt.Errorf("no usable rate in ecb reference rates of %s: %d skipped: %s", dy.Time, len(reasons), ingest.SkipSummary(reasons))
	}
	return &ingest.List{Rates: []contracts.Rates{{
		V: contracts.SchemaVersion, Kind: contracts.KindRates, Base: Base, Date: dy.Time,
		Rates: rates, ObservedAt: observed, Source: Name,
	}}, Skipped: skipped}, nil
}

// isoCode reports whether s is shaped like an ISO 4217 code: three
// upper-case letters. One that is, but unknown, is a currency this service
// does not publish; one that is not is a garbled attribute.
func isoCode(s string) bool {
	if len(s) != 3 {
		return false
	}
	for i := range len(s) {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

// rootElement returns the document's root element, or an error saying
// what arrived instead of an ECB envelope.
func rootElement(d *xml.Decoder) (xml.StartElement, error) {
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return xml.StartElement{}, errors.New("not ecb reference rates: no XML element in the body")
		}
		if err != nil {
			return xml.StartElement{}, fmt.Errorf("not ecb reference rates: the body is not XML: %w", err)
		}
		start, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if start.Name.Local != "Envelope" || start.Name.Space != gesmesNS {
			return xml.StartElement{}, fmt.Errorf("not ecb reference rates: the root element is <%s>, want <gesmes:Envelope> in namespace %s (an error page?)", qualified(start.Name), gesmesNS)
		}
		return start, nil
	}
}

// qualified writes a name as the document did as nearly as it can: the
// decoder has already swapped the prefix for its namespace.
func qualified(n xml.Name) string {
	if n.Space == "" || n.Space == eurofxrefNS {
		return n.Local
	}
	return n.Space + " " + n.Local
}
