// Package sheet reads a price sheet an operator keeps by hand or exports
// from a spreadsheet, so that any registrar's prices can be fed in without
// code. A sheet is a CSV or JSON document, read from a URL or a local file;
// it may price zones of several registrars, in several currencies.
// SCHEMA.md holds the same schema with a full example of each format.
//
// # CSV
//
// The first row that is not a comment names the columns, in any order and
// any letter case:
//
//	registrar,zone,currency,register,renew,transfer,register_promo,register_promo_ends
//	acme-names,.com,USD,11.08,11.08,11.08,,
//	example-registrar,co.uk,GBP,"1,250.00",n/a,0.00,5.99,2026-12-31
//
// registrar, zone and currency are required, and at least one of register,
// renew and transfer. Optional: register_promo, register_promo_ends and the
// same for renew and transfer; a promo column needs its operation's column
// and an _ends column its promo column. Other columns (notes, a source URL)
// are ignored. Lines starting with # are comments, blank lines and rows of
// empty cells are skipped, a UTF-8 byte order mark and CRLF line ends are
// fine. Fields are separated by commas only; quote a field that holds a
// comma ("1,250.00"). The sheet ends with a line break after its last row,
// as every spreadsheet and text editor writes it: a last row with no line
// break after it is the mark of a cut-off download, and fails the whole
// sheet (see below). The header is checked first: a missing required
// column, a column named twice or a semicolon-separated header fails the
// whole sheet, naming what is wrong.
//
// # JSON
//
//	{"prices":[
//	  {"registrar":"acme-names","zone":".com","currency":"USD",
//	   "register":"11.08","renew":"11.08","transfer":"11.08",
//	   "register_promo":"9.68","register_promo_ends":"2026-12-31"}]}
//
// The fields are the CSV columns. Amounts are strings; a JSON number is
// accepted too and read by its literal digits (never through a float).
// null or an absent field is an empty cell. Other top-level keys and
// unknown fields are ignored. A bare array or an object without a "prices"
// array fails the whole sheet.
//
// # Cells, decision by decision
//
//   - registrar: the registrar's id, lower-cased: letters, digits and inner
//     hyphens ("acme-names", "example-registrar"). Ids starting with
//     "sample-" are reserved for the synthetic sample source and refused.
//     So are the ids in Config.Reserved, those of registrars another source
//     publishes (main passes the adapters' ids: "porkbun", "namecom", ...):
//     two sources speaking for one registrar would withdraw each other's
//     zones every round. A row naming one is skipped and keeps nothing:
//     those prices are not the sheet's to keep.
//   - zone: any form people type: ".com", "com", "COM", "com.", ".рф",
//     "xn--p1ai", "co.uk". It is normalised with contracts.NormalizeZone.
//     A name that is no zone of the DNS root (a Handshake name, a typo)
//     is skipped by the runner's root-zone guard, for every source; one
//     with a numeric top-level label ("8888") is no zone at all, and is
//     handed to the guard (List.Outside) rather than skipped as a row.
//   - currency: an ISO 4217 code in any case ("usd" is USD); one per row,
//     used by every price in it. A code contracts does not know skips the
//     row.
//   - register, renew, transfer: a decimal amount read exactly with
//     money.Parse ("9.68", "1500", "1,250.00"; more decimals than the
//     currency has are rounded half up). A comma-grouped amount with no
//     decimal point ("1,500") is refused: in EUR notation it reads as 1.5,
//     and a sheet cannot say which the operator meant; write "1500" or
//     "1,500.00". An empty cell, "n/a", "na", "-" or
//     "none" means the registrar does not offer the operation. "0.00" is a
//     real price: the operation is free (a free transfer). A row must
//     price at least one operation.
//   - *_promo: a promotional price for that operation, read like the
//     regular one; empty or "n/a" means none. A promotion needs the regular
//     price; one above the regular price is an error; one equal to it is no
//     promotion and is dropped.
//   - *_promo_ends: when the promotion ends, RFC 3339
//     ("2026-12-31T23:59:59Z") or a date ("2026-12-31"), which means the
//     promotion runs through that day in UTC and ends at the next midnight
//     UTC. Empty or "n/a" means no end is known. It needs a promotion. A
//     promotion that has already ended is kept as written: consumers compare
//     its end with the time.
//
// # Rows that cannot be used
//
// A row with a problem is skipped and counted; its error (a *RowError)
// names the line (CSV) or index (JSON) and the column. The source logs the
// skipped rows each round and counts them in the list's Skipped
// (zoneprice_ingest_rows_skipped_total); Parse returns an error listing
// the first few only when no usable row remains. A row pricing a
// (registrar, zone) an earlier row already priced, in whatever form the
// zone is written, is such an error: the first row stands. A row whose
// column count differs from the header's (an unquoted thousands
// separator) is skipped too. But broken CSV quoting, a JSON syntax error,
// an HTML page where the sheet should be, or a CSV sheet whose last row
// has no line break after it fails the whole sheet: there is never a
// partial list from a damaged document. A cut row may keep the right
// number of fields ("...,110.00" cut to "...,11") and would otherwise
// publish a wrong price, so the line break is required whatever the
// row's length; a comment or blank line may end the sheet without one. A
// sheet cut exactly at a line break cannot be told from a shorter sheet;
// the runner's shrink guard refuses one that lost more than half of a
// registrar's zones.
//
// Every registrar named in a sheet is spoken for by it: a zone of theirs
// that leaves the sheet is withdrawn by the runner on the next round. A
// skipped row is not a zone leaving: when its registrar and zone can be
// read, the list keeps that zone (Keep), so its last good price stays
// until the row is fixed, and the row is counted in
// zoneprice_ingest_rows_skipped_total and logged. A row whose registrar or
// zone cannot be read names no zone to keep. A CSV row with the wrong
// number of fields names its zone only when registrar and zone are the
// first two columns, where a stray or missing comma after them cannot move
// them. Blank lines and comments are not rows at all. A registrar that
// leaves the sheet altogether is named by it no longer, so the runner
// leaves its last prices in place.
//
// # Where the sheet comes from
//
// Config.URL fetches the sheet with a conditional GET; Config.File reads a
// local file again on every round, so editing it updates the prices at the
// next round. Config.Format is "csv" or "json"; empty detects the format
// from the URL's or file's extension (.csv, .json) and failing that from
// the document's first non-space byte ({ or [ for JSON). Config.Name names
// the source (default "sheet"), so that an operator running two sheets can
// tell them apart in logs, metrics and the events' source field.
package sheet

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/money"
)

