package onecom_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/onecom"
)

// page600 is a price page of 600 zones in the fixture's shape: the list in
// one flight row, pushed in pieces of 2 KiB; with the JSON it embeds, the
// pushes' arguments and the stream's rows.
func page600() (page []byte, embedded [][]byte) {
	var objs []string
	for i := range 600 {
		objs = append(objs, fmt.Sprintf(`{"tld":".z%c%c%c","firstYearPrice":%d.99,"renewalPrice":%d.99}`,
			'a'+i/676%26, 'a'+i/26%26, 'a'+i%26, 1+i%40, 10+i%50))
	}
	stream := `2:I[48213,["static/chunks/page.js"],"DomainPriceList"]` + "\n" +
		`4:["$","$L2",null,{"heading":"All domain extensions","tlds":[` + strings.Join(objs, ",") + `]}]` + "\n"
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="en"><head><title>Domain prices | one.com</title></head><body><main><h1>Domain prices</h1></main>` + "\n")
	b.WriteString("<script>(self.__next_f=self.__next_f||[]).push([0])</script>\n")
	for i := 0; i < len(stream); i += 2048 {
		piece, _ := json.Marshal([]any{1, stream[i:min(i+2048, len(stream))]})
		embedded = append(embedded, piece)
		fmt.Fprintf(&b, "<script>self.__next_f.push(%s)</script>\n", piece)
	}
	b.WriteString("</body></html>\n")
	for _, row := range strings.Split(strings.TrimSpace(stream), "\n") {
		_, value, _ := strings.Cut(row, ":")
		embedded = append(embedded, []byte(strings.TrimPrefix(value, "I")))
	}
	return []byte(b.String()), embedded
}

// BenchmarkParse600 parses the page into price sets; BenchmarkDecode600
// is its baseline in the same run (make bench-ingest): what any reader of
// the page pays at least, an HTML parse of it and an encoding/json decode
// of the JSON it embeds (each push's argument, each row of the stream),
// since an HTML parse alone leaves the scripts' text unread.
func BenchmarkParse600(b *testing.B) {
	page, _ := page600()
	ingesttest.BenchParse(b, onecom.Declaration().Read, page, 600)
}

func BenchmarkDecode600(b *testing.B) {
	page, embedded := page600()
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := html.Parse(bytes.NewReader(page)); err != nil {
			b.Fatal(err)
		}
		for _, e := range embedded {
			var v any
			if err := json.Unmarshal(e, &v); err != nil {
				b.Fatal(err)
			}
		}
	}
}
