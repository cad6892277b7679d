package cn22_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/cn22"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

// page600 is a price page of 600 zones in the fixture's shape.
func page600() []byte {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="zh-CN"><head><meta charset="utf-8"><title>域名价格 - 22.cn</title></head><body>` +
		`<table class="price-table"><thead><tr><th>域名</th><th>注册</th><th>续费</th><th>转入</th><th>赎回</th></tr></thead><tbody>`)
	for i := range 600 {
		fmt.Fprintf(&b, "\n<tr><td>.z%c%c%c</td><td>￥%d</td><td>￥%d</td><td>￥%d</td><td>￥1,%03d</td></tr>",
			'a'+i/676%26, 'a'+i/26%26, 'a'+i%26, 9+i%90, 29+i, 29+i%70, i)
	}
	b.WriteString("\n</tbody></table></body></html>\n")
	return []byte(b.String())
}

// BenchmarkParse600 parses the page into price sets; BenchmarkDecode600
// is its baseline, an HTML parse of the same bytes, in the same run (make
// bench-ingest).
func BenchmarkParse600(b *testing.B) {
	ingesttest.BenchParse(b, cn22.Declaration().Read, page600(), 600)
}

func BenchmarkDecode600(b *testing.B) { ingesttest.BenchDecodeHTML(b, page600()) }
