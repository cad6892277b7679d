package kit

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"

	"github.com/zoneprice/zoneprice/ingest"
)

// A price table in HTML or CSV becomes rows whose fields are its cells,
// under their column's heading (Heading) and their position, each given
// as a JSON string when a Table asks for it (never a JSON object made of
// the whole row), so that a Table reads it as it reads a JSON list. HTML is parsed with a real parser
// (golang.org/x/net/html, through goquery's CSS selectors), never with
// regular expressions: a page's markup moves, its table's cells do not.

// errCutShort is a document that ends before its end: it has no drift to
// tell, as a JSON document that is no JSON has none.
var errCutShort = errors.New("cut short")

// ErrNoRows is an HTML document with no row of the table Rows selects (an
// error page, a paged list's page past its end): errors.Is tells it from
// a document that cannot be read.
var ErrNoRows = errors.New("no rows")

// Heading is how a column's heading is named in a row: its text, lower
// case, its spaces folded ("Renew Price" is "renew price").
func Heading(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// htmlRows reads the rows of the table Rows selects: the first row with
// <th> cells is the heading, every later one with <td> cells a row (or,
// with Cells, every element Rows selects a row).
func htmlRows(d *Declaration, body []byte) (*Doc, []Row, error) {
	head, _, cells, err := d.Table.htmlCells(body)
	return d.textRows(head, cells, err)
}

// textRows are the rows of a CSV or HTML document read into head and
// cells, or why there are none.
func (d *Declaration) textRows(head []string, cells [][]string, err error) (*Doc, []Row, error) {
	switch {
	case err != nil && d.Table.Format == HTML:
		return nil, nil, fmt.Errorf("%s: %w", d.What, err)
	case err != nil:
		return nil, nil, fmt.Errorf("decode %s: %w", d.What, err)
	}
	return NewDoc(nil), textRows(head, cells), nil
}

// cells reads a CSV or HTML document into its heading (which names the
// cells), the columns it has (its drift's: the heading, but for Cells)
// and its cells.
func (t *Table) cells(body []byte) (head, has []string, rows [][]string, err error) {
	if t.Format == HTML {
		return t.htmlCells(body)
	}
	head, rows, err = csvCells(body)
	return head, head, rows, err
}

// readText reads one CSV or HTML document, parsing it once for its rows
// and its drift.
func (d *Declaration) readText(body []byte, observed time.Time) (*ingest.List, error) {
	head, has, cells, cerr := d.Table.cells(body)
	doc, rows, err := d.textRows(head, cells, cerr)
	var list *ingest.List
	if err == nil {
		var t ingest.Tally
		d.addRows(&t, doc, rows, observed)
		list, err = t.List(d.What)
	}
	return d.Table.drift(has, cerr, list, err)
}

// htmlCells returns the headings, the columns the document has and the
// cells of every row Rows selects.
func (t *Table) htmlCells(body []byte) (head, has []string, rows [][]string, err error) {
	if err := complete(body, t.Fragment); err != nil {
		return nil, nil, nil, err
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("decode: %w", err)
	}
	if t.Cells != nil {
		rows, has = gridCells(doc.Find(t.Rows), t.Cells, t.OwnText)
		if len(rows) == 0 {
			return nil, nil, nil, fmt.Errorf("no elements match %q", t.Rows)
		}
		return t.Cells, has, rows, nil
	}
	doc.Find(t.Rows).Each(func(_ int, tr *goquery.Selection) {
		if head == nil {
			if th := tr.Find("th"); th.Length() > 0 {
				head = th.Map(func(_ int, c *goquery.Selection) string { return Heading(c.Text()) })
				return
			}
		}
		if td := tr.Find("td"); td.Length() > 0 {
			rows = append(rows, td.Map(func(_ int, c *goquery.Selection) string { return strings.TrimSpace(c.Text()) }))
		}
	})
	if len(rows) == 0 {
		return head, head, nil, fmt.Errorf("no table rows match %q: %w", t.Rows, ErrNoRows)
	}
	return head, head, rows, nil
}

// complete refuses a page cut short: a parser of HTML reads any prefix of
// a page, and one cut short (a dropped connection, a proxy's limit) would
// be a shorter list. A page ends with </html>; a fragment of one with its
// elements closed, and with a tag.
func complete(body []byte, fragment bool) error {
	if !fragment {
		tail := body[max(0, len(body)-1024):]
		if !bytes.Contains(bytes.ToLower(tail), []byte("</html>")) {
			return fmt.Errorf("decode: the page does not end with </html>: %w", errCutShort)
		}
		return nil
	}
	if !bytes.HasSuffix(bytes.TrimSpace(body), []byte(">")) {
		return fmt.Errorf("decode: the fragment does not end with a tag: %w", errCutShort)
	}
	open := 0
	for z := html.NewTokenizer(bytes.NewReader(body)); ; {
		switch z.Next() {
		case html.ErrorToken:
			if open > 0 {
				return fmt.Errorf("decode: the fragment ends with %d elements open: %w", open, errCutShort)
			}
			return nil
		case html.StartTagToken:
			if name, _ := z.TagName(); !voidElements[string(name)] {
				open++
			}
		case html.EndTagToken:
			open = max(0, open-1)
		}
	}
}

// voidElements are the elements that have no end tag.
var voidElements = map[string]bool{"area": true, "base": true, "br": true, "col": true, "embed": true,
	"hr": true, "img": true, "input": true, "link": true, "meta": true, "source": true, "track": true, "wbr": true}

// gridCells reads each element of rows as a row of cells: a CSS selector
// of cells is the text of its first match within the row (its own text
// only, for one of own), "@name" the row's attribute. has lists the cells
// some row has and every attribute of a row, for drift.
func gridCells(rows *goquery.Selection, cells, own []string) (recs [][]string, has []string) {
	seen := func(name string) {
		if !slices.Contains(has, name) {
			has = append(has, name)
		}
	}
	// Each selector is compiled once a document, for its first match; a
	// declaration's selector that is no CSS fails its package's tests.
	first := make([]goquery.Matcher, len(cells))
	for j, c := range cells {
		if !strings.HasPrefix(c, "@") {
			first[j] = goquery.Single(c)
		}
	}
	rows.Each(func(_ int, row *goquery.Selection) {
		rec := make([]string, len(cells))
		for j, c := range cells {
			if name, ok := strings.CutPrefix(c, "@"); ok {
				if v, ok := row.Attr(name); ok {
					rec[j] = strings.TrimSpace(v)
					seen(c)
				}
			} else if m := row.FindMatcher(first[j]); m.Length() > 0 {
				if slices.Contains(own, c) {
					rec[j] = ownText(m.Nodes[0])
				} else {
					rec[j] = strings.TrimSpace(m.Text())
				}
				seen(c)
			}
		}
		for _, a := range row.Nodes[0].Attr {
			seen("@" + a.Key)
		}
		recs = append(recs, rec)
	})
	return recs, has
}

// ownText is the text of n's own text nodes, not its elements', trimmed.
func ownText(n *html.Node) string {
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	}
	return strings.TrimSpace(b.String())
}

