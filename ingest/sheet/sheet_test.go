package sheet_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/sheet"
)

var observed = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

func clock() time.Time { return observed }

// render writes a price set on one line, so that expectations read like
// the sheet: "acme .com USD reg=1044/888@2027-01-01T00:00:00Z ren=1098 tra=-"
// (regular/promotion@end, minor units, "-" when not offered).
func render(p *contracts.PriceSet) string {
	var cur string
	ops := make([]string, 3)
	for i, op := range p.Ops() {
		s := "-"
		if op != nil {
			cur = op.Regular.Currency
			s = fmt.Sprint(op.Regular.Amount)
			if op.Promo != nil {
				s += fmt.Sprintf("/%d", op.Promo.Price.Amount)
				if op.Promo.EndsAt != nil {
					s += "@" + op.Promo.EndsAt.Format(time.RFC3339)
				}
			}
		}
		ops[i] = []string{"reg=", "ren=", "tra="}[i] + s
	}
	return fmt.Sprintf("%s %s %s %s", p.Registrar, p.Zone, cur, strings.Join(ops, " "))
}

// rendered checks every price set of a list against the contract and
// renders them in order.
func rendered(t *testing.T, list *ingest.List) []string {
	t.Helper()
	var out []string
	for i := range list.Prices {
		p := &list.Prices[i]
		if err := p.Validate(); err != nil {
			t.Errorf("%s %s does not validate: %v", p.Registrar, p.Zone, err)
		}
		out = append(out, render(p))
	}
	return out
}

func errorTexts(errs []error) []string {
	out := make([]string, len(errs))
	for i, err := range errs {
		out[i] = err.Error()
	}
	return out
}

// fixturePrices are what both fixtures price, in list order.
var fixturePrices = []string{
	"acme-names .app USD reg=1498 ren=1698 tra=1498",
	"acme-names .car USD reg=249900 ren=249900 tra=249900",
	"acme-names .co.uk USD reg=868 ren=868 tra=0",
	"acme-names .com USD reg=1044/888@2027-01-01T00:00:00Z ren=1098 tra=1044",
	"acme-names .com.au USD reg=- ren=1298 tra=-",
	"acme-names .dev USD reg=1298 ren=1698 tra=1298",
	"acme-names .io USD reg=3998/2998@2026-11-30T23:59:59Z ren=5298 tra=3998",
	"acme-names .net USD reg=1248 ren=1398 tra=1248",
	"acme-names .org USD reg=993 ren=1148 tra=993",
	"acme-names .xn--p1ai USD reg=499 ren=1999 tra=-",
	"acme-names .xyz USD reg=200 ren=1398 tra=1298/998",
	"nordreg .com EUR reg=990 ren=1190 tra=990",
	"nordreg .de EUR reg=490 ren=490 tra=0",
	"nordreg .eu EUR reg=590 ren=590 tra=590",
	"nordreg .fr EUR reg=690 ren=690 tra=-",
	"nordreg .shop EUR reg=190 ren=2990 tra=2990",
	"nordreg .xn--p1ai EUR reg=119000 ren=1290 tra=-",
	"tokyo-dns .co.jp JPY reg=4800 ren=4800 tra=-",
	"tokyo-dns .com JPY reg=1408 ren=1628/980@2027-01-01T00:00:00Z tra=1408",
	"tokyo-dns .jp JPY reg=3190 ren=3190 tra=0",
	"tokyo-dns .tokyo JPY reg=99 ren=1280 tra=1280",
}

func TestParseFixtures(t *testing.T) {
	// The skipped rows that name a readable registrar and zone keep that
	// zone; the duplicate .com is priced by its first row, and "not a
	// zone!" names none.
	keep := []string{"prices.v1.acme-names.info", "prices.v1.old-reg.net", "prices.v1.tokyo-dns.net"}
	for _, tc := range []struct {
		file, format string
		skipped      []string
	}{
		{"prices.csv", "csv", []string{
			"line 29: acme-names .com is already priced on line 4; the first row stands",
			`line 30: currency: unknown currency "XYZ": want an ISO 4217 code such as USD`,
			`line 31: zone: malformed zone "not a zone!"`,
			"line 32: has 14 fields, the header has 13 (an unquoted comma in an amount?)",
			`line 33: register: amount "1,500" is ambiguous`,
		}},
		{"prices.json", "json", []string{
			"prices[21]: acme-names .com is already priced on prices[0]; the first row stands",
			`prices[22]: currency: unknown currency "XYZ": want an ISO 4217 code such as USD`,
			`prices[23]: zone: malformed zone "not a zone!"`,
			`prices[24]: register: price "1.99e0" is not a decimal number`,
			"prices[25]: is not an object",
			`prices[26]: register: amount "1,500" is ambiguous`,
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			body := ingesttest.Fixture(t, tc.file)
			list, skipped, err := sheet.ParseFormat(body, "", "", observed)
			if err != nil {
				t.Fatal(err)
			}
			if got := rendered(t, list); !slices.Equal(got, fixturePrices) {
				t.Errorf("got prices\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(fixturePrices, "\n"))
			}
			if list.Skipped != len(tc.skipped) || !slices.Equal(list.Keep, keep) {
				t.Errorf("list skipped %d, keep %q; want %d, %q", list.Skipped, list.Keep, len(tc.skipped), keep)
			}
			got := errorTexts(skipped)
			if len(got) != len(tc.skipped) {
				t.Fatalf("skipped %q, want %d rows: %q", got, len(tc.skipped), tc.skipped)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.skipped[i]) {
					t.Errorf("skipped row %d: %q, want it to start %q", i, got[i], tc.skipped[i])
				}
				var re *sheet.RowError
				if !errors.As(skipped[i], &re) || re.Row == "" {
					t.Errorf("skipped row %d is %T without a row, want a *sheet.RowError", i, skipped[i])
				}
			}
			for _, p := range list.Prices {
				if p.Source != "sheet" || !p.ObservedAt.Equal(observed) || p.V != contracts.SchemaVersion || p.Kind != contracts.KindPriceSet {
					t.Errorf("%s %s: source %q observed %v v %d kind %s", p.Registrar, p.Zone, p.Source, p.ObservedAt, p.V, p.Kind)
				}
			}
			// Parse, which the offline import uses, reads the same.
			plain, err := sheet.Parse(body, observed)
			if err != nil || !slices.Equal(rendered(t, plain), fixturePrices) {
				t.Errorf("Parse disagrees with ParseFormat: err %v", err)
			}
			if _, _, err := sheet.ParseFormat(body, tc.format, "", observed); err != nil {
				t.Errorf("ParseFormat with format %s: %v", tc.format, err)
			}
		})
	}
}

// sheetCase is one sheet and what it must give: rendered prices, skipped
// rows (each a prefix of the row's error) and the subjects they keep, or a
// fatal error.
type sheetCase struct {
	name    string
	body    string
	want    []string
	skipped []string
	keep    []string
	wantErr string
}

