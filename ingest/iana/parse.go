package iana

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	"golang.org/x/net/html"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
)

// TLDList is the parsed tlds-alpha-by-domain.txt.
type TLDList struct {
	// Version is the file's version, "2026112200": the date and a serial.
	Version string
	// TLDs are the delegated TLDs, canonical (".com", ".xn--p1ai"), in the
	// file's order.
	TLDs []string
	// Skipped counts lines that are not a valid TLD label.
	Skipped int
}

var versionLine = regexp.MustCompile(`^#\s*Version\s+(\d+)\b`)

// ParseTLDs parses IANA's list of delegated TLDs: a "# Version …" comment,
// then one upper-case A-label per line. A body without the version line,
// without its final newline (truncated), or with no valid label is an error.
func ParseTLDs(body []byte) (*TLDList, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, errors.New("tld list is empty")
	}
	if body[len(body)-1] != '\n' {
		return nil, errors.New("tld list is truncated: no newline after the last line")
	}
	out := &TLDList{}
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 0, 4096), len(body)+1)
	first := true
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if first {
			first = false
			m := versionLine.FindStringSubmatch(line)
			if m == nil {
				return nil, fmt.Errorf("tld list does not start with a version line: %.60q", line)
			}
			out.Version = m[1]
			continue
		}
		if line == "" || line[0] == '#' {
			continue
		}
		z, ok := tldLabel(line)
		if !ok {
			out.Skipped++
			continue
		}
		if !seen[z] {
			seen[z] = true
			out.TLDs = append(out.TLDs, z)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read tld list: %w", err)
	}
	if len(out.TLDs) == 0 {
		return nil, fmt.Errorf("tld list has no valid TLD (%d lines skipped)", out.Skipped)
	}
	return out, nil
}

// tldLabel returns the canonical zone of one ASCII TLD label in any case.
// The file holds A-labels only, so anything else is not a line of it.
func tldLabel(s string) (string, bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') && c != '-' {
			return "", false
		}
	}
	z, err := contracts.NormalizeZone(s)
	if err != nil || strings.Count(z.ASCII, ".") != 1 {
		return "", false
	}
	return z.ASCII, true
}

// RootDBEntry is one row of the Root Zone Database table.
type RootDBEntry struct {
	Zone    string // canonical, ".com"
	Type    string // as IANA writes it: "generic", "country-code", …, "test"
	Manager string // the TLD manager, "Not assigned" for retired TLDs
}

// RootDB is the parsed Root Zone Database page.
type RootDB struct {
	Entries map[string]RootDBEntry // by canonical zone
	// Skipped counts rows that had cells but no usable zone.
	Skipped int
}

// TypeTest is the type IANA gives the eleven IDN test TLDs of 2007, which
// are not delegated.
const TypeTest = "test"

// rootDBLink is the path of a TLD's page, which names its A-label.
var rootDBLink = regexp.MustCompile(`^(?:https?://www\.iana\.org)?/domains/root/db/([A-Za-z0-9-]+)\.html$`)

// ParseRootDB parses the Root Zone Database page: an HTML table with one
// row per TLD, the TLD's link in the first cell, its type in the second
// and its manager in the third. Rows without a TLD (the header) are
// ignored. A page with no TLD rows, or whose table does not close
// (truncated), is an error.
func ParseRootDB(body []byte) (*RootDB, error) {
	t := &rootDBTable{out: &RootDB{Entries: map[string]RootDBEntry{}}}
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if err := z.Err(); err != io.EOF {
				return nil, fmt.Errorf("read root zone database: %w", err)
			}
			return t.end()
		case html.EndTagToken:
			name, _ := z.TagName()
			t.endTag(string(name))
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			t.startTag(z, string(name), hasAttr)
		case html.TextToken:
			if t.cell != nil {
				t.cell.Write(z.Text())
			}
		}
	}
}

// rootDBTable reads the Root Zone Database's table, a tag at a time.
type rootDBTable struct {
	out      *RootDB
	row      *tableRow
	cell     *strings.Builder
	unclosed int // TLD rows since the last </table>
}

