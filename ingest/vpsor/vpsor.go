// Package vpsor reads the product list of Vpsor (硅云, vpsor.cn), a Chinese
// registrar, from its domain API:
//
//	GET https://api.vpsor.cn/domain-server/api/v1/product/search
//
//	{"status":2000,"message":"success","data":[{"domainTld":".com",
//	  "languageType":"en","languageTypeName":"英文域名","regUnitPrice":4800,
//	  "regPriceInfo":"{\"1\":4900,\"2\":10300,...,\"10\":57000}",
//	  "renewUnitPrice":6000,"renewPriceInfo":"{\"1\":5300,...}",
//	  "description":"描述","needTmValid":false,"pos":1}, ...]}
//
// What is KNOWN comes from Vpsor's own API reference, the page "获取产品列表"
// (get the product list, https://www.vpsor.cn/doc/article/5ec64375fb3293528a2301fc,
// version v1.0 of 2020-05-21), and its general notes (服务域名 api.vpsor.cn,
// https): the path and method; that this call needs no signature ("此接口不需要
// 验签") and that products rarely change and should be cached (so it is read
// once a day, not at the API interval); the envelope (status 2000, message
// "success", data a list); each product's fields above; that regUnitPrice and
// renewUnitPrice are unit prices in fen (分, hundredths of a yuan) and
// regPriceInfo and renewPriceInfo JSON strings holding a price table keyed by
// years, "1" to "10", in fen; and that languageType is "cn" for Chinese-
// character names and "en" for English ones. The example's prices are the
// page's; its own words: "实际以真实返回结果为准" (the real answer prevails).
//
// What is ASSUMED, and says so at run time:
//
//   - A GET without a body lists every product: the reference shows the
//     request with a JSON body naming domainTlds and languageType, but gives
//     no default; a shorter list than the stream holds is refused by the
//     shrink guard, never published.
//   - The price of a year is the table's "1", not the unit price beside it
//     (the example's regUnitPrice 4800 is below its one-year 4900: what the
//     unit price is for is not said); both unit prices are known, not read.
//     A table without "1" (a zone sold for two years at least) offers no
//     one-year price. A year's price is a whole number of fen; anything else
//     skips the row. Zero is no price.
//   - A "cn" row of a zone written in ASCII (".com") prices Chinese-character
//     names under that zone, not the zone: left out. A "cn" row of a zone
//     written in Chinese (".中国") is that zone's price. Another languageType
//     skips the row, named.
//   - No transfer price is listed: none is published.
//   - Currency: yuan (CNY), which the reference's fen say. Tax: the reference
//     does not say: unknown.
//
// # Fields
//
//   - the envelope: status, message (read), data (the rows).
//   - a row: domainTld, languageType, regPriceInfo, renewPriceInfo (read);
//     languageTypeName, regUnitPrice, renewUnitPrice, description,
//     needTmValid, pos (known, not read).
package vpsor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/kit"
)

// Name is the source's name and Vpsor's registrar id.
const Name = "vpsor"

// Declaration is the source, as the package comment reads it.
func Declaration() *kit.Declaration {
	d := kit.Site(Name, "Vpsor (硅云)", "https://www.vpsor.cn", "https://api.vpsor.cn/domain-server/api/v1/product/search", "vpsor product list", "CNY", &kit.Table{
		Rows: "data[]", Zone: "domainTld", Check: succeeded, Prepare: oneYear,
		Register: kit.Op{Price: "register"}, Renew: kit.Op{Price: "renew"},
	})
	d.Kind, d.Shape = contracts.SourceAPI, format()
	return d
}

// succeeded refuses an answer whose status is not 2000, naming its message.
func succeeded(doc *kit.Doc) error {
	if s, err := kit.DecimalText(doc.Get("status")); err != nil || s != "2000" {
		return fmt.Errorf("vpsor answered status %s: %q", kit.Snippet(doc.Get("status")), kit.Message(doc, "message"))
	}
	return nil
}

