package cache

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/zoneprice/zoneprice/contracts"
)

// renderDomains writes /api/domains from the zones' fragments.
func renderDomains(st *style, asOf time.Time, views []*view) []byte {
	size := 128
	for _, v := range views {
		size += len(v.fragment) + 1
	}
	b := make([]byte, 0, size)
	b = st.appendCatalogHead(b, asOf, len(views))
	b = append(b, `,"zones":[`...)
	for i, v := range views {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, v.fragment...)
	}
	return append(b, "]}"...)
}

// catalogEntry is one zone of a catalog being rendered with options.
type catalogEntry struct {
	v    *view
	sum  zoneSummary
	cost minimum
	has  bool  // a sort key exists
	key  int64 // the sort key, when it is a price
}

// RenderCatalog renders /api/domains with options; the body's Next is the
// cursor of the next page.
func (s *Snapshot) RenderCatalog(o CatalogOptions) *Body {
	if o.Sort == SortCost {
		o.Years = max(o.Years, 1)
	}
	st := s.style.in(o.Currency)
	recompute := st != s.style || o.Years > 0 || o.Tax != ""
	entries := s.catalogList(st, &o, recompute)
	count := len(entries)
	if c := o.After; c != nil {
		i, _ := slices.BinarySearchFunc(entries, c, func(e catalogEntry, c *Cursor) int {
			if compareEntries(o.Sort, o.Desc, e.has, e.key, e.v.zone.ASCII, c.Has, c.Value, c.Zone) <= 0 {
				return -1
			}
			return 1
		})
		entries = entries[i:]
	}
	next := ""
	if o.Limit > 0 && len(entries) > o.Limit {
		entries = entries[:o.Limit]
		last := entries[len(entries)-1]
		next = Cursor{Sort: o.Sort, Desc: o.Desc, Currency: st.currency, Years: o.Years, Has: last.has, Value: last.key, Zone: last.v.zone.ASCII}.String()
	}

	b := make([]byte, 0, 128+320*len(entries))
	b = st.appendCatalogHead(b, s.AsOf, count)
	if o.Limit > 0 {
		b = append(b, `,"next_cursor":`...)
		if next != "" {
			b = appendString(b, next)
		} else {
			b = append(b, "null"...)
		}
	}
	b = append(b, `,"zones":[`...)
	for i := range entries {
		if i > 0 {
			b = append(b, ',')
		}
		e := &entries[i]
		if recompute {
			b = append(b, st.renderFragment(e.v, &e.sum, o.Years, &e.cost)...)
		} else {
			b = append(b, e.v.fragment...)
		}
	}
	b = append(b, "]}"...)
	body := NewBody(b, s.Domains.Modified)
	body.Next = next
	return body
}

// maxLists bounds the catalog lists a snapshot remembers.
const maxLists = 32

// listCache remembers a snapshot's filtered and sorted catalog lists, so
// that the pages of one list, and lists that differ only in their limit, are
// cut from one computation. It is bounded: past maxLists it starts over.
type listCache struct {
	mu    sync.Mutex
	lists map[string][]catalogEntry
}

// catalogList returns the zones passing o's filters, in o's order, with
// their minimums (and costs) in st.
func (s *Snapshot) catalogList(st *style, o *CatalogOptions, recompute bool) []catalogEntry {
	key := strings.Join([]string{st.currency, strconv.Itoa(o.Years), o.Sort.String(), strconv.FormatBool(o.Desc),
		strings.Join(o.Categories, ","), o.Query, string(o.Tax)}, "\x00")
	s.lists.mu.Lock()
	entries, ok := s.lists.lists[key]
	s.lists.mu.Unlock()
	if ok {
		return entries
	}
	var sc scratch
	var keep func(string, taxCode) bool
	if o.Tax != "" {
		tax := taxCodeOf(o.Tax)
		keep = func(_ string, t taxCode) bool { return t == tax }
	}
	entries = make([]catalogEntry, 0, len(s.views))
	for _, v := range s.views {
		if !o.matches(v) {
			continue
		}
		e := catalogEntry{v: v, sum: v.summary}
		if recompute {
			rows := st.rows(v, &sc, keep)
			if len(rows) == 0 {
				continue // no registrar's prices pass the tax filter
			}
			e.sum = st.summarize(rows)
			if o.Years > 0 {
				e.cost = cheapestCost(st, rows, o.Years)
			}
		}
		e.key, e.has = e.sortKey(o.Sort)
		entries = append(entries, e)
	}
	slices.SortFunc(entries, func(a, b catalogEntry) int {
		return compareEntries(o.Sort, o.Desc, a.has, a.key, a.v.zone.ASCII, b.has, b.key, b.v.zone.ASCII)
	})
	s.lists.mu.Lock()
	if s.lists.lists == nil || len(s.lists.lists) >= maxLists {
		s.lists.lists = map[string][]catalogEntry{}
	}
	s.lists.lists[key] = entries
	s.lists.mu.Unlock()
	return entries
}

// matches reports whether a zone passes the catalog's filters.
func (o *CatalogOptions) matches(v *view) bool {
	if len(o.Categories) > 0 {
		if v.meta == nil || !slices.ContainsFunc(o.Categories, func(c string) bool { return slices.Contains(v.meta.Categories, c) }) {
			return false
		}
	}
	if o.Query != "" {
		return strings.Contains(v.zone.ASCII[1:], o.Query) || strings.Contains(strings.ToLower(v.zone.Unicode[1:]), o.Query)
	}
	return true
}

