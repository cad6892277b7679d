// Package onlydomains reads OnlyDomains' price page,
// https://www.onlydomains.com/domains/pricing: one HTML table, a row a
// zone, headed TLD, Country/Type, Min. Term, Price, Renewal, Transfer and
// Restore*, prices in Australian dollars written with a bare dollar sign
// as an entity ("&#36;13.49"), the zone a link (<a href="/domains/…">.ac.nz</a>).
//
// KNOWN, from a public client of this page, github.com/hellouy/domainhub
// adapters/onlydomains.ts (commit 69342a6): the URL; the columns in that
// order; prices are Australian dollars a year by default (the site also
// sells in EUR, GBP and USD); each price cell holds, beside "$X.XX", an
// integer copy of it for screen readers, which that client passes over by
// taking the one "$"-marked amount of the cell's markup; a few hundred
// zones; plain HTML.
//
// ASSUMED: the integer copy is an attribute or a word of its own ("$13.49
// 13"), so the cell's text shows the "$" amount whole; a copy run into it
// ("$9.999") has more digits than cents and skips the row rather than
// being rounded into a wrong price. The heading row is of <th> cells worded as above (read by
// name; another wording is drift, and a price column renamed fails every
// row, loudly). A bare "$" is the Australian dollar, the page's default:
// a visitor the site served in US dollars with the same mark could not be
// told apart, so the source asks with no currency and states AUD; any
// other mark ("€", "£", "US$") makes the row unreadable (skipped,
// counted, its last price kept). A cell with no "$" amount and a no-price
// text ("", "-", "n/a") is not offered; with two different "$" amounts
// the row is skipped (which is paid cannot be told). The price is for one
// year: a row whose Min. Term is more than one year is left out, since
// its price may be the whole term's; a Min. Term that does not start
// with a number skips the row. Restore and Country/Type are not read.
// A zero transfer is free. Tax: the page says nothing of GST (unknown).
package onlydomains

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/kit"
)

// Name is the source's name and OnlyDomains' registrar id.
const Name = "onlydomains"

// Declaration is the source, as the package comment reads it.
func Declaration() *kit.Declaration {
	return kit.Site(Name, "OnlyDomains", "https://www.onlydomains.com", "https://www.onlydomains.com/domains/pricing", "onlydomains price page", "AUD", &kit.Table{
		Format: kit.HTML, Rows: "table tr", Zone: "tld", Prepare: oneYear,
		Ignore:   []string{"country/type", "min. term", "restore*"},
		Register: kit.Op{Price: "price"}, Renew: kit.Op{Price: "renewal"}, Transfer: kit.Op{Price: "transfer", ZeroFree: true},
	})
}

// oneYear leaves out a zone sold for more than a year at least, and
// reads each price cell's one "$" amount.
func oneYear(r *kit.Row) error {
	cell := func(col string) string { s, _ := kit.String(r.Get(col)); return s }
	// A heading is read as it is written, dot and all.
	written, ok := kit.String(r.Get("min. term"))
	if !ok {
		return errors.New("no min. term")
	}
	term := strings.Fields(written)
	years, err := 0, errors.New("empty")
	if len(term) > 0 {
		years, err = strconv.Atoi(term[0])
	}
	switch {
	case err != nil || years < 1:
		return fmt.Errorf("min. term %q is not a number of years", written)
	case years > 1:
		return ingest.LeftOut(fmt.Sprintf("min. term %d years: the price may be the whole term's", years))
	}
	var prices prices
	for _, p := range []struct {
		col string
		to  *string
	}{{"price", &prices.Price}, {"renewal", &prices.Renewal}, {"transfer", &prices.Transfer}} {
		if *p.to, err = dollars(cell(p.col)); err != nil {
			return fmt.Errorf("%s: %w", p.col, err)
		}
	}
	part, err := json.Marshal(prices)
	r.Use(part)
	return err
}

// prices are a row's prices, each the amount its cell shows.
type prices struct {
	Price    string `json:"price"`
	Renewal  string `json:"renewal"`
	Transfer string `json:"transfer"`
}

// dollars is the one "$" amount of a cell, without its mark: the cell as
// it is when it has none (a no-price text, or another currency's mark,
// which the kit then refuses).
func dollars(cell string) (string, error) {
	var found string
	for _, f := range strings.Fields(cell) {
		amount, ok := strings.CutPrefix(f, "$")
		switch {
		case !ok:
		case found != "" && amount != found:
			return "", fmt.Errorf("%q shows two prices", cell)
		default:
			found = amount
		}
	}
	_, cents, _ := strings.Cut(found, ".")
	switch {
	case found == "" && strings.ContainsAny(cell, "0123456789"):
		return "", fmt.Errorf("%q shows no \"$\" amount", cell)
	case found == "":
		return cell, nil
	case len(cents) > 2:
		// The screen readers' copy run into the price ("$9.999"):
		// rounding it would be a wrong price.
		return "", fmt.Errorf("%q has more digits than cents", cell)
	}
	return found, nil
}
