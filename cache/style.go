package cache

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
)

// style is how one render shows prices: in which currency, converted with
// which rates, at which moment (for promotions). The snapshot's own bodies
// use the index's style; a request asking for another currency renders with
// a copy that differs only in it. A style holds nothing the consumer
// modifies afterwards, so any goroutine may render with it.
type style struct {
	// names are the index's symbol names. The table only ever grows, and
	// never rewrites an entry, so a captured slice stays valid.
	names    []string
	currency string
	exp      int
	table    contracts.RateTable
	rated    bool  // rates were chosen; "rates" is null otherwise
	now      int64 // Unix seconds
	// hideSample leaves out sample registrars' prices: once any real
	// registrar has a live price, so that sample and real prices never
	// appear together.
	hideSample bool
}

func (st *style) name(id symbol) string { return st.names[id] }

// hidden reports whether a registrar's prices are left out of responses.
func (st *style) hidden(id symbol) bool {
	return st.hideSample && contracts.IsSampleRegistrar(st.names[id])
}

// in returns the style showing prices in currency instead, which the table
// must convert.
func (st *style) in(currency string) *style {
	c := *st
	c.currency = currency
	c.exp, _ = contracts.CurrencyExponent(currency)
	return &c
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
// and finds the cheapest converted price of each operation; a tie goes to
// the row listed first.
func (st *style) summarize(rows []*row) zoneSummary {
	st.sortRows(rows, SortRegister, false, 0)
	sum := zoneSummary{registrars: len(rows)}
	for _, r := range rows {
		if !r.converted {
			continue
		}
		for _, op := range contracts.Ops {
			if r.has[op] && (!sum.min[op].ok || r.price[op] < sum.min[op].price) {
				sum.min[op] = minimum{ok: true, price: r.price[op], registrar: r.registrar}
			}
		}
	}
	return sum
}

// sortRows orders a comparison. By an operation's price (the default is
// registration): rows with a comparable price cheapest first (dearest with
// desc), then converted rows without the operation, then rows whose
// currency has no rate. By cost, rows with a cost first. By registrar, by
// id. Ties always by registrar id, ascending.
func (st *style) sortRows(rows []*row, by Sort, desc bool, years int) {
	slices.SortFunc(rows, func(a, b *row) int {
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
	})
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

// appendMeta writes the zone's IANA type and categories; a zone without
// metadata has a null type and no categories.
func appendMeta(b []byte, meta *contracts.ZoneMeta) []byte {
	b = append(b, `,"type":`...)
	if meta != nil {
		b = appendString(b, meta.Type)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"categories":[`...)
	if meta != nil {
		for i, c := range meta.Categories {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, c)
		}
	}
	return append(b, ']')
}

// appendRates discloses the exchange rates conversions used.
func (st *style) appendRates(b []byte) []byte {
	b = append(b, `,"rates":`...)
	if !st.rated {
		return append(b, "null"...)
	}
	b = append(b, `{"base":`...)
	b = appendString(b, st.table.Base)
	b = append(b, `,"date":`...)
	b = appendString(b, st.table.Date)
	b = append(b, `,"source":`...)
	b = appendString(b, st.table.Source)
	return append(b, '}')
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

// nanoTime is a Unix nanosecond time in UTC.
func nanoTime(t int64) time.Time { return time.Unix(0, t).UTC() }
