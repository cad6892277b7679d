package kit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/rawjson"
)

// Format is how a document is written.
type Format int

// The formats a Table reads. A CSV or HTML row's fields are its cells,
// named by their column's heading (lower case, spaces folded) and by
// their position ("0", "1", ...), each read as a JSON string, so that a
// Table reads them as it reads JSON.
const (
	JSON Format = iota
	CSV
	HTML
)

// A Table says where a document's rows are and what each field of a row
// is. Paths are field names separated by dots ("total.display_total"),
// with a number for an element of an array ("3").
type Table struct {
	// Format is how the document is written (JSON by default).
	Format Format
	// Rows is where the rows are. In JSON, the path of an object whose
	// keys are zones ("pricing.*", "*" for the document itself) or of an
	// array of rows ("data.current_tlds[]", "[]"). In HTML, a CSS
	// selector of the table rows ("table.prices tr"); the first of them
	// with <th> cells is the heading. In CSV it is unused: the first
	// record is the heading.
	Rows string
	// Zone is the field naming a row's zone; "" is the row's key.
	Zone string
	// Register, Renew and Transfer say where each operation's price is.
	Register, Renew, Transfer Op

	// Currency is the row's field naming its currency, DocCurrency the
	// document's; the row's wins. A declaration naming neither starts
	// from Declaration.Currency. Prices that show their own currency
	// (Symbols, Op.Currency) must agree with it; where nothing names
	// one, Declaration.Currency is used, and without it the row is
	// skipped.
	Currency, DocCurrency string
	// Symbols reads each price's currency from its mark or code
	// ("$10.88", "€9.99", "10.88 EUR").
	Symbols bool
	// NotOffered, when set, says which more texts mean an operation is
	// not offered, beside money.ErrNoPrice's ("", "n/a", "-"): MinusOne.
	NotOffered func(text string) bool
	// AmbiguousComma refuses a price with a comma and no decimal point
	// ("1,500"): a registrar that may write decimal commas.
	AmbiguousComma bool
	// Dollar, when set, is the currency a bare "$" before a price names
	// on this page ("NZD" on a New Zealand one); Symbols alone reads it
	// as the US dollar. Another mark is then read as Symbols says: with
	// it, as its currency; without it, not at all (the row is skipped).
	Dollar string
	// Amounts, when above one, says every price cell shows that many
	// amounts side by side ("$38.50 $44.27": the price without tax and
	// with it), and Pick which of them is read (0 the first). A cell's
	// amounts are its words holding a digit; a word without one ("+GST")
	// is none; with DecimalComma, words that are the thousands groups of
	// one amount ("1 200,00 Kč") are that one. A cell showing none is read
	// as a no-price text; one
	// showing another number of them is unreadable (which is which cannot
	// be told), and its row skipped.
	Amounts, Pick int
	// DecimalComma reads prices written with a decimal comma, as most of
	// Europe writes them ("249,00", "1 249,00", "1.249,00", "199,-"): a
	// space or a dot between groups of three digits separates thousands,
	// and a dot anywhere else fails the price rather than be guessed at.
	DecimalComma bool
	// Unit is a mark the registrar writes before or after its prices for
	// Declaration.Currency, which no currency mark names alone ("kr" is
	// Swedish, Norwegian and Danish kronor).
	Unit string

	// Ignore are the columns of a CSV or HTML table it knows and does
	// not read: any other it does not read is drift.
	Ignore []string
	// Cells, in HTML, reads rows that are not a table's (a grid of tiles,
	// each an element Rows selects): a row's cells are these, in order,
	// each a CSS selector within the row (the text of its first match,
	// ".price") or "@" and an attribute of the row ("@data-ren"), and
	// named by what it says. The columns a document has are then the
	// cells some row has and every attribute of a row, so that an
	// attribute neither read nor ignored is drift.
	Cells []string
	// OwnText are the Cells read by their element's own text, without the
	// text of the elements within it: a zone whose cell carries a
	// footnote mark (".dev<sup>1</sup>") or a badge.
	OwnText []string
	// Fragment says an HTML document is a part of a page, not one: it has
	// no </html>, and one cut short is told by an element left open.
	Fragment bool

	// Errors are the document's fields that say it is an error, not a
	// list: one that holds anything but an object (which may be a zone's
	// row) fails the document, naming what it says.
	Errors []string
	// Check, when set, refuses a document as a whole (a status that is
	// not success), before its rows are read.
	Check func(doc *Doc) error
	// Within, when set, narrows the document to the part that holds the
	// rows (one entry of a list of registrars); Rows and DocCurrency are
	// paths in that part.
	Within func(doc *Doc) (*Doc, error)
	// Prepare, when set, looks at a row before its prices are read: an
	// ingest.LeftOut leaves it out (a Handshake name, another term), any
	// other error skips it, and it may narrow the row to a part of it
	// (Row.Narrow).
	Prepare func(r *Row) error
	// Finish, when set, completes a price set read from r: a promotion
	// from a coupon, a price the source derives, a fee.
	Finish func(r *Row, ps *contracts.PriceSet) error

	// ZoneName, when set, turns a zone as the document writes it into a
	// name contracts.NormalizeZone reads (Rebel's "uk_co" is "co.uk"); its
	// error skips the row, naming what was written.
	ZoneName func(written string) (string, error)
	// Repeats leaves out a row repeating an earlier one's zone with the
	// very same prices (a document that lists a zone twice, alike): one
	// listing, not a conflict. A repeat with other prices is skipped, as
	// any zone listed twice is.
	Repeats bool
}