func runCases(t *testing.T, format string, cases []sheetCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			list, skipped, err := sheet.ParseFormat([]byte(tc.body), format, "", observed)
			if tc.wantErr != "" {
				if err == nil {
					t.Fatalf("got %q, want an error mentioning %q", rendered(t, list), tc.wantErr)
				}
				if !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %q does not mention %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := rendered(t, list); !slices.Equal(got, tc.want) {
				t.Errorf("got prices\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if list.Skipped != len(tc.skipped) || !slices.Equal(list.Keep, tc.keep) {
				t.Errorf("list skipped %d, keep %q; want %d, %q", list.Skipped, list.Keep, len(tc.skipped), tc.keep)
			}
			got := errorTexts(skipped)
			if len(got) != len(tc.skipped) {
				t.Fatalf("skipped %q, want %q", got, tc.skipped)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.skipped[i]) {
					t.Errorf("skipped row %d: %q, want it to start %q", i, got[i], tc.skipped[i])
				}
			}
		})
	}
}

const hdr = "registrar,zone,currency,register,renew,transfer\n"

// promoHdr has every promotion column.
const promoHdr = "registrar,zone,currency,register,register_promo,register_promo_ends,renew,renew_promo,renew_promo_ends\n"

// TestSchemaExamples keeps SCHEMA.md honest: both of its examples parse
// whole, to the same prices.
func TestSchemaExamples(t *testing.T) {
	doc := string(ingesttest.Fixture(t, "../SCHEMA.md"))
	var got [][]string
	for _, lang := range []string{"csv", "json"} {
		_, block, ok := strings.Cut(doc, "```"+lang+"\n")
		block, _, _ = strings.Cut(block, "```")
		if !ok || block == "" {
			t.Fatalf("SCHEMA.md has no %s example", lang)
		}
		list, skipped, err := sheet.ParseFormat([]byte(block), "", "", observed)
		if err != nil || len(skipped) > 0 {
			t.Fatalf("the %s example: err %v, skipped %q", lang, err, errorTexts(skipped))
		}
		got = append(got, rendered(t, list))
	}
	if len(got[0]) != 11 || !slices.Equal(got[0], got[1]) {
		t.Errorf("the examples differ:\ncsv:\n%s\njson:\n%s", strings.Join(got[0], "\n"), strings.Join(got[1], "\n"))
	}
}