// sortKey is the price a zone sorts by, if it has one.
func (e *catalogEntry) sortKey(by Sort) (int64, bool) {
	switch by {
	case SortRegister, SortRenew, SortTransfer:
		m := e.sum.min[by-SortRegister]
		return m.price, m.ok
	case SortCost:
		return e.cost.price, e.cost.ok
	}
	return 0, true
}

// compareEntries orders catalog zones: by price (zones with one first),
// then by zone; by zone alone for SortZone. Desc reverses the price, or the
// zone for SortZone.
func compareEntries(by Sort, desc bool, hasA bool, keyA int64, zoneA string, hasB bool, keyB int64, zoneB string) int {
	if by == SortZone {
		c := strings.Compare(zoneA, zoneB)
		if desc {
			c = -c
		}
		return c
	}
	if hasA != hasB {
		if hasA {
			return -1
		}
		return 1
	}
	if hasA && keyA != keyB {
		c := cmp.Compare(keyA, keyB)
		if desc {
			c = -c
		}
		return c
	}
	return strings.Compare(zoneA, zoneB)
}

// cheapestCost is the lowest cost of owning a zone for years among rows
// that convert, ties to the registrar id first alphabetically.
func cheapestCost(st *style, rows []*row, years int) minimum {
	var best minimum
	for _, r := range rows {
		if !r.converted {
			continue
		}
		c, ok := st.cost(r, years)
		if ok && (!best.ok || c < best.price || (c == best.price && r.registrar < best.registrar)) {
			best = minimum{ok: true, price: c, registrar: r.registrar}
		}
	}
	return best
}

// renderFragment writes a zone's element of /api/domains; with a cost, the
// cost field too.
func (st *style) renderFragment(v *view, sum *zoneSummary, years int, cost *minimum) []byte {
	b := make([]byte, 0, 320)
	b = append(b, `{"zone":`...)
	b = appendString(b, v.zone.ASCII)
	b = append(b, `,"unicode":`...)
	b = appendString(b, v.zone.Unicode)
	b = appendMeta(b, v.meta)
	b = append(b, `,"registrars":`...)
	b = appendInt(b, int64(sum.registrars))
	b = append(b, `,"min":{`...)
	for _, op := range contracts.Ops {
		if op > 0 {
			b = append(b, ',')
		}
		b = appendString(b, op.String())
		b = append(b, ':')
		m := sum.min[op]
		if !m.ok {
			b = append(b, "null"...)
			continue
		}
		b = st.appendMinimum(b, "price", m)
	}
	b = append(b, '}')
	if years > 0 {
		b = append(b, `,"cost":{"years":`...)
		b = appendInt(b, int64(years))
		if cost.ok {
			b = contracts.AppendAmount(append(b, `,"price":`...), cost.price, st.exp)
			b = appendString(append(b, `,"registrar":`...), cost.registrar)
		} else {
			b = append(b, `,"price":null,"registrar":null`...)
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

// appendMinimum writes {"<field>":amount,"registrar":id}.
func (st *style) appendMinimum(b []byte, field string, m minimum) []byte {
	b = append(b, `{"`...)
	b = append(b, field...)
	b = append(b, `":`...)
	b = contracts.AppendAmount(b, m.price, st.exp)
	b = append(b, `,"registrar":`...)
	b = appendString(b, m.registrar)
	return append(b, '}')
}

// appendCatalogHead opens a /api/domains body up to its count.
func (st *style) appendCatalogHead(b []byte, asOf time.Time, count int) []byte {
	b = append(b, `{"currency":`...)
	b = appendString(b, st.currency)
	b = append(b, `,"as_of":`...)
	b = appendTime(b, asOf)
	b = st.appendRates(b)
	b = append(b, `,"count":`...)
	return appendInt(b, int64(count))
}

// CategoryName returns the display name of a category id: its name in
// contracts.Categories, or, for an id the service does not know, the id
// capitalised with spaces for hyphens.
func CategoryName(id string) string {
	if c, ok := contracts.CategoryByID(id); ok || id == "" {
		return c.Name
	}
	s := strings.ReplaceAll(id, "-", " ")
	r, size := utf8.DecodeRuneInString(s)
	return strings.ToUpper(string(r)) + s[size:]
}

// renderCategories writes /api/domains/categories: every category of the
// zones shown, with how many of them are in it.
func renderCategories(views []*view) []byte {
	counts := map[string]int{}
	for _, v := range views {
		if v.meta == nil {
			continue
		}
		for _, c := range v.meta.Categories {
			counts[c]++
		}
	}
	ids := make([]string, 0, len(counts))
	for id := range counts {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	b := make([]byte, 0, 64*len(ids)+32)
	b = append(b, `{"count":`...)
	b = appendInt(b, int64(len(ids)))
	b = append(b, `,"categories":[`...)
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = appendString(b, id)
		b = append(b, `,"name":`...)
		b = appendString(b, CategoryName(id))
		b = append(b, `,"zones":`...)
		b = appendInt(b, int64(counts[id]))
		b = append(b, '}')
	}
	return append(b, "]}"...)
}