// Op is where one operation's price is in a row.
type Op struct {
	// Price is the field of the price a customer pays; "" when the
	// source never offers the operation.
	Price string
	// Regular, when set, is the field of the regular price beside it:
	// where it is above the price, the price is a promotion on it (with
	// no end); where it is absent, zero or not above, the price stands
	// as the regular one.
	Regular string
	// StrictRegular refuses a price above its regular one: which of the
	// two a customer pays cannot be told.
	StrictRegular bool
	// Sale, when set, is the field of a lower price beside the regular
	// one (which Price holds): a promotion where it is a discount. An
	// unreadable sale is ignored; the regular price stands.
	Sale string
	// SaleAfter reads a Price cell that may show a second amount after
	// the first ("14.59€ 1.99 €"): the first is the regular price, a
	// second below it a promotion on it (as Sale's). The amounts are the
	// cell's words holding a digit (as Amounts counts them); a cell of
	// more than two, or whose
	// second is above the first, is unreadable.
	SaleAfter bool
	// Currency, when set, is the field of this operation's own currency.
	Currency string
	// ZeroFree reads a zero price as a free operation. Otherwise a zero
	// price is none: nobody gives names away, and a source's zero is its
	// stand-in for a price it does not have.
	ZeroFree bool
}

// accept is the Accept header of a document in the table's format.
func (t *Table) accept() string {
	if t == nil {
		return "application/json"
	}
	switch t.Format {
	case CSV:
		return "text/csv"
	case HTML:
		return "text/html"
	}
	return "application/json"
}

// AddRows reads a document's rows into tally, each as a price set of d
// observed at observed, with d's Table, and returns how many rows the
// document had. It fails only when the document as a whole cannot be
// read. A paged source calls it once per page with one tally.
func (d *Declaration) AddRows(tally *ingest.Tally, body []byte, observed time.Time) (int, error) {
	doc, rows, err := d.Table.rows(d, body)
	if err != nil {
		return 0, err
	}
	d.addRows(tally, doc, rows, observed)
	return len(rows), nil
}