func TestCSVQuirks(t *testing.T) {
	com := "acme .com USD reg=968 ren=1098 tra=968"
	runCases(t, "csv", []sheetCase{
		{name: "byte order mark and comments", body: "\uFEFF# prices\n# more\n" + hdr + "# between\nacme,.com,USD,9.68,10.98,9.68\n", want: []string{com}},
		{name: "CRLF line ends", body: strings.ReplaceAll(hdr+"acme,.com,USD,9.68,10.98,9.68\n", "\n", "\r\n"), want: []string{com}},
		{name: "no line break after the last row", body: hdr + "acme,.com,USD,9.68,10.98,9.68", wantErr: "line 2: the sheet does not end with a line break: truncated?"},
		{
			name:    "truncated last row with every field",
			body:    hdr + "acme,.com,USD,9.68,10.98,9.68\nacme,.net,USD,12.48,13.98,11",
			wantErr: "line 3: the sheet does not end with a line break: truncated?",
		},
		{
			name:    "last row with too many fields and no line break",
			body:    hdr + "acme,.com,USD,9.68,10.98,9.68\nacme,.net,USD,12.48,13.98,1,1",
			wantErr: "line 3: the sheet does not end with a line break: truncated?",
		},
		{name: "a comment may end the sheet without a line break", body: hdr + "acme,.com,USD,9.68,10.98,9.68\n# end", want: []string{com}},
		{name: "a blank row may end the sheet without a line break", body: hdr + "acme,.com,USD,9.68,10.98,9.68\n,,,,,", want: []string{com}},
		{name: "CRLF cut before its last LF", body: strings.ReplaceAll(hdr, "\n", "\r\n") + "acme,.com,USD,9.68,10.98,9.68\r", want: []string{com}},
		{name: "spaces around cells", body: hdr + " acme , .com , USD , 9.68 ,10.98 , 9.68\n", want: []string{com}},
		{
			name: "column order and case free, unknown columns ignored",
			body: "Notes,TRANSFER,Zone,Currency,Registrar,\nhello,9.68,com,USD,acme,\n",
			want: []string{"acme .com USD reg=- ren=- tra=968"},
		},
		{
			name: "quoted thousands separators",
			body: hdr + `acme,.car,USD,"2,499.00","2,499.00","1,000,000.5"` + "\n" + `tokyo,.jp,JPY,"3,190.00",3190,0` + "\n",
			want: []string{"acme .car USD reg=249900 ren=249900 tra=100000050", "tokyo .jp JPY reg=3190 ren=3190 tra=0"},
		},
		{
			name:    "unquoted thousands separator skips the row",
			body:    hdr + "acme,.car,USD,2,499.00,2499.00,2499.00\nacme,.com,USD,9.68,10.98,9.68\n",
			want:    []string{com},
			keep:    []string{"prices.v1.acme.car"},
			skipped: []string{"line 2: has 7 fields, the header has 6"},
		},
		{
			name: "comma-grouped amount without a decimal point is ambiguous",
			body: promoHdr +
				`acme,.com,USD,"1,500",,,10.98,,` + "\n" +
				`acme,.net,USD,"1,500.00","1,000",,10.98,,` + "\n" +
				`acme,.org,JPY,1500,,,"1,500",,` + "\n" +
				`acme,.io,USD,"1,500.00",,,"1,000,000.00",,` + "\n",
			want: []string{"acme .io USD reg=150000 ren=100000000 tra=-"},
			keep: []string{"prices.v1.acme.com", "prices.v1.acme.net", "prices.v1.acme.org"},
			skipped: []string{
				`line 2: register: amount "1,500" is ambiguous (in EUR notation the comma is a decimal point): write "1500" or "1,500.00"`,
				`line 3: register_promo: amount "1,000" is ambiguous`,
				`line 4: renew: amount "1,500" is ambiguous (in EUR notation the comma is a decimal point): write "1500" or "1,500.00"`,
			},
		},
		{
			name:    "misplaced thousands separator",
			body:    hdr + `acme,.car,USD,"24,99.00",1,1` + "\n" + "acme,.com,USD,9.68,10.98,9.68\n",
			want:    []string{com},
			keep:    []string{"prices.v1.acme.car"},
			skipped: []string{`line 2: register: price "24,99.00": misplaced thousands separator`},
		},
		{
			name: "empty, n/a, na, -, none: not offered",
			body: hdr + "a,.com,USD,9.68,,n/a\nb,.com,USD,NA,-,None\nc,.com,USD,9.68,N/A,\n",
			want: []string{"a .com USD reg=968 ren=- tra=-", "c .com USD reg=968 ren=- tra=-"},
			keep: []string{"prices.v1.b.com"},
			skipped: []string{
				"line 3: no price: register, renew and transfer are all empty or n/a",
			},
		},
		{name: "zero is free", body: hdr + "acme,.co.uk,GBP,5.99,5.99,0.00\n", want: []string{"acme .co.uk GBP reg=599 ren=599 tra=0"}},
		{
			name: "decimals beyond the currency round half up",
			body: hdr + "acme,.com,USD,8.875,8.8749,10.8800\nacme,.jp,JPY,1200.5,1200.4,0\nacme,.bh,BHD,12.3456,1,1\n",
			want: []string{"acme .bh BHD reg=12346 ren=1000 tra=1000", "acme .com USD reg=888 ren=887 tra=1088", "acme .jp JPY reg=1201 ren=1200 tra=0"},
		},
		{
			name: "zones in every form people type",
			body: hdr + "a,.com,USD,1,1,1\nb,com,USD,1,1,1\nc,COM,USD,1,1,1\nd,com.,USD,1,1,1\n" +
				"a,.рф,USD,1,1,1\nb,xn--p1ai,USD,1,1,1\nc,XN--P1AI,USD,1,1,1\nd,РФ,USD,1,1,1\na,Co.UK,USD,1,1,1\n",
			want: []string{
				"a .co.uk USD reg=100 ren=100 tra=100", "a .com USD reg=100 ren=100 tra=100", "a .xn--p1ai USD reg=100 ren=100 tra=100",
				"b .com USD reg=100 ren=100 tra=100", "b .xn--p1ai USD reg=100 ren=100 tra=100",
				"c .com USD reg=100 ren=100 tra=100", "c .xn--p1ai USD reg=100 ren=100 tra=100",
				"d .com USD reg=100 ren=100 tra=100", "d .xn--p1ai USD reg=100 ren=100 tra=100",
			},
		},
		{
			name:    "the same zone in two forms is a duplicate; the first row stands",
			body:    hdr + "acme,.рф,USD,1,1,1\nacme,XN--P1AI,USD,2,2,2\nAcme,.рф,EUR,3,3,3\n",
			want:    []string{"acme .xn--p1ai USD reg=100 ren=100 tra=100"},
			skipped: []string{"line 3: acme .xn--p1ai is already priced on line 2", "line 4: acme .xn--p1ai is already priced on line 2"},
		},
		{
			name:    "unknown currency skips the row",
			body:    hdr + "acme,.com,XYZ,1,1,1\nacme,.net,US$,1,1,1\nacme,.org,,1,1,1\nacme,.com,usd,9.68,10.98,9.68\n",
			want:    []string{com},
			keep:    []string{"prices.v1.acme.net", "prices.v1.acme.org"},
			skipped: []string{`line 2: currency: unknown currency "XYZ"`, `line 3: currency: unknown currency "US$"`, "line 4: currency: is empty"},
		},
		{
			name:    "registrar ids",
			body:    hdr + "ACME,.com,USD,9.68,10.98,9.68\nacme names,.net,USD,1,1,1\n,.org,USD,1,1,1\nsample-acme,.io,USD,1,1,1\n-acme,.dev,USD,1,1,1\n",
			want:    []string{com},
			skipped: []string{`line 3: registrar: "acme names" is not`, "line 4: registrar: is empty", `line 5: registrar: "sample-acme": ids starting with "sample-" are reserved`, `line 6: registrar: "-acme" is not`},
		},
		{
			name:    "bad zones",
			body:    hdr + "acme,,USD,1,1,1\nacme,c_m,USD,1,1,1\nacme,exa mple,USD,1,1,1\nacme,..com,USD,1,1,1\nacme,.com,USD,9.68,10.98,9.68\n",
			want:    []string{com},
			skipped: []string{"line 2: zone: is empty", "line 3: zone: malformed zone", "line 4: zone: malformed zone", "line 5: zone: malformed zone"},
		},
		{
			name:    "bad amounts name their column",
			body:    hdr + "acme,.net,USD,ten,1,1\nacme,.org,USD,1,-1.00,1\nacme,.io,USD,1,1,1.2.3\nacme,.com,USD,9.68,10.98,9.68\n",
			want:    []string{com},
			keep:    []string{"prices.v1.acme.io", "prices.v1.acme.net", "prices.v1.acme.org"},
			skipped: []string{`line 2: register: price "ten"`, `line 3: renew: price "-1.00": negative price`, `line 4: transfer: price "1.2.3"`},
		},
		{
			name:    "a row with fewer fields in the middle is one bad row",
			body:    hdr + "acme,.net,USD,1\nacme,.com,USD,9.68,10.98,9.68\n",
			want:    []string{com},
			keep:    []string{"prices.v1.acme.net"},
			skipped: []string{"line 2: has 4 fields, the header has 6"},
		},
		{
			name: "a skipped row keeps its zone; duplicates, blank rows and comments do not",
			body: "# comment\n" + hdr +
				"acme,.com,USD,9.68,10.98,9.68\n" +
				"acme,COM,USD,1,1,1\n" +
				"acme,.net,USD,TBD,1,1\n" +
				",,,,,\n" +
				"# a note\n" +
				"acme names,.org,USD,x,1,1\n" +
				"NordReg,.рф,EUR,1,1,1x\n",
			want: []string{com},
			keep: []string{"prices.v1.acme.net", "prices.v1.nordreg.xn--p1ai"},
			skipped: []string{
				"line 4: acme .com is already priced on line 3", `line 5: register: price "TBD"`,
				`line 8: registrar: "acme names" is not`, `line 9: transfer: price "1x"`,
			},
		},
		{
			name:    "a row with the wrong number of fields keeps its zone only when registrar and zone lead",
			body:    "currency,registrar,zone,register\nUSD,acme,.net,1,000.00\nUSD,acme,.com,9.68\n",
			want:    []string{"acme .com USD reg=968 ren=- tra=-"},
			skipped: []string{"line 2: has 5 fields, the header has 4"},
		},
		{
			name: "blank rows are not rows",
			body: hdr + ",,,,,\n , ,,,,\n\nacme,.com,USD,9.68,10.98,9.68\n,,,,,\n",
			want: []string{com},
		},
		{
			name: "a quoted field may hold a line break; lines are counted where rows start",
			body: "registrar,zone,currency,register,notes\n" + "acme,.com,USD,9.68,\"two\nlines\"\nacme,.net,USD,x,\n",
			want: []string{"acme .com USD reg=968 ren=- tra=-"}, skipped: []string{`line 4: register: price "x"`},
			keep: []string{"prices.v1.acme.net"},
		},
		{
			name:    "nothing usable lists the first few rows",
			body:    hdr + "a,.com,XYZ,1,1,1\nb,.com,XYZ,1,1,1\nc,.com,XYZ,1,1,1\nd,.com,XYZ,1,1,1\ne,.com,XYZ,1,1,1\nf,.com,XYZ,1,1,1\ng,.com,XYZ,1,1,1\n",
			wantErr: `no usable row in price sheet: 7 skipped: line 2: currency: unknown currency "XYZ"`,
		},
		{name: "nothing usable ends with how many more", body: hdr + strings.Repeat("a,.com,XYZ,1,1,1\n", 7), wantErr: "; and 2 more"},
		{name: "missing required column", body: "registrar,currency,register\nacme,USD,9.68\n", wantErr: `CSV header on line 1: missing required column "zone" (the header names registrar, currency, register)`},
		{name: "missing several required columns", body: "# sheet\nregistrar,register\nacme,9.68\n", wantErr: `CSV header on line 2: missing required columns "zone", "currency"`},
		{name: "misspelt required column", body: "registar,zone,currency,register\n", wantErr: `missing required column "registrar" (the header names registar, zone, currency, register)`},
		{name: "no operation column", body: "registrar,zone,currency,price\nacme,.com,USD,9.68\n", wantErr: `none of the columns "register", "renew", "transfer"`},
		{name: "promo column without its operation", body: "registrar,zone,currency,register,renew_promo\n", wantErr: `column "renew_promo" needs column "renew"`},
		{name: "ends column without its promo column", body: "registrar,zone,currency,register,register_promo_ends\n", wantErr: `column "register_promo_ends" needs column "register_promo"`},
		{name: "column named twice", body: "registrar,zone,currency,register,Register\n", wantErr: `column "register" is named twice`},
		{name: "semicolons", body: "registrar;zone;currency;register\nacme;.com;USD;9,68\n", wantErr: "separate columns with commas"},
		{name: "header only", body: hdr, wantErr: "price sheet has no rows"},
		{name: "comments only", body: "# nothing yet\n", wantErr: "price sheet has no header row"},
		{name: "empty", body: " \n\t\n", wantErr: "price sheet is empty"},
		{name: "HTML error page", body: "<!DOCTYPE html>\n<html><body>Bad gateway</body></html>", wantErr: "looks like HTML or XML"},
		{name: "truncated mid-row", body: hdr + "acme,.com,USD,9.68,10.98,9.68\nacme,.net,USD,12", wantErr: "line 3: the sheet does not end with a line break: truncated?"},
		{name: "truncated inside quotes", body: hdr + "acme,.com,USD,9.68,10.98,9.68\nacme,.car,USD,\"2,4", wantErr: "read CSV"},
		{name: "stray quote", body: hdr + "acme,.com,USD,9\"68,10.98,9.68\n", wantErr: "read CSV"},
		{
			name: "broken quoting in the header",
			body: "registrar,\"zone,currency,register\nacme,.com,USD,9.68\n", wantErr: "read CSV header",
		},
	})
}

