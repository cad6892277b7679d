// Package gname reads Gname's public price list: POST
// https://www.gname.com/request/get_price, without a key, with a form body
// page=N&limit=L, page by page. One page looks like this:
//
//	{"code":1,"msg":"success","data":{"ymjg":[
//	  {"hz":".com","zcjg":"9.68","xfjg":"10.58","zrjg":"9.98"}, ...]}}
//
// The field names are pinyin initials: ymjg (域名价格) is the domain price
// list, hz (后缀) the zone, zcjg (注册价格) the registration price, xfjg
// (续费价格) the renewal price and zrjg (转入价格) the transfer-in price.
//
// What is KNOWN, from a public client of this endpoint,
// github.com/hellouy/domainhub adapters/gname.ts (commit 69342a6, "GName —
// 公开价目 POST API(分页)", which names the URL, the form and the fields):
// the request is a POST of an
// application/x-www-form-urlencoded body with page and limit, sent with
// X-Requested-With: XMLHttpRequest as the site's own script sends it; the
// answer is {code:1, data:{ymjg:[{hz, zcjg, zrjg, xfjg}]}}; prices are one
// year's, in US dollars; a page shorter than the limit asked for is the
// last. The form takes further optional filters (sou, lx, tj, hy, fz) that
// this package does not send, so every zone is listed. Re-read for issue
// 22: the client reads hz, zcjg, zrjg and xfjg of a row and nothing else
// (its code does not look at code or msg either): no original price beside
// a sale price, no sale end date, no ICANN fee and no currency is known.
//
// What is ASSUMED, decision by decision:
//
//   - Currency: the page states none, and no currency parameter of the
//     endpoint is known, so none can be asked for: every price is read as
//     US dollars, as the public client reads them.
//   - code other than 1 is an error envelope: the fetch fails, naming msg.
//     A page without data.ymjg fails too; data that is null or [] (PHP's
//     empty array) or a null ymjg is a page with no rows.
//   - Paging: pages are fetched one at a time, page 1 first, with limit
//     PerPage (default 100). The list ends at the first page with fewer
//     rows than the limit (an empty page included), as the public client
//     ends it. A server may answer a page past the end with the last page
//     again: a page that brings no zone not already read ends the list,
//     except when it is page 2, because page 2 repeating page 1 may as well
//     mean the server ignores the page asked for and the list goes on: that
//     is refused. No total is read (none is known), so a page that fails
//     in any way fails the whole fetch, never a partial list, and more than
//     MaxPages pages is an error. A row repeated across pages (the list
//     shifted between two requests) keeps its first listing; the later one
//     is skipped.
//   - Prices are decimal strings or JSON numbers (read by their literal
//     digits, never through a float), thousands separators allowed. "",
//     null, "n/a" or "-" means the operation is not offered. A zero
//     registration or renewal price means not offered too (nobody gives
//     names away); a zero transfer is a free transfer. A zone left with no
//     operation, or nothing but a free transfer, is not a zone Gname sells:
//     left out. Any other unreadable price skips the zone.
//   - hz is a zone, with or without its leading dot, normalised with
//     contracts.NormalizeZone (upper case, Unicode or A-label): "co.uk" is
//     priced as itself. Other fields of a row are not read.
//   - Gname marks no premium or non-ICANN names, and gives no sale price:
//     none is read.
//   - Tax: Gname says nothing about VAT or sales tax on these prices:
//     every price set says contracts.TaxUnknown.
//
// The request is a POST, so it is not conditional. Parse reads one saved
// page, taken as the whole list, or a JSON array of pages in order
// ([page1, page2, ...]); saved pages must end as a fetch ends, with a page
// shorter than the first (pages saved past it may only be empty or repeat
// rows already read), or they are refused: importing part of the list
// would withdraw the zones on the missing pages. A single saved page cannot
// show whether more followed it: it is taken as the whole list.
//
// A row left out is not a zone Gname sells: it is withdrawn like a zone
// that left the list. A row skipped could not be read: it is counted in the
// list's Skipped (zoneprice_ingest_rows_skipped_total, and the runner logs
// it), and when its zone was readable, that zone keeps its last good price
// (Keep).
//
// # Fields
//
// The fields this package knows, read or deliberately ignored; any other
// is one it has never seen:
//
//   - a page: code, msg, data (read); data: ymjg (read).
//   - a row: hz, zcjg, xfjg, zrjg (read).
package gname

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/kit"
	"github.com/zoneprice/zoneprice/ingest/rawjson"
)

// Name is the source's name and Gname's registrar id.
const Name = "gname"

// DefaultURL is Gname's price list endpoint.
const DefaultURL = "https://www.gname.com/request/get_price"

