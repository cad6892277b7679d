package kit_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/kit"
)

var observed = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

// htmlTable is a registrar whose price page is an HTML table: the
// declaration a new one is.
var htmlTable = kit.Declaration{
	Name: "example-html", Registrar: ingest.Registrar{ID: "example-html", Name: "Example", Website: "https://registrar.example"},
	Kind: contracts.SourceSite, URL: "https://registrar.example/prices", What: "example price page", Currency: "USD",
	Tax: contracts.TaxExcluded,
	Table: &kit.Table{
		Format: kit.HTML, Rows: "table.prices tr", Zone: "domain", Symbols: true, Ignore: []string{"restore"},
		Register: kit.Op{Price: "register"}, Renew: kit.Op{Price: "renew"}, Transfer: kit.Op{Price: "transfer", ZeroFree: true},
	},
}

// csvSheet is a registrar whose list is a CSV file with a currency per
// row.
var csvSheet = kit.Declaration{
	Name: "example-csv", Registrar: ingest.Registrar{ID: "example-csv", Name: "Example", Website: "https://registrar.example"},
	Kind: contracts.SourceSite, URL: "https://registrar.example/prices.csv", What: "example price sheet", Currency: "USD",
	Table: &kit.Table{
		Format: kit.CSV, Zone: "zone", Currency: "currency",
		Register: kit.Op{Price: "register"}, Renew: kit.Op{Price: "renew"}, Transfer: kit.Op{Price: "transfer", ZeroFree: true},
	},
}

func suite(d *kit.Declaration, ext string) ingesttest.Suite {
	return ingesttest.Suite{
		Name: d.Name, Registrar: d.Registrar.ID, Parse: d.Read,
		New: func(url string, client *fetch.Client, now func() time.Time) (ingest.Source, error) {
			return kit.New(d, kit.Config{URL: url}, client, now)
		},
		Validate: func(url string) error { return kit.Config{URL: url}.Validate() },
		Fixtures: []string{"prices." + ext}, Shrunk: "prices_shrunk." + ext, Conditional: true, Golden: "*." + ext,
	}
}

// TestConform runs the behaviour tests every source passes on a declared
// HTML table and a declared CSV file.
func TestConform(t *testing.T) {
	t.Run("HTML", func(t *testing.T) { ingesttest.Conform(t, suite(&htmlTable, "html")) })
	t.Run("CSV", func(t *testing.T) { ingesttest.Conform(t, suite(&csvSheet, "csv")) })
}

var usd = ingesttest.USD

func in(amount int64, cur string) *contracts.OpPrice {
	return &contracts.OpPrice{Regular: contracts.Price{Amount: amount, Currency: cur}}
}

// TestHTML reads the price table and nothing else of the page.
func TestHTML(t *testing.T) {
	list, err := htmlTable.Read(ingesttest.Fixture(t, "prices.html"), observed)
	if err != nil {
		t.Fatal(err)
	}
	got := ingesttest.CheckList(t, list, "example-html", "example-html", observed)
	for zone, want := range map[string][3]*contracts.OpPrice{
		".com":      {usd(1099), usd(1299), usd(1099)},
		".co.uk":    {usd(549), usd(549), usd(0)},
		".security": {usd(206023), usd(206023), usd(206023)},
		".app":      {usd(1499), usd(1499), nil},
	} {
		ingesttest.CheckOps(t, got[zone], want[0], want[1], want[2])
	}
	// .net shows two prices in a cell, .io a word, .de two currencies:
	// each skipped, keeping its last price; .pl offers nothing.
	wantKeep := []string{"prices.v1.example-html.de", "prices.v1.example-html.io", "prices.v1.example-html.net"}
	if list.Skipped != 3 || !slices.Equal(list.Keep, wantKeep) || got[".pl"].Zone != "" {
		t.Errorf("skipped %d, keep %q, .pl %v; want 3, %q and .pl left out", list.Skipped, list.Keep, got[".pl"], wantKeep)
	}
	if list.Drift == nil || !list.Drift.Empty() {
		t.Errorf("drift %+v, want none", list.Drift)
	}
}

// TestTableDrift reports a column the declaration does not know, one it
// reads gone missing, and a page without the table.
func TestTableDrift(t *testing.T) {
	page := string(ingesttest.Fixture(t, "prices.html"))
	moved := strings.Replace(strings.Replace(page, "<th>Renew</th>", "<th>Renewal</th>", 1), "<th>Restore</th>", "<th>Restore</th>", 1)
	list, err := htmlTable.Read([]byte(moved), observed)
	if err != nil {
		t.Fatal(err)
	}
	if d := list.Drift; d == nil || !slices.Equal(d.Unknown, []string{"renewal"}) || !slices.Equal(d.Missing, []string{"renew"}) {
		t.Errorf("drift %+v, want renewal unknown and renew missing", list.Drift)
	}
	_, err = htmlTable.Read([]byte(`<html><body><p>Under maintenance</p></body></html>`), observed)
	var fe *ingest.FormatError
	if !errorsAs(err, &fe) || len(fe.Drift.Shape) != 1 {
		t.Errorf("a page without the table: %v, want a shape drift", err)
	}
}