func TestPromotions(t *testing.T) {
	runCases(t, "csv", []sheetCase{
		{
			name: "a date ends at the next midnight UTC",
			body: promoHdr + "acme,.com,USD,10.44,8.88,2026-12-31,10.98,,\n",
			want: []string{"acme .com USD reg=1044/888@2027-01-01T00:00:00Z ren=1098 tra=-"},
		},
		{
			name: "an RFC 3339 end in another zone is kept as that instant, in UTC",
			body: promoHdr + "acme,.com,USD,10.44,8.88,2026-12-31T23:59:59+01:00,10.98,9.98,2026-06-30T12:00:00.5Z\n",
			want: []string{"acme .com USD reg=1044/888@2026-12-31T22:59:59Z ren=1098/998@2026-06-30T12:00:00Z tra=-"},
		},
		{
			name: "no end, or n/a",
			body: promoHdr + "acme,.com,USD,10.44,8.88,,10.98,9.98,n/a\n",
			want: []string{"acme .com USD reg=1044/888 ren=1098/998 tra=-"},
		},
		{
			name: "no promotion: empty or n/a",
			body: promoHdr + "acme,.com,USD,10.44,,,10.98,N/A,\n",
			want: []string{"acme .com USD reg=1044 ren=1098 tra=-"},
		},
		{
			name: "a promotion already over is kept as written",
			body: promoHdr + "acme,.com,USD,10.44,8.88,2020-01-31,10.98,,\n",
			want: []string{"acme .com USD reg=1044/888@2020-02-01T00:00:00Z ren=1098 tra=-"},
		},
		{
			name: "a promotion equal to the regular price is dropped",
			body: promoHdr + "acme,.com,USD,10.44,10.44,2026-12-31,10.98,,\n",
			want: []string{"acme .com USD reg=1044 ren=1098 tra=-"},
		},
		{
			name: "a free promotion",
			body: promoHdr + "acme,.com,USD,10.44,0,2026-12-31,10.98,,\n",
			want: []string{"acme .com USD reg=1044/0@2027-01-01T00:00:00Z ren=1098 tra=-"},
		},
		{
			name: "bad promotions skip the row, naming the column",
			body: promoHdr +
				"acme,.a,USD,10.44,12.00,,10.98,,\n" +
				"acme,.b,USD,,1.99,,10.98,,\n" +
				"acme,.c,USD,10.44,,2026-12-31,10.98,,\n" +
				"acme,.d,USD,10.44,1.99,31/12/2026,10.98,,\n" +
				"acme,.e,USD,10.44,1.99,9999-12-31,10.98,,\n" +
				"acme,.f,USD,10.44,cheap,,10.98,,\n" +
				"acme,.g,USD,10.44,1.99,2026-12-31T23:59:59,10.98,,\n" +
				"acme,.h,USD,10.44,,,10.98,12.00,\n" +
				"acme,.com,USD,10.44,,,10.98,,\n",
			want: []string{"acme .com USD reg=1044 ren=1098 tra=-"},
			keep: []string{"prices.v1.acme.a", "prices.v1.acme.b", "prices.v1.acme.c", "prices.v1.acme.d", "prices.v1.acme.e", "prices.v1.acme.f", "prices.v1.acme.g", "prices.v1.acme.h"},
			skipped: []string{
				"line 2: register_promo: promotional price 12.00 is more than the regular 10.44",
				"line 3: register_promo: a promotion needs a regular register price",
				"line 4: register_promo_ends: an end needs a register_promo price",
				`line 5: register_promo_ends: "31/12/2026" is neither a date`,
				`line 6: register_promo_ends: "9999-12-31": year 10000 is not plausible`,
				`line 7: register_promo: price "cheap"`,
				`line 8: register_promo_ends: "2026-12-31T23:59:59" is neither`,
				"line 9: renew_promo: promotional price 12.00 is more than the regular 10.98",
			},
		},
	})
}

