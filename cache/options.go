package cache

import (
	"encoding/base64"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/zoneprice/zoneprice/contracts"
)

// Sort names what a list is ordered by.
type Sort uint8

// The orders of /api/domains (zone, an operation's minimum, cost), of
// /api/comparison (an operation's price, cost, registrar) and of
// /api/registrars (registrar, name, zones, last success).
const (
	SortZone Sort = iota
	SortRegister
	SortRenew
	SortTransfer
	SortCost
	SortRegistrar
	SortName
	SortZones
	SortLastSuccess
)

var sortNames = [...]string{"zone", "register", "renew", "transfer", "cost", "registrar", "name", "zones", "last_success"}

func (s Sort) String() string {
	if int(s) >= len(sortNames) {
		return "sort(" + strconv.Itoa(int(s)) + ")"
	}
	return sortNames[s]
}

// ParseSort reads a sort name.
func ParseSort(name string) (Sort, bool) {
	i := slices.Index(sortNames[:], name)
	return Sort(i), i >= 0
}

// MaxYears bounds the years of a cost: a registration lasts at most ten.
const MaxYears = 10

// ComparisonOptions shape one /api/comparison body. The zero value is the
// snapshot's own body.
type ComparisonOptions struct {
	// Currency is the currency to show prices in; "" for the index's.
	Currency string
	// Sort orders the rows (SortRegister by default, or SortRenew,
	// SortTransfer, SortCost, SortRegistrar); Desc reverses it, rows
	// without the price still last.
	Sort Sort
	Desc bool
	// Years, when above zero, adds each row's cost of owning the zone for
	// that many years.
	Years int
	// Registrars, when not empty, keeps only these rows; Exclude drops
	// these.
	Registrars, Exclude []string
	// Tax, when set, keeps only the rows whose prices declare it
	// (contracts.TaxExcluded: prices known to be before tax).
	Tax contracts.Tax
}

// CatalogOptions shape one /api/domains body. The zero value is the
// snapshot's own body.
type CatalogOptions struct {
	// Currency is the currency to show prices in; "" for the index's.
	Currency string
	// Categories keeps the zones in any of these categories; nil keeps all.
	Categories []string
	// Query keeps the zones whose ASCII or Unicode name, lower case and
	// without the leading dot, contains it.
	Query string
	// Sort orders the zones (SortZone by default, or SortRegister,
	// SortRenew, SortTransfer by their minimum, or SortCost); Desc
	// reverses it, zones without the price still last.
	Sort Sort
	Desc bool
	// Years, when above zero, adds each zone's cheapest cost of owning it
	// for that many years.
	Years int
	// Limit, when above zero, cuts the list into pages of that many zones;
	// After continues after a previous page's last zone.
	Limit int
	After *Cursor
	// Tax, when set, computes every minimum from the registrars whose
	// prices declare it, and leaves out zones that have none.
	Tax contracts.Tax
}

// Cursor is where a page of the catalog ended: the sort key of its last
// zone. The next page starts after that key in the data of the moment, so
// pages stay consistent while data changes: a zone is never shown twice or
// skipped unless its own key moved.
type Cursor struct {
	Sort     Sort
	Desc     bool
	Currency string
	Years    int
	// Has says the last zone had a price to sort by; Value is it.
	Has   bool
	Value int64
	Zone  string
}

// cursorVersion starts every cursor, so a later format can tell old ones.
const cursorVersion = "1"

// String is the cursor's opaque text form, safe in a URL.
func (c Cursor) String() string {
	fields := []string{cursorVersion, c.Sort.String(), strconv.FormatBool(c.Desc), c.Currency, strconv.Itoa(c.Years),
		strconv.FormatBool(c.Has), strconv.FormatInt(c.Value, 10), c.Zone}
	return base64.RawURLEncoding.EncodeToString([]byte(strings.Join(fields, "|")))
}

// ErrBadCursor is a cursor this service did not make.
var ErrBadCursor = errors.New("not a cursor from a previous page")

// ParseCursor reads a cursor's text form.
func ParseCursor(s string) (Cursor, error) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return Cursor{}, ErrBadCursor
	}
	f := strings.Split(string(raw), "|")
	if len(f) != 8 || f[0] != cursorVersion {
		return Cursor{}, ErrBadCursor
	}
	var c Cursor
	var ok bool
	var errs [4]error
	c.Sort, ok = ParseSort(f[1])
	c.Desc, errs[0] = strconv.ParseBool(f[2])
	c.Currency = f[3]
	c.Years, errs[1] = strconv.Atoi(f[4])
	c.Has, errs[2] = strconv.ParseBool(f[5])
	c.Value, errs[3] = strconv.ParseInt(f[6], 10, 64)
	c.Zone = f[7]
	if !ok || errors.Join(errs[:]...) != nil || c.Years < 0 || c.Years > MaxYears || !strings.HasPrefix(c.Zone, ".") {
		return Cursor{}, ErrBadCursor
	}
	return c, nil
}