// addRows reads rows of doc into tally.
func (d *Declaration) addRows(tally *ingest.Tally, doc *Doc, rows []Row, observed time.Time) {
	t := d.Table
	var read map[string]contracts.PriceSet
	if t.Repeats {
		read = map[string]contracts.PriceSet{}
	}
	for i, r := range rows {
		r.Doc, r.decl = doc, d
		ps, err := t.priceSet(&r, observed)
		if read != nil && err == nil {
			if first, ok := read[ps.Zone]; ok && reflect.DeepEqual(first, ps) {
				err = ingest.LeftOut("a repeat of " + ps.Zone + " with the same prices")
			} else if !ok {
				read[ps.Zone] = ps
			}
		}
		label := "" // only a row not priced is named: quoting every key costs
		if err != nil {
			label = r.label(i)
		}
		tally.Add(label, ps, err)
	}
}

// PriceSet reads one row of d's Table, keyed by key ("" in a list), from
// a document whose rows its source finds itself (the pages of a paged
// one): a price set, or why there is none, as AddRows tallies it.
func (d *Declaration) PriceSet(key string, raw json.RawMessage, observed time.Time) (contracts.PriceSet, error) {
	r := Row{Key: key, Raw: raw, keyed: key != "", decl: d}
	return d.Table.priceSet(&r, observed)
}

// rows finds the document's rows: the document (narrowed by Within) and
// every row, in order (a keyed object's in key order).
func (t *Table) rows(d *Declaration, body []byte) (*Doc, []Row, error) {
	switch t.Format {
	case CSV:
		return csvRows(d, body)
	case HTML:
		return htmlRows(d, body)
	}
	if !json.Valid(body) {
		var probe any
		err := json.Unmarshal(body, &probe)
		return nil, nil, fmt.Errorf("decode %s: %w", d.What, err)
	}
	doc := NewDoc(body)
	if err := t.checkDoc(d, doc); err != nil {
		return nil, nil, err
	}
	if t.Within != nil {
		var err error
		if doc, err = t.Within(doc); err != nil {
			return nil, nil, err
		}
	}
	path, keyed := strings.CutSuffix(t.Rows, "*")
	if !keyed {
		path = strings.TrimSuffix(t.Rows, "[]")
	}
	path = strings.TrimSuffix(path, ".")
	at := doc.Get(path)
	ok := at != nil
	if orDoc(t.Rows) == "the document" && IsNull(at) {
		return nil, nil, fmt.Errorf("decode %s: null", d.What)
	}
	if !ok || IsNull(at) {
		for _, k := range t.Errors {
			if v := doc.Get(k); !IsNull(v) {
				return nil, nil, fmt.Errorf("%s has no %s; %s answered %s", d.What, path, d.Name, Snippet(v))
			}
		}
		return nil, nil, fmt.Errorf("%s has no %s", d.What, path)
	}
	var rows []Row
	if keyed {
		if !rawjson.EachField(at, func(k, v []byte) bool {
			key, err := rawjson.Unquote(k)
			if err == nil {
				rows = append(rows, Row{Key: key, Raw: v, keyed: true})
			}
			return true
		}) {
			return nil, nil, fmt.Errorf("decode %s: %s is not an object keyed by zone", d.What, orDoc(t.Rows))
		}
		slices.SortStableFunc(rows, func(a, b Row) int { return strings.Compare(a.Key, b.Key) })
		rows = lastOfEach(rows)
	} else if !rawjson.EachElem(at, func(v []byte) { rows = append(rows, Row{Raw: v}) }) {
		return nil, nil, fmt.Errorf("decode %s: %s is not a list of rows", d.What, orDoc(t.Rows))
	}
	if len(rows) == 0 {
		return nil, nil, fmt.Errorf("%s has no zones", d.What)
	}
	return doc, rows, nil
}

// lastOfEach keeps, of rows sorted by key, the last of those sharing a
// key, as decoding the object into a map would.
func lastOfEach(rows []Row) []Row {
	out := rows[:0]
	for i, r := range rows {
		if i+1 < len(rows) && rows[i+1].Key == r.Key {
			continue
		}
		out = append(out, r)
	}
	return out
}

