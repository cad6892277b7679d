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

	"github.com/PuerkitoBio/goquery"

	"github.com/zoneprice/zoneprice/ingest"
)

// A price table in HTML or CSV becomes rows of JSON strings: each cell
// under its column's heading (Heading) and its position, so that a Table
// reads it as it reads a JSON list. HTML is parsed with a real parser
// (golang.org/x/net/html, through goquery's CSS selectors), never with
// regular expressions: a page's markup moves, its table's cells do not.

// errCutShort is a document that ends before its end: it has no drift to
// tell, as a JSON document that is no JSON has none.
var errCutShort = errors.New("cut short")

// Heading is how a column's heading is named in a row: its text, lower
// case, its spaces folded ("Renew Price" is "renew price").
func Heading(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// htmlRows reads the rows of the table selector selects: the first row
// with <th> cells is the heading, every later one with <td> cells a row.
func htmlRows(d *Declaration, selector string, body []byte) (*Doc, []Row, error) {
	head, cells, err := htmlCells(selector, body)
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

// cells reads a CSV or HTML document into its heading and cells.
func (t *Table) cells(body []byte) (head []string, rows [][]string, err error) {
	if t.Format == HTML {
		return htmlCells(t.Rows, body)
	}
	return csvCells(body)
}

// readText reads one CSV or HTML document, parsing it once for its rows
// and its drift.
func (d *Declaration) readText(body []byte, observed time.Time) (*ingest.List, error) {
	head, cells, cerr := d.Table.cells(body)
	doc, rows, err := d.textRows(head, cells, cerr)
	var list *ingest.List
	if err == nil {
		var t ingest.Tally
		d.addRows(&t, doc, rows, observed)
		list, err = t.List(d.What)
	}
	return d.Table.drift(head, cerr, list, err)
}

// htmlCells returns the headings and the cells of every row of the table
// selector selects.
func htmlCells(selector string, body []byte) (head []string, rows [][]string, err error) {
	// A parser of HTML reads any prefix of a page: one cut short (a
	// dropped connection, a proxy's limit) would be a shorter list.
	tail := body[max(0, len(body)-1024):]
	if !bytes.Contains(bytes.ToLower(tail), []byte("</html>")) {
		return nil, nil, fmt.Errorf("decode: the page does not end with </html>: %w", errCutShort)
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		return nil, nil, fmt.Errorf("decode: %w", err)
	}
	doc.Find(selector).Each(func(_ int, tr *goquery.Selection) {
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
		return head, nil, fmt.Errorf("no table rows match %q", selector)
	}
	return head, rows, nil
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

// textRows turns cells into rows of JSON strings.
func textRows(head []string, cells [][]string) []Row {
	rows := make([]Row, len(cells))
	for i, rec := range cells {
		obj := make(map[string]string, 2*len(rec))
		for j, c := range rec {
			obj[strconv.Itoa(j)] = c
			if j < len(head) && head[j] != "" {
				obj[head[j]] = c
			}
		}
		raw, _ := json.Marshal(obj)
		rows[i] = Row{Raw: raw}
	}
	return rows
}

// tableDrift adds the drift of a CSV or HTML document to what reading it
// gave: a column the table names that the heading lacks is missing, one
// it neither reads nor ignores unknown, and a document without the table
// has another shape.
func (t *Table) tableDrift(body []byte, list *ingest.List, err error) (*ingest.List, error) {
	head, _, cerr := t.cells(body)
	return t.drift(head, cerr, list, err)
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