func TestJSONQuirks(t *testing.T) {
	com := "acme .com USD reg=968 ren=1098 tra=968"
	runCases(t, "json", []sheetCase{
		{name: "strings", body: `{"prices":[{"registrar":"acme","zone":".com","currency":"USD","register":"9.68","renew":"10.98","transfer":"9.68"}]}`, want: []string{com}},
		{name: "byte order mark", body: "\uFEFF" + `{"prices":[{"registrar":"acme","zone":".com","currency":"USD","register":"9.68","renew":"10.98","transfer":"9.68"}]}`, want: []string{com}},
		{
			name: "numbers are read by their digits, never a float",
			body: `{"prices":[{"registrar":"acme","zone":".com","currency":"USD","register":9.68,"renew":10.98,"transfer":9999999999.99},` +
				`{"registrar":"acme","zone":".net","currency":"USD","register":0.1,"renew":0.7,"transfer":1.005}]}`,
			want: []string{"acme .com USD reg=968 ren=1098 tra=999999999999", "acme .net USD reg=10 ren=70 tra=101"},
		},
		{
			name:    "exponents and negatives are not prices",
			body:    `{"prices":[{"registrar":"acme","zone":".net","currency":"USD","register":1e3},{"registrar":"acme","zone":".org","currency":"USD","renew":-1},{"registrar":"acme","zone":".com","currency":"USD","register":"9.68","renew":"10.98","transfer":"9.68"}]}`,
			want:    []string{com},
			keep:    []string{"prices.v1.acme.net", "prices.v1.acme.org"},
			skipped: []string{`prices[0]: register: price "1e3"`, `prices[1]: renew: price "-1": negative price`},
		},
		{
			name: "null, absent and n/a: not offered",
			body: `{"prices":[{"registrar":"acme","zone":".com","currency":"USD","register":"9.68","renew":null,"transfer":"n/a","register_promo":null,"register_promo_ends":null}]}`,
			want: []string{"acme .com USD reg=968 ren=- tra=-"},
		},
		{
			name: "promotions",
			body: `{"prices":[{"registrar":"acme","zone":".com","currency":"USD","register":"9.68","register_promo":"1.99","register_promo_ends":"2026-12-31","transfer":"9.68","transfer_promo":5,"transfer_promo_ends":"2026-12-01T00:00:00Z"}]}`,
			want: []string{"acme .com USD reg=968/199@2027-01-01T00:00:00Z ren=- tra=968/500@2026-12-01T00:00:00Z"},
		},
		{
			name: "fields of the wrong type name the field",
			body: `{"prices":[{"registrar":42,"zone":".net","currency":"USD","register":"1"},` +
				`{"registrar":"acme","zone":["org"],"currency":"USD","register":"1"},` +
				`{"registrar":"acme","zone":".io","currency":"USD","register":true},` +
				`{"registrar":"acme","zone":".dev","currency":"USD","register":"1","register_promo":"0.5","register_promo_ends":20261231},` +
				`{"registrar":"acme","zone":".com","currency":"USD","register":"9.68","renew":"10.98","transfer":"9.68"}]}`,
			want: []string{com},
			keep: []string{"prices.v1.acme.dev", "prices.v1.acme.io"},
			skipped: []string{
				"prices[0]: registrar: 42 is not a string", `prices[1]: zone: ["org"] is not a string`,
				"prices[2]: register: true is neither a string nor a number", "prices[3]: register_promo_ends: 20261231 is not a string",
			},
		},
		{
			name:    "entries that are not objects",
			body:    `{"prices":[null,"acme,.com",[],{"registrar":"acme","zone":".com","currency":"USD","register":"9.68","renew":"10.98","transfer":"9.68"},{}]}`,
			want:    []string{com},
			skipped: []string{"prices[0]: is not an object", "prices[1]: is not an object", "prices[2]: is not an object", "prices[4]: registrar: is empty"},
		},
		{
			name: "unknown keys and fields are ignored, field names in any case",
			body: `{"version":2,"prices":[{"Registrar":"acme","ZONE":"COM","currency":"usd","register":"9.68","renew":"10.98","transfer":"9.68","restore":"80.00"}],"notes":{"a":1}}`,
			want: []string{com},
		},
		{
			name:    "comma-grouped amount without a decimal point is ambiguous",
			body:    `{"prices":[{"registrar":"acme","zone":".net","currency":"JPY","register":"1,500"},{"registrar":"acme","zone":".com","currency":"USD","register":"9.68","renew":"10.98","transfer":"9.68"}]}`,
			want:    []string{com},
			keep:    []string{"prices.v1.acme.net"},
			skipped: []string{`prices[0]: register: amount "1,500" is ambiguous (in EUR notation the comma is a decimal point): write "1500" or "1,500.00"`},
		},
		{
			name:    "duplicates",
			body:    `{"prices":[{"registrar":"acme","zone":".com","currency":"USD","register":"9.68","renew":"10.98","transfer":"9.68"},{"registrar":"acme","zone":"com.","currency":"USD","register":"1"}]}`,
			want:    []string{com},
			skipped: []string{"prices[1]: acme .com is already priced on prices[0]"},
		},
		{name: "bare array", body: `[{"registrar":"acme","zone":".com","currency":"USD","register":"9.68"}]`, wantErr: "not a bare array"},
		{name: "no prices", body: `{"pricing":[]}`, wantErr: `no "prices" array`},
		{name: "prices null", body: `{"prices":null}`, wantErr: `no "prices" array`},
		{name: "prices not an array", body: `{"prices":{"com":"9.68"}}`, wantErr: `"prices" is not an array`},
		{name: "prices empty", body: `{"prices":[]}`, wantErr: "price sheet has no rows"},
		{name: "truncated", body: `{"prices":[{"registrar":"acme","zone":".com","currency":"USD","register":"9.68"},{"registrar":"ac`, wantErr: "decode JSON price sheet"},
		{name: "trailing garbage", body: `{"prices":[]} {"prices":[]}`, wantErr: "decode JSON price sheet"},
		{name: "not JSON", body: `prices: []`, wantErr: "decode JSON price sheet"},
		{name: "nothing usable", body: `{"prices":[{"registrar":"acme","zone":".com","currency":"XYZ","register":"1"}]}`, wantErr: `no usable row in price sheet: 1 skipped: prices[0]: currency: unknown currency "XYZ"`},
	})
}

