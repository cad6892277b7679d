package sheet

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/zoneprice/zoneprice/contracts"
)

// requiredColumns are the columns every sheet has.
var requiredColumns = []string{"registrar", "zone", "currency"}

// knownColumn reports whether name is a column this package reads.
func knownColumn(name string) bool {
	if slices.Contains(requiredColumns, name) {
		return true
	}
	for _, op := range contracts.Ops {
		if o := op.String(); name == o || name == o+"_promo" || name == o+"_promo_ends" {
			return true
		}
	}
	return false
}

// readCSV reads a CSV sheet's rows. The header's problems, broken quoting
// and a last row with no line break after it fail the whole sheet; a row
// with the wrong number of fields is one bad row.
func readCSV(body []byte) ([]row, error) {
	r := csv.NewReader(bytes.NewReader(body))
	r.Comment = '#'
	r.FieldsPerRecord = -1 // counted here, so that one bad row is one skipped row
	r.ReuseRecord = true   // the fields are copied into cells; the slice is not kept
	header, err := r.Read()
	if errors.Is(err, io.EOF) {
		return nil, errors.New("price sheet has no header row")
	}
	if err != nil {
		return nil, fmt.Errorf("read CSV header: %w", err)
	}
	headerLine, _ := r.FieldPos(0)
	cols, err := columnIndex(header)
	if err != nil {
		return nil, fmt.Errorf("CSV header on line %d: %w", headerLine, err)
	}
	lay := newLayout(cols)
	// When registrar and zone are the first two columns, a stray or
	// missing comma later in a row cannot move them: a row with the wrong
	// number of fields still names its zone, which keeps its last price.
	leading := max(cols["registrar"], cols["zone"]) == 1
	var (
		rows      []row
		lastData  bool // the last record read holds data
		lastWhere place
	)
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read CSV: %w", err)
		}
		line, _ := r.FieldPos(0)
		where := place{n: line}
		lastData, lastWhere = !blank(rec), where
		if blank(rec) {
			continue // a spreadsheet's empty row
		}
		if len(rec) != len(header) {
			bad := row{where: where, err: &RowError{Row: where.String(),
				Err: fmt.Errorf("has %d fields, the header has %d (an unquoted comma in an amount?)", len(rec), len(header))}}
			if leading && len(rec) >= 2 {
				bad.cells = cells{registrar: lay.field(rec, "registrar"), zone: lay.field(rec, "zone")}
			}
			rows = append(rows, bad)
			continue
		}
		rows = append(rows, row{where: where, cells: lay.cells(rec)})
	}
	// A cut-off body may end in a row that still has every field
	// ("...,110.00" cut to "...,11"): only the missing line break tells.
	if lastData && endsMidLine(body) {
		return nil, fmt.Errorf("%s: the sheet does not end with a line break: truncated?", lastWhere)
	}
	return rows, nil
}

// layout is where a sheet's columns are: each operation's found once from
// the header rather than on every row, -1 for a column the sheet does not
// have.
type layout struct {
	cols map[string]int
	ops  [contracts.NumOps][3]int // price, promo, promo end
}

func newLayout(cols map[string]int) *layout {
	l := &layout{cols: cols}
	for _, op := range contracts.Ops {
		for j, suffix := range []string{"", "_promo", "_promo_ends"} {
			l.ops[op][j] = -1
			if i, ok := cols[op.String()+suffix]; ok {
				l.ops[op][j] = i
			}
		}
	}
	return l
}

// field is rec's value in the column name, "" when the sheet has none.
func (l *layout) field(rec []string, name string) string {
	if i, ok := l.cols[name]; ok {
		return rec[i]
	}
	return ""
}

// cells are a record's values, whose fields the header counted.
func (l *layout) cells(rec []string) cells {
	at := func(i int) string {
		if i < 0 {
			return ""
		}
		return rec[i]
	}
	c := cells{registrar: l.field(rec, "registrar"), zone: l.field(rec, "zone"), currency: l.field(rec, "currency")}
	for _, op := range contracts.Ops {
		oc := l.ops[op]
		c.ops[op] = opCells{price: at(oc[0]), promo: at(oc[1]), ends: at(oc[2])}
	}
	return c
}

// columnIndex maps each known column to its position, or says what is
// wrong with the header.
func columnIndex(header []string) (map[string]int, error) {
	if len(header) == 1 && strings.ContainsAny(header[0], ";\t|") {
		return nil, fmt.Errorf("the header is one column %q: separate columns with commas", header[0])
	}
	cols := map[string]int{}
	for i, h := range header {
		name := strings.ToLower(strings.TrimSpace(h))
		if !knownColumn(name) {
			continue
		}
		if _, dup := cols[name]; dup {
			return nil, fmt.Errorf("column %q is named twice", name)
		}
		cols[name] = i
	}
	var missing []string
	for _, name := range requiredColumns {
		if _, ok := cols[name]; !ok {
			missing = append(missing, strconv.Quote(name))
		}
	}
	if len(missing) > 0 {
		noun := "column"
		if len(missing) > 1 {
			noun = "columns"
		}
		return nil, fmt.Errorf("missing required %s %s (the header names %s)", noun, strings.Join(missing, ", "), strings.Join(header, ", "))
	}
	if !slices.ContainsFunc(contracts.Ops[:], func(op contracts.Op) bool { _, ok := cols[op.String()]; return ok }) {
		return nil, errors.New(`none of the columns "register", "renew", "transfer": a sheet prices at least one operation`)
	}
	for _, o := range contracts.Ops {
		op := o.String()
		_, hasOp := cols[op]
		_, hasPromo := cols[op+"_promo"]
		_, hasEnds := cols[op+"_promo_ends"]
		if hasPromo && !hasOp {
			return nil, fmt.Errorf("column %q needs column %q", op+"_promo", op)
		}
		if hasEnds && !hasPromo {
			return nil, fmt.Errorf("column %q needs column %q", op+"_promo_ends", op+"_promo")
		}
	}
	return cols, nil
}

// blank reports whether every field of a record is empty or spaces.
func blank(rec []string) bool {
	for _, f := range rec {
		if strings.TrimSpace(f) != "" {
			return false
		}
	}
	return true
}

// endsMidLine reports whether the body's last line holds data but no line
// break follows it: after a data row, the mark of a cut-off body. A body
// ending in a carriage return (CRLF cut before its LF) ends its row.
func endsMidLine(body []byte) bool {
	if bytes.HasSuffix(body, []byte("\r")) {
		return false
	}
	last := body[bytes.LastIndexByte(body, '\n')+1:]
	t := bytes.TrimSpace(last)
	return len(t) > 0 && t[0] != '#'
}