// startTag opens a row or a cell, and notes a row's first link.
func (t *rootDBTable) startTag(z *html.Tokenizer, tag string, hasAttr bool) {
	switch tag {
	case "table":
		t.endRow()
	case "tr":
		t.endRow()
		t.row = &tableRow{}
	case "td", "th":
		t.endCell()
		if t.row == nil {
			t.row = &tableRow{} // a cell without its <tr>: HTML allows it
		}
		t.row.header = t.row.header || tag == "th"
		t.cell = &strings.Builder{}
	case "a":
		if t.row != nil && len(t.row.cells) == 0 && t.row.href == "" && hasAttr {
			t.row.href = attr(z, "href")
		}
	}
}

// endTag closes a cell, a row, or the table.
func (t *rootDBTable) endTag(tag string) {
	switch tag {
	case "td", "th":
		t.endCell()
	case "tr":
		t.endRow()
	case "table", "tbody", "thead":
		t.endRow()
		if tag == "table" {
			t.unclosed = 0
		}
	}
}

func (t *rootDBTable) endCell() {
	if t.row != nil && t.cell != nil {
		t.row.cells = append(t.row.cells, t.cell.String())
	}
	t.cell = nil
}

// endRow closes the open row: an entry for a TLD row, a skipped row for
// another with cells that is not a header.
func (t *rootDBTable) endRow() {
	t.endCell()
	if t.row != nil {
		switch e, ok := t.row.entry(); {
		case ok:
			t.out.Entries[e.Zone] = e
			t.unclosed++
		case len(t.row.cells) > 0 && !t.row.header:
			t.out.Skipped++
		}
	}
	t.row = nil
}

// end is the table read at the page's end, or why it cannot be used.
func (t *rootDBTable) end() (*RootDB, error) {
	if t.row != nil || t.unclosed > 0 {
		return nil, errors.New("root zone database is truncated: the TLD table does not close")
	}
	if len(t.out.Entries) == 0 {
		return nil, fmt.Errorf("root zone database has no TLD rows (%d rows skipped)", t.out.Skipped)
	}
	return t.out, nil
}

// attr returns the value of the current tag's attribute key.
func attr(z *html.Tokenizer, key string) string {
	for {
		k, v, more := z.TagAttr()
		if string(k) == key {
			return string(v)
		}
		if !more {
			return ""
		}
	}
}

type tableRow struct {
	href   string
	cells  []string
	header bool
}

// entry reads a TLD row. The zone comes from the link to the TLD's page,
// which names its A-label; the link's text is the Unicode form (with
// direction marks around right-to-left names) and is read only when there
// is no link.
func (r *tableRow) entry() (RootDBEntry, bool) {
	if len(r.cells) < 2 {
		return RootDBEntry{}, false
	}
	var zone string
	if m := rootDBLink.FindStringSubmatch(strings.TrimSpace(r.href)); m != nil {
		z, ok := tldLabel(m[1])
		if !ok {
			return RootDBEntry{}, false
		}
		zone = z
	} else {
		text := strings.Map(dropBidi, strings.TrimSpace(r.cells[0]))
		if !strings.HasPrefix(text, ".") {
			return RootDBEntry{}, false
		}
		z, err := contracts.NormalizeZone(text)
		if err != nil || strings.Count(z.ASCII, ".") != 1 {
			return RootDBEntry{}, false
		}
		zone = z.ASCII
	}
	typ := strings.ToLower(strings.Join(strings.Fields(r.cells[1]), " "))
	if typ == "" {
		return RootDBEntry{}, false
	}
	e := RootDBEntry{Zone: zone, Type: typ}
	if len(r.cells) > 2 {
		e.Manager = strings.Join(strings.Fields(r.cells[2]), " ")
	}
	return e, true
}

// dropBidi removes the invisible direction marks IANA puts around
// right-to-left names.
func dropBidi(r rune) rune {
	switch {
	case r == '\u200e', r == '\u200f', r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069':
		return -1
	}
	return r
}

