package epik_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/epik"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

// list1000 is an Epik price list with 1,000 zones in the real shape: string
// prices, the regular ones beside them, some with thousands separators, a
// promotion every 20th zone.
func list1000() []byte {
	var b strings.Builder
	b.WriteByte('{')
	for i := range 1000 {
		if i > 0 {
			b.WriteByte(',')
		}
		zone := fmt.Sprintf("z%c%c%c", 'a'+i/676%26, 'a'+i/26%26, 'a'+i%26)
		std := fmt.Sprintf("%d.%02d", 2+i%60, i%100)
		if i%97 == 0 {
			std = "2,060.23"
		}
		price := std
		if i%20 == 0 {
			price = "0.99"
		}
		renew := fmt.Sprintf("%d.99", 10+i%40)
		fmt.Fprintf(&b, `%q:{"price":%q,"renew":%q,"transfer":%q,"priceStandard":%q,"renewStandard":%q,"transferStandard":%q}`,
			zone, price, renew, std, std, renew, std)
	}
	b.WriteByte('}')
	return []byte(b.String())
}

// BenchmarkParse1000 parses a 1,000-zone list into validated-shape price
// sets. BenchmarkDecode1000 is its baseline in the same run: encoding/json
// decoding the same bytes into generic maps, which any reader of the
// format pays at least.
func BenchmarkParse1000(b *testing.B) {
	body := list1000()
	observed := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		l, err := epik.Parse(body, observed)
		if err != nil || len(l.Prices) != 1000 {
			b.Fatalf("parse: %v", err)
		}
	}
}

func BenchmarkDecode1000(b *testing.B) {
	body := list1000()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var v map[string]any
		if err := json.Unmarshal(body, &v); err != nil {
			b.Fatal(err)
		}
	}
}

// bodySource parses the same saved body on every fetch, as an offline
// import does, so the round measures parsing and diffing, not HTTP.
type bodySource struct{ body []byte }

func (s *bodySource) Name() string { return epik.Name }

func (s *bodySource) Fetch(ctx context.Context) (*ingest.List, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return epik.Parse(s.body, time.Now())
}

// BenchmarkRoundUnchanged1000 is one runner round on an unchanged
// 1,000-zone list against a real in-process JetStream server: parse, read
// the registrar's 1,000 subjects back from the stream, diff, publish
// nothing. It is what the source costs every interval when prices did not
// move.
func BenchmarkRoundUnchanged1000(b *testing.B) {
	src := &bodySource{body: list1000()}
	h := ingesttest.New(b, src)
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