func TestFormatDetection(t *testing.T) {
	csvBody := hdr + "acme,.com,USD,9.68,10.98,9.68\n"
	jsonBody := `{"prices":[{"registrar":"acme","zone":".com","currency":"USD","register":"9.68","renew":"10.98","transfer":"9.68"}]}`
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name    string
		cfg     sheet.Config
		wantErr string
	}{
		{name: "csv by extension", cfg: sheet.Config{File: write("a.csv", csvBody)}},
		{name: "json by extension, any case", cfg: sheet.Config{File: write("a.JSON", " \n"+jsonBody)}},
		{name: "json by first byte", cfg: sheet.Config{File: write("a.txt", "\n  "+jsonBody)}},
		{name: "csv by first byte", cfg: sheet.Config{File: write("b.txt", csvBody)}},
		{name: "the extension wins over the first byte", cfg: sheet.Config{File: write("c.csv", jsonBody)}, wantErr: "read CSV header"},
		{name: "an explicit format wins over the extension", cfg: sheet.Config{File: write("d.json", csvBody), Format: "CSV"}},
		{name: "an explicit format is obeyed", cfg: sheet.Config{File: write("e.txt", csvBody), Format: "json"}, wantErr: "decode JSON price sheet"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, err := sheet.New(tc.cfg, nil, clock)
			if err != nil {
				t.Fatal(err)
			}
			list, err := src.Fetch(context.Background())
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), tc.cfg.File) {
					t.Fatalf("err = %v, want one naming the file and mentioning %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := rendered(t, list); !slices.Equal(got, []string{"acme .com USD reg=968 ren=1098 tra=968"}) {
				t.Errorf("got %q", got)
			}
		})
	}
	t.Run("URL extension ignores the query", func(t *testing.T) {
		_, srv := ingesttest.NewAPI(t, []byte(jsonBody), nil)
		src, err := sheet.New(sheet.Config{URL: srv.URL + "/export/prices.csv?gid=0"}, ingesttest.Client(nil), clock)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := src.Fetch(context.Background()); err == nil || !strings.Contains(err.Error(), "read CSV header") {
			t.Errorf("err = %v, want the JSON body read as CSV and refused", err)
		}
	})
}

func TestConfig(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cfg     sheet.Config
		wantErr string
	}{
		{name: "URL", cfg: sheet.Config{URL: "https://example.org/prices.csv"}},
		{name: "file", cfg: sheet.Config{File: "prices.csv", Format: "json", Name: "sheet-b"}},
		{name: "neither", cfg: sheet.Config{}, wantErr: "URL: neither the sheet's URL nor its file is set"},
		{name: "both", cfg: sheet.Config{URL: "https://example.org/p.csv", File: "p.csv"}, wantErr: "URL: both the sheet's URL and its file are set"},
		{name: "relative URL", cfg: sheet.Config{URL: "prices.csv"}, wantErr: "URL: "},
		{name: "ftp URL", cfg: sheet.Config{URL: "ftp://example.org/prices.csv"}, wantErr: "URL: "},
		{name: "format", cfg: sheet.Config{File: "p.xlsx", Format: "xlsx"}, wantErr: `Format: "xlsx"`},
		{name: "name", cfg: sheet.Config{File: "p.csv", Name: "Sheet B"}, wantErr: `Name: "Sheet B"`},
		{name: "reserved", cfg: sheet.Config{File: "p.csv", Reserved: []string{"porkbun", "Name.com"}}, wantErr: `sheet Reserved: "Name.com"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Validate() = %v, want an error naming %s", err, tc.wantErr)
			}
			if _, err := sheet.New(tc.cfg, ingesttest.Client(nil), nil); err == nil {
				t.Error("New accepted a configuration Validate refuses")
			}
		})
	}
	if _, err := sheet.New(sheet.Config{URL: "https://example.org/p.csv"}, nil, nil); err == nil {
		t.Error("New with a URL and no fetch client succeeded")
	}
	src, err := sheet.New(sheet.Config{File: "p.csv"}, nil, nil)
	if err != nil || src.Name() != "sheet" {
		t.Errorf("New without a name: %v, name %q; want the default \"sheet\"", err, src.Name())
	}
}

// TestReservedRegistrars checks that a sheet cannot price a registrar
// another source publishes: its rows are skipped and keep nothing, so the
// sheet never speaks for that registrar.
func TestReservedRegistrars(t *testing.T) {
	reserved := []string{"porkbun", "namecom"}
	for _, tc := range []struct {
		name, file, body string
		skipped          []string
	}{
		{
			name: "csv", file: "prices.csv",
			body: hdr +
				"acme-names,.com,USD,9.68,10.98,9.68\n" +
				"porkbun,.net,USD,1,1,1\n" +
				"Porkbun,.org,USD,x,1,1\n" +
				"namecom,.io,USD,1,1\n",
			skipped: []string{
				"line 3: registrar: registrar porkbun is published by its own adapter; give the sheet's registrar another id",
				"line 4: registrar: registrar porkbun is published by its own adapter; give the sheet's registrar another id",
				"line 5: has 5 fields, the header has 6",
			},
		},
		{
			name: "json", file: "prices.json",
			body: `{"prices":[{"registrar":"acme-names","zone":".com","currency":"USD","register":"9.68","renew":"10.98","transfer":"9.68"},` +
				`{"registrar":"namecom","zone":".net","currency":"USD","register":"1"},` +
				`{"registrar":"porkbun","zone":".org","currency":"USD","register":true}]}`,
			skipped: []string{
				"prices[1]: registrar: registrar namecom is published by its own adapter; give the sheet's registrar another id",
				"prices[2]: register: true is neither a string nor a number",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			path := filepath.Join(t.TempDir(), tc.file)
			if err := os.WriteFile(path, []byte(tc.body), 0o600); err != nil {
				t.Fatal(err)
			}
			src, err := sheet.New(sheet.Config{File: path, Reserved: reserved, Log: slog.New(slog.NewTextHandler(&buf, nil))}, nil, clock)
			if err != nil {
				t.Fatal(err)
			}
			list, err := src.Fetch(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if got, want := rendered(t, list), []string{"acme-names .com USD reg=968 ren=1098 tra=968"}; !slices.Equal(got, want) {
				t.Errorf("got prices %q, want %q", got, want)
			}
			if list.Skipped != len(tc.skipped) || list.Keep != nil {
				t.Errorf("list skipped %d, keep %q; want %d and nothing kept", list.Skipped, list.Keep, len(tc.skipped))
			}
			for _, want := range tc.skipped {
				if !strings.Contains(buf.String(), want) {
					t.Errorf("log %q does not mention %q", buf.String(), want)
				}
			}
			// Without Reserved the same sheet prices them.
			if plain, err := sheet.Parse([]byte(tc.body), observed); err != nil || len(plain.Prices) < 2 {
				t.Errorf("Parse without reserved ids: err %v", err)
			}
		})
	}
}

func urlSource(t *testing.T, url string, c *fetch.Client) *sheet.Source {
	t.Helper()
	src, err := sheet.New(sheet.Config{URL: url}, c, clock)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func TestFetchURL(t *testing.T) {
	for _, name := range []string{"prices.csv", "prices.json"} {
		t.Run(name, func(t *testing.T) {
			var accept string
			api, srv := ingesttest.NewAPI(t, ingesttest.Fixture(t, name), func(r *http.Request) error {
				accept = r.Header.Get("Accept")
				return nil
			})
			// No extension in the URL: the format comes from the body.
			list, err := urlSource(t, srv.URL+"/pub", ingesttest.Client(nil)).Fetch(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if got := rendered(t, list); !slices.Equal(got, fixturePrices) {
				t.Errorf("got prices\n%s", strings.Join(got, "\n"))
			}
			if n := api.Requests(); n != 1 || !strings.Contains(accept, "text/csv") {
				t.Errorf("%d requests, Accept %q", n, accept)
			}
		})
	}
}

func TestFetchRetriesServerErrors(t *testing.T) {
	api, srv := ingesttest.NewAPI(t, ingesttest.Fixture(t, "prices.csv"), nil)
	api.Serve(ingesttest.Status(500), ingesttest.Status(503))
	list, err := urlSource(t, srv.URL, ingesttest.Client(nil)).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n := api.Requests(); len(list.Prices) != len(fixturePrices) || n != 3 {
		t.Errorf("%d prices after %d requests, want %d after 3", len(list.Prices), n, len(fixturePrices))
	}
}

func TestFetchRetriesTimeout(t *testing.T) {
	api, srv := ingesttest.NewAPI(t, ingesttest.Fixture(t, "prices.json"), nil)
	api.Serve(ingesttest.Hang(t))
	list, err := urlSource(t, srv.URL, ingesttest.Client(&http.Client{Timeout: 100 * time.Millisecond})).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n := api.Requests(); len(list.Prices) != len(fixturePrices) || n != 2 {
		t.Errorf("%d prices after %d requests, want %d after 2", len(list.Prices), n, len(fixturePrices))
	}
}

func TestFetchHonoursRetryAfter(t *testing.T) {
	api, srv := ingesttest.NewAPI(t, ingesttest.Fixture(t, "prices.csv"), nil)
	api.Serve(ingesttest.Status(http.StatusTooManyRequests, "Retry-After", "1"))
	list, err := urlSource(t, srv.URL, ingesttest.Client(nil)).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n := api.Requests(); len(list.Prices) != len(fixturePrices) || n != 2 {
		t.Errorf("%d prices after %d requests, want %d after 2", len(list.Prices), n, len(fixturePrices))
	}
}

func TestFetchGivesUp(t *testing.T) {
	api, srv := ingesttest.NewAPI(t, nil, nil)
	api.SetHandler(ingesttest.Status(http.StatusForbidden))
	_, err := urlSource(t, srv.URL, ingesttest.Client(nil)).Fetch(context.Background())
	var se *fetch.StatusError
	if !errors.As(err, &se) || se.Status != http.StatusForbidden || !strings.HasPrefix(err.Error(), "fetch price sheet: ") {
		t.Fatalf("err = %v, want a wrapped 403", err)
	}
	if n := api.Requests(); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

// badBodies are damaged sheets: each must fail the whole fetch.
func badBodies(t *testing.T) []struct{ name, body, wantErr string } {
	csvBody, jsonBody := string(ingesttest.Fixture(t, "prices.csv")), string(ingesttest.Fixture(t, "prices.json"))
	cutCSV := csvBody[:strings.Index(csvBody, ".io,acme-names,USD,39.9")+len(".io,acme-names,USD,39.9")]
	return []struct{ name, body, wantErr string }{
		{"truncated CSV", cutCSV, "truncated?"},
		{"truncated CSV with every field", csvBody[:strings.Index(csvBody, "first-year offer")+len("first-year")], "the sheet does not end with a line break: truncated?"},
		{"truncated CSV inside quotes", csvBody[:strings.Index(csvBody, `"2,49`)+len(`"2,49`)], "read CSV"},
		{"truncated JSON", jsonBody[:len(jsonBody)/2], "decode JSON price sheet"},
		{"malformed CSV", strings.Replace(csvBody, "net,acme-names", `n"et,acme-names`, 1), "read CSV"},
		{"malformed JSON", strings.Replace(jsonBody, `"prices": [`, `"prices": [,`, 1), "decode JSON price sheet"},
		{"HTML with status 200", "<!doctype html><html><head><title>Sign in</title></head><body>Sign in to continue</body></html>", "looks like HTML"},
	}
}

