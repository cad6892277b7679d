package nicnames_test

import (
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/nicnames"
)

var op = ingesttest.USD

// TestFetch reads nicnames.com's entry: 19 zones, 21 rows less .pl and
// .com.pl, which offer nothing (left out, not skipped); other registrars'
// rows are not read. The fixture's ICANNfee is 0.20: generic, sponsored
// and generic-restricted top-level zones cost 20 cents more than listed.
func TestFetch(t *testing.T) {
	got := suite.Fetched(t, "prices.json", 19, 0)
	ingesttest.CheckEach(t, got, []ingesttest.Ops{
		{Name: "gTLD with the ICANN fee added", Zone: ".com", Register: op(1192), Renew: op(1192), Transfer: op(1199)},
		{Name: "cheaper first year", Zone: ".org", Register: op(998), Renew: op(1218), Transfer: op(1218)},
		{Name: "ccTLD has no ICANN fee", Zone: ".io", Register: op(3998), Renew: op(5498), Transfer: op(5498)},
		{Name: "second-level zone, empty transfer not offered, no fee", Zone: ".co.uk", Register: op(549), Renew: op(549)},
		{Name: "free transfer", Zone: ".uk", Register: op(549), Renew: op(549), Transfer: op(0)},
		{Name: "thousands separator", Zone: ".security", Register: op(206043), Renew: op(206043), Transfer: op(206043)},
		{Name: "IDN gTLD as A-label carries the fee", Zone: ".xn--q9jyb4c", Register: op(919), Renew: op(2919), Transfer: op(2919)},
		{Name: "IDN ccTLD in Unicode, no fee", Zone: ".xn--p1ai", Register: op(499), Renew: op(799)},
		{Name: "sponsored TLD carries the fee", Zone: ".asia", Register: op(1319), Renew: op(1519), Transfer: op(1519)},
		{Name: "generic-restricted TLD carries the fee", Zone: ".biz", Register: op(1719), Renew: op(2019), Transfer: op(2019)},
		{Name: "n/a transfer not offered", Zone: ".es", Register: op(699), Renew: op(899)},
		{Name: "prices as JSON numbers", Zone: ".xyz", Register: op(219), Renew: op(1318), Transfer: op(1318)},
		{Name: "three-value row has no transfer", Zone: ".me", Register: op(398), Renew: op(1998)},
		{Name: "upper-case second-level zone, zero transfer is free", Zone: ".com.au", Register: op(1299), Renew: op(1299), Transfer: op(0)},
		{Name: "leading dot", Zone: ".app", Register: op(1518), Renew: op(1518), Transfer: op(1518)},
		{Name: "values after the fourth are not read", Zone: ".club", Register: op(218), Renew: op(1618), Transfer: op(1618)},
	}, ".pl", ".com.pl", ".bad")
}

// doc is a document whose nicnames.com entry has the given currency and
// fee (JSON values, "" to leave the field out) and rows.
func doc(currency, fee string, rows ...string) string {
	var fields []string
	fields = append(fields, `"name":"nicnames.com"`)
	if currency != "" {
		fields = append(fields, `"currency":`+currency)
	}
	if fee != "" {
		fields = append(fields, `"ICANNfee":`+fee)
	}
	fields = append(fields, `"prices":[`+strings.Join(rows, ",")+`]`)
	return `{"registrars":[{` + strings.Join(fields, ",") + `}]}`
}