// TestCSV reads each row in its currency, or the declaration's.
func TestCSV(t *testing.T) {
	list, err := csvSheet.Read(ingesttest.Fixture(t, "prices.csv"), observed)
	if err != nil {
		t.Fatal(err)
	}
	got := ingesttest.CheckList(t, list, "example-csv", "example-csv", observed)
	ingesttest.CheckOps(t, got[".net"], usd(1199), usd(1399), usd(1399))
	ingesttest.CheckOps(t, got[".co.uk"], in(549, "GBP"), in(549, "GBP"), in(0, "GBP"))
	ingesttest.CheckOps(t, got[".jp"], in(1500, "JPY"), in(1500, "JPY"), in(1500, "JPY"))
	ingesttest.CheckOps(t, got[".xyz"], usd(199), usd(1399), usd(1399))
	if list.Skipped != 1 || !slices.Equal(list.Keep, []string{"prices.v1.example-csv.io"}) {
		t.Errorf("skipped %d, keep %q; want .io alone", list.Skipped, list.Keep)
	}
}

// jsonTable is a JSON list with every rule the kit applies.
var jsonTable = kit.Declaration{
	Name: "example-json", Registrar: ingest.Registrar{ID: "example-json"}, What: "example list", Currency: "USD",
	Table: &kit.Table{
		Rows: "data.tlds[]", Zone: "name", Errors: []string{"error"}, Symbols: true, NotOffered: kit.MinusOne,
		Register: kit.Op{Price: "reg", Regular: "reg_regular", StrictRegular: true},
		Renew:    kit.Op{Price: "renew", Regular: "renew_regular"},
		Transfer: kit.Op{Price: "transfer", Sale: "transfer_sale", ZeroFree: true},
	},
}