func TestFetchBadBody(t *testing.T) {
	for _, tc := range badBodies(t) {
		t.Run(tc.name, func(t *testing.T) {
			_, srv := ingesttest.NewAPI(t, []byte(tc.body), nil)
			list, err := urlSource(t, srv.URL, ingesttest.Client(nil)).Fetch(context.Background())
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("got %d prices, err %v; want an error mentioning %q", len(list.Prices), err, tc.wantErr)
			}
		})
	}
}

// stream renders what the stream holds for each of the fixtures'
// registrars, sorted.
func stream(t *testing.T, h *ingesttest.Harness) []string {
	t.Helper()
	var out []string
	for _, reg := range []string{"acme-names", "nordreg", "tokyo-dns"} {
		for _, p := range h.Prices(t, reg) {
			out = append(out, render(p))
		}
	}
	slices.Sort(out)
	return out
}

func TestKeepsLastGoodPrices(t *testing.T) {
	for _, tc := range badBodies(t) {
		t.Run(tc.name, func(t *testing.T) {
			api, srv := ingesttest.NewAPI(t, ingesttest.Fixture(t, "prices.csv"), nil)
			h := ingesttest.New(t, urlSource(t, srv.URL, ingesttest.Client(nil)))
			if err := h.Once(t); err != nil {
				t.Fatalf("first round: %v", err)
			}
			first := stream(t, h)
			if !slices.Equal(first, fixturePrices) {
				t.Fatalf("after the first round the stream holds\n%s", strings.Join(first, "\n"))
			}
			api.SetBody([]byte(tc.body))
			if err := h.Once(t); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("second round: err = %v, want one mentioning %q", err, tc.wantErr)
			}
			if got := stream(t, h); !slices.Equal(got, first) {
				t.Errorf("after the bad round the stream holds\n%s\nwant the first round's", strings.Join(got, "\n"))
			}
		})
	}
}

