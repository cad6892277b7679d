package api

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/zoneprice/zoneprice/cache"
	"github.com/zoneprice/zoneprice/contracts"
)

// The query options. Every one is optional; a request without them gets
// the pre-rendered body, and one whose options change nothing (sort=zone,
// the service's own currency) gets the same body and ETag. Parameters an
// endpoint does not know are ignored, as caches and browsers add their own
// (cache busters); a known one given twice, or with a value it does not
// take, is a 400 naming it and what it takes.
const (
	maxLimit      = 1000
	maxQuery      = 253 // the longest domain name
	maxRegistrars = 100
	maxCategories = 64
)

// catalogSorts, comparisonSorts and directorySorts are the sort names
// each list takes.
var (
	catalogSorts    = []cache.Sort{cache.SortZone, cache.SortRegister, cache.SortRenew, cache.SortTransfer, cache.SortCost}
	comparisonSorts = []cache.Sort{cache.SortRegister, cache.SortRenew, cache.SortTransfer, cache.SortCost, cache.SortRegistrar}
	directorySorts  = []cache.Sort{cache.SortRegistrar, cache.SortName, cache.SortZones, cache.SortLastSuccess}
)

// invalidParam is the 400 for a parameter with a value it does not take.
func invalidParam(param, detail string) error {
	return paramProblem(http.StatusBadRequest, contracts.CodeInvalidParameter, "Invalid parameter", param, detail)
}

// params reads one request's query options, remembering the normalised
// form of each for the cache key and the next page's link.
type params struct {
	q    url.Values
	norm url.Values
}

func newParams(q url.Values) *params { return &params{q: q, norm: url.Values{}} }

// one returns a single-valued parameter, "" when absent.
func (p *params) one(name string) (string, error) {
	v := p.q[name]
	switch {
	case len(v) == 0:
		return "", nil
	case len(v) > 1:
		return "", invalidParam(name, "given more than once; give it once")
	case v[0] == "":
		return "", invalidParam(name, "empty; give a value or leave the parameter out")
	}
	return v[0], nil
}

// list returns a list parameter: comma-separated, and it may repeat.
func (p *params) list(name string, maxItems int) ([]string, error) {
	var items []string
	for _, v := range p.q[name] {
		for item := range strings.SplitSeq(v, ",") {
			item = strings.ToLower(strings.TrimSpace(item))
			if item == "" {
				return nil, invalidParam(name, "has an empty item; separate values with single commas")
			}
			if slices.Contains(items, item) {
				continue
			}
			if len(items) == maxItems {
				return nil, invalidParam(name, "lists more than "+strconv.Itoa(maxItems)+" values")
			}
			items = append(items, item)
		}
	}
	slices.Sort(items)
	if len(items) > 0 {
		p.norm.Set(name, strings.Join(items, ","))
	}
	return items, nil
}

// number returns an integer parameter in [lo, hi], 0 when absent.
func (p *params) number(name string, lo, hi int) (int, error) {
	v, err := p.one(name)
	if err != nil || v == "" {
		return 0, err
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, invalidParam(name, "must be a whole number from "+strconv.Itoa(lo)+" to "+strconv.Itoa(hi)+", not "+strconv.Quote(v))
	}
	p.norm.Set(name, strconv.Itoa(n))
	return n, nil
}

// sort returns the sort parameter: one of allowed, "-" first for
// descending. def is the order without it.
func (p *params) sort(allowed []cache.Sort, def cache.Sort) (cache.Sort, bool, error) {
	v, err := p.one("sort")
	if err != nil || v == "" {
		return def, false, err
	}
	name, desc := strings.CutPrefix(v, "-")
	s, ok := cache.ParseSort(name)
	if !ok || !slices.Contains(allowed, s) {
		names := make([]string, len(allowed))
		for i, a := range allowed {
			names[i] = a.String()
		}
		return 0, false, invalidParam("sort", "must be one of "+strings.Join(names, ", ")+
			` (prefix "-" for descending), not `+strconv.Quote(v))
	}
	if s != def || desc {
		p.norm.Set("sort", v)
	}
	return s, desc, nil
}