// checkDoc refuses what Check refuses and, in a document keyed by zone,
// one of the Errors fields holding anything but an object (a zone's row).
// Elsewhere they are named when the rows are missing.
func (t *Table) checkDoc(d *Declaration, doc *Doc) error {
	if t.Rows == "*" {
		for _, k := range t.Errors {
			if v := doc.top[k]; !IsNull(v) && !IsObject(v) {
				return fmt.Errorf("%s answered %s: %s", d.Name, k, Snippet(v))
			}
		}
	}
	if t.Check != nil {
		return t.Check(doc)
	}
	return nil
}

func orDoc(path string) string {
	if path == "*" || path == "[]" || path == "" {
		return "the document"
	}
	return path
}

// A Row is one row of a document, as Prepare and Finish see it.
type Row struct {
	// Key is a keyed row's key ("" in a list); Raw the row itself, in a
	// JSON document (nil in a CSV or HTML one: Get reads its cells).
	Key string
	Raw json.RawMessage
	// Doc is the document (as Within narrowed it).
	Doc *Doc

	keyed bool
	decl  *Declaration
	zone  string // the zone's name as written, for the label
	// part is where Get reads prices once Narrow chose a part of the row.
	part json.RawMessage
	// cells is a CSV or HTML row, read by heading or position (textRow).
	cells *textRow
}

// Get returns a field of the row (Field's paths), or of the part Narrow
// chose; nil where it has none.
func (r *Row) Get(path string) json.RawMessage {
	if r.part != nil {
		return Get(r.part, path)
	}
	return r.whole(path)
}

// whole returns a field of the whole row, whatever part Narrow chose.
func (r *Row) whole(path string) json.RawMessage {
	if r.cells != nil {
		return r.cells.get(path)
	}
	return Get(r.Raw, path)
}

// Narrow makes the row's prices those of its part at path (a price list
// by membership); its zone and currency stay the whole row's.
func (r *Row) Narrow(path string) { r.part = r.whole(path) }

// Use makes the row's prices those of part, a row a Prepare wrote (its
// cells' prices without what the kit cannot read around them); its zone
// and currency stay the whole row's.
func (r *Row) Use(part json.RawMessage) { r.part = part }

// SlashKey leaves out a row whose key ends in "/": how several
// registrars write a Handshake name, which is no DNS zone (a Prepare).
func SlashKey(r *Row) error {
	if strings.HasSuffix(strings.TrimSpace(r.Key), "/") {
		return ingest.LeftOut("a Handshake name, not a DNS zone")
	}
	return nil
}

// DottedZone leaves out a row whose zone is not written with a leading
// dot (".com"): on a price page, a row of another table, a heading
// repeated or a note, not a zone (a Prepare).
func DottedZone(r *Row) error {
	if s, _ := String(r.whole(r.decl.Table.Zone)); !strings.HasPrefix(s, ".") {
		return ingest.LeftOut("not a zone's row: " + strconv.Quote(s))
	}
	return nil
}

// label names the row in the list's reasons.
func (r *Row) label(i int) string {
	switch {
	case r.keyed:
		return strconv.Quote(r.Key)
	case r.zone != "":
		return strconv.Quote(r.zone)
	}
	return fmt.Sprintf("row %d", i+1)
}

// errNotObject is a row that is not the object (or, read by position,
// the array) a row must be.
var errNotObject = errors.New("is not a row of the table's shape")

// positional reports a table whose rows are arrays read by position.
func (t *Table) positional() bool {
	p := t.Register.Price
	return t.Format == JSON && p != "" && strings.Trim(p, "0123456789") == ""
}

