package kit

import (
	"errors"
	"testing"
)

// TestTextRowGet reads a table's cells as the JSON strings a Table reads,
// by heading and by position, without making each row a JSON object.
func TestTextRowGet(t *testing.T) {
	head := []string{"zone", "price", "0", "price", "note"}
	rows := textRows(head, [][]string{
		{".com", "$9.99", "first", "$8.99", `say "hi" \ ` + "\x01"},
		{".net", "$11.99"},
		{".org", "\xff"},
	})
	for _, tt := range []struct {
		name string
		row  int
		path string
		want string // "" for none
	}{
		{"by heading", 0, "zone", `".com"`},
		{"the last column of a heading", 0, "price", `"$8.99"`},
		{"a short row's earlier column of the heading", 1, "price", `"$11.99"`},
		{"a heading before a position", 0, "0", `"first"`},
		{"by position", 0, "3", `"$8.99"`},
		{"escaped", 0, "4", `"say \"hi\" \\ \u0001"`},
		{"invalid UTF-8 replaced", 2, "1", `"\ufffd"`},
		{"past a short row's end", 1, "note", ""},
		{"no such column", 0, "renew", ""},
		{"no such position", 0, "5", ""},
		{"a position written otherwise", 0, "01", ""},
		{"a negative position", 0, "-1", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := rows[tt.row]
			if got := string(r.Get(tt.path)); got != tt.want {
				t.Errorf("Get(%q) = %s, want %s", tt.path, got, tt.want)
			}
		})
	}
}

// TestCompleteFragment tells a whole fragment from one cut short.
func TestCompleteFragment(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		whole      bool
	}{
		{"closed", `<div><div class="t">.ch</div></div>`, true},
		{"void elements", "<div><img src=x><br><input></div>\n", true},
		{"cut inside text", `<div><div class="t">.c`, false},
		{"cut inside a tag", `<div><div class="t"`, false},
		{"an element left open", `<div><div class="t">.ch</div>`, false},
		{"empty", ``, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := complete([]byte(tt.body), true); (err == nil) != tt.whole {
				t.Errorf("complete(%q) = %v, want whole %v", tt.body, err, tt.whole)
			}
		})
	}
}

// TestNoRows tells a page without the table's rows (an error page, a
// paged list's page past its end) from one that cannot be read.
func TestNoRows(t *testing.T) {
	d := &Declaration{Name: "x", What: "x page", Currency: "USD", Table: &Table{
		Format: HTML, Rows: "table tr", Zone: "0", Register: Op{Price: "1"},
	}}
	_, _, err := d.Table.rows(d, []byte(`<html><body><table><tr><th>Zone</th></tr></table><p>No results</p></body></html>`))
	if !errors.Is(err, ErrNoRows) {
		t.Errorf("a page without rows: %v, want ErrNoRows", err)
	}
	_, _, err = d.Table.rows(d, []byte(`<html><body><table><tr><td>.com</td><td>9.99</td></tr>`))
	if err == nil || errors.Is(err, ErrNoRows) {
		t.Errorf("a page cut short: %v, want an error that is not ErrNoRows", err)
	}
}
