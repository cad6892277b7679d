// Package gandi reads Gandi's list of zones and their prices, a table served
// in pages, https://www.gandi.net/en/domain/tld?page=N: rows naming a zone
// (".com") and then its prices for registration, renewal and transfer, in
// that order, about 50 rows a page.
//
// What is KNOWN, from the one public reader of this page,
// github.com/hellouy/domainhub adapters/gandi.ts (commit 55f6bea, the
// version its mirror holds), through adapters/shared/table-adapter.ts: the
// pages are server-rendered and fetched with a plain GET (Accept: text/html),
// no browser, one after another from page=1; the list ends at the first page
// whose table has no zone's row (the reader's own words: more reliable than
// the "next page" link), at most 25 pages; each row is read from the first
// cell that looks like a zone (a leading dot, a badge word after it
// dropped) and the cells after it, register, renew and transfer; a zone
// seen on an earlier page is not read again. The reader names USD but reads
// no mark: it strips every character but digits, separators and spaces.
// Gandi's price API (api.gandi.net/v5/domain/tlds) needs a key: not used.
// The same project's .monkeycode/docs/registrar-candidate-pool.md (search
// index id 70111431896, checked 2026-09-28) found the server-rendered page
// gives only 42 rows and no price request, and the API answers 401.
//
// What is ASSUMED:
//
//   - The currency is each price's own mark ("€17.26", "$19.50"): Gandi
//     shows the visitor's currency, so no currency is fixed, and a price
//     without a mark skips its row, named. A cell with two amounts (a
//     promotion beside its regular price, "Promo €17.26 €11.99" as later
//     pages write it) skips its row too: which a customer pays is not
//     known for this page.
//   - The columns are read by position: zone, register, renew, transfer;
//     later cells are not read. Their headings are a guess; any other shows
//     as unknown drift on the first real page read. The zone is alone in
//     the first cell; a row whose first cell does not start with "." is a
//     heading's or a note's: left out. "",
//     "-" or "n/a" is not offered; a zero registration or renewal is no
//     price, a zero transfer a free one.
//   - The end of the list: a page with no table row, or whose rows name no
//     zone, or that repeats zones earlier pages listed (a page number past
//     the end answered with the last page) ends it. A page whose zone rows
//     cannot be read fails the round, as does any page that cannot be had
//     (a 404 included: the reader stops on it, but it is not known to mean
//     the end), and more than MaxPages pages.
//   - Tax: not known: unknown.
//
// Pages are fetched one at a time, each conditionally. A saved list (what
// --file imports) is a JSON array of the pages' HTML as strings, in order,
// or one page, taken as the whole list.
//
// # Fields
//
// The table's columns, by position: zone, register, renew, transfer (read);
// headings ASSUMED "extension", "registration", "renewal", "transfer"
// (known, not read).
package gandi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/kit"
)

// Name is the source's name and Gandi's registrar id.
const Name = "gandi"

// MaxPages is the most pages one fetch follows: twice the zones Gandi sells
// at about 50 a page.
const MaxPages = 60

// Declaration is the source, as the package comment reads it.
func Declaration() *kit.Declaration {
	d := kit.Site(Name, "Gandi", "https://www.gandi.net", "https://www.gandi.net/en/domain/tld", "gandi price pages", "", &kit.Table{
		Format: kit.HTML, Rows: "table tr", Zone: "0", Symbols: true, Prepare: kit.DottedZone,
		Register: kit.Op{Price: "1"}, Renew: kit.Op{Price: "2"}, Transfer: kit.Op{Price: "3", ZeroFree: true},
		Ignore: []string{"extension", "registration", "renewal", "transfer"},
	})
	d.Pages, d.Fetch, d.Parse = true, fetchPages, parse
	return d
}

// fetchPages fetches page after page until the list ends, keeping the
// first in first.
func fetchPages(ctx context.Context, s *kit.Source, first *[]byte) (*ingest.List, error) {
	d := s.Declaration()
	return readPages(d, s.Now(), func(n int) ([]byte, bool, error) {
		u, err := url.Parse(s.URL())
		if err != nil {
			return nil, false, err
		}
		q := u.Query()
		q.Set("page", strconv.Itoa(n))
		u.RawQuery = q.Encode()
		resp, err := s.Get(ctx, u.String(), d.Request)
		if err != nil {
			return nil, false, fmt.Errorf("fetch %s, page %d: %w", d.What, n, err)
		}
		if n == 1 {
			*first = resp.Body
		}
		return resp.Body, true, nil
	})
}

// parse reads saved pages: a JSON array of their HTML, or one page.
func parse(d *kit.Declaration, body []byte, observed time.Time) (*ingest.List, error) {
	pages := []string{string(body)}
	if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '[' {
		if err := json.Unmarshal(t, &pages); err != nil || len(pages) == 0 {
			return nil, fmt.Errorf("%s: saved pages are no JSON array of pages: %v", d.What, err)
		}
	}
	return readPages(d, observed, func(n int) ([]byte, bool, error) {
		if n > len(pages) {
			return nil, false, nil
		}
		return []byte(pages[n-1]), true, nil
	})
}

// readPages reads the pages page(1), page(2), ... into one list, until one
// ends it (see the package comment) or page says there are no more.
func readPages(d *kit.Declaration, observed time.Time, page func(n int) ([]byte, bool, error)) (*ingest.List, error) {
	var (
		prices  []contracts.PriceSet
		seen    = map[string]bool{}
		keep    = map[string]bool{}
		skipped int
		outside []ingest.Skip
	)
pages:
	for n := 1; ; n++ {
		if n > MaxPages {
			return nil, fmt.Errorf("%s: more than %d pages", d.What, MaxPages)
		}
		body, ok, err := page(n)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		var t ingest.Tally
		_, err = d.AddRows(&t, body, observed)
		if errors.Is(err, kit.ErrNoRows) && n > 1 {
			break // a page past the end
		}
		if err != nil {
			return nil, fmt.Errorf("%s, page %d: %w", d.What, n, err)
		}
		l, err := t.List(d.What)
		switch {
		case err != nil && t.Skipped() == 0 && n > 1:
			break pages // rows, but none of a zone
		case err != nil:
			return nil, fmt.Errorf("page %d: %w", n, err)
		case n > 1 && !slices.ContainsFunc(l.Prices, func(p contracts.PriceSet) bool { return !seen[p.Zone] }):
			break pages // the zones of earlier pages again
		}
		for _, p := range l.Prices {
			if seen[p.Zone] {
				skipped++ // listed on two pages: the list moved between them
				keep[p.Subject()] = true
				continue
			}
			seen[p.Zone] = true
			prices = append(prices, p)
		}
		for _, k := range l.Keep {
			keep[k] = true
		}
		skipped += l.Skipped
		outside = append(outside, l.Outside...)
	}
	if len(prices) == 0 {
		return nil, fmt.Errorf("%s: no saved page", d.What)
	}
	slices.SortFunc(prices, func(a, b contracts.PriceSet) int { return strings.Compare(a.Zone, b.Zone) })
	return &ingest.List{Prices: prices, Keep: ingest.KeepSubjects(keep, prices), Skipped: skipped, Outside: outside}, nil
}