// notAssigned is the TLD manager the root zone database shows for a TLD
// that is no longer delegated.
const notAssigned = "Not assigned"

// knownTypes are the root zone database types a delegated zone can have.
var knownTypes = map[string]bool{
	contracts.TypeGeneric: true, contracts.TypeCountryCode: true, contracts.TypeSponsored: true,
	contracts.TypeGenericRestricted: true, contracts.TypeInfrastructure: true,
}

// Stats says what combining the two documents left out.
type Stats struct {
	// Delegated is the number of TLDs in the TLD list.
	Delegated int
	// Untyped are delegated TLDs the root zone database has no usable
	// type for (missing, "test" or a type this package does not know).
	// They are left out.
	Untyped []string
	// NotDelegated counts root zone database rows absent from the TLD
	// list: retired TLDs ("Not assigned"), the test TLDs.
	NotDelegated int
	// Unlisted are TLDs the root zone database types and gives a manager
	// but the TLD list lacks: delegated or removed between the two
	// documents' updates. More than a few mean the list is cut short.
	Unlisted []string
	// SecondLevel is the number of second-level zones added.
	SecondLevel int
}

// Parse combines the TLD list (tlds-alpha-by-domain.txt) and the Root Zone
// Database page into zone metadata with source Name: every delegated TLD
// with its type, and the builtin catalog's second-level zones under them,
// typed as their TLD. It fails when either document does not parse, or
// when the root zone database types fewer than half the delegated TLDs
// (the two documents are out of step, or the page's format changed), or
// when the page assigns many TLDs the list lacks (the list is cut short).
// It takes both documents, so unlike a price adapter's Parse it has no
// one-file form for replaying a saved response.
func Parse(tlds, rootDB []byte, observed time.Time) (*ingest.List, error) {
	cat, _, err := Live(tlds, rootDB)
	if err != nil {
		return nil, err
	}
	return &ingest.List{Zones: cat.Metas(observed)}, nil
}

// Live builds the catalog Parse publishes, and says what it left out.
func Live(tlds, rootDB []byte) (*Catalog, Stats, error) {
	list, err := ParseTLDs(tlds)
	if err != nil {
		return nil, Stats{}, err
	}
	db, err := ParseRootDB(rootDB)
	if err != nil {
		return nil, Stats{}, err
	}
	b, err := loadBuiltin()
	if err != nil {
		return nil, Stats{}, err
	}
	st := Stats{Delegated: len(list.TLDs)}
	delegated := make(map[string]bool, len(list.TLDs))
	types := make(map[string]string, len(list.TLDs))
	zones := make([]contracts.Zone, 0, len(list.TLDs))
	for _, t := range list.TLDs {
		delegated[t] = true
		e, ok := db.Entries[t]
		if !ok || !knownTypes[e.Type] {
			st.Untyped = append(st.Untyped, t)
			continue
		}
		z, err := contracts.NormalizeZone(t)
		if err != nil {
			st.Untyped = append(st.Untyped, t)
			continue
		}
		types[t] = e.Type
		zones = append(zones, z)
	}
	for zone, e := range db.Entries {
		if delegated[zone] {
			continue
		}
		st.NotDelegated++
		if knownTypes[e.Type] && e.Manager != notAssigned {
			st.Unlisted = append(st.Unlisted, zone)
		}
	}
	slices.Sort(st.Unlisted)
	if 2*len(zones) < len(list.TLDs) {
		return nil, st, fmt.Errorf("root zone database types only %d of the %d delegated TLDs", len(zones), len(list.TLDs))
	}
	// A list cut at a line boundary still parses; the page, which lists
	// every TLD, shows it.
	if len(st.Unlisted) > len(list.TLDs)/20 {
		return nil, st, fmt.Errorf("tld list lacks %d TLDs the root zone database assigns (%s, …): truncated or out of step",
			len(st.Unlisted), strings.Join(st.Unlisted[:min(3, len(st.Unlisted))], ", "))
	}
	cat := newCatalog(zones, types, b.secondLevel, b.rules, Name)
	st.SecondLevel = cat.Len() - len(zones)
	return cat, st, nil
}
