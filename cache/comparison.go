package cache

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
)

// comparison returns the zone's /api/comparison body, rendering it on the
// first call. Every pod renders the same bytes whenever it does: the
// style, and so the moment promotions are judged at, is the build's.
func (v *view) comparison() *Body {
	v.bodyOnce.Do(func() {
		var sc scratch
		rows := v.style.rows(v, &sc, nil)
		sum := v.style.summarize(rows)
		v.body = NewBody(v.style.renderComparison(v, rows, sum, 0), v.modified)
	})
	return v.body
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
	st := s.style.in(o.Currency)
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

// scratch is a render worker's reusable buffers: a full render would
// otherwise allocate and drop a row slice for every zone.
type scratch struct {
	rows  []row
	order []*row
}

// row is one registrar's line in a comparison, with its prices resolved for
// the render time and converted to the style's currency.
type row struct {
	registrar string
	fmtCache  *timeText // shared by a zone's rows
	entry     priceEntry
	native    [contracts.NumOps]contracts.Price
	has       [contracts.NumOps]bool
	converted bool                    // every offered operation converted
	price     [contracts.NumOps]int64 // converted minor units, valid where has && converted
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
	min        [contracts.NumOps]minimum
}

// rows resolves a view's prices, those keep admits (all for nil), into
// rows in the style: the price paid at the render time, converted. The
// rows live in sc until its next use.
func (st *style) rows(v *view, sc *scratch, keep func(registrar string, tax taxCode) bool) []*row {
	rows := sc.rows[:0]
	times := &timeText{}
	for _, e := range v.prices {
		id, p := e.reg, e.priceEntry
		if !p.live || st.hidden(id) {
			continue
		}
		name := st.name(id)
		if keep != nil && !keep(name, p.tax) {
			continue
		}
		r := row{registrar: name, entry: p, converted: true, fmtCache: times}
		for op := range p.ops {
			o := &p.ops[op]
			if !o.offered {
				continue
			}
			r.native[op] = contracts.Price{Amount: o.current(st.now), Currency: st.name(p.currency)}
			r.has[op] = true
			c, ok := st.table.Convert(r.native[op], st.currency)
			if !ok {
				r.converted = false
				continue
			}
			r.price[op] = c.Amount
		}
		rows = append(rows, r)
	}
	sc.rows = rows
	// Rows are large; sort pointers to them.
	order := sc.order[:0]
	for i := range rows {
		order = append(order, &rows[i])
	}
	sc.order = order
	return order
}

// summarize sorts rows in the default order (cheapest registration first)
// and finds the cheapest converted price of each operation (minimums).
func (st *style) summarize(rows []*row) zoneSummary {
	st.sortRows(rows, SortRegister, false, 0)
	return st.minimums(rows)
}

// minimums finds the cheapest converted price of each operation; a tie
// goes to the row the default order lists first, in whatever order rows
// are. A build needs only these of a zone's rows: one pass instead of a
// sort, whose pointer swaps a collection running at the end of a replay
// slowed (BenchmarkBuildFull; `make bench`'s catch-up).
func (st *style) minimums(rows []*row) zoneSummary {
	sum := zoneSummary{registrars: len(rows)}
	var first [contracts.NumOps]*row
	for _, r := range rows {
		if !r.converted {
			continue
		}
		for _, op := range contracts.Ops {
			m := &sum.min[op]
			if r.has[op] && (!m.ok || r.price[op] < m.price || r.price[op] == m.price && st.compareRows(r, first[op], SortRegister, false, 0) < 0) {
				*m, first[op] = minimum{ok: true, price: r.price[op], registrar: r.registrar}, r
			}
		}
	}
	return sum
}

// sortRows orders a comparison (compareRows).
func (st *style) sortRows(rows []*row, by Sort, desc bool, years int) {
	slices.SortFunc(rows, func(a, b *row) int { return st.compareRows(a, b, by, desc, years) })
}

// compareRows is a comparison's order. By an operation's price (the
// default is registration): rows with a comparable price cheapest first
// (dearest with desc), then converted rows without the operation, then
// rows whose currency has no rate. By cost, rows with a cost first. By
// registrar, by id. Ties always by registrar id, ascending.
func (st *style) compareRows(a, b *row, by Sort, desc bool, years int) int {
	if by == SortRegistrar {
		c := strings.Compare(a.registrar, b.registrar)
		if desc {
			c = -c
		}
		return c
	}
	ka, oka := st.rowKey(a, by, years)
	kb, okb := st.rowKey(b, by, years)
	if c := cmp.Compare(a.rank(oka), b.rank(okb)); c != 0 {
		return c
	}
	if oka && okb && ka != kb {
		if desc {
			return cmp.Compare(kb, ka)
		}
		return cmp.Compare(ka, kb)
	}
	return strings.Compare(a.registrar, b.registrar)
}

// rowKey is the converted amount a row sorts by, and whether it has one.
func (st *style) rowKey(r *row, by Sort, years int) (int64, bool) {
	switch by {
	case SortRenew:
		return r.price[contracts.OpRenew], r.converted && r.has[contracts.OpRenew]
	case SortTransfer:
		return r.price[contracts.OpTransfer], r.converted && r.has[contracts.OpTransfer]
	case SortCost:
		if c, ok := st.cost(r, max(years, 1)); ok && r.converted {
			return c, true
		}
		return 0, false
	}
	return r.price[contracts.OpRegister], r.converted && r.has[contracts.OpRegister]
}

// rank puts rows with the sort key first, then converted rows without
// it, then rows that could not be converted.
func (r *row) rank(ok bool) int {
	switch {
	case ok:
		return 0
	case r.converted:
		return 1
	}
	return 2
}

// cost is what owning the zone for years costs with this row: the first
// year's registration at the price paid now (a promotion included) plus
// years-1 renewals at the regular renewal price, never a promotional one,
// summed in the registrar's currency and converted once.
func (st *style) cost(r *row, years int) (int64, bool) {
	if !r.has[contracts.OpRegister] || (years > 1 && !r.has[contracts.OpRenew]) {
		return 0, false
	}
	total := r.native[contracts.OpRegister].Amount
	if years > 1 {
		// Amounts are not negative; a sum past int64 has no cost.
		renew := r.entry.ops[contracts.OpRenew].regular
		if renew > 0 && int64(years-1) > (math.MaxInt64-total)/renew {
			return 0, false
		}
		total += int64(years-1) * renew
	}
	c, ok := st.table.Convert(contracts.Price{Amount: total, Currency: r.native[contracts.OpRegister].Currency}, st.currency)
	return c.Amount, ok
}

// renewalTrap reports a row whose regular renewal costs at least twice the
// registration paid now: the price that draws a customer in is not the one
// they keep paying.
func (r *row) renewalTrap() bool {
	if !r.has[contracts.OpRegister] || !r.has[contracts.OpRenew] {
		return false
	}
	register, renew := r.native[contracts.OpRegister].Amount, r.entry.ops[contracts.OpRenew].regular
	return renew >= register && renew-register >= register // renew ≥ 2 × register, without overflow
}

func (st *style) renderComparison(v *view, rows []*row, sum zoneSummary, years int) []byte {
	b := make([]byte, 0, 256+240*len(rows))
	b = append(b, `{"zone":`...)
	b = appendString(b, v.zone.ASCII)
	b = append(b, `,"unicode":`...)
	b = appendString(b, v.zone.Unicode)
	b = append(b, `,"currency":`...)
	b = appendString(b, st.currency)
	b = append(b, `,"as_of":`...)
	b = appendTime(b, nanoTime(v.asOf))
	b = appendMeta(b, v.meta)
	b = st.appendRates(b)
	b = append(b, `,"cheapest":{`...)
	for _, op := range contracts.Ops {
		if op > 0 {
			b = append(b, ',')
		}
		b = appendString(b, op.String())
		b = append(b, ':')
		if m := sum.min[op]; m.ok {
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
		b = st.appendRow(b, &sum, rows[i], years)
	}
	return append(b, "]}"...)
}

func (st *style) appendRow(b []byte, sum *zoneSummary, r *row, years int) []byte {
	b = append(b, `{"registrar":`...)
	b = appendString(b, r.registrar)
	b = append(b, `,"source":`...)
	b = appendString(b, st.name(r.entry.source))
	b = append(b, `,"tax":`...)
	b = appendString(b, string(taxNames[r.entry.tax]))
	for _, op := range contracts.Ops {
		b = append(b, ',')
		b = appendString(b, op.String())
		b = append(b, ':')
		if r.has[op] && r.converted {
			b = contracts.AppendAmount(b, r.price[op], st.exp)
		} else {
			b = append(b, "null"...)
		}
	}
	b = append(b, `,"converted":`...)
	b = appendBool(b, r.converted)
	if cur := r.nativeCurrency(); cur != "" && cur != st.currency {
		exp, _ := contracts.CurrencyExponent(cur)
		b = append(b, `,"native":{"currency":`...)
		b = appendString(b, cur)
		for _, op := range contracts.Ops {
			b = append(b, ',')
			b = appendString(b, op.String())
			b = append(b, ':')
			if r.has[op] {
				b = contracts.AppendAmount(b, r.native[op].Amount, exp)
			} else {
				b = append(b, "null"...)
			}
		}
		b = append(b, '}')
	}
	b = st.appendPromos(b, r)
	b = append(b, `,"renewal_trap":`...)
	b = appendBool(b, r.renewalTrap())
	if years > 0 {
		b = append(b, `,"cost":{"years":`...)
		b = appendInt(b, int64(years))
		b = append(b, `,"total":`...)
		if c, ok := st.cost(r, years); ok && r.converted {
			b = contracts.AppendAmount(b, c, st.exp)
		} else {
			b = append(b, "null"...)
		}
		b = append(b, '}')
	}
	b = append(b, `,"cheapest":[`...)
	first := true
	for _, op := range contracts.Ops {
		if m := sum.min[op]; m.ok && r.converted && r.has[op] && r.price[op] == m.price {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = appendString(b, op.String())
		}
	}
	b = append(b, `],"observed_at":`...)
	b = r.appendObserved(b)
	return append(b, '}')
}

// appendPromos writes the running promotions: the regular price the
// promotion replaces (converted when the row is) and when it ends.
func (st *style) appendPromos(b []byte, r *row) []byte {
	first := true
	for i := range r.entry.ops {
		op := &r.entry.ops[i]
		if !op.offered || !op.promoRunning(st.now) {
			continue
		}
		if first {
			b = append(b, `,"promo":{`...)
			first = false
		} else {
			b = append(b, ',')
		}
		b = appendString(b, contracts.Op(i).String())
		b = append(b, `:{"regular":`...)
		regular := contracts.Price{Amount: op.regular, Currency: st.name(r.entry.currency)}
		if c, ok := st.table.Convert(regular, st.currency); ok && r.converted {
			b = contracts.AppendAmount(b, c.Amount, st.exp)
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
	for _, op := range contracts.Ops {
		if r.has[op] {
			return r.native[op].Currency
		}
	}
	return ""
}

// nanoTime is a Unix nanosecond time in UTC.
func nanoTime(t int64) time.Time { return time.Unix(0, t).UTC() }

// renderComparisonZones writes /api/comparison/zones: the zones with
// something to compare, those two registrars or more price.
func renderComparisonZones(views []*view) []byte {
	b := make([]byte, 0, 64*len(views))
	n := 0
	for _, v := range views {
		if v.summary.registrars >= 2 {
			n++
		}
	}
	b = append(b, `{"count":`...)
	b = appendInt(b, int64(n))
	b = append(b, `,"zones":[`...)
	first := true
	for _, v := range views {
		if v.summary.registrars < 2 {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, `{"zone":`...)
		b = appendString(b, v.zone.ASCII)
		b = append(b, `,"unicode":`...)
		b = appendString(b, v.zone.Unicode)
		b = append(b, `,"registrars":`...)
		b = appendInt(b, int64(v.summary.registrars))
		b = append(b, '}')
	}
	return append(b, "]}"...)
}