// Name is the source's default name and events' source field.
const Name = "sheet"

// DefaultURL is empty: a sheet has no production endpoint of its own, so
// Config names a URL or a file.
const DefaultURL = ""

// The formats a sheet can be written in.
const (
	FormatCSV  = "csv"
	FormatJSON = "json"
)

// Config configures a Source. Exactly one of URL and File is set.
type Config struct {
	// URL is an http or https address serving the sheet.
	URL string
	// File is a local path to the sheet, read again on every fetch.
	File string
	// Format is "csv", "json" or empty to detect it.
	Format string
	// Name names the source in logs, metrics and the events' source
	// field; empty means "sheet".
	Name string
	// Log receives a warning each round that skipped rows, naming them;
	// nil discards it.
	Log *slog.Logger
	// Reserved are registrar ids other sources publish (main passes its
	// adapters' names); a row naming one is skipped.
	Reserved []string
}

// Validate reports a configuration that cannot work, naming the field
// (contracts.ValidationError).
func (c Config) Validate() error {
	switch {
	case c.URL == "" && c.File == "":
		return contracts.Invalid("URL", "neither the sheet's URL nor its file is set: set one to say where the price sheet is")
	case c.URL != "" && c.File != "":
		return contracts.Invalid("URL", "both the sheet's URL and its file are set: set only one")
	}
	if err := fetch.CheckURL(c.URL); err != nil {
		return contracts.Invalid("URL", "%v", err)
	}
	switch strings.ToLower(c.Format) {
	case "", FormatCSV, FormatJSON:
	default:
		return contracts.Invalid("Format", "%q: want csv, json, or empty to detect it", c.Format)
	}
	if c.Name != "" && !contracts.ValidRegistrar(c.Name) {
		return contracts.Invalid("Name", "%q: want lower-case letters, digits and inner hyphens", c.Name)
	}
	for _, r := range c.Reserved {
		if !contracts.ValidRegistrar(r) {
			return fmt.Errorf("sheet Reserved: %q is not a registrar id", r)
		}
	}
	return nil
}