// TestParseQuirks covers the format's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	const com = `["com","10.00","10.00","10.00"]`
	suite.Quirks(t, []ingesttest.Quirk{
		{
			Name: "no ICANN fee: prices as listed",
			Body: doc(`"USD"`, "", com),
			Zone: ".com", Want: suite.Set(".com", op(1000), op(1000), op(1000)),
		},
		{
			Name: "zero ICANN fee",
			Body: doc(`"USD"`, `"0.00"`, com),
			Zone: ".com", Want: suite.Set(".com", op(1000), op(1000), op(1000)),
		},
		{
			Name: "null ICANN fee",
			Body: doc(`"USD"`, `null`, com),
			Zone: ".com", Want: suite.Set(".com", op(1000), op(1000), op(1000)),
		},
		{
			Name: "ICANN fee as a number",
			Body: doc(`"USD"`, `0.18`, com),
			Zone: ".com", Want: suite.Set(".com", op(1018), op(1018), op(1018)),
		},
		{
			Name: "ICANN fee added to a free gTLD transfer",
			Body: doc(`"USD"`, `"0.20"`, `["com","10.00","10.00","0.00"]`),
			Zone: ".com", Want: suite.Set(".com", op(1020), op(1020), op(20)),
		},
		{
			Name: "ICANN fee not added to a second-level zone under a gTLD",
			Body: doc(`"USD"`, `"0.20"`, `["us.com","20.00","20.00","20.00"]`),
			Zone: ".us.com", Want: suite.Set(".us.com", op(2000), op(2000), op(2000)),
		},
		{
			Name: "ICANN fee not added to a two-letter TLD the catalog does not know",
			Body: doc(`"USD"`, `"0.20"`, `["zz","20.00","20.00","20.00"]`),
			Zone: ".zz", Want: suite.Set(".zz", op(2000), op(2000), op(2000)),
		},
		{
			Name: "ICANN fee added to an ASCII TLD the catalog does not know",
			Body: doc(`"USD"`, `"0.20"`, `["zzzz","20.00","20.00","20.00"]`),
			Zone: ".zzzz", Want: suite.Set(".zzzz", op(2020), op(2020), op(2020)),
		},
		{
			Name: "IDN TLD the catalog does not know is skipped when a fee is due",
			Body: doc(`"USD"`, `"0.20"`, `["テスト","20.00","20.00","20.00"]`, com),
			Zone: ".xn--zckzah", Skipped: 1, Keep: []string{"prices.v1.nicnames.xn--zckzah"},
		},
		{
			Name: "IDN TLD the catalog does not know is priced when no fee is due",
			Body: doc(`"USD"`, `"0"`, `["テスト","20.00","20.00","20.00"]`),
			Zone: ".xn--zckzah", Want: suite.Set(".xn--zckzah", op(2000), op(2000), op(2000)),
		},
		{
			Name: "currency read from the document",
			Body: doc(`"eur"`, `"0.20"`, com),
			Zone: ".com", Want: suite.Set(".com", ingesttest.Regular(1020, "EUR"), ingesttest.Regular(1020, "EUR"), ingesttest.Regular(1020, "EUR")),
		},
		{
			Name: "currency without minor units",
			Body: doc(`"JPY"`, "", `["jp","1,500","1,500",""]`),
			Zone: ".jp", Want: suite.Set(".jp", ingesttest.Regular(1500, "JPY"), ingesttest.Regular(1500, "JPY"), nil),
		},
		{
			Name: "zero registration is not offered",
			Body: doc(`"USD"`, "", `["com","0.00","10.00","10.00"]`),
			Zone: ".com", Want: suite.Set(".com", nil, op(1000), op(1000)),
		},
		{
			Name: "nothing but a free transfer is left out",
			Body: doc(`"USD"`, "", `["pl","0","0","0"]`, com),
			Zone: ".pl",
		},
		{
			Name: "dash and null prices are not offered",
			Body: doc(`"USD"`, "", `["com","10.00","-",null]`),
			Zone: ".com", Want: suite.Set(".com", op(1000), nil, nil),
		},
		{
			Name: "unicode and A-label rows keep the first",
			Body: doc(`"USD"`, "", `["みんな","9.00","9.00","9.00"]`, `["xn--q9jyb4c","8.00","8.00","8.00"]`),
			Zone: ".xn--q9jyb4c", Want: suite.Set(".xn--q9jyb4c", op(900), op(900), op(900)), Skipped: 1,
		},
		{
			Name: "unreadable price skips the zone and keeps its last price",
			Body: doc(`"USD"`, "", `["net","TBD","10.00","10.00"]`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.nicnames.net"},
		},
		{
			Name: "negative price skips the zone",
			Body: doc(`"USD"`, "", `["net","-1","10.00","10.00"]`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.nicnames.net"},
		},
		{
			Name: "misplaced thousands separator skips the zone",
			Body: doc(`"USD"`, "", `["net","1,00.00","10.00","10.00"]`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.nicnames.net"},
		},
		{
			Name: "price over the ceiling skips the zone",
			Body: doc(`"USD"`, "", `["net","99999999999999","10.00","10.00"]`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.nicnames.net"},
		},
		{
			Name: "price that is an object skips the zone",
			Body: doc(`"USD"`, "", `["net",{"amount":"10.00"},"10.00","10.00"]`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.nicnames.net"},
		},
		{
			Name: "row that is not an array is skipped",
			Body: doc(`"USD"`, "", `{"tld":"net"}`, com),
			Zone: ".net", Skipped: 1,
		},
		{
			Name: "row without a price is skipped",
			Body: doc(`"USD"`, "", `["net"]`, com),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.nicnames.net"},
		},
		{
			Name: "tld that is not a string is skipped",
			Body: doc(`"USD"`, "", `[42,"10.00","10.00","10.00"]`, com),
			Zone: ".com", Want: suite.Set(".com", op(1000), op(1000), op(1000)), Skipped: 1,
		},
		{
			Name: "tld that is not a zone is skipped",
			Body: doc(`"USD"`, "", `["foo bar","10.00","10.00","10.00"]`, com),
			Zone: ".foo bar", Skipped: 1,
		},
		{
			Name: "entry name in another case",
			Body: `{"registrars":[{"name":" NicNames.com ","currency":"USD","prices":[` + com + `]}]}`,
			Zone: ".com", Want: suite.Set(".com", op(1000), op(1000), op(1000)),
		},
		{
			Name: "other registrars' odd entries are not read",
			Body: `{"registrars":["x",{"name":7},{"name":"porkbun.com","currency":"XXX","ICANNfee":true,"prices":"none"},{"name":"nicnames.com","currency":"USD","prices":[` + com + `]}]}`,
			Zone: ".com", Want: suite.Set(".com", op(1000), op(1000), op(1000)),
		},
		{Name: "ICANN fee that is a boolean", Body: doc(`"USD"`, `true`, com), WantErr: "ICANNfee true is not an amount"},
		{Name: "ICANN fee that is a word", Body: doc(`"USD"`, `"included"`, com), WantErr: `ICANNfee "included" is not an amount`},
		{Name: "negative ICANN fee", Body: doc(`"USD"`, `"-0.20"`, com), WantErr: "ICANNfee"},
		{Name: "no currency", Body: doc("", "", com), WantErr: "names no currency"},
		{Name: "empty currency", Body: doc(`""`, "", com), WantErr: "names no currency"},
		{Name: "unknown currency", Body: doc(`"DOLLARS"`, "", com), WantErr: `currency "DOLLARS"`},
		{Name: "no nicnames.com entry", Body: `{"registrars":[{"name":"porkbun.com","currency":"USD","prices":[` + com + `]}]}`, WantErr: "no nicnames.com entry"},
		{Name: "two nicnames.com entries", Body: `{"registrars":[{"name":"nicnames.com","currency":"USD","prices":[` + com + `]},{"name":"nicnames.com","currency":"USD","prices":[]}]}`, WantErr: "2 nicnames.com entries"},
		{Name: "prices not a list", Body: `{"registrars":[{"name":"nicnames.com","currency":"USD","prices":{"com":"10.00"}}]}`, WantErr: "not a list of rows"},
		{Name: "no prices", Body: `{"registrars":[{"name":"nicnames.com","currency":"USD"}]}`, WantErr: "not a list of rows"},
		{Name: "empty prices", Body: doc(`"USD"`, ""), WantErr: "no zones"},
		{Name: "only zones not sold", Body: doc(`"USD"`, "", `["pl","0","0","0"]`), WantErr: "no usable zone"},
		{Name: "error envelope", Body: string(ingesttest.Fixture(t, "error.json")), WantErr: `nicnames answered "Service temporarily unavailable"`},
		{Name: "empty object", Body: `{}`, WantErr: "has no registrars"},
		{Name: "registrars not a list", Body: `{"registrars":{"nicnames.com":[]}}`, WantErr: "decode nicnames price list"},
		{Name: "html page", Body: `<!DOCTYPE html><html><body>Maintenance</body></html>`, WantErr: "decode nicnames price list"},
		{Name: "truncated", Body: string(ingesttest.Fixture(t, "prices.json")[:400]), WantErr: "decode nicnames price list"},
		{Name: "empty body", Body: ``, WantErr: "decode nicnames price list"},
	})
}

// suite is the source, for the conformance suite and the tests above.
var suite = ingesttest.Declared(nicnames.Declaration()).Reads("prices.json", "shrunk.json").With(ingesttest.Suite{
	Check:  ingesttest.PlainGet,
	Errors: []string{"error.json"}, Spoil: "registrars.1.prices.0.2",
	Drift: ingesttest.DriftPaths{Row: "registrars[]", Field: "currency", Shape: "registrars"},
})

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, nicnames.Declaration().Read, "*.json") }