// csvRows reads a CSV document: the first record is the heading.
func csvRows(d *Declaration, body []byte) (*Doc, []Row, error) {
	head, cells, err := csvCells(body)
	return d.textRows(head, cells, err)
}

// csvCells returns the headings and the records of a CSV document.
func csvCells(body []byte) (head []string, rows [][]string, err error) {
	// A CSV file cut short at a line ends without a line break, or with a
	// record short of fields.
	if len(body) > 0 && body[len(body)-1] != '\n' {
		return nil, nil, fmt.Errorf("the file does not end with a line break: %w", errCutShort)
	}
	r := csv.NewReader(bytes.NewReader(body))
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		if head == nil {
			for _, h := range rec {
				head = append(head, Heading(h))
			}
			continue
		}
		rows = append(rows, rec)
	}
	if len(rows) == 0 {
		return head, nil, errors.New("no records")
	}
	return head, rows, nil
}

// textRows turns cells into rows whose fields are their cells, by
// heading and by position.
func textRows(head []string, cells [][]string) []Row {
	cols := make(map[string]int, len(head))
	for j, h := range head {
		if h != "" {
			cols[h] = j
		}
	}
	rows := make([]Row, len(cells))
	recs := make([]textRow, len(cells))
	for i, rec := range cells {
		recs[i] = textRow{head: head, cols: cols, cells: rec}
		rows[i] = Row{cells: &recs[i]}
	}
	return rows
}

