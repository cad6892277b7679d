package cache

import "github.com/zoneprice/zoneprice/contracts"

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

// in is the style showing prices in currency instead ("" for its own),
// which must be one the snapshot Converts.
func (st *style) in(currency string) *style {
	if currency == "" || currency == st.currency {
		return st
	}
	c := *st
	c.currency = currency
	c.exp, _ = contracts.CurrencyExponent(currency)
	return &c
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
