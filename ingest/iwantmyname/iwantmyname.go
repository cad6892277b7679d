// Package iwantmyname reads the price list iwantmyname's own pricing page
// loads, page by page, without a key:
//
//	GET https://iwantmyname.com/Prices-getPrices.html?ajax=1&limit=500&offset=N&level=IWMN&currency=USD
//	X-Requested-With: XMLHttpRequest
//
//	{"totalRows":668,"rows":{".com":{"registration":{"price":"17.00"},
//	  "renewal":{"price":"17.00"},"transfer":{"price":"17.00"}}, ...}}
//
// What is KNOWN comes from public client code that reads this endpoint,
// github.com/hellouy/domainhub adapters/iwantmyname.ts (commit d8a62ef) and
// its notes in .monkeycode/docs/registrar-candidate-pool.md: the query
// (ajax=1, limit=500, offset, level=IWMN, the price level the site's page
// asks for, and currency=USD), the X-Requested-With header it sends, the
// "rows" object keyed by zone with a leading dot, each with
// registration.price, renewal.price and transfer.price, and "totalRows";
// the client advances the offset by the rows a page returned until
// totalRows are read, about 670 zones in all. The prices above are
// illustrative. Re-read for issue 22: the client reads nothing else of a
// row, so no regular price beside a sale price, no sale end date, no ICANN
// fee and no currency of a row is known. Everything else below is ASSUMED, and says so: nothing
// iwantmyname publishes documents this endpoint.
//
// Paging: pages are fetched one at a time, each from the offset after the
// rows read so far, until totalRows rows are read. Every page must agree on
// totalRows, a page with no rows before then means the list stopped early,
// and more than MaxPages pages means the server does not converge: each is
// an error, not a partial list, as is any page that fails. The requests are
// not conditional: each page's answer depends on the rows before it. Parse
// reads one saved page that holds every row, or a JSON array of every page
// in order, and refuses fewer rows than totalRows.
//
// How the format is read, decision by decision:
//
//   - Currency: US dollars, asked for with currency=USD; the rows do not
//     repeat it. Should a page ever name a "currency" other than USD, the
//     parameter was ignored and the page is refused (ASSUMED: no such field
//     is known).
//   - Tax is unknown (contracts.TaxUnknown): iwantmyname (ideegeo Group
//     Limited) is a New Zealand company, and nothing it publishes that this
//     package could read says whether GST or VAT is in these prices.
//   - Prices are read as decimals with money.Parse ("17.00", "2,060.23"), a
//     JSON number by its literal digits, never through a float. An
//     operation that is absent or null, or whose price is null, "", "n/a",
//     "-" or "-1", is not offered (ASSUMED: no live example of a missing
//     price is known). A zero registration or renewal is a missing one too
//     (nobody gives names away); a zero transfer is a free one. Any other
//     unreadable price makes the zone unusable: it is skipped rather than
//     published with an operation silently missing.
//   - One price per operation is known, no regular price beside it, so no
//     promotion is published (ASSUMED: a sale would show as the price).
//   - Each key is a zone of its own: second-level zones ("co.nz", "co.uk")
//     are priced as themselves. Keys are normalised with
//     contracts.NormalizeZone, so IDNs may come as Unicode or as A-labels;
//     a key that is not a zone is skipped. A key ending in "/" is how
//     Handshake names are written, not a DNS root zone: left out (ASSUMED:
//     no marker of iwantmyname's is known). A zone with no operation
//     offered, or only a free transfer, is left out.
//   - A page that is not one complete JSON object (truncated, an HTML page
//     served with 200), has no "rows" or no "totalRows", fails the fetch,
//     naming an "error" or "message" it carries (ASSUMED: the error shape
//     is not known). totalRows is read as a JSON number or a string of
//     digits, and "rows" may be [] on an empty page, as PHP encodes an
//     empty array (both ASSUMED).
//
// A row left out is withdrawn like a zone that left the list. A row skipped
// is counted in the list's Skipped and, when its key is a zone, keeps that
// zone's last good price (Keep). A zone listed twice (on two pages when the
// list shifted between requests, or as a Unicode key and its A-label) keeps
// its first listing; the other is skipped.
//
// # Fields
//
// The fields this package knows, read or deliberately ignored; any other
// is one it has never seen:
//
//   - a page: rows, totalRows (read); currency (read where present; an
//     ASSUMED name, never seen); error, message (an error, ASSUMED names).
//   - rows: one key per zone; a row: registration, renewal, transfer, each
//     with price (read).
package iwantmyname

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/kit"
)

// Name is the source's name and iwantmyname's registrar id.
const Name = "iwantmyname"

// DefaultURL is the price list iwantmyname's pricing page loads; Fetch adds
// the query.
const DefaultURL = "https://iwantmyname.com/Prices-getPrices.html"

// PageSize is the number of rows asked for per page, as the site's own page
// asks.
const PageSize = 500

// MaxPages is the most pages one fetch follows.
const MaxPages = 100

// currency is the currency asked for.
const currency = "USD"

// Declaration is the source, as the package comment reads it: what --sources
// registers, --file imports (Read) and its tests check; pages of rows keyed
// by zone, each operation's price in dollars.
func Declaration() *kit.Declaration {
	d := kit.Site(Name, "iwantmyname", "https://iwantmyname.com", DefaultURL, "iwantmyname price list", currency, &kit.Table{
		Prepare:  kit.SlashKey,
		Register: kit.Op{Price: "registration.price"}, Renew: kit.Op{Price: "renewal.price"},
		Transfer: kit.Op{Price: "transfer.price", ZeroFree: true}, NotOffered: kit.MinusOne,
	})
	d.Parse, d.Fetch, d.Pages, d.Shape = parse, fetchPages, true, format()
	return d
}

