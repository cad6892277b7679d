package cache

import (
	"cmp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/zoneprice/zoneprice/contracts"
)

// Operations in the order every response lists them.
var opNames = [3]string{"register", "renew", "transfer"}

// row is one registrar's line in a comparison, with its prices resolved for
// the render time and converted to the index currency.
type row struct {
	registrar string
	fmtCache  *timeText // shared by a zone's rows
	entry     priceEntry
	native    [3]contracts.Price
	has       [3]bool
	converted bool     // every offered operation converted
	price     [3]int64 // converted minor units, valid where has && converted
}

// timeText remembers the last time formatted and its text.
type timeText struct {
	at   int64
	text []byte
}

// minimum is the cheapest converted price of one operation and who asks it.
type minimum struct {
	ok        bool
	price     int64
	registrar string
}

type zoneSummary struct {
	registrars int
	min        [3]minimum
}

// renderZone renders a zone's comparison body and its catalog fragment.
// scratch is a render worker's reusable buffers: a full render would
// otherwise allocate and drop a row slice for every zone.
type scratch struct {
	rows  []row
	order []*row
}

func (x *Index) renderZone(z *zoneEntry, now time.Time, sc *scratch) {
	z.expiry = time.Time{}
	if x.visible(z) == 0 {
		z.body, z.fragment, z.summary, z.asOf, z.sources = nil, nil, zoneSummary{}, 0, z.sources[:0]
		return
	}
	rows := sc.rows[:0]
	times := &timeText{}
	at := now.Unix()
	var asOf int64
	z.sources = z.sources[:0]
	for id, p := range z.prices {
		if !p.live || x.hidden(x.syms.name(id)) {
			continue
		}
		r := row{registrar: x.syms.name(id), entry: p, converted: true, fmtCache: times}
		for i := range p.ops {
			op := &p.ops[i]
			if !op.offered {
				continue
			}
			if op.hasPromo && op.promoEnd != 0 && op.promoEnd <= at {
				// The promotion ended: the zone changed then.
				z.modified = max(z.modified, op.promoEnd*int64(time.Second))
			}
			if op.promoRunning(at) && op.promoEnd != 0 {
				if end := time.Unix(op.promoEnd, 0).UTC(); z.expiry.IsZero() || end.Before(z.expiry) {
					z.expiry = end
				}
			}
			r.native[i] = contracts.Price{Amount: op.current(at), Currency: x.syms.name(p.currency)}
			r.has[i] = true
			c, ok := x.table.Convert(r.native[i], x.currency)
			if !ok {
				r.converted = false
				continue
			}
			r.price[i] = c.Amount
		}
		asOf = max(asOf, p.observed)
		z.sources = noteSource(z.sources, p.source, p.observed)
		rows = append(rows, r)
	}
	// Cheapest registration first, ties by registrar id; then see rank.
	// Rows are large; sort pointers to them.
	sc.rows = rows
	order := sc.order[:0]
	for i := range rows {
		order = append(order, &rows[i])
	}
	sc.order = order
	slices.SortFunc(order, func(a, b *row) int {
		if c := cmp.Compare(a.rank(), b.rank()); c != 0 {
			return c
		}
		if a.rank() == 0 && a.price[0] != b.price[0] {
			return cmp.Compare(a.price[0], b.price[0])
		}
		return strings.Compare(a.registrar, b.registrar)
	})
	var sum zoneSummary
	sum.registrars = len(rows)
	for _, r := range order {
		if !r.converted {
			continue
		}
		for op := range 3 {
			if r.has[op] && (!sum.min[op].ok || r.price[op] < sum.min[op].price) {
				sum.min[op] = minimum{ok: true, price: r.price[op], registrar: r.registrar}
			}
		}
	}
	z.summary = sum
	z.asOf = asOf
	z.body = NewBody(x.renderComparison(z, order, time.Unix(0, asOf).UTC(), now), modifiedTime(max(z.modified, x.global)))
	z.fragment = x.renderFragment(z)
}