// DefaultPerPage is the number of rows asked for per page unless
// configured.
const DefaultPerPage = 100

// MaxPerPage is the most rows per page a Config may ask for.
const MaxPerPage = 1000

// MaxPages is the most pages one fetch follows.
const MaxPages = 100

// currency is the currency the list is read in; see the package comment.
const currency = "USD"

// declaration is the source, as the package comment reads it: pages of
// ymjg rows, hz the zone, zcjg, xfjg and zrjg its prices in dollars.
var declaration = kit.Declaration{
	Name: Name, Registrar: ingest.Registrar{ID: Name, Name: "Gname", Website: "https://www.gname.com"},
	Kind: contracts.SourceSite, URL: DefaultURL, What: "gname price list", Currency: currency, Tax: contracts.TaxUnknown,
	Table: &kit.Table{
		Zone:     "hz",
		Register: kit.Op{Price: "zcjg"}, Renew: kit.Op{Price: "xfjg"}, Transfer: kit.Op{Price: "zrjg", ZeroFree: true},
	},
	Parse: parse, Pages: true, Shape: format(),
}

// Config configures a Source.
type Config struct {
	// URL is the price list endpoint; empty means DefaultURL.
	URL string
	// PerPage is the limit asked for per page; zero means DefaultPerPage.
	PerPage int
}

// Validate reports a configuration that cannot work, naming the field
// (contracts.ValidationError).
func (c Config) Validate() error {
	if err := (kit.Config{URL: c.URL}).Validate(); err != nil {
		return err
	}
	if c.PerPage < 0 || c.PerPage > MaxPerPage {
		return contracts.Invalid("PerPage", "%d is not between 1 and %d", c.PerPage, MaxPerPage)
	}
	return nil
}

// Source fetches Gname's price list, page by page.
type Source = kit.Source

// New returns a Source that fetches with client and stamps what it observes
// with now() (time.Now when nil).
func New(cfg Config, client *fetch.Client, now func() time.Time) (*Source, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	d := declaration
	perPage := cfg.PerPage
	if perPage == 0 {
		perPage = DefaultPerPage
	}
	d.Fetch = func(ctx context.Context, s *kit.Source, first *[]byte) (*ingest.List, error) {
		return fetchPages(ctx, s, perPage, first)
	}
	return kit.New(&d, kit.Config{URL: cfg.URL}, client, now)
}

// Parse reads a saved price list (parse) with the drift of its first page
// from format.
func Parse(body []byte, observed time.Time) (*ingest.List, error) {
	return declaration.Read(body, observed)
}

// fetchPages reads the pages one after another, keeping the first in
// first, and merges them, or fails as a whole.
func fetchPages(ctx context.Context, s *kit.Source, perPage int, first *[]byte) (*ingest.List, error) {
	observed := s.Now()
	header := http.Header{
		"Content-Type":     {"application/x-www-form-urlencoded"},
		"Accept":           {"application/json"},
		"X-Requested-With": {"XMLHttpRequest"},
	}
	acc := accumulator{d: s.Declaration()}
	for page := 1; ; page++ {
		if page > MaxPages {
			return nil, fmt.Errorf("gname price list has more than %d pages", MaxPages)
		}
		form := url.Values{"page": {strconv.Itoa(page)}, "limit": {strconv.Itoa(perPage)}}
		resp, err := s.Client().Do(ctx, fetch.Request{
			Method: http.MethodPost, URL: s.URL(), Header: header, Body: []byte(form.Encode()),
		})
		if err != nil {
			return nil, fmt.Errorf("fetch gname price list page %d: %w", page, err)
		}
		if page == 1 {
			*first = resp.Body
		}
		rows, err := decodePage(resp.Body)
		if err != nil {
			return nil, fmt.Errorf("gname price list page %d: %w", page, err)
		}
		done, err := acc.add(page, rows, perPage, observed)
		if err != nil {
			return nil, err
		}
		if done {
			return acc.t.List("gname price list")
		}
	}
}