// TestJSONRules reads one row at a time through the kit's rules.
func TestJSONRules(t *testing.T) {
	promo := func(regular, price int64) *contracts.OpPrice {
		o := usd(regular)
		o.Promo = &contracts.Promo{Price: contracts.Price{Amount: price, Currency: "USD"}}
		return o
	}
	for _, tc := range []struct {
		name, row                 string
		register, renew, transfer *contracts.OpPrice
		wantErr                   string // a row skipped for this reason
		leftOut                   bool
	}{
		{"plain", `"reg":"10.99","renew":"12.99","transfer":"12.99"`, usd(1099), usd(1299), usd(1299), "", false},
		{"regular above is a promotion", `"reg":"$1.99","reg_regular":"$10.99","renew":12.99`, promo(1099, 199), usd(1299), nil, "", false},
		{"regular below is refused when strict", `"reg":"10.99","reg_regular":"1.99"`, nil, nil, nil, "above its regular price", false},
		{"regular below stands when not", `"reg":"1.00","renew":"10.99","renew_regular":"1.99"`, usd(100), usd(1099), nil, "", false},
		{"sale on the regular price", `"reg":"5","transfer":"9.99","transfer_sale":"7.99"`, usd(500), nil, promo(999, 799), "", false},
		{"unreadable sale is ignored", `"reg":"5","transfer":"9.99","transfer_sale":"soon"`, usd(500), nil, usd(999), "", false},
		{"zero registration is none, zero transfer free", `"reg":"0.00","renew":"5.00","transfer":"0"`, nil, usd(500), usd(0), "", false},
		{"-1 is not offered", `"reg":"-1","renew":"5.00","transfer":"-1.00"`, nil, usd(500), nil, "", false},
		{"nothing but a free transfer is left out", `"reg":"0","transfer":"0.00"`, nil, nil, nil, "", true},
		{"nothing offered is left out", `"reg":"n/a"`, nil, nil, nil, "", true},
		{"currencies disagree", `"reg":"€5","renew":"$5"`, nil, nil, nil, "in USD", false},
		{"an unknown mark is unreadable", `"reg":"5 dollars"`, nil, nil, nil, "not a decimal number", false},
		{"above the ceiling", `"reg":"99999999999.00"`, nil, nil, nil, "ceiling", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"data":{"tlds":[{"name":"com",` + tc.row + `},{"name":"net","reg":"1"}]}}`
			list, err := jsonTable.Read([]byte(body), observed)
			if err != nil {
				t.Fatal(err)
			}
			got := ingesttest.CheckList(t, list, "example-json", "example-json", observed)
			switch {
			case tc.wantErr != "":
				if list.Skipped != 1 || got[".com"].Zone != "" {
					t.Errorf("skipped %d, .com %+v; want it skipped for %q", list.Skipped, got[".com"], tc.wantErr)
				}
				_, err := jsonTable.Read([]byte(`{"data":{"tlds":[{"name":"com",`+tc.row+`}]}}`), observed)
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("reason %v, want one containing %q", err, tc.wantErr)
				}
			case tc.leftOut:
				if list.Skipped != 0 || got[".com"].Zone != "" {
					t.Errorf("skipped %d, .com %+v; want it left out", list.Skipped, got[".com"])
				}
			default:
				ingesttest.CheckOps(t, got[".com"], tc.register, tc.renew, tc.transfer)
			}
		})
	}
}

// TestJSONDocument refuses documents that are no list, naming why.
func TestJSONDocument(t *testing.T) {
	for body, want := range map[string]string{
		`{"error":"rate limited"}`:          `example-json answered "rate limited"`,
		`{"data":{}}`:                       "example list has no data.tlds",
		`{"data":{"tlds":[]}}`:              "example list has no zones",
		`{"data":{"tlds":{"com":{}}}}`:      "is not a list of rows",
		`{"data":{"tlds":[{"name":"pl"}]}}`: "no usable zone",
		`<html>`:                            "decode example list",
		`null`:                              "has no data.tlds",
	} {
		if _, err := jsonTable.Read([]byte(body), observed); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error containing %q", body, err, want)
		}
	}
}

// TestSource fetches, describes and names itself as declared.
func TestSource(t *testing.T) {
	_, srv := ingesttest.NewAPI(t, ingesttest.Fixture(t, "prices.csv"), nil)
	src, err := kit.New(&csvSheet, kit.Config{URL: srv.URL}, ingesttest.Client(nil), func() time.Time { return observed })
	if err != nil {
		t.Fatal(err)
	}
	list, err := src.Fetch(context.Background())
	if err != nil || len(list.Prices) != 6 {
		t.Fatalf("Fetch = %v, %v; want 6 zones", list, err)
	}
	d := src.Describe()
	if d.Document != srv.URL || d.Currency != "USD" || d.Tax != contracts.TaxUnknown || len(d.Registrars) != 1 || d.Registrars[0].ID != "example-csv" {
		t.Errorf("Describe = %+v", d)
	}
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }

// TestTwoAmounts reads one of two amounts side by side in a cell (a price
// without tax and with it), each marked with a bare "$" that is not the
// US dollar's.
func TestTwoAmounts(t *testing.T) {
	exTax := kit.Declaration{
		Name: "example-gst", Registrar: ingest.Registrar{ID: "example-gst", Name: "Example", Website: "https://registrar.example"},
		Kind: contracts.SourceSite, URL: "https://registrar.example/prices", What: "example price page", Currency: "NZD",
		Tax: contracts.TaxExcluded,
		Table: &kit.Table{
			Format: kit.HTML, Rows: "table tr", Zone: "tld", Dollar: "NZD", Amounts: 2,
			Register: kit.Op{Price: "price"}, Transfer: kit.Op{Price: "transfer", ZeroFree: true},
		},
	}
	for _, tc := range []struct {
		name, cells        string
		register, transfer *contracts.OpPrice
		wantErr            string // the row skipped for this reason
	}{
		{"the first of two", `<td>$38.50 $44.27</td><td>$0.00 $0.00</td>`, in(3850, "NZD"), in(0, "NZD"), ""},
		{"words without digits are no amounts", `<td>$38.50 +GST $44.27 incl.</td><td>-</td>`, in(3850, "NZD"), nil, ""},
		{"an unmarked amount is the declaration's", `<td>38.50 44.27</td><td></td>`, in(3850, "NZD"), nil, ""},
		{"one amount cannot be told", `<td>$44.27</td><td></td>`, nil, nil, "shows 1 amounts, not 2"},
		{"three amounts cannot be told", `<td>$38.50 $44.27 $50.00</td><td></td>`, nil, nil, "shows 3 amounts, not 2"},
		{"another mark is no number without Symbols", `<td>US$38.50 US$44.27</td><td></td>`, nil, nil, "not a decimal number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := func(rows string) []byte {
				return []byte(`<html><body><table><tr><th>TLD</th><th>Price</th><th>Transfer</th></tr>` +
					`<tr><td>.nz</td><td>$20.00 $23.00</td><td>$0.00 $0.00</td></tr>` + rows + `</table></body></html>`)
			}
			list, err := exTax.Read(page(`<tr><td>.com</td>`+tc.cells+`</tr>`), observed)
			if err != nil {
				t.Fatal(err)
			}
			got := ingesttest.CheckList(t, list, "example-gst", "example-gst", observed)
			if tc.wantErr == "" {
				ingesttest.CheckOps(t, got[".com"], tc.register, nil, tc.transfer)
				return
			}
			if list.Skipped != 1 || got[".com"].Zone != "" {
				t.Errorf("skipped %d, .com %+v; want it skipped for %q", list.Skipped, got[".com"], tc.wantErr)
			}
			alone := []byte(`<html><body><table><tr><th>TLD</th><th>Price</th><th>Transfer</th></tr>` +
				`<tr><td>.com</td>` + tc.cells + `</tr></table></body></html>`)
			if _, err := exTax.Read(alone, observed); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("reason %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

// TestMarked splits a price as shown into its currency and its number.
func TestMarked(t *testing.T) {
	for _, tc := range []struct{ in, cur, text string }{
		{"$10.88", "USD", "10.88"},
		{"C$12.00", "CAD", "12.00"},
		{"￥69", "CNY", "69"},
		{"69元", "CNY", "69"},
		{"14.59€", "EUR", "14.59"},
		{"1.99 €", "EUR", "1.99"},
		{"1,200 元", "CNY", "1,200"},
		{"10.88 EUR", "EUR", "10.88"},
		{"CHF 13.00", "CHF", "13.00"},
		{"KSh 1,600", "KES", "1,600"},
		{"Ksh1,259.00", "KES", "1,259.00"},
		{"KES 999", "KES", "999"},
		{"9.99", "", "9.99"},
	} {
		if cur, text := kit.Marked(tc.in); cur != tc.cur || text != tc.text {
			t.Errorf("Marked(%q) = %q, %q; want %q, %q", tc.in, cur, text, tc.cur, tc.text)
		}
	}
}

// TestSaleAfter reads a promotion written after the regular price in the
// same cell.
func TestSaleAfter(t *testing.T) {
	d := kit.Declaration{
		Name: "example-eur", Registrar: ingest.Registrar{ID: "example-eur", Name: "Example", Website: "https://registrar.example"},
		Kind: contracts.SourceSite, URL: "https://registrar.example/prices", What: "example price page", Currency: "EUR",
		Table: &kit.Table{
			Format: kit.HTML, Rows: "table tr", Zone: "extension", Symbols: true,
			Register: kit.Op{Price: "register", SaleAfter: true}, Renew: kit.Op{Price: "renewal"},
		},
	}
	promo := func(regular, price int64) *contracts.OpPrice {
		o := in(regular, "EUR")
		o.Promo = &contracts.Promo{Price: contracts.Price{Amount: price, Currency: "EUR"}}
		return o
	}
	for _, tc := range []struct {
		name, cell string
		register   *contracts.OpPrice
		wantErr    string // the row skipped for this reason
	}{
		{"one amount", `14.59€`, in(1459, "EUR"), ""},
		{"a promotion after it", `14.59€ 1.99 €`, promo(1459, 199), ""},
		{"the same amount twice", `14.59€ 14.59€`, in(1459, "EUR"), ""},
		{"a second amount above the first", `1.99€ 14.59€`, nil, "no promotion"},
		{"three amounts", `14.59€ 9.99€ 1.99€`, nil, "shows 3 amounts"},
		{"another currency after it", `14.59€ $1.99`, nil, "in USD"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := func(rows string) []byte {
				return []byte(`<html><body><table><tr><th>Extension</th><th>Register</th><th>Renewal</th></tr>` +
					rows + `</table></body></html>`)
			}
			row := `<tr><td>.com</td><td>` + tc.cell + `</td><td>16.99€</td></tr>`
			list, err := d.Read(page(`<tr><td>.net</td><td>9.99€</td><td>9.99€</td></tr>`+row), observed)
			if err != nil {
				t.Fatal(err)
			}
			got := ingesttest.CheckList(t, list, "example-eur", "example-eur", observed)
			if tc.wantErr == "" {
				ingesttest.CheckOps(t, got[".com"], tc.register, in(1699, "EUR"), nil)
				return
			}
			if list.Skipped != 1 || got[".com"].Zone != "" {
				t.Errorf("skipped %d, .com %+v; want it skipped for %q", list.Skipped, got[".com"], tc.wantErr)
			}
			if _, err := d.Read(page(row), observed); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("reason %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}