// oneYear leaves out the price of Chinese-character names under an ASCII
// zone and makes the row's prices its tables' one-year prices, in yuan.
func oneYear(r *kit.Row) error {
	zone, _ := kit.String(r.Get("domainTld"))
	switch lang, _ := kit.String(r.Get("languageType")); lang {
	case "en":
	case "cn":
		if isASCII(zone) {
			return ingest.LeftOut("the price of Chinese-character names under " + zone + ", not of the zone")
		}
	default:
		return fmt.Errorf("languageType %q is not known", lang)
	}
	var p struct {
		Register string `json:"register"`
		Renew    string `json:"renew"`
	}
	var err error
	if p.Register, err = firstYear(r.Get("regPriceInfo")); err != nil {
		return fmt.Errorf("regPriceInfo: %w", err)
	}
	if p.Renew, err = firstYear(r.Get("renewPriceInfo")); err != nil {
		return fmt.Errorf("renewPriceInfo: %w", err)
	}
	part, err := json.Marshal(p)
	r.Use(part)
	return err
}

// firstYear is the one-year price of a price table in fen (a JSON string
// holding an object keyed by years, or that object), as decimal yuan; ""
// when the table is absent or has no one-year price.
func firstYear(raw json.RawMessage) (string, error) {
	if kit.IsNull(raw) {
		return "", nil
	}
	table := []byte(raw)
	if t := bytes.TrimSpace(raw); t[0] == '"' {
		var err error
		if table, err = unquote(t); err != nil {
			return "", err
		}
		if len(bytes.TrimSpace(table)) == 0 {
			return "", nil
		}
	}
	var years struct {
		One json.RawMessage `json:"1"`
	}
	if !kit.IsObject(table) || json.Unmarshal(table, &years) != nil {
		return "", fmt.Errorf("%s is not a price table by years", kit.Snippet(raw))
	}
	if kit.IsNull(years.One) {
		return "", nil
	}
	text, err := kit.DecimalText(years.One)
	if err != nil {
		return "", err
	}
	fen, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
	if err != nil || fen < 0 {
		return "", fmt.Errorf("one year's %s is not a whole number of fen", kit.Snippet(years.One))
	}
	return fmt.Sprintf("%d.%02d", fen/100, fen%100), nil
}

// unquote reads a JSON string: one whose only escapes are \" (a JSON
// document written into a string, as the tables are) by dropping their
// backslashes, any other through encoding/json.
func unquote(t []byte) ([]byte, error) {
	if len(t) < 2 || t[len(t)-1] != '"' {
		return nil, fmt.Errorf("%s is not a string", kit.Snippet(t))
	}
	if inner := t[1 : len(t)-1]; bytes.Count(inner, []byte{'\\'}) == bytes.Count(inner, []byte(`\"`)) {
		return bytes.ReplaceAll(inner, []byte(`\"`), []byte(`"`)), nil
	}
	var s string
	err := json.Unmarshal(t, &s)
	return []byte(s), err
}

// isASCII reports a zone written in ASCII only.
func isASCII(s string) bool {
	return bytes.IndexFunc([]byte(s), func(r rune) bool { return r > 0x7f }) < 0
}

func format() *ingest.Shape {
	row := ingest.Object(map[string]*ingest.Shape{
		"domainTld": ingest.Scalar(), "languageType": ingest.Scalar(), "languageTypeName?": ingest.Scalar(),
		"regUnitPrice?": ingest.Scalar(), "regPriceInfo": nil, "renewUnitPrice?": ingest.Scalar(), "renewPriceInfo": nil,
		"description?": ingest.Scalar(), "needTmValid?": ingest.Scalar(), "pos?": ingest.Scalar(),
	})
	return ingest.Object(map[string]*ingest.Shape{"status": ingest.Scalar(), "message?": ingest.Scalar(), "data": ingest.Array(row)})
}