// Source reads one price sheet.
type Source struct {
	name     string
	url      string
	file     string
	format   string
	reserved map[string]bool
	client   *fetch.Client
	now      func() time.Time
	log      *slog.Logger
}

var _ ingest.Source = (*Source)(nil)

// New returns a Source for the sheet cfg names, fetching with client (which
// may be nil when cfg.File is set) and stamping what it observes with now()
// (time.Now when nil).
func New(cfg Config, client *fetch.Client, now func() time.Time) (*Source, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.URL != "" && client == nil {
		return nil, errors.New("sheet source with a URL needs a fetch client")
	}
	if now == nil {
		now = time.Now
	}
	s := &Source{name: cmp.Or(cfg.Name, Name), url: cfg.URL, file: cfg.File, client: client, now: now, log: cfg.Log}
	if len(cfg.Reserved) > 0 {
		s.reserved = make(map[string]bool, len(cfg.Reserved))
		for _, r := range cfg.Reserved {
			s.reserved[r] = true
		}
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.format = strings.ToLower(cfg.Format)
	if s.format == "" {
		p := cfg.File
		if u, err := url.Parse(cfg.URL); err == nil && cfg.URL != "" {
			p = u.Path
		}
		s.format = formatOf(p)
	}
	return s, nil
}

// formatOf is the format a path's extension names, or "" for none.
func formatOf(p string) string {
	switch strings.ToLower(path.Ext(p)) {
	case ".csv":
		return FormatCSV
	case ".json":
		return FormatJSON
	}
	return ""
}

// Name implements ingest.Source.
func (s *Source) Name() string { return s.name }

// Fetch implements ingest.Source.
func (s *Source) Fetch(ctx context.Context) (*ingest.List, error) {
	var body []byte
	where := s.url
	if s.file != "" {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b, err := os.ReadFile(s.file)
		if err != nil {
			return nil, fmt.Errorf("read price sheet: %w", err)
		}
		body, where = b, s.file
	} else {
		resp, err := s.client.Get(ctx, s.url, http.Header{"Accept": {"text/csv, application/json;q=0.9, */*;q=0.1"}})
		if err != nil {
			return nil, fmt.Errorf("fetch price sheet: %w", err)
		}
		body = resp.Body
	}
	list, skipped, err := parse(body, s.format, s.name, s.reserved, s.now())
	if err != nil {
		return nil, fmt.Errorf("price sheet %s: %w", where, err)
	}
	if len(skipped) > 0 {
		s.log.Warn("price sheet rows skipped", "source", s.name, "sheet", where,
			"skipped", len(skipped), "priced", len(list.Prices), "rows", summary(skipped))
	}
	return list, nil
}

// RowError is why one row of a sheet was skipped.
type RowError struct {
	// Row is where the row is: "line 7" in a CSV sheet (the line it
	// starts on), "prices[3]" in a JSON one.
	Row string
	// Column is the column or field at fault; empty when it is the row
	// as a whole.
	Column string
	Err    error
}

// Error says where the row is, which column is wrong and why.
func (e *RowError) Error() string {
	if e.Column == "" {
		return e.Row + ": " + e.Err.Error()
	}
	return e.Row + ": " + e.Column + ": " + e.Err.Error()
}

// Unwrap returns the reason the row was skipped.
func (e *RowError) Unwrap() error { return e.Err }

// Parse reads one sheet, detecting its format from its first non-space
// byte, into a list of price sets observed at observed with source "sheet".
// It refuses no reserved ids; ParseReserved does.
func Parse(body []byte, observed time.Time) (*ingest.List, error) {
	list, _, err := ParseFormat(body, "", Name, observed)
	return list, err
}

// ParseReserved returns a parser for the offline import that, like a
// Source, refuses rows of the registrar ids other sources publish.
func ParseReserved(reserved []string) func(body []byte, observed time.Time) (*ingest.List, error) {
	m := make(map[string]bool, len(reserved))
	for _, r := range reserved {
		m[r] = true
	}
	return func(body []byte, observed time.Time) (*ingest.List, error) {
		list, _, err := parse(body, "", Name, m, observed)
		return list, err
	}
}

// ParseFormat reads one sheet in format ("csv", "json", or "" to detect it
// from the first non-space byte) into a list of price sets observed at
// observed, with source (empty means "sheet"). It also returns a *RowError
// for every row it skipped. See the package comment for the schema.
func ParseFormat(body []byte, format, source string, observed time.Time) (*ingest.List, []error, error) {
	return parse(body, format, source, nil, observed)
}

// parse is ParseFormat that also refuses the registrar ids in reserved.
func parse(body []byte, format, source string, reserved map[string]bool, observed time.Time) (*ingest.List, []error, error) {
	rows, err := readRows(body, format)
	if err != nil {
		return nil, nil, err
	}
	return priceRows(rows, cmp.Or(source, Name), reserved, observed)
}

// readRows reads a sheet's rows in format ("" to detect it from the first
// non-space byte).
func readRows(body []byte, format string) ([]row, error) {
	body = bytes.TrimPrefix(body, []byte("\uFEFF"))
	lead := bytes.TrimLeft(body, " \t\r\n")
	if len(lead) == 0 {
		return nil, errors.New("price sheet is empty")
	}
	if lead[0] == '<' {
		return nil, errors.New("price sheet looks like HTML or XML, not CSV or JSON (an error page?)")
	}
	format = strings.ToLower(format)
	if format == "" {
		format = FormatCSV
		if lead[0] == '{' || lead[0] == '[' {
			format = FormatJSON
		}
	}
	var (
		rows []row
		err  error
	)
	switch format {
	case FormatCSV:
		rows, err = readCSV(body)
	case FormatJSON:
		rows, err = readJSON(body)
	default:
		return nil, fmt.Errorf("unknown price sheet format %q: want csv or json", format)
	}
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, errors.New("price sheet has no rows")
	}
	return rows, nil
}