// currency returns the currency parameter: an ISO 4217 code the snapshot
// converts to; "" when absent or the service's own.
func (p *params) currency(snap *cache.Snapshot) (string, error) {
	v, err := p.one("currency")
	if err != nil || v == "" {
		return "", err
	}
	code := strings.ToUpper(v)
	if _, ok := contracts.CurrencyExponent(code); !ok || !snap.Converts(code) {
		return "", invalidParam("currency", "no exchange rate for "+strconv.Quote(v)+"; one of "+strings.Join(snap.Currencies(), ", "))
	}
	if code == snap.Currency() {
		return "", nil
	}
	p.norm.Set("currency", code)
	return code, nil
}

// registrars returns a list of registrar ids.
func (p *params) registrars(name string) ([]string, error) {
	ids, err := p.list(name, maxRegistrars)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if !contracts.ValidRegistrar(id) {
			return nil, invalidParam(name, strconv.Quote(id)+" is not a registrar id (lower-case letters, digits and inner hyphens)")
		}
	}
	return ids, nil
}

// tax returns the tax parameter: the declaration rows must have.
func (p *params) tax() (contracts.Tax, error) {
	v, err := p.one("tax")
	if err != nil || v == "" {
		return "", err
	}
	t := contracts.Tax(strings.ToLower(v))
	switch t {
	case contracts.TaxExcluded, contracts.TaxIncluded, contracts.TaxUnknown:
	default:
		return "", invalidParam("tax", "must be excluded, included or unknown, not "+strconv.Quote(v))
	}
	p.norm.Set("tax", string(t))
	return t, nil
}

// key is the normalised query, for the response cache.
func (p *params) key() string { return p.norm.Encode() }

// comparisonOptions reads /api/comparison's options.
func comparisonOptions(q url.Values, snap *cache.Snapshot) (cache.ComparisonOptions, string, error) {
	p := newParams(q)
	var o cache.ComparisonOptions
	var err error
	if o.Currency, err = p.currency(snap); err != nil {
		return o, "", err
	}
	if o.Sort, o.Desc, err = p.sort(comparisonSorts, cache.SortRegister); err != nil {
		return o, "", err
	}
	if o.Years, err = p.number("years", 1, cache.MaxYears); err != nil {
		return o, "", err
	}
	if o.Sort == cache.SortCost && o.Years == 0 {
		o.Years = 1 // a cost sort shows the cost it sorts by
		p.norm.Set("years", "1")
	}
	if o.Registrars, err = p.registrars("registrars"); err != nil {
		return o, "", err
	}
	if o.Exclude, err = p.registrars("exclude"); err != nil {
		return o, "", err
	}
	if o.Tax, err = p.tax(); err != nil {
		return o, "", err
	}
	return o, p.key(), nil
}

// catalogOptions reads /api/domains's options.
func catalogOptions(q url.Values, snap *cache.Snapshot) (cache.CatalogOptions, *params, error) {
	p := newParams(q)
	var o cache.CatalogOptions
	var err error
	if o.Currency, err = p.currency(snap); err != nil {
		return o, nil, err
	}
	if o.Categories, err = p.list("category", maxCategories); err != nil {
		return o, nil, err
	}
	for _, c := range o.Categories {
		if _, ok := contracts.CategoryByID(c); !ok {
			return o, nil, invalidParam("category", "no category "+strconv.Quote(c)+"; one of "+categoryIDs())
		}
	}
	if o.Query, err = p.query(); err != nil {
		return o, nil, err
	}
	if o.Sort, o.Desc, err = p.sort(catalogSorts, cache.SortZone); err != nil {
		return o, nil, err
	}
	if o.Years, err = p.number("years", 1, cache.MaxYears); err != nil {
		return o, nil, err
	}
	if o.Sort == cache.SortCost && o.Years == 0 {
		o.Years = 1
		p.norm.Set("years", "1")
	}
	if o.Limit, err = p.number("limit", 1, maxLimit); err != nil {
		return o, nil, err
	}
	if o.Tax, err = p.tax(); err != nil {
		return o, nil, err
	}
	cursor, err := p.one("cursor")
	if err != nil || cursor == "" {
		return o, p, err
	}
	if o.Limit == 0 {
		return o, nil, invalidParam("cursor", "pages need a limit; give the limit of the first page too")
	}
	c, err := cache.ParseCursor(cursor)
	if err != nil {
		return o, nil, invalidParam("cursor", err.Error()+"; take next_cursor from the previous page, or leave it out to start again")
	}
	shown := snap.Currency()
	if o.Currency != "" {
		shown = o.Currency
	}
	if c.Sort != o.Sort || c.Desc != o.Desc || c.Years != o.Years || c.Currency != shown {
		return o, nil, invalidParam("cursor", "belongs to a list with another sort, years or currency; keep those as they were, or leave cursor out to start again")
	}
	o.After = &c
	p.norm.Set("cursor", cursor)
	return o, p, nil
}

