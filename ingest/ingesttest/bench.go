package ingesttest

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/zoneprice/zoneprice/ingest"
)

// BenchParse measures parse reading body into zones price sets: an
// adapter's BenchmarkParse, which make bench-ingest sets against
// BenchDecode of the same bytes in the same run.
func BenchParse(b *testing.B, parse ingest.ParseFunc, body []byte, zones int) {
	b.Helper()
	observed := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		l, err := parse(body, observed)
		if err != nil || len(l.Prices) != zones {
			b.Fatalf("parse: %v, %v; want %d prices", l, err, zones)
		}
	}
}

// BenchDecode is a parse's baseline: encoding/json decoding body into
// generic values, which any reader of the format pays at least.
func BenchDecode(b *testing.B, body []byte) {
	b.Helper()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchRoundUnchanged measures one runner round on an unchanged list
// against a real in-process JetStream server: parse, read the
// registrar's subjects back from the stream, diff, publish nothing. It
// is what a source costs every interval when prices did not move.
func BenchRoundUnchanged(b *testing.B, name string, parse ingest.ParseFunc, body []byte) {
	b.Helper()
	h := New(b, &bodySource{name: name, parse: parse, body: body})
	if err := h.Once(b); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := h.Once(b); err != nil {
			b.Fatal(err)
		}
	}
}

// bodySource parses the same saved body on every fetch, as an offline
// import does, so a round measures parsing and diffing, not HTTP.
type bodySource struct {
	name  string
	parse ingest.ParseFunc
	body  []byte
}

func (s *bodySource) Name() string { return s.name }

func (s *bodySource) Fetch(ctx context.Context) (*ingest.List, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.parse(s.body, time.Now())
}

// BenchDecodeHTML is an HTML price page's baseline: golang.org/x/net/html
// parsing body into a tree, which any reader of the page pays at least.
func BenchDecodeHTML(b *testing.B, body []byte) {
	b.Helper()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := html.Parse(bytes.NewReader(body)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchDecodeXML is an XML document's baseline: encoding/xml reading every
// token of body (names resolved, attributes and text copied), which any
// reader of the document pays at least.
func BenchDecodeXML(b *testing.B, body []byte) {
	b.Helper()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		d := xml.NewDecoder(bytes.NewReader(body))
		for {
			_, err := d.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchDecodeCSV is a CSV file's baseline: encoding/csv reading every
// record of body, which any reader of the file pays at least. Lines
// starting with '#' are comments, as a price sheet's are.
func BenchDecodeCSV(b *testing.B, body []byte) {
	b.Helper()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		r := csv.NewReader(bytes.NewReader(body))
		r.Comment, r.FieldsPerRecord = '#', -1
		if _, err := r.ReadAll(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchZone is the i-th zone of a generated document: "zaaa", "zaab" and
// on, distinct and well formed for 17,576 rows.
func BenchZone(i int) string {
	return string([]byte{'z', byte('a' + i/676%26), byte('a' + i/26%26), byte('a' + i%26)})
}

// BenchDocument is a generated document in a registrar's shape: n rows,
// each written by row, sep between them, between open and close.
func BenchDocument(n int, open, sep, close string, row func(i int) string) []byte {
	var b strings.Builder
	b.WriteString(open)
	for i := range n {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(row(i))
	}
	b.WriteString(close)
	return []byte(b.String())
}