// priceRows turns a sheet's rows into price sets from source, the first
// row of a registrar and zone standing, and returns a *RowError for every
// row it skipped.
func priceRows(rows []row, source string, reserved map[string]bool, observed time.Time) (*ingest.List, []error, error) {
	var (
		prices  = make([]contracts.PriceSet, 0, len(rows))
		skipped []error
		outside []ingest.Skip
		keep    = map[string]bool{}                    // subjects of skipped rows
		first   = make(map[[2]string]place, len(rows)) // registrar and zone → the row pricing them
	)
	for _, r := range rows {
		if r.err != nil {
			skipped = append(skipped, r.err)
			if s, ok := r.cells.subject(reserved); ok {
				keep[s] = true
			}
			continue
		}
		ps, rerr := r.cells.priceSet(source, reserved, observed)
		if rerr == nil {
			key := [2]string{ps.Registrar, ps.Zone}
			if at, dup := first[key]; dup {
				rerr = &RowError{Err: fmt.Errorf("%s %s is already priced on %s; the first row stands", ps.Registrar, ps.Zone, at)}
			} else {
				first[key] = r.where
			}
		}
		if nt := numericTLD(rerr); nt != nil {
			// A Handshake name such as "8888": outside the DNS root,
			// which the runner counts, rather than a row to fix.
			outside = append(outside, ingest.Skip{Registrar: strings.ToLower(strings.TrimSpace(r.cells.registrar)), Name: nt.Name, Reason: contracts.SkipNotInRoot})
			continue
		}
		if rerr != nil {
			rerr.Row = r.where.String()
			skipped = append(skipped, rerr)
			if s, ok := r.cells.subject(reserved); ok {
				keep[s] = true
			}
			continue
		}
		prices = append(prices, ps)
	}
	if len(prices) == 0 {
		return nil, skipped, fmt.Errorf("no usable row in price sheet: %d skipped: %s", len(skipped), summary(skipped))
	}
	// A sheet is often written in this order already: checked in one pass
	// before a sort that moves whole price sets.
	bySubject := func(a, b contracts.PriceSet) int {
		return cmp.Or(strings.Compare(a.Registrar, b.Registrar), strings.Compare(a.Zone, b.Zone))
	}
	if !slices.IsSortedFunc(prices, bySubject) {
		slices.SortFunc(prices, bySubject)
	}
	// A duplicate's zone is priced by its first row: nothing to keep.
	// (Only a sheet with skipped rows builds the subjects to look.)
	for i := 0; len(keep) > 0 && i < len(prices); i++ {
		delete(keep, prices[i].Subject())
	}
	var kept []string
	if len(keep) > 0 {
		kept = slices.Sorted(maps.Keys(keep))
	}
	return &ingest.List{Prices: prices, Keep: kept, Skipped: len(skipped), Outside: outside}, skipped, nil
}