// priceSet turns one row into a price set, or says why it cannot: an
// ingest.LeftOut for a row that is not a zone priced here, another error
// for one that cannot be read. With an error the set still names the
// zone when the row did, so that its last good price can be kept.
func (t *Table) priceSet(r *Row, observed time.Time) (contracts.PriceSet, error) {
	d := r.decl
	ps := contracts.PriceSet{
		V: contracts.SchemaVersion, Kind: contracts.KindPriceSet, Registrar: d.Registrar.ID,
		ObservedAt: observed, Source: d.Name, Tax: d.Tax,
	}
	shape := bytes.TrimSpace(r.Raw)
	want := byte('{')
	if t.positional() {
		want = '['
	}
	composite := r.cells != nil || len(shape) > 0 && shape[0] == want
	var zerr error
	r.zone = r.Key
	switch {
	case t.Zone == "":
	case !composite:
		zerr = fmt.Errorf("row %s %w", Snippet(r.Raw), errNotObject)
	default:
		var ok bool
		if r.zone, ok = String(r.whole(t.Zone)); !ok {
			zerr = fmt.Errorf("%s %s is not a string", t.Zone, Snippet(r.whole(t.Zone)))
		}
	}
	name := strings.TrimSpace(r.zone)
	if zerr == nil && t.ZoneName != nil {
		name, zerr = t.ZoneName(name)
	}
	if zerr == nil {
		z, err := contracts.NormalizeZone(name)
		if err == nil {
			ps.Zone = z.ASCII
		}
		zerr = err
	}
	if !composite {
		return ps, fmt.Errorf("row %s %w", Snippet(r.Raw), errNotObject)
	}
	if t.Prepare != nil {
		if err := t.Prepare(r); err != nil {
			return ps, err
		}
	}
	if zerr != nil {
		return ps, zerr
	}
	if err := t.prices(r, &ps); err != nil {
		return ps, err
	}
	ops := ps.Ops()
	if !slices.ContainsFunc(ops[:], func(o *contracts.OpPrice) bool { return o != nil }) {
		return ps, ingest.LeftOut("no operation priced")
	}
	if !slices.ContainsFunc(ops[:], func(o *contracts.OpPrice) bool { return o != nil && o.Regular.Amount > 0 }) {
		return ps, ingest.LeftOut("nothing priced but a free transfer: a zone " + d.Name + " does not sell")
	}
	if t.Finish != nil {
		if err := t.Finish(r, &ps); err != nil {
			return ps, err
		}
	}
	if err := ps.Validate(); err != nil {
		return ps, err
	}
	return ps, nil
}

// shown is one operation's prices as the row shows them.
type shown struct {
	price, regular, sale price
	saleErr              error
}

// prices reads the three operations' prices into ps.
func (t *Table) prices(r *Row, ps *contracts.PriceSet) error {
	cur, err := t.rowCurrency(r)
	if err != nil {
		return err
	}
	ops := [contracts.NumOps]*Op{&t.Register, &t.Renew, &t.Transfer}
	var all [contracts.NumOps]shown
	agree := func(field, c string) error {
		switch {
		case c == "" || c == cur:
		case cur == "":
			cur = c
		default:
			return fmt.Errorf("%s is in %s, another price in %s", field, c, cur)
		}
		return nil
	}
	for i, op := range ops {
		if op.Price == "" {
			continue
		}
		if all[i], err = t.show(op, r, agree); err != nil {
			return err
		}
	}
	if cur == "" {
		cur = r.decl.Currency
	}
	if cur == "" && slices.ContainsFunc(all[:], func(s shown) bool { return s.price.text != "" }) {
		return errors.New("no currency given")
	}
	dst := [contracts.NumOps]**contracts.OpPrice{&ps.Register, &ps.Renew, &ps.Transfer}
	for i, op := range ops {
		if all[i].price.text == "" {
			continue
		}
		o, err := all[i].op(op, cur)
		if err != nil {
			return err
		}
		*dst[i] = o
	}
	return nil
}