func TestUnreadableRowKeepsLastPrice(t *testing.T) {
	full := string(ingesttest.Fixture(t, "prices.csv"))
	api, srv := ingesttest.NewAPI(t, []byte(full), nil)
	h := ingesttest.New(t, urlSource(t, srv.URL, ingesttest.Client(nil)))
	if err := h.Once(t); err != nil {
		t.Fatalf("first round: %v", err)
	}
	first := stream(t, h)
	if p := h.Prices(t, "nordreg")[".de"]; p == nil || render(p) != "nordreg .de EUR reg=490 ren=490 tra=0" {
		t.Fatalf("after the first round nordreg .de is %v", p)
	}
	// The operator mistypes nordreg's .de: a letter O for a zero.
	bad := strings.Replace(full, ".de,nordreg,EUR,4.90,4.90,0.00", ".de,nordreg,EUR,4.9O,4.90,0.00", 1)
	if bad == full {
		t.Fatal("the edit changed nothing")
	}
	api.SetBody([]byte(bad))
	if err := h.Once(t); err != nil {
		t.Fatalf("second round with one unreadable row: %v", err)
	}
	if p := h.Prices(t, "nordreg")[".de"]; p == nil || render(p) != "nordreg .de EUR reg=490 ren=490 tra=0" {
		t.Errorf("after an unreadable row nordreg .de is %v, want its first-round price", p)
	}
	if got := stream(t, h); !slices.Equal(got, first) {
		t.Errorf("after the unreadable row the stream holds\n%s\nwant the first round's", strings.Join(got, "\n"))
	}
	// The fixture's own five bad rows each round, and the mistyped one.
	if got := h.Counter(t, "zoneprice_ingest_rows_skipped_total"); got != 5+6 {
		t.Errorf("zoneprice_ingest_rows_skipped_total = %v, want 11", got)
	}
}

func TestShrunkSheetRefused(t *testing.T) {
	full := string(ingesttest.Fixture(t, "prices.csv"))
	api, srv := ingesttest.NewAPI(t, []byte(full), nil)
	h := ingesttest.New(t, urlSource(t, srv.URL, ingesttest.Client(nil)))
	if err := h.Once(t); err != nil {
		t.Fatalf("first round: %v", err)
	}
	first := stream(t, h)
	// acme-names keeps 3 of its 11 zones; the others are untouched.
	var kept []string
	for line := range strings.Lines(full) {
		if strings.Contains(line, ",acme-names,") && !strings.HasPrefix(line, ".com,") && !strings.HasPrefix(line, "net,") && !strings.HasPrefix(line, "ORG,") {
			continue
		}
		kept = append(kept, line)
	}
	api.SetBody([]byte(strings.Join(kept, "")))
	err := h.Once(t)
	if !errors.Is(err, ingest.ErrShrunk) {
		t.Fatalf("second round: err = %v, want ingest.ErrShrunk", err)
	}
	if got := stream(t, h); !slices.Equal(got, first) {
		t.Errorf("after the refused round the stream holds\n%s\nwant the first round's", strings.Join(got, "\n"))
	}
}

func TestFileEditedBetweenRounds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "prices.csv")
	write := func(body string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	full := string(ingesttest.Fixture(t, "prices.csv"))
	write(full)
	src, err := sheet.New(sheet.Config{File: path, Name: "ops-sheet"}, nil, clock)
	if err != nil {
		t.Fatal(err)
	}
	if src.Name() != "ops-sheet" {
		t.Errorf("Name() = %q, want ops-sheet", src.Name())
	}
	h := ingesttest.New(t, src)
	if err := h.Once(t); err != nil {
		t.Fatalf("first round: %v", err)
	}
	if got := stream(t, h); !slices.Equal(got, fixturePrices) {
		t.Fatalf("after the first round the stream holds\n%s", strings.Join(got, "\n"))
	}
	if p := h.Prices(t, "nordreg")[".de"]; p == nil || p.Source != "ops-sheet" {
		t.Errorf("nordreg .de = %+v, want source ops-sheet", p)
	}
	// The operator raises nordreg's .de and drops its .fr.
	edited := strings.Replace(full, ".de,nordreg,EUR,4.90,4.90,0.00", ".de,nordreg,EUR,5.49,5.49,0.00", 1)
	edited = strings.Replace(edited, ".fr,nordreg,EUR,6.90,6.90,-,,,,,,,\n", "", 1)
	if edited == full {
		t.Fatal("the edit changed nothing")
	}
	write(edited)
	if err := h.Once(t); err != nil {
		t.Fatalf("second round: %v", err)
	}
	nord := h.Prices(t, "nordreg")
	if p := nord[".de"]; p == nil || render(p) != "nordreg .de EUR reg=549 ren=549 tra=0" {
		t.Errorf("after the edit nordreg .de is %v, want the new price", nord[".de"])
	}
	if p, ok := nord[".fr"]; ok {
		t.Errorf("nordreg .fr is still live after leaving the sheet: %s", render(p))
	}
	if len(nord) != 5 || len(h.Prices(t, "acme-names")) != 11 || len(h.Prices(t, "tokyo-dns")) != 4 {
		t.Errorf("after the edit the stream holds %d, %d and %d zones, want 5, 11 and 4",
			len(nord), len(h.Prices(t, "acme-names")), len(h.Prices(t, "tokyo-dns")))
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := h.Once(t); err == nil || !strings.Contains(err.Error(), "read price sheet") {
		t.Errorf("round with the file gone: err = %v, want a read error", err)
	}
	if len(h.Prices(t, "nordreg")) != 5 {
		t.Error("a missing file withdrew prices")
	}
}

func TestSkippedRowsLogged(t *testing.T) {
	var buf bytes.Buffer
	path := filepath.Join(t.TempDir(), "prices.csv")
	if err := os.WriteFile(path, ingesttest.Fixture(t, "prices.csv"), 0o600); err != nil {
		t.Fatal(err)
	}
	src, err := sheet.New(sheet.Config{File: path, Log: slog.New(slog.NewTextHandler(&buf, nil))}, nil, clock)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.Fetch(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"price sheet rows skipped", "skipped=5", "priced=21", "line 29:", "line 32:"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("log %q does not mention %q", buf.String(), want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"prices.csv", "prices.json"} {
		f.Add(ingesttest.Fixture(f, name))
	}
	f.Add([]byte(promoHdr + "acme,.com,USD,10.44,8.88,2026-12-31,10.98,9.98,2026-06-30T12:00:00Z\n"))
	f.Add([]byte(`{"prices":[{"registrar":"acme","zone":".рф","currency":"JPY","register":1500,"register_promo":"980","register_promo_ends":"2026-12-31"}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		list, err := sheet.Parse(body, observed)
		if err != nil {
			return
		}
		if len(list.Prices) == 0 {
			t.Fatal("a list without an error has no prices")
		}
		seen := map[string]bool{}
		for i := range list.Prices {
			p := &list.Prices[i]
			if err := p.Validate(); err != nil {
				t.Fatalf("%s %s does not validate: %v", p.Registrar, p.Zone, err)
			}
			if key := p.Registrar + " " + p.Zone; seen[key] {
				t.Fatalf("%s priced twice", key)
			} else {
				seen[key] = true
			}
			for _, op := range p.Ops() {
				if op != nil && op.Promo != nil && op.Promo.Price.Amount >= op.Regular.Amount {
					t.Fatalf("%s %s: promotion %d not below the regular %d", p.Registrar, p.Zone, op.Promo.Price.Amount, op.Regular.Amount)
				}
			}
		}
	})
}