// numericTLD is err's contracts.NumericTLDError, nil when it has none; a
// function of its own, so that only a failed row allocates the target.
func numericTLD(err *RowError) *contracts.NumericTLDError {
	if err == nil {
		return nil
	}
	var nt *contracts.NumericTLDError
	if !errors.As(err, &nt) {
		return nil
	}
	return nt
}

// summary lists the first few skipped rows.
func summary(errs []error) string {
	const show = 5
	var b strings.Builder
	for i, err := range errs {
		if i == show {
			fmt.Fprintf(&b, "; and %d more", len(errs)-show)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(err.Error())
	}
	return b.String()
}

// row is one row of a sheet as read: its cells, or why it could not be
// read at all.
type row struct {
	where place
	cells cells
	err   *RowError
}

// place is where a row is in its sheet: a CSV line, or a JSON sheet's
// prices[n]. It is written out only for an error: a sheet of thousands
// of good rows builds no string for them.
type place struct {
	n    int
	json bool
}

func (p place) String() string {
	if p.json {
		return "prices[" + strconv.Itoa(p.n) + "]"
	}
	return "line " + strconv.Itoa(p.n)
}

// cells are a row's values as written, in either format.
type cells struct {
	registrar, zone, currency string
	ops                       [contracts.NumOps]opCells // by contracts.Op
}

type opCells struct{ price, promo, ends string }

// subject is the price subject of the registrar and zone a row names,
// whatever else is wrong with it, if both can be read and the registrar
// is one the sheet may speak for.
func (c cells) subject(reserved map[string]bool) (string, bool) {
	reg := strings.ToLower(strings.TrimSpace(c.registrar))
	if !contracts.ValidRegistrar(reg) || contracts.IsSampleRegistrar(reg) || reserved[reg] {
		return "", false
	}
	z, err := contracts.NormalizeZone(strings.TrimSpace(c.zone))
	if err != nil {
		return "", false
	}
	return contracts.PriceSubject(reg, z.ASCII), true
}

// priceSet turns a row's cells into a price set, or names the column that
// is wrong. The returned error's Row is left for the caller to fill.
func (c cells) priceSet(source string, reserved map[string]bool, observed time.Time) (contracts.PriceSet, *RowError) {
	fail := func(column, format string, args ...any) (contracts.PriceSet, *RowError) {
		return contracts.PriceSet{}, &RowError{Column: column, Err: fmt.Errorf(format, args...)}
	}
	reg := strings.ToLower(strings.TrimSpace(c.registrar))
	switch {
	case reg == "":
		return fail("registrar", "is empty")
	case !contracts.ValidRegistrar(reg):
		return fail("registrar", "%q is not lower-case letters, digits and inner hyphens", c.registrar)
	case contracts.IsSampleRegistrar(reg):
		return fail("registrar", "%q: ids starting with %q are reserved for synthetic sample prices", reg, contracts.SampleRegistrarPrefix)
	case reserved[reg]:
		return fail("registrar", "registrar %s is published by its own adapter; give the sheet's registrar another id", reg)
	}
	zone := strings.TrimSpace(c.zone)
	if zone == "" {
		return fail("zone", "is empty")
	}
	z, err := contracts.NormalizeZone(zone)
	if err != nil {
		return fail("zone", "%w", err)
	}
	cur := strings.ToUpper(strings.TrimSpace(c.currency))
	if cur == "" {
		return fail("currency", "is empty")
	}
	if _, ok := contracts.CurrencyExponent(cur); !ok {
		return fail("currency", "unknown currency %q: want an ISO 4217 code such as USD", c.currency)
	}
	ps := contracts.PriceSet{
		V: contracts.SchemaVersion, Kind: contracts.KindPriceSet, Registrar: reg, Zone: z.ASCII,
		ObservedAt: observed, Source: source,
	}
	// One allocation for a row's operations, not one for each.
	var ops *[contracts.NumOps]contracts.OpPrice
	for _, op := range contracts.Ops {
		price, offered, rerr := c.ops[op].read(op, cur)
		if rerr != nil {
			return contracts.PriceSet{}, rerr
		}
		if !offered {
			continue
		}
		if ops == nil {
			ops = new([contracts.NumOps]contracts.OpPrice)
		}
		ops[op] = price
		ps.SetOp(op, &ops[op])
	}
	if ps.Register == nil && ps.Renew == nil && ps.Transfer == nil {
		return fail("", "no price: register, renew and transfer are all empty or n/a")
	}
	return ps, nil
}

// read reads one operation's cells in currency cur: whether it is
// offered, and its price when it is, or names the column that is wrong.
func (oc opCells) read(op contracts.Op, cur string) (contracts.OpPrice, bool, *RowError) {
	name := op.String()
	fail := func(column, format string, args ...any) (contracts.OpPrice, bool, *RowError) {
		return contracts.OpPrice{}, false, &RowError{Column: column, Err: fmt.Errorf(format, args...)}
	}
	regular, err := amount(oc.price, cur)
	offered := err == nil
	if err != nil && !errors.Is(err, money.ErrNoPrice) {
		return fail(name, "%v", err)
	}
	promo, err := amount(oc.promo, cur)
	hasPromo := err == nil
	if err != nil && !errors.Is(err, money.ErrNoPrice) {
		return fail(name+"_promo", "%v", err)
	}
	ends, hasEnd, err := promoEnds(oc.ends)
	if err != nil {
		return fail(name+"_promo_ends", "%v", err)
	}
	switch {
	case hasPromo && !offered:
		return fail(name+"_promo", "a promotion needs a regular %s price", name)
	case hasEnd && !hasPromo:
		return fail(name+"_promo_ends", "an end needs a %s_promo price", name)
	case hasPromo && promo > regular:
		return fail(name+"_promo", "promotional price %s is more than the regular %s", strings.TrimSpace(oc.promo), strings.TrimSpace(oc.price))
	case !offered:
		return contracts.OpPrice{}, false, nil
	}
	price := contracts.OpPrice{Regular: contracts.Price{Amount: regular, Currency: cur}}
	if hasPromo && promo < regular {
		price.Promo = &contracts.Promo{Price: contracts.Price{Amount: promo, Currency: cur}}
		if hasEnd {
			end := ends // only a promotion's end escapes
			price.Promo.EndsAt = &end
		}
	}
	return price, true, nil
}

// amount reads one amount cell with money.Parse, refusing a comma-grouped
// amount without a decimal point: "1,500" is 1500 to some and, in EUR
// notation, 1.5 to others.
func amount(s, currency string) (int64, error) {
	v, err := money.Parse(s, currency)
	if err != nil {
		return 0, err
	}
	if t := strings.TrimSpace(s); strings.Contains(t, ",") && !strings.Contains(t, ".") {
		return 0, fmt.Errorf("amount %q is ambiguous (in EUR notation the comma is a decimal point): write %q or %q",
			t, strings.ReplaceAll(t, ",", ""), t+".00")
	}
	return v, nil
}

// promoEnds reads when a promotion ends: RFC 3339, or a date meaning the
// promotion runs through that day in UTC. Empty and "n/a" mean no end.
func promoEnds(s string) (time.Time, bool, error) {
	s = strings.TrimSpace(s)
	switch strings.ToLower(s) {
	case "", "n/a", "na", "-", "none":
		return time.Time{}, false, nil
	}
	var t time.Time
	if d, err := time.Parse(time.DateOnly, s); err == nil {
		t = d.AddDate(0, 0, 1)
	} else if t, err = time.Parse(time.RFC3339, s); err != nil {
		return time.Time{}, false, fmt.Errorf("%q is neither a date (2026-12-31) nor an RFC 3339 time (2026-12-31T23:59:59Z)", s)
	}
	// Far outside this window is a typo, and past year 9999 the time
	// could not even be written as JSON.
	if y := t.UTC().Year(); y < 2000 || y > 2200 {
		return time.Time{}, false, fmt.Errorf("%q: year %d is not plausible", s, y)
	}
	return t.UTC(), true, nil
}
