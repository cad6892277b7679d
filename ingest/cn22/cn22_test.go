package cn22_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/cn22"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

var cny = ingesttest.In("CNY")

// suite is the source, for the conformance suite and the tests below.
var suite = ingesttest.Declared(cn22.Declaration()).Reads("pricing.html", "pricing_shrunk.html")

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

// TestFetch reads the price table in its column order, register, renew,
// transfer, restore: 16 zones; .gov.cn is listed with no price, and the
// group rows are no zones.
func TestFetch(t *testing.T) {
	got := suite.Fetched(t, "pricing.html", 16, 0)
	ingesttest.CheckEach(t, got, []ingesttest.Ops{
		{Name: "plain", Zone: ".com", Register: cny(7500), Renew: cny(7900), Transfer: cny(7900)},
		{Name: "first-year price", Zone: ".xyz", Register: cny(800), Renew: cny(9900), Transfer: cny(9900)},
		{Name: "thousands separator", Zone: ".ai", Register: cny(105000), Renew: cny(105000), Transfer: cny(105000)},
		{Name: "fen", Zone: ".io", Register: cny(39850), Renew: cny(39850), Transfer: cny(39850)},
		{Name: "dash transfer", Zone: ".cc", Register: cny(3900), Renew: cny(6900)},
		{Name: "second-level zone", Zone: ".com.cn", Register: cny(3900), Renew: cny(3900), Transfer: cny(3900)},
		{Name: "Chinese zone, free transfer", Zone: ".xn--fiqs8s", Register: cny(12900), Renew: cny(12900), Transfer: cny(0)},
		{Name: "Chinese zone", Zone: ".xn--55qx5d", Register: cny(19900), Renew: cny(19900), Transfer: cny(19900)},
	}, ".gov.cn")
}

// TestParseQuirks covers the page's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	page := func(rows string) string {
		return `<html><body><table><tr><th>域名</th><th>注册</th><th>续费</th><th>转入</th><th>赎回</th></tr>` +
			`<tr><td>.net</td><td>￥85</td><td>￥89</td><td>￥89</td><td>￥1,200</td></tr>` + rows + `</table></body></html>`
	}
	suite.Quirks(t, []ingesttest.Quirk{
		{
			Name: "the yuan written after the price", Body: page(`<tr><td>.com</td><td>75元</td><td>79 元</td><td>79.00元</td><td>1200元</td></tr>`),
			Zone: ".com", Want: suite.Set(".com", cny(7500), cny(7900), cny(7900)),
		},
		{
			Name: "no mark is the yuan", Body: page(`<tr><td>.com</td><td>75</td><td>79</td><td>¥79</td><td>1200</td></tr>`),
			Zone: ".com", Want: suite.Set(".com", cny(7500), cny(7900), cny(7900)),
		},
		{
			Name: "the restore price is not read", Body: page(`<tr><td>.com</td><td>￥75</td><td>￥79</td><td>￥79</td><td>暂无</td></tr>`),
			Zone: ".com", Want: suite.Set(".com", cny(7500), cny(7900), cny(7900)),
		},
		{
			Name: "an offer beside its regular price skips the row", Body: page(`<tr><td>.com</td><td>￥55 ￥75</td><td>￥79</td><td>￥79</td><td>￥1,200</td></tr>`),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.22cn.com"},
		},
		{
			Name: "a dollar price skips the row", Body: page(`<tr><td>.com</td><td>$10.99</td><td>￥79</td><td>￥79</td><td>￥1,200</td></tr>`),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.22cn.com"},
		},
		{
			Name: "a double dash skips the row", Body: page(`<tr><td>.com</td><td>￥75</td><td>￥79</td><td>--</td><td>￥1,200</td></tr>`),
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.22cn.com"},
		},
		{
			Name: "a zone without its dot is no zone's row", Body: page(`<tr><td>com</td><td>￥75</td><td>￥79</td><td>￥79</td><td>￥1,200</td></tr>`),
			Zone: ".com",
		},
		{Name: "a page without the table", Body: `<html><body><p>系统维护中</p></body></html>`, WantErr: "no table rows"},
		{Name: "a page cut short", Body: page("")[:120], WantErr: "does not end with </html>"},
	})
}

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, cn22.Declaration().Read, "*.html") }