// pageURL is the address of the page of base starting at offset.
func pageURL(base string, offset int) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	q := u.Query()
	q.Set("ajax", "1")
	q.Set("limit", strconv.Itoa(PageSize))
	q.Set("offset", strconv.Itoa(offset))
	q.Set("level", "IWMN")
	q.Set("currency", currency)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// fetchPages reads every page, one at a time, keeping the first in
// first, and merges them, or fails as a whole.
func fetchPages(ctx context.Context, s *kit.Source, first *[]byte) (*ingest.List, error) {
	r := reader{d: s.Declaration(), observed: s.Now()}
	header := http.Header{"X-Requested-With": {"XMLHttpRequest"}, "Accept": {"application/json"}}
	for n := 1; ; n++ {
		if n > MaxPages {
			return nil, fmt.Errorf("iwantmyname price list has more than %d pages", MaxPages)
		}
		u, err := pageURL(s.URL(), r.rows)
		if err != nil {
			return nil, err
		}
		resp, err := s.Client().Do(ctx, fetch.Request{URL: u, Header: header})
		if err != nil {
			return nil, fmt.Errorf("fetch iwantmyname price list page %d: %w", n, err)
		}
		if n == 1 {
			*first = resp.Body
		}
		p, err := parsePage(resp.Body)
		if err == nil {
			err = r.add(p)
		}
		if err != nil {
			return nil, fmt.Errorf("iwantmyname price list page %d: %w", n, err)
		}
		if r.rows >= r.total {
			break
		}
		if len(p.rows) == 0 {
			return nil, fmt.Errorf("iwantmyname price list stopped after %d of %d rows", r.rows, r.total)
		}
	}
	return r.list()
}

// parse reads a saved price list, for an import from a file: one page that
// holds every row, or a JSON array of every page in order ([page1, page2,
// ...]). Fewer rows than totalRows is refused: importing part of the list
// would withdraw the zones on the missing pages.
func parse(d *kit.Declaration, body []byte, observed time.Time) (*ingest.List, error) {
	bodies, err := ingest.SavedPages(body, "iwantmyname price list")
	if err != nil {
		return nil, err
	}
	r := reader{d: d, observed: observed}
	for i, b := range bodies {
		p, err := parsePage(b)
		if err == nil {
			err = r.add(p)
		}
		if err != nil {
			return nil, fmt.Errorf("iwantmyname price list page %d: %w", i+1, err)
		}
	}
	if r.rows < r.total {
		return nil, fmt.Errorf("iwantmyname price list: the saved pages hold %d of %d rows; save every page, as a JSON array of the pages", r.rows, r.total)
	}
	return r.list()
}

// page is what one page body holds.
type page struct {
	rows  map[string]json.RawMessage
	total int
}

type response struct {
	Rows      json.RawMessage `json:"rows"`
	TotalRows json.RawMessage `json:"totalRows"`
	Currency  json.RawMessage `json:"currency"`
	Error     json.RawMessage `json:"error"`
	Message   json.RawMessage `json:"message"`
}

// parsePage decodes one page; it fails only when the page as a whole cannot
// be read.
func parsePage(body []byte) (*page, error) {
	var r response
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	if kit.IsNull(r.Rows) || kit.IsNull(r.TotalRows) {
		for _, said := range []json.RawMessage{r.Error, r.Message} {
			if !kit.IsNull(said) {
				return nil, fmt.Errorf("iwantmyname answered %.200s", bytes.TrimSpace(said))
			}
		}
		return nil, errors.New("page has no rows or no totalRows")
	}
	if !kit.IsNull(r.Currency) {
		var cur string
		if err := json.Unmarshal(r.Currency, &cur); err != nil || !strings.EqualFold(strings.TrimSpace(cur), currency) {
			return nil, fmt.Errorf("page priced in %.200s, not the %s asked for", r.Currency, currency)
		}
	}
	p := &page{}
	text, err := kit.DecimalText(r.TotalRows)
	if err == nil {
		p.total, err = strconv.Atoi(strings.TrimSpace(text))
	}
	if err != nil || p.total < 0 {
		return nil, fmt.Errorf("totalRows %.200s is not a count", r.TotalRows)
	}
	if rows := bytes.TrimSpace(r.Rows); rows[0] == '[' {
		var empty []json.RawMessage
		if err := json.Unmarshal(rows, &empty); err != nil || len(empty) > 0 {
			return nil, errors.New("rows is a list, not an object keyed by zone")
		}
		return p, nil
	}
	if err := json.Unmarshal(r.Rows, &p.rows); err != nil {
		return nil, fmt.Errorf("rows: %w", err)
	}
	return p, nil
}

// reader merges pages in order into one list.
type reader struct {
	d        *kit.Declaration
	observed time.Time
	t        ingest.Tally
	pages    int
	rows     int // rows read so far
	total    int // totalRows, which every page must agree on
}

// add reads one page's rows, in key order, after the pages before it.
func (r *reader) add(p *page) error {
	if r.pages > 0 && p.total != r.total {
		return fmt.Errorf("totalRows %d disagrees with the %d of the pages before", p.total, r.total)
	}
	r.pages++
	r.total = p.total
	r.rows += len(p.rows)
	keys := make([]string, 0, len(p.rows))
	for k := range p.rows {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, key := range keys {
		ps, err := r.d.PriceSet(key, p.rows[key], r.observed)
		r.t.Add(strconv.Quote(key), ps, err)
	}
	return nil
}

// list returns the merged list.
func (r *reader) list() (*ingest.List, error) {
	if r.rows == 0 {
		return nil, errors.New("iwantmyname price list has no zones")
	}
	return r.t.List("iwantmyname price list")
}