// show reads what a row shows of one operation: its price, regular
// price and sale, each currency checked by agree (the row's one currency).
func (t *Table) show(op *Op, r *Row, agree func(field, c string) error) (shown, error) {
	var s shown
	cell, after, err := t.saleAfter(op, r.Get(op.Price))
	if err != nil {
		return s, fmt.Errorf("%s: %w", op.Price, err)
	}
	if s.price, err = t.readPrice(cell); err != nil {
		return s, fmt.Errorf("%s: %w", op.Price, err)
	}
	if s.price.text == "" {
		return s, nil
	}
	if op.Currency != "" {
		c, err := Currency(r.Get(op.Currency))
		if err == nil && c == "" {
			err = fmt.Errorf("%s %s is no currency", op.Currency, Snippet(r.Get(op.Currency)))
		}
		if err != nil {
			return s, err
		}
		s.price.cur = c
	}
	if err := agree(op.Price, s.price.cur); err != nil {
		return s, err
	}
	if op.Regular != "" {
		if s.regular, err = t.readPrice(r.Get(op.Regular)); err != nil {
			return s, fmt.Errorf("%s: %w", op.Regular, err)
		}
		if err := agree(op.Regular, s.regular.cur); err != nil {
			return s, err
		}
	}
	switch {
	case after != nil:
		if s.sale, err = t.readPrice(after); err != nil {
			return s, fmt.Errorf("%s: %w", op.Price, err)
		}
		if err := agree(op.Price, s.sale.cur); err != nil {
			return s, err
		}
	case op.Sale != "":
		s.sale, s.saleErr = t.readPrice(r.Get(op.Sale))
	}
	return s, nil
}

// saleAfter splits a cell op reads with SaleAfter into its first amount
// and its second (nil when it shows one); any other cell is as it is.
func (t *Table) saleAfter(op *Op, raw json.RawMessage) (first, second json.RawMessage, err error) {
	text, ok := String(raw)
	if !op.SaleAfter || !ok {
		return raw, nil, nil
	}
	amounts := amountWords(text, t.DecimalComma)
	switch len(amounts) {
	case 0, 1:
		return raw, nil, nil
	case 2:
		return jsonString(amounts[0]), jsonString(amounts[1]), nil
	}
	return nil, nil, fmt.Errorf("%q shows %d amounts: which is paid cannot be told", text, len(amounts))
}

// op is one operation's price in cur, nil when it is not offered.
func (s *shown) op(op *Op, cur string) (*contracts.OpPrice, error) {
	amount, err := s.price.minor(cur)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.Price, err)
	}
	if amount == 0 && !op.ZeroFree {
		return nil, nil
	}
	o := &contracts.OpPrice{Regular: contracts.Price{Amount: amount, Currency: cur}}
	if s.regular.text != "" {
		regular, err := s.regular.minor(cur)
		switch {
		case err != nil:
			return nil, fmt.Errorf("%s: %w", op.Regular, err)
		case regular > amount:
			o.Regular.Amount = regular
			o.Promo = &contracts.Promo{Price: contracts.Price{Amount: amount, Currency: cur}}
		case regular > 0 && regular < amount && op.StrictRegular:
			return nil, fmt.Errorf("%s %s is above its regular price %s: which a customer pays cannot be told", op.Price, s.price.text, s.regular.text)
		}
	}
	if s.saleErr == nil && s.sale.text != "" {
		sale, err := s.sale.minor(cur)
		switch {
		case err == nil && sale > 0 && sale < amount:
			o.Promo = &contracts.Promo{Price: contracts.Price{Amount: sale, Currency: cur}}
		case op.SaleAfter && (err != nil || sale > amount):
			return nil, fmt.Errorf("%s: the second amount %q is no promotion on %q", op.Price, s.sale.text, s.price.text)
		}
	}
	return o, nil
}

// rowCurrency is the currency the row names (its field, or the
// document's), or the declaration's when the table names no field; ""
// when the prices must say.
func (t *Table) rowCurrency(r *Row) (string, error) {
	if t.Currency == "" && t.DocCurrency == "" {
		return r.decl.Currency, nil
	}
	if t.Currency != "" {
		if parent, _, ok := strings.Cut(t.Currency, "."); ok {
			if v := r.whole(parent); !IsNull(v) && !IsObject(v) {
				return "", fmt.Errorf("%s %s is not an object", parent, Snippet(v))
			}
		}
		if cur, err := Currency(r.whole(t.Currency)); err != nil || cur != "" {
			return cur, err
		}
	}
	if t.DocCurrency != "" {
		return Currency(r.Doc.Get(t.DocCurrency))
	}
	return "", nil
}