func (x *Index) renderComparison(z *zoneEntry, rows []*row, asOf, now time.Time) []byte {
	b := make([]byte, 0, 256+220*len(rows))
	b = append(b, `{"zone":`...)
	b = appendString(b, z.zone.ASCII)
	b = append(b, `,"unicode":`...)
	b = appendString(b, z.zone.Unicode)
	b = append(b, `,"currency":`...)
	b = appendString(b, x.currency)
	b = append(b, `,"as_of":`...)
	b = appendTime(b, asOf)
	b = x.appendMeta(b, z)
	b = x.appendRates(b)
	b = append(b, `,"cheapest":{`...)
	for op := range 3 {
		if op > 0 {
			b = append(b, ',')
		}
		b = appendString(b, opNames[op])
		b = append(b, ':')
		if m := z.summary.min[op]; m.ok {
			b = appendString(b, m.registrar)
		} else {
			b = append(b, "null"...)
		}
	}
	b = append(b, `},"prices":[`...)
	for i := range rows {
		if i > 0 {
			b = append(b, ',')
		}
		b = x.appendRow(b, z, rows[i], now)
	}
	return append(b, "]}"...)
}

func (x *Index) appendRow(b []byte, z *zoneEntry, r *row, now time.Time) []byte {
	b = append(b, `{"registrar":`...)
	b = appendString(b, r.registrar)
	b = append(b, `,"source":`...)
	b = appendString(b, x.syms.name(r.entry.source))
	for op := range 3 {
		b = append(b, ',')
		b = appendString(b, opNames[op])
		b = append(b, ':')
		if r.has[op] && r.converted {
			b = contracts.AppendAmount(b, r.price[op], x.exp)
		} else {
			b = append(b, "null"...)
		}
	}
	b = append(b, `,"converted":`...)
	b = appendBool(b, r.converted)
	if cur := r.nativeCurrency(); cur != "" && cur != x.currency {
		exp, _ := contracts.CurrencyExponent(cur)
		b = append(b, `,"native":{"currency":`...)
		b = appendString(b, cur)
		for op := range 3 {
			b = append(b, ',')
			b = appendString(b, opNames[op])
			b = append(b, ':')
			if r.has[op] {
				b = contracts.AppendAmount(b, r.native[op].Amount, exp)
			} else {
				b = append(b, "null"...)
			}
		}
		b = append(b, '}')
	}
	b = x.appendPromos(b, r, now)
	b = append(b, `,"cheapest":[`...)
	first := true
	for op := range 3 {
		if m := z.summary.min[op]; m.ok && r.converted && r.has[op] && r.price[op] == m.price {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = appendString(b, opNames[op])
		}
	}
	b = append(b, `],"observed_at":`...)
	b = r.appendObserved(b)
	return append(b, '}')
}

// appendPromos writes the running promotions: the regular price the
// promotion replaces (converted when the row is) and when it ends.
func (x *Index) appendPromos(b []byte, r *row, now time.Time) []byte {
	first := true
	for i := range r.entry.ops {
		op := &r.entry.ops[i]
		if !op.offered || !op.promoRunning(now.Unix()) {
			continue
		}
		if first {
			b = append(b, `,"promo":{`...)
			first = false
		} else {
			b = append(b, ',')
		}
		b = appendString(b, opNames[i])
		b = append(b, `:{"regular":`...)
		regular := contracts.Price{Amount: op.regular, Currency: x.syms.name(r.entry.currency)}
		if c, ok := x.table.Convert(regular, x.currency); ok && r.converted {
			b = contracts.AppendAmount(b, c.Amount, x.exp)
		} else {
			exp, _ := contracts.CurrencyExponent(regular.Currency)
			b = contracts.AppendAmount(b, regular.Amount, exp)
		}
		b = append(b, `,"ends_at":`...)
		if op.promoEnd != 0 {
			b = appendTime(b, time.Unix(op.promoEnd, 0).UTC())
		} else {
			b = append(b, "null"...)
		}
		b = append(b, '}')
	}
	if !first {
		b = append(b, '}')
	}
	return b
}

// rank orders rows: registrations that compare (converted) first, then
// converted rows that do not offer registration, then rows whose currency has
// no rate.
func (r *row) rank() int {
	switch {
	case r.converted && r.has[0]:
		return 0
	case r.converted:
		return 1
	}
	return 2
}

