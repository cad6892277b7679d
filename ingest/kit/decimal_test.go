package kit_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/kit"
)

// TestCommaDecimal reads prices as most of Europe writes them and refuses
// the ones whose amount cannot be told.
func TestCommaDecimal(t *testing.T) {
	for _, tt := range []struct {
		in, want string // want "" for an error
	}{
		{"249,00", "249.00"},
		{"249", "249"},
		{"199,-", "199"},
		{"1 249,00", "1249.00"},
		{"1\u00a0249,00", "1249.00"},
		{"1\u202f249,5", "1249.5"},
		{"1.249,00", "1249.00"},
		{"12.345.678,90", "12345678.90"},
		{"1.249", "1249"},
		{" 0,00 ", "0.00"},
		{"12.50", ""},
		{"1,2,3", ""},
		{"1  249,00", ""},
		{"1 24,00", ""},
		{"1249 000,00", ""},
		{",50", ""},
		{"249,", ""},
		{"249,0a", ""},
		{"kr 249,00", ""},
		{"-5,00", ""},
		{"", ""},
	} {
		got, err := kit.CommaDecimal(tt.in)
		if tt.want == "" && err == nil {
			t.Errorf("CommaDecimal(%q) = %q, want an error", tt.in, got)
		}
		if tt.want != "" && (err != nil || got != tt.want) {
			t.Errorf("CommaDecimal(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// TestDecimalCommaCells reads a table of tiles whose zone cell carries a
// footnote (OwnText), whose prices have a decimal comma and a unit mark
// (DecimalComma, Unit).
func TestDecimalCommaCells(t *testing.T) {
	d := kit.Declaration{
		Name: "example-kr", Registrar: ingest.Registrar{ID: "example-kr", Name: "Example"}, What: "example price page",
		Currency: "SEK", Kind: contracts.SourceSite,
		Table: &kit.Table{
			Format: kit.HTML, Rows: "tr:has(td)", Cells: []string{"td:nth-child(1)", "td:nth-child(2) .gross", "td:nth-child(3)"},
			OwnText: []string{"td:nth-child(1)"}, Zone: "td:nth-child(1)", DecimalComma: true, Unit: "kr",
			Register: kit.Op{Price: "td:nth-child(2) .gross"}, Renew: kit.Op{Price: "td:nth-child(3)"},
		},
	}
	page := `<html><body><table><tr><th>Domain</th><th>New</th><th>Renew</th></tr>
<tr><td>.dev<sup>1</sup></td><td><span class="gross">1 249,00</span><span class="net">999,20</span></td><td>1 249,- kr</td></tr>
<tr><td>.se</td><td><span class="gross">12.50</span></td><td>kr 99</td></tr>
</table></body></html>`
	list, err := d.Read([]byte(page), observed)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Prices) != 1 || list.Skipped != 1 {
		t.Fatalf("%d prices, %d skipped; want 1 and 1 (the dotted price)", len(list.Prices), list.Skipped)
	}
	ps := list.Prices[0]
	if ps.Zone != ".dev" || ps.Register.Regular.Amount != 124900 || ps.Renew.Regular.Amount != 124900 {
		t.Errorf("got %s register %+v renew %+v; want .dev at 1249.00 SEK both", ps.Zone, ps.Register, ps.Renew)
	}
}

// TestDecimalCommaAmounts reads the first of two amounts in a cell whose
// thousands are spaced (a price without VAT and with it, "1 200,00 Kč
// 1 452,00 vč. DPH"), and a promotion after a regular price spaced alike.
func TestDecimalCommaAmounts(t *testing.T) {
	d := kit.Declaration{
		Name: "example-czk", Registrar: ingest.Registrar{ID: "example-czk", Name: "Example"}, What: "example price page",
		Currency: "CZK", Kind: contracts.SourceSite, Tax: contracts.TaxExcluded,
		Table: &kit.Table{
			Format: kit.HTML, Rows: "table tr", Zone: "0", DecimalComma: true, Amounts: 2,
			Register: kit.Op{Price: "1"}, Renew: kit.Op{Price: "2"},
		},
	}
	for _, tc := range []struct {
		name, cells     string
		register, renew int64 // hellers; 0 for the row skipped
	}{
		{"unspaced", `<td>700,00 Kč 847,00 vč. DPH</td><td>700,00 Kč 847,00 vč. DPH</td>`, 70000, 70000},
		{"spaced thousands", `<td>1 200,00 Kč 1 452,00 vč. DPH</td><td>12 500,00 Kč 15 125,00 vč. DPH</td>`, 120000, 1250000},
		{"non-breaking spaces", "<td>1\u00a0200,00\u00a0Kč 1\u00a0452,00\u00a0vč. DPH</td><td>999,00 Kč 1 208,79 vč. DPH</td>", 120000, 99900},
		{"a lone group is no thousands", `<td>1 20,00 Kč 1 452,00 vč. DPH</td><td>700,00 Kč 847,00 vč. DPH</td>`, 0, 0},
		{"three amounts", `<td>700,00 Kč 847,00 vč. DPH 1 rok</td><td>700,00 Kč 847,00 vč. DPH</td>`, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := `<html><body><table><tr><td>.cz</td><td>199,00 Kč 240,79 vč. DPH</td><td>199,00 Kč 240,79 vč. DPH</td></tr>` +
				`<tr><td>.io</td>` + tc.cells + `</tr></table></body></html>`
			list, err := d.Read([]byte(page), observed)
			if err != nil {
				t.Fatal(err)
			}
			got := ingesttest.CheckList(t, list, "example-czk", "example-czk", observed)
			if tc.register == 0 {
				if list.Skipped != 1 || got[".io"].Zone != "" {
					t.Errorf("skipped %d, .io %+v; want it skipped", list.Skipped, got[".io"])
				}
				return
			}
			ingesttest.CheckOps(t, got[".io"], in(tc.register, "CZK"), in(tc.renew, "CZK"), nil)
		})
	}
	sale := kit.Declaration{
		Name: "example-czk", Registrar: ingest.Registrar{ID: "example-czk", Name: "Example"}, What: "example price page",
		Currency: "CZK", Kind: contracts.SourceSite,
		Table: &kit.Table{Format: kit.HTML, Rows: "table tr", Zone: "0", DecimalComma: true, Unit: "Kč", Register: kit.Op{Price: "1", SaleAfter: true}},
	}
	list, err := sale.Read([]byte(`<html><body><table><tr><td>.io</td><td>1 200,00 Kč 999,00 Kč</td></tr></table></body></html>`), observed)
	if err != nil {
		t.Fatal(err)
	}
	got := ingesttest.CheckList(t, list, "example-czk", "example-czk", observed)
	want := &contracts.OpPrice{Regular: contracts.Price{Amount: 120000, Currency: "CZK"}, Promo: &contracts.Promo{Price: contracts.Price{Amount: 99900, Currency: "CZK"}}}
	ingesttest.CheckOps(t, got[".io"], want, nil, nil)
}
