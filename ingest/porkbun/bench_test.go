package porkbun_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/porkbun"
)

// list1000 is a Porkbun pricing response with 1,000 zones in the real
// shape: string prices, some with thousands separators, empty coupon
// arrays, a coupon object every 50th zone.
func list1000() []byte {
	var b strings.Builder
	b.WriteString(`{"status":"SUCCESS","pricing":{`)
	for i := range 1000 {
		if i > 0 {
			b.WriteByte(',')
		}
		zone := fmt.Sprintf("z%c%c%c", 'a'+i/676%26, 'a'+i/26%26, 'a'+i%26)
		reg := fmt.Sprintf("%d.%02d", 2+i%60, i%100)
		if i%97 == 0 {
			reg = "2,060.23"
		}
		coupons := `[]`
		if i%50 == 0 {
			coupons = `{"registration":{"code":"AWESOMENESS","max_per_user":1,"first_year_only":"yes","type":"amount","amount":1}}`
		}
		fmt.Fprintf(&b, `%q:{"registration":%q,"renewal":"%d.98","transfer":%q,"coupons":%s}`, zone, reg, 10+i%40, reg, coupons)
	}
	b.WriteString(`}}`)
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
		l, err := porkbun.Parse(body, observed)
		if err != nil || len(l.Prices) != 1000 {
			b.Fatalf("parse: %d prices, %v", len(l.Prices), err)
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

func (s *bodySource) Name() string { return porkbun.Name }

func (s *bodySource) Fetch(ctx context.Context) (*ingest.List, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return porkbun.Parse(s.body, time.Now())
}

// BenchmarkRoundUnchanged1000 is one runner round on an unchanged
// 1,000-zone list against a real in-process JetStream server: parse, read
// the registrar's 1,000 subjects back from the stream, diff, publish
// nothing. It is what a source costs every interval when prices did not
// move.
func BenchmarkRoundUnchanged1000(b *testing.B) {
	body := list1000()
	src := &bodySource{body: body}
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
