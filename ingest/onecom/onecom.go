// Package onecom reads one.com's domain price page,
// https://www.one.com/en/domain/domain-prices: a Next.js App Router page
// whose prices are not in its markup's tables but in the React Server
// Components data the page pushes to self.__next_f (flight.go reads it), as
// objects naming a zone and its first-year and renewal prices:
//
//	{"tld":".xyz","firstYearPrice":0.99,"renewalPrice":19.99}
//
// What is KNOWN, from the one public reader of this page,
// github.com/hellouy/domainhub adapters/onecom.ts (commit 55f6bea, its only
// version): the page is fetched with a plain GET (Accept: text/html) and no
// browser; it is a Next.js App Router page whose prices come streamed in
// self.__next_f, each zone an object with "tld" (with or without its leading
// dot), then "firstYearPrice", then "renewalPrice", both JSON numbers; the
// reader takes a zone's first listing and ignores repeats; it reads no
// transfer price. That reader finds the objects with regular expressions
// over the page's text, escaped or not; this package parses the stream
// instead (flight.go) and reads every object of its JSON that has a "tld"
// and one of the two prices, wherever in the component tree it is. The same
// project never got prices this way: its .monkeycode/MEMORY.md (commit
// 0018074, 2026-10-07) lists onecom among the adapters with no prices,
// measured as a single-page app or 403, and its candidate pool (search
// index id 70111431896) says "embedded-json fetch failed". Its later
// adapters/one.ts (commit e99b893) reads one.com's REST prices per country
// (?country=GB, in pounds, registration only).
//
// What is ASSUMED:
//
//   - The prices are US dollars: the reader says so and reads no currency.
//     An object's own "currency" (none is known) is read where present.
//     one.com prices by the visitor's country (one.ts above), so the
//     currency of this page as the ingester sees it is not known: the
//     first real capture must confirm it.
//   - firstYearPrice is the registration a customer pays for the first
//     year and renewalPrice each year after: the first is published as the
//     registration's price (not as a promotion: no regular registration
//     price is known to compare it with), the second as the renewal's. A
//     zero is no price; a null or absent one is not offered.
//   - A zone listed again with the very same prices (a list rendered by two
//     components) is one listing; listed again with other prices it is
//     skipped, named.
//   - Tax: the page is not known to say: unknown.
//   - An object's fields other than tld, firstYearPrice, renewalPrice and
//     currency are drift: the first real page read names them.
//
// # Fields
//
//   - the stream: rows of JSON (read, every value walked) and of text (not
//     read); pushes of kinds other than 1 (not read).
//   - a price object: tld, firstYearPrice, renewalPrice (read); currency
//     (read where present, ASSUMED, never seen).
package onecom

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/kit"
)

// Name is the source's name and one.com's registrar id.
const Name = "onecom"

// Declaration is the source, as the package comment reads it.
func Declaration() *kit.Declaration {
	d := kit.Site(Name, "one.com", "https://www.one.com", "https://www.one.com/en/domain/domain-prices", "onecom price page", "USD", &kit.Table{
		Zone: "tld", Currency: "currency",
		Register: kit.Op{Price: "firstYearPrice"}, Renew: kit.Op{Price: "renewalPrice"},
	})
	d.Request, d.Parse = kit.Request{Header: http.Header{"Accept": {"text/html"}}}, parse
	return d
}

// known are a price object's fields this package knows.
var known = []string{"currency", "firstYearPrice", "renewalPrice", "tld"}

// parse reads the price objects of a page's flight stream.
func parse(d *kit.Declaration, body []byte, observed time.Time) (*ingest.List, error) {
	values, err := flightValues(body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.What, err)
	}
	var objects []json.RawMessage
	for _, v := range values {
		if objects, err = priceObjects(v, objects); err != nil {
			return nil, fmt.Errorf("%s: %w", d.What, err)
		}
	}
	if len(objects) == 0 {
		return nil, fmt.Errorf("%s: its flight data has no object with a tld and a price", d.What)
	}
	var t ingest.Tally
	first := map[string]json.RawMessage{} // a zone's first listing, by tld as written
	for i, raw := range objects {
		tld, _ := kit.String(kit.Get(raw, "tld"))
		if earlier, ok := first[tld]; ok && bytes.Equal(earlier, raw) {
			continue // the same listing, rendered twice
		} else if !ok {
			first[tld] = raw
		}
		ps, err := d.PriceSet("", raw, observed)
		label := strconv.Quote(tld)
		if tld == "" {
			label = fmt.Sprintf("object %d", i+1)
		}
		t.Add(label, ps, err)
	}
	list, err := t.List(d.What)
	if err != nil {
		return nil, err
	}
	list.Drift = drift(objects[0])
	return list, nil
}

// priceObjects appends to out every object within the JSON value v that
// has a "tld" and a first-year or renewal price, each as JSON (numbers as
// their literal digits).
func priceObjects(v json.RawMessage, out []json.RawMessage) ([]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return out, fmt.Errorf("a flight row is not JSON: %w", err)
	}
	if len(bytes.TrimSpace(v[dec.InputOffset():])) > 0 {
		return out, fmt.Errorf("a flight row has more than one JSON value: %.40q", v)
	}
	var walk func(any) error
	walk = func(n any) error {
		switch n := n.(type) {
		case []any:
			for _, e := range n {
				if err := walk(e); err != nil {
					return err
				}
			}
		case map[string]any:
			_, year := n["firstYearPrice"]
			_, renew := n["renewalPrice"]
			if _, ok := n["tld"]; ok && (year || renew) {
				raw, err := json.Marshal(n)
				out = append(out, raw)
				return err
			}
			for _, k := range slices.Sorted(maps.Keys(n)) {
				if err := walk(n[k]); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return out, walk(tree)
}

// drift is how the first price object differs from what the package knows.
func drift(first json.RawMessage) *ingest.Drift {
	var d ingest.Drift
	var fields map[string]json.RawMessage
	_ = json.Unmarshal(first, &fields)
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		if !slices.Contains(known, k) {
			d.Unknown = append(d.Unknown, "tld[]."+k)
		}
	}
	for _, k := range []string{"firstYearPrice", "renewalPrice"} {
		if _, ok := fields[k]; !ok {
			d.Missing = append(d.Missing, "tld[]."+k)
		}
	}
	return &d
}
