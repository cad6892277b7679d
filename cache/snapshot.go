package cache

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Snapshot is an immutable, fully rendered view of the index at one data
// version. Requests read one snapshot from start to end, so a response never
// mixes two versions.
type Snapshot struct {
	// Version increases with every build.
	Version uint64
	// AsOf is the newest observed_at in the data.
	AsOf time.Time
	// Sources is the newest observed_at of each source's live prices: how
	// fresh each source is.
	Sources map[string]time.Time
	// Domains, Categories and ComparisonZones are the bodies of
	// /api/domains, /api/domains/categories and /api/comparison/zones.
	Domains, Categories, ComparisonZones *Body
	// Zones, Registrars and Prices count what the snapshot holds.
	Zones, Registrars, Prices int
	// BodyBytes is the size of the bodies rendered with the snapshot
	// (the catalog, categories and comparison zones); comparisons are
	// rendered when first asked for, and not counted.
	BodyBytes int64

	style  *style
	global time.Time        // when a change touching every zone (rates, the sample rule) was stored
	views  []*view          // priced zones by ASCII name
	byZone map[string]*view // by ASCII name
	lists  listCache        // catalog lists computed for options
}

// Comparison returns the /api/comparison body of a canonical zone (".co.uk").
func (s *Snapshot) Comparison(zone string) (*Body, bool) {
	v, ok := s.byZone[zone]
	if !ok {
		return nil, false
	}
	return v.comparison(), true
}

// Currency is the currency the snapshot's own bodies show prices in.
func (s *Snapshot) Currency() string { return s.style.currency }

// Converts reports whether the snapshot can show prices in currency.
func (s *Snapshot) Converts(currency string) bool {
	return currency == s.style.currency || s.style.table.Has(currency)
}

// Currencies lists the currencies the snapshot can show prices in.
func (s *Snapshot) Currencies() []string {
	codes := s.style.table.Currencies()
	if !slices.Contains(codes, s.style.currency) {
		codes = append(codes, s.style.currency)
		slices.Sort(codes)
	}
	return codes
}

// styleFor is the snapshot's style in currency ("" for its own), which
// must be one Converts accepts.
func (s *Snapshot) styleFor(currency string) *style {
	if currency == "" || currency == s.style.currency {
		return s.style
	}
	return s.style.in(currency)
}

// RenderComparison renders a zone's comparison with options. It reports
// false for a zone the snapshot does not price.
func (s *Snapshot) RenderComparison(zone string, o ComparisonOptions) (*Body, bool) {
	v, ok := s.byZone[zone]
	if !ok {
		return nil, false
	}
	if o.Sort == SortCost {
		o.Years = max(o.Years, 1)
	}
	st := s.styleFor(o.Currency)
	var keep func(string, taxCode) bool
	if len(o.Registrars) > 0 || len(o.Exclude) > 0 || o.Tax != "" {
		tax := taxCodeOf(o.Tax)
		keep = func(r string, t taxCode) bool {
			return (len(o.Registrars) == 0 || slices.Contains(o.Registrars, r)) && !slices.Contains(o.Exclude, r) &&
				(o.Tax == "" || t == tax)
		}
	}
	var sc scratch
	rows := st.rows(v, &sc, keep)
	sum := st.summarize(rows)
	if by := o.Sort; by != SortRegister && by != SortZone || o.Desc {
		st.sortRows(rows, by, o.Desc, o.Years)
	}
	return NewBody(st.renderComparison(v, rows, sum, o.Years), v.modified), true
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
	st := s.styleFor(o.Currency)
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