// appendObserved writes the row's observed_at. Most rows of a zone share it
// (one ingest run), so the zone's rows share one formatting of it.
func (r *row) appendObserved(b []byte) []byte {
	if r.fmtCache.at != r.entry.observed || r.fmtCache.text == nil {
		r.fmtCache.at = r.entry.observed
		r.fmtCache.text = appendTime(r.fmtCache.text[:0], time.Unix(0, r.entry.observed).UTC())
	}
	return append(b, r.fmtCache.text...)
}

func (r *row) nativeCurrency() string {
	for op := range 3 {
		if r.has[op] {
			return r.native[op].Currency
		}
	}
	return ""
}

// appendMeta writes the zone's IANA type and categories; a zone without
// metadata has a null type and no categories.
func (x *Index) appendMeta(b []byte, z *zoneEntry) []byte {
	b = append(b, `,"type":`...)
	if z.meta != nil {
		b = appendString(b, z.meta.Type)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"categories":[`...)
	if z.meta != nil {
		for i, c := range z.meta.Categories {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, c)
		}
	}
	return append(b, ']')
}

// appendRates discloses the exchange rates conversions used.
func (x *Index) appendRates(b []byte) []byte {
	b = append(b, `,"rates":`...)
	if x.chosen == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"base":`...)
	b = appendString(b, x.table.Base)
	b = append(b, `,"date":`...)
	b = appendString(b, x.table.Date)
	b = append(b, `,"source":`...)
	b = appendString(b, x.table.Source)
	return append(b, '}')
}

func (x *Index) renderFragment(z *zoneEntry) []byte {
	b := make([]byte, 0, 320)
	b = append(b, `{"zone":`...)
	b = appendString(b, z.zone.ASCII)
	b = append(b, `,"unicode":`...)
	b = appendString(b, z.zone.Unicode)
	b = x.appendMeta(b, z)
	b = append(b, `,"registrars":`...)
	b = appendInt(b, int64(z.summary.registrars))
	b = append(b, `,"min":{`...)
	for op := range 3 {
		if op > 0 {
			b = append(b, ',')
		}
		b = appendString(b, opNames[op])
		b = append(b, ':')
		m := z.summary.min[op]
		if !m.ok {
			b = append(b, "null"...)
			continue
		}
		b = append(b, `{"price":`...)
		b = contracts.AppendAmount(b, m.price, x.exp)
		b = append(b, `,"registrar":`...)
		b = appendString(b, m.registrar)
		b = append(b, '}')
	}
	return append(b, "}}"...)
}

func (x *Index) renderDomains() []byte {
	size := 128
	for _, z := range x.sorted {
		size += len(z.fragment) + 1
	}
	b := make([]byte, 0, size)
	b = append(b, `{"currency":`...)
	b = appendString(b, x.currency)
	b = append(b, `,"as_of":`...)
	b = appendTime(b, x.asOf)
	b = x.appendRates(b)
	b = append(b, `,"count":`...)
	b = appendInt(b, int64(len(x.sorted)))
	b = append(b, `,"zones":[`...)
	for i, z := range x.sorted {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, z.fragment...)
	}
	return append(b, "]}"...)
}

func (x *Index) renderComparisonZones() []byte {
	b := make([]byte, 0, 64*len(x.sorted))
	n := 0
	for _, z := range x.sorted {
		if z.summary.registrars >= 2 {
			n++
		}
	}
	b = append(b, `{"count":`...)
	b = appendInt(b, int64(n))
	b = append(b, `,"zones":[`...)
	first := true
	for _, z := range x.sorted {
		if z.summary.registrars < 2 {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, `{"zone":`...)
		b = appendString(b, z.zone.ASCII)
		b = append(b, `,"unicode":`...)
		b = appendString(b, z.zone.Unicode)
		b = append(b, `,"registrars":`...)
		b = appendInt(b, int64(z.summary.registrars))
		b = append(b, '}')
	}
	return append(b, "]}"...)
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

func (x *Index) renderCategories() []byte {
	counts := map[string]int{}
	for _, z := range x.sorted {
		if z.meta == nil {
			continue
		}
		for _, c := range z.meta.Categories {
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
