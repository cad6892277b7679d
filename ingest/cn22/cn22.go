// Package cn22 reads 22.cn's (贰贰网络, Xiamen 22.cn) price page,
// https://www.22.cn/domain/price/: an HTML table rendered on the server,
// a row a zone, whose cells after the zone are its prices in Chinese yuan
// for registration, renewal, transfer and restore (赎回), in that order.
// The package is cn22, since a Go name cannot start with a digit; the
// source and registrar id is "22cn", the public reader's slug.
//
// What is KNOWN, from the one public reader of this page,
// github.com/hellouy/domainhub adapters/22cn.ts (commit 422007e), a
// createTableAdapter declaration read by adapters/shared/table-adapter.ts:
// the URL, fetched with a plain GET (no browser: "SSR 标准价格表", a
// server-rendered standard price table); the column order after the zone,
// 域名 | 注册 | 续费 | 转入 | 赎回 (zone, register, renew, transfer,
// restore); prices in CNY, written in the English number format
// ("1,234.56"); about 370 zones.
//
// What is ASSUMED:
//
//   - The columns are read by position: the zone first, then register,
//     renew and transfer; the restore price and any cell after it are not
//     read (restore is no operation this service compares). The headings
//     are assumed to be the words above; any other shows as unknown drift
//     on the first real page read, which says what they are.
//   - The zone is written with its leading dot, alone in its cell, Chinese
//     zones in their own script (".中国", read as their A-label). A row
//     whose first cell does not start with "." is another table's or a
//     group heading's: left out (kit.DottedZone).
//   - A price shows "￥" or "¥" before it, "元" after it, or no mark (the
//     yuan); another mark skips the row. A cell with two amounts (a
//     first-year offer beside its regular price) skips the row, named.
//     "", "-" or "n/a" is not offered, a zero transfer free; any other
//     text ("--", "暂无") skips the row, named, so that the first real
//     page read says which the page uses.
//   - Tax: the page is not known to say: unknown.
//
// # Fields
//
// The table's columns, by position: zone, register, renew, transfer
// (read), restore (not read); headings ASSUMED "域名", "注册", "续费",
// "转入", "赎回" (known, not read).
package cn22

import (
	"github.com/zoneprice/zoneprice/ingest/kit"
)

// Name is the source's name and 22.cn's registrar id.
const Name = "22cn"

// Declaration is the source, as the package comment reads it.
func Declaration() *kit.Declaration {
	return kit.Site(Name, "22.cn", "https://www.22.cn", "https://www.22.cn/domain/price/", "22.cn price page", "CNY", &kit.Table{
		Format: kit.HTML, Rows: "table tr", Zone: "0", Symbols: true, Prepare: kit.DottedZone,
		Register: kit.Op{Price: "1"}, Renew: kit.Op{Price: "2"}, Transfer: kit.Op{Price: "3", ZeroFree: true},
		Ignore: []string{"域名", "注册", "续费", "转入", "赎回"},
	})
}