// directoryOptions reads /api/registrars's options and their key.
func directoryOptions(q url.Values) (cache.DirectoryOptions, string, error) {
	p := newParams(q)
	var o cache.DirectoryOptions
	var err error
	if o.Query, err = p.registrarQuery(); err != nil {
		return o, "", err
	}
	if o.Kinds, err = p.kinds(); err != nil {
		return o, "", err
	}
	if o.Stale, err = p.stale(); err != nil {
		return o, "", err
	}
	if o.Sort, o.Desc, err = p.sort(directorySorts, cache.SortRegistrar); err != nil {
		return o, "", err
	}
	return o, p.key(), nil
}

// maxRegistrarQuery bounds q of the directory: a registrar's name is at
// most 80 bytes.
const maxRegistrarQuery = 80

// registrarQuery returns the directory's q: lower case, at most
// maxRegistrarQuery characters as sent.
func (p *params) registrarQuery() (string, error) {
	v, err := p.one("q")
	if err != nil || v == "" {
		return "", err
	}
	q := strings.ToLower(strings.TrimSpace(v))
	if q == "" || utf8.RuneCountInString(v) > maxRegistrarQuery || !utf8.ValidString(q) {
		return "", invalidParam("q", "must be 1 to 80 characters of a registrar's id or name, such as \"pork\"")
	}
	p.norm.Set("q", q)
	return q, nil
}

// kinds returns the directory's kind: kinds of source.
func (p *params) kinds() ([]contracts.SourceKind, error) {
	all := contracts.SourceKinds()
	names, err := p.list("kind", len(all))
	if err != nil {
		return nil, err
	}
	kinds := make([]contracts.SourceKind, len(names))
	for i, n := range names {
		if kinds[i] = contracts.SourceKind(n); !slices.Contains(all, kinds[i]) {
			listed := make([]string, len(all))
			for j, k := range all {
				listed[j] = string(k)
			}
			return nil, invalidParam("kind", strconv.Quote(n)+" is no kind of source; one of "+strings.Join(listed, ", "))
		}
	}
	return kinds, nil
}

// stale returns the directory's stale: true or false.
func (p *params) stale() (cache.StaleFilter, error) {
	v, err := p.one("stale")
	if err != nil || v == "" {
		return cache.AnyStale, err
	}
	switch v {
	case "true":
		p.norm.Set("stale", v)
		return cache.StaleOnly, nil
	case "false":
		p.norm.Set("stale", v)
		return cache.FreshOnly, nil
	}
	return cache.AnyStale, invalidParam("stale", "must be true or false, not "+strconv.Quote(v))
}

// query returns q: lower case, without a leading dot. Its length is that
// of the value as sent, the dot included, as the document's maxLength
// counts it.
func (p *params) query() (string, error) {
	v, err := p.one("q")
	if err != nil || v == "" {
		return "", err
	}
	q := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(v), "."))
	if q == "" || utf8.RuneCountInString(v) > maxQuery || !utf8.ValidString(q) {
		return "", invalidParam("q", "must be 1 to 253 characters of a zone name, such as \"shop\" or \"рф\"")
	}
	p.norm.Set("q", q)
	return q, nil
}

// categoryIDs lists every category id, for an error message.
func categoryIDs() string {
	cats := contracts.Categories()
	ids := make([]string, len(cats))
	for i, c := range cats {
		ids[i] = c.ID
	}
	slices.Sort(ids)
	return strings.Join(ids, ", ")
}