// A textRow is one row of a CSV or HTML table: its cells, each named by
// its column's heading and its position ("0", "1", ...).
type textRow struct {
	head  []string
	cols  map[string]int // a heading's column, the last of those it names
	cells []string
}

// get returns the cell a heading or a position names, as a JSON string;
// nil where the row has none. A heading names a column the row has
// before a position does.
func (t *textRow) get(name string) json.RawMessage {
	j, ok := t.cols[name]
	if ok && j >= len(t.cells) {
		// A short row: an earlier column of that heading, if it has one.
		ok = false
		for k := len(t.cells) - 1; k >= 0 && !ok; k-- {
			j, ok = k, t.head[k] == name
		}
	}
	if !ok {
		n, err := strconv.Atoi(name)
		if err != nil || n < 0 || n >= len(t.cells) || strconv.Itoa(n) != name {
			return nil
		}
		j = n
	}
	return jsonString(t.cells[j])
}

// jsonString is s as a JSON string.
func jsonString(s string) json.RawMessage {
	plain := utf8.ValidString(s)
	for i := 0; plain && i < len(s); i++ {
		plain = s[i] >= 0x20 && s[i] != '"' && s[i] != '\\'
	}
	if !plain {
		raw, _ := json.Marshal(s)
		return raw
	}
	raw := make([]byte, 0, len(s)+2)
	return append(append(append(raw, '"'), s...), '"')
}

// tableDrift adds the drift of a CSV or HTML document to what reading it
// gave: a column the table names that the heading lacks is missing, one
// it neither reads nor ignores unknown, and a document without the table
// has another shape.
func (t *Table) tableDrift(body []byte, list *ingest.List, err error) (*ingest.List, error) {
	_, has, _, cerr := t.cells(body)
	return t.drift(has, cerr, list, err)
}

// drift adds the drift of a document whose heading is head (cerr: why its
// cells could not be read) to what reading it gave.
func (t *Table) drift(head []string, cerr error, list *ingest.List, err error) (*ingest.List, error) {
	if errors.Is(cerr, errCutShort) {
		return list, err
	}
	var d ingest.Drift
	if cerr != nil && head == nil {
		d.Shape = append(d.Shape, "the document: "+cerr.Error())
	} else {
		known := t.columns()
		for _, c := range known {
			if !slices.Contains(head, c) {
				d.Missing = append(d.Missing, c)
			}
		}
		for _, h := range head {
			if h != "" && !slices.Contains(known, h) && !slices.Contains(t.Ignore, h) {
				d.Unknown = append(d.Unknown, h)
			}
		}
	}
	if err != nil {
		return nil, &ingest.FormatError{Drift: d, Err: err}
	}
	list.Drift = &d
	return list, nil
}

// columns are the headings the table reads, less positions.
func (t *Table) columns() []string {
	var out []string
	for _, f := range []string{t.Zone, t.Currency, t.Register.Price, t.Register.Regular, t.Register.Sale,
		t.Renew.Price, t.Renew.Regular, t.Renew.Sale, t.Transfer.Price, t.Transfer.Regular, t.Transfer.Sale} {
		if _, err := strconv.Atoi(f); f != "" && err != nil && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}