// parse reads a saved price list, for an import from a file: one page,
// taken as the whole list, or a JSON array of every page in order. Saved
// pages that end with a page as long as the first are refused: the list
// may go on.
func parse(d *kit.Declaration, body []byte, observed time.Time) (*ingest.List, error) {
	bodies, err := ingest.SavedPages(body, "gname price list")
	if err != nil {
		return nil, err
	}
	var (
		acc   = accumulator{d: d}
		limit int
		ended int // the page that ended the list; 0 while it goes on
	)
	for i, b := range bodies {
		page := i + 1
		rows, err := decodePage(b)
		if err != nil {
			return nil, fmt.Errorf("gname price list page %d: %w", page, err)
		}
		if ended > 0 {
			// Pages saved past the end may be empty or repeat the last.
			if acc.fresh(keysOf(rows)) > 0 {
				return nil, fmt.Errorf("gname price list: saved page %d ends the list, yet page %d brings more rows", ended, page)
			}
			continue
		}
		switch {
		case len(bodies) == 1:
			limit = len(rows) + 1 // one page is the whole list
		case page == 1:
			limit = len(rows) // the first page's length is the limit it was asked with
		}
		done, err := acc.add(page, rows, limit, observed)
		if err != nil {
			return nil, err
		}
		if done {
			ended = page
		}
	}
	if ended == 0 {
		return nil, fmt.Errorf("gname price list: the saved pages end with page %d, as long as the first; save pages until one holds fewer rows", len(bodies))
	}
	return acc.t.List("gname price list")
}

// decodePage returns the rows of one page, or why the page as a whole
// cannot be read.
func decodePage(body []byte) ([]json.RawMessage, error) {
	var r struct {
		Code json.RawMessage `json:"code"`
		Msg  json.RawMessage `json:"msg"`
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	if code := strings.Trim(string(bytes.TrimSpace(r.Code)), `"`); code != "1" {
		var msg string
		_ = json.Unmarshal(r.Msg, &msg)
		if kit.IsNull(r.Code) {
			return nil, fmt.Errorf("page has no code (msg %q)", msg)
		}
		return nil, fmt.Errorf("gname answered code %s: %q", kit.Snippet(r.Code), msg)
	}
	if data := bytes.TrimSpace(r.Data); kit.IsNull(data) || bytes.Equal(data, []byte("[]")) {
		return nil, nil
	}
	var data struct {
		Ymjg json.RawMessage `json:"ymjg"`
	}
	if err := json.Unmarshal(r.Data, &data); err != nil {
		return nil, fmt.Errorf("data %s is not an object", kit.Snippet(r.Data))
	}
	if len(data.Ymjg) == 0 {
		return nil, errors.New("page has no ymjg list")
	}
	if kit.IsNull(data.Ymjg) {
		return nil, nil
	}
	// The page decoded above, so the list is valid JSON: its rows are
	// found by scanning it rather than by decoding it a third time.
	var rows []json.RawMessage
	if !rawjson.EachElem(data.Ymjg, func(v []byte) { rows = append(rows, v) }) {
		return nil, fmt.Errorf("ymjg %s is not a list", kit.Snippet(data.Ymjg))
	}
	return rows, nil
}

// accumulator merges pages into one list.
type accumulator struct {
	d    *kit.Declaration
	t    ingest.Tally
	seen map[string]bool // the hz of every row read, as written
}

// add reads one page's rows and reports whether the list ends with it:
// an empty page, one shorter than limit, or one that only repeats rows
// already read. Page 2 repeating page 1 is an error: the server may be
// ignoring the page asked for.
func (a *accumulator) add(page int, rows []json.RawMessage, limit int, observed time.Time) (bool, error) {
	if a.seen == nil {
		a.seen = map[string]bool{}
	}
	if len(rows) == 0 {
		return true, nil
	}
	keys := keysOf(rows) // each row's key, read once
	if a.fresh(keys) == 0 {
		if page == 2 {
			return false, errors.New("gname price list page 2 repeats page 1: the server may be ignoring the page asked for, and the list may go on")
		}
		return true, nil // a page past the end, answered with the last page again
	}
	for i, raw := range rows {
		key := keys[i]
		a.seen[key] = true
		ps, err := a.d.PriceSet("", raw, observed)
		label := "" // only a row not priced is named
		if err != nil {
			label = fmt.Sprintf("page %d row %d (%s)", page, i+1, key)
		}
		a.t.Add(label, ps, err)
	}
	return len(rows) < limit, nil
}

// fresh counts the rows, by their keys, not read before.
func (a *accumulator) fresh(keys []string) int {
	n := 0
	for _, key := range keys {
		if !a.seen[key] {
			n++
		}
	}
	return n
}

// keysOf is each row's rowKey.
func keysOf(rows []json.RawMessage) []string {
	keys := make([]string, len(rows))
	for i, raw := range rows {
		keys[i] = rowKey(raw)
	}
	return keys
}

// rowKey names a row by its hz as written, or by the whole row when it has
// none, to tell a page of rows already read.
func rowKey(raw json.RawMessage) string {
	hz := kit.Get(raw, "hz")
	if s, ok := kit.String(hz); ok {
		return strconv.Quote(strings.ToLower(s))
	}
	if hz != nil && kit.IsNull(hz) {
		return `""` // null decodes as the empty string
	}
	return kit.Snippet(raw)
}
