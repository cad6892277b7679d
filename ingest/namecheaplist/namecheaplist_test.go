package namecheaplist_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/namecheaplist"
)

var (
	op = ingesttest.USD
	// promo is a registration whose first year costs first cents instead
	// of its regular cents, with no end date.
	promo = ingesttest.USDPromo
)

func set(zone string, register, renew *contracts.OpPrice) *contracts.PriceSet {
	return suite.Set(zone, register, renew, nil)
}

// row writes one element of the array as the file does.
func row(name, price, renewal string) string {
	return fmt.Sprintf(`{"Name":%q,"Pricing":{"Price":%s,"Renewal":%s,"Duration":1,"DurationType":"YEAR"}}`, name, price, renewal)
}

// rowRegular writes one element with a Regular price and a Hint beside
// its Price, as the real file's rows are (each value raw JSON).
func rowRegular(name, price, regular, renewal, hint string) string {
	return fmt.Sprintf(`{"Name":%q,"Pricing":{"Price":%s,"Regular":%s,"Renewal":%s,"Hint":%s,"Duration":1,"DurationType":"YEAR"}}`,
		name, price, regular, renewal, hint)
}

// fixtureZones is how many zones tlds.json prices: 24 rows less .ai, sold
// for two years at least (left out), and the Handshake name 8888, which is
// no zone at all (List.Outside).
const fixtureZones = 22

// rootZones is how many of them are zones of the DNS root, which the
// runner publishes: all but the Handshake names 0db, 4k and abo.
const rootZones = fixtureZones - 3

// TestFetch reads the file: 22 zones, 24 rows less .ai, sold for two
// years at least (left out, not skipped), and 8888, no zone (outside the
// root, as its golden file says).
func TestFetch(t *testing.T) {
	got := suite.Fetched(t, "tlds.json", fixtureZones, 0)
	ingesttest.CheckEach(t, got, []ingesttest.Ops{
		{Name: "first-year discount is a promotion on the regular price", Zone: ".com", Register: promo(1398, 958), Renew: op(1458)},
		{Name: "discount with an upper-case hint", Zone: ".org", Register: promo(1248, 1098), Renew: op(1598)},
		{Name: "discount to a first year far below the renewal", Zone: ".xyz", Register: promo(1698, 198), Renew: op(1698)},
		{Name: "discount written as strings", Zone: ".dev", Register: promo(1498, 1298), Renew: op(1698)},
		{Name: "Regular equal to Price is no promotion", Zone: ".net", Register: op(1298), Renew: op(1698)},
		{Name: "null Regular is no promotion", Zone: ".io", Register: op(3498), Renew: op(5998)},
		{Name: "zero Regular is no promotion", Zone: ".de", Register: op(698), Renew: op(998)},
		{Name: "no Regular: first year below the renewal is no promotion", Zone: ".online", Register: op(98), Renew: op(3298)},
		{Name: "no Regular", Zone: ".co", Register: op(998), Renew: op(3298)},
		{Name: "second-level zone is its own, with a discount", Zone: ".co.uk", Register: promo(1198, 598), Renew: op(1098)},
		{Name: "second-level zone beside its parent", Zone: ".uk", Register: op(598), Renew: op(1098)},
		{Name: "second-level zone without its parent", Zone: ".com.au", Register: op(1298), Renew: op(1498)},
		{Name: "thousands separator in a string", Zone: ".security", Register: op(206023), Renew: op(206023)},
		{Name: "IDN in Unicode", Zone: ".xn--3ds443g", Register: op(398), Renew: op(2998)},
		{Name: "IDN as an A-label", Zone: ".xn--6frz82g", Register: op(1498), Renew: op(2998)},
		{Name: "null renewal is not offered, discount stays", Zone: ".info", Register: promo(1898, 298)},
		// Handshake names, which the file marks in no way: published as
		// zones until the runner's root-zone guard leaves them out.
		{Name: "Handshake name", Zone: ".0db", Register: op(298), Renew: op(298)},
		{Name: "Handshake name starting with a digit", Zone: ".4k", Register: op(498), Renew: op(498)},
		{Name: "Handshake name with a discount", Zone: ".abo", Register: promo(498, 198), Renew: op(498)},
	}, ".ai", ".8888")
}

// TestParseQuirks covers the format's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	net := row("net", "12.98", "16.98")
	suite.Quirks(t, []ingesttest.Quirk{
		{
			Name: "prices as numbers",
			Body: `[` + row("com", "11.28", "16.98") + `]`,
			Zone: ".com", Want: set(".com", op(1128), op(1698)),
		},
		{
			Name: "prices as strings",
			Body: `[` + row("com", `"11.28"`, `"16.98"`) + `]`,
			Zone: ".com", Want: set(".com", op(1128), op(1698)),
		},
		{
			Name: "number with more digits than cents rounds half up",
			Body: `[` + row("com", "11.275", "16.98") + `]`,
			Zone: ".com", Want: set(".com", op(1128), op(1698)),
		},
		{
			Name: "whole-dollar number",
			Body: `[` + row("com", "11", "17") + `]`,
			Zone: ".com", Want: set(".com", op(1100), op(1700)),
		},
		{
			Name: "thousands separator",
			Body: `[` + row("security", `"2,060.23"`, `"2,060.23"`) + `]`,
			Zone: ".security", Want: set(".security", op(206023), op(206023)),
		},
		{
			Name: "zero price is not offered",
			Body: `[` + row("com", "0", "16.98") + `]`,
			Zone: ".com", Want: set(".com", nil, op(1698)),
		},
		{
			Name: "zero renewal is not offered",
			Body: `[` + row("com", "11.28", `"0.00"`) + `]`,
			Zone: ".com", Want: set(".com", op(1128), nil),
		},
		{
			Name: "n/a price is not offered",
			Body: `[` + row("com", `"n/a"`, "16.98") + `]`,
			Zone: ".com", Want: set(".com", nil, op(1698)),
		},
		{
			Name: "empty price is not offered",
			Body: `[` + row("com", `""`, "16.98") + `]`,
			Zone: ".com", Want: set(".com", nil, op(1698)),
		},
		{
			Name: "missing renewal is not offered",
			Body: `[{"Name":"com","Pricing":{"Price":11.28,"Duration":1,"DurationType":"YEAR"}}]`,
			Zone: ".com", Want: set(".com", op(1128), nil),
		},
		{
			Name: "-1 skips the zone and keeps its last price",
			Body: `[` + row("com", "-1", "16.98") + `,` + net + `]`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.namecheap.com"},
		},
		{
			Name: `"-1" as a string skips the zone`,
			Body: `[` + row("com", "11.28", `"-1"`) + `,` + net + `]`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.namecheap.com"},
		},
		{
			Name: "unreadable price skips the zone",
			Body: `[` + row("com", `"TBD"`, "16.98") + `,` + net + `]`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.namecheap.com"},
		},
		{
			Name: "price that is neither string nor number skips the zone",
			Body: `[` + row("com", "true", "16.98") + `,` + net + `]`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.namecheap.com"},
		},
		{
			Name: "both prices missing: left out",
			Body: `[` + row("com", "null", `"n/a"`) + `,` + net + `]`,
			Zone: ".com",
		},
		{
			Name: "null pricing: left out",
			Body: `[{"Name":"com","Pricing":null},` + net + `]`,
			Zone: ".com",
		},
		{
			Name: "no pricing: left out",
			Body: `[{"Name":"com"},` + net + `]`,
			Zone: ".com",
		},
		{
			Name: "duration as a string and unit in another case",
			Body: `[{"Name":"com","Pricing":{"Price":11.28,"Renewal":16.98,"Duration":"1","DurationType":"Years"}}]`,
			Zone: ".com", Want: set(".com", op(1128), op(1698)),
		},
		{
			Name: "two-year term: left out",
			Body: `[{"Name":"com","Pricing":{"Price":22.56,"Renewal":33.96,"Duration":2,"DurationType":"YEAR"}},` + net + `]`,
			Zone: ".com",
		},
		{
			Name: "monthly term: left out",
			Body: `[{"Name":"com","Pricing":{"Price":1.28,"Renewal":1.98,"Duration":1,"DurationType":"MONTH"}},` + net + `]`,
			Zone: ".com",
		},
		{
			Name: "one row per term: the one-year row prices the zone",
			Body: `[{"Name":"com","Pricing":{"Price":22.56,"Renewal":33.96,"Duration":2,"DurationType":"YEAR"}},` + row("com", "11.28", "16.98") + `]`,
			Zone: ".com", Want: set(".com", op(1128), op(1698)),
		},
		{
			Name: "missing term skips the zone",
			Body: `[{"Name":"com","Pricing":{"Price":11.28,"Renewal":16.98}},` + net + `]`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.namecheap.com"},
		},
		{
			Name: "unreadable term skips the zone",
			Body: `[{"Name":"com","Pricing":{"Price":11.28,"Renewal":16.98,"Duration":1.5,"DurationType":"YEAR"}},` + net + `]`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.namecheap.com"},
		},
		{
			Name: "currency in the row is read",
			Body: `[{"Name":"com","Pricing":{"Price":10.40,"Renewal":15.65,"Duration":1,"DurationType":"YEAR","Currency":"eur"}}]`,
			Zone: ".com", Want: &contracts.PriceSet{
				V: contracts.SchemaVersion, Kind: contracts.KindPriceSet, Registrar: namecheaplist.Registrar, Zone: ".com",
				Register:   &contracts.OpPrice{Regular: contracts.Price{Amount: 1040, Currency: "EUR"}},
				Renew:      &contracts.OpPrice{Regular: contracts.Price{Amount: 1565, Currency: "EUR"}},
				ObservedAt: suite.Observed, Source: namecheaplist.Name, Tax: contracts.TaxUnknown,
			},
		},
		{
			Name: "unknown currency skips the zone",
			Body: `[{"Name":"com","Pricing":{"Price":10.40,"Renewal":15.65,"Duration":1,"DurationType":"YEAR","Currency":"XYZ"}},` + net + `]`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.namecheap.com"},
		},
		{
			Name: "leading dot and upper case",
			Body: `[` + row(".COM", "11.28", "16.98") + `]`,
			Zone: ".com", Want: set(".com", op(1128), op(1698)),
		},
		{
			Name: "second-level zone",
			Body: `[` + row("co.uk", "5.98", "10.98") + `]`,
			Zone: ".co.uk", Want: set(".co.uk", op(598), op(1098)),
		},
		{
			Name: "IDN in Unicode",
			Body: `[` + row("рф", "4.98", "9.98") + `]`,
			Zone: ".xn--p1ai", Want: set(".xn--p1ai", op(498), op(998)),
		},
		{
			Name: "IDN as an A-label",
			Body: `[` + row("xn--p1ai", "4.98", "9.98") + `]`,
			Zone: ".xn--p1ai", Want: set(".xn--p1ai", op(498), op(998)),
		},
		{
			Name: "unicode and A-label of one zone keep the first row",
			Body: `[` + row("рф", "4.98", "9.98") + `,` + row("xn--p1ai", "5.98", "10.98") + `]`,
			Zone: ".xn--p1ai", Want: set(".xn--p1ai", op(498), op(998)),
			Skipped: 1,
		},
		{
			Name: "zone listed twice keeps the first row",
			Body: `[` + row("com", "11.28", "16.98") + `,` + row("com", "1.00", "1.00") + `]`,
			Zone: ".com", Want: set(".com", op(1128), op(1698)),
			Skipped: 1,
		},
		{
			Name: "name that is not a zone is skipped",
			Body: `[` + row("foo bar", "1.00", "1.00") + `,` + net + `]`,
			Zone: ".foo bar", Skipped: 1,
		},
		{
			Name: "name that is not a string is skipped",
			Body: `[{"Name":42,"Pricing":{"Price":1,"Renewal":1,"Duration":1,"DurationType":"YEAR"}},` + net + `]`,
			Zone: ".net", Want: set(".net", op(1298), op(1698)), Skipped: 1,
		},
		{
			Name: "row that is not an object is skipped",
			Body: `["com",` + net + `]`,
			Zone: ".net", Want: set(".net", op(1298), op(1698)), Skipped: 1,
		},
		{
			Name: "pricing that is not an object skips the zone",
			Body: `[{"Name":"com","Pricing":"11.28"},` + net + `]`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.namecheap.com"},
		},
		{
			Name:    "only rows that cannot be used",
			Body:    `[{"Name":"ai","Pricing":{"Price":159.96,"Renewal":79.98,"Duration":2,"DurationType":"YEAR"}},{"Name":"com","Pricing":null}]`,
			WantErr: "no usable zone",
		},
		{Name: "empty list", Body: `[]`, WantErr: "no zones"},
		{Name: "error object names its message", Body: string(ingesttest.Fixture(t, "error.json")), WantErr: "Forbidden"},
		{Name: "object without a message", Body: `{"com":{"Price":1}}`, WantErr: "not a list"},
		{Name: "S3 error document", Body: string(ingesttest.Fixture(t, "error.xml")), WantErr: "decode namecheap list"},
		{Name: "html", Body: `<!DOCTYPE html><html><body>502 Bad Gateway</body></html>`, WantErr: "decode namecheap list"},
		{Name: "truncated", Body: string(ingesttest.Fixture(t, "tlds.json")[:300]), WantErr: "decode namecheap list"},
		{Name: "empty body", Body: ``, WantErr: "decode namecheap list"},
		{Name: "null", Body: `null`, WantErr: "decode namecheap list: null"},
	})
}

// TestRegular covers Pricing.Regular beside Pricing.Price: a first-year
// price below it is a promotion on it; without it, or equal to it, Price
// is the regular price; above it, the row cannot be read.
func TestRegular(t *testing.T) {
	net := row("net", "12.98", "16.98")
	tests := []struct {
		name    string
		body    string
		want    *contracts.PriceSet // of .com; nil: .com must be absent
		wantErr string
		skipped int
		keep    []string
	}{
		{
			name: "Price below Regular is a promotion on Regular",
			body: `[` + rowRegular("com", "9.58", "13.98", "14.58", `"31% off 1st year"`) + `]`,
			want: set(".com", promo(1398, 958), op(1458)),
		},
		{
			name: "promotion written as strings with thousands separators",
			body: `[` + rowRegular("com", `"1,000.00"`, `"2,060.23"`, `"2,060.23"`, `"51% OFF"`) + `]`,
			want: set(".com", promo(206023, 100000), op(206023)),
		},
		{
			name: "promotion down to a cent",
			body: `[` + rowRegular("com", "0.01", "13.98", "14.58", `"100% off 1st year"`) + `]`,
			want: set(".com", promo(1398, 1), op(1458)),
		},
		{
			name: "Regular equal to Price is no promotion",
			body: `[` + rowRegular("com", "13.98", "13.98", "14.58", `""`) + `]`,
			want: set(".com", op(1398), op(1458)),
		},
		{
			name: "Regular equal to Price once rounded to cents is no promotion",
			body: `[` + rowRegular("com", "13.98", "13.9799", "14.58", `null`) + `]`,
			want: set(".com", op(1398), op(1458)),
		},
		{
			name: "absent Regular: Price is the regular price",
			body: `[` + row("com", "9.58", "14.58") + `]`,
			want: set(".com", op(958), op(1458)),
		},
		{
			name: "null Regular",
			body: `[` + rowRegular("com", "9.58", "null", "14.58", "null") + `]`,
			want: set(".com", op(958), op(1458)),
		},
		{
			name: "zero Regular",
			body: `[` + rowRegular("com", "9.58", `"0.00"`, "14.58", `""`) + `]`,
			want: set(".com", op(958), op(1458)),
		},
		{
			name: "empty Regular",
			body: `[` + rowRegular("com", "9.58", `""`, "14.58", `""`) + `]`,
			want: set(".com", op(958), op(1458)),
		},
		{
			name: "n/a Regular",
			body: `[` + rowRegular("com", "9.58", `"n/a"`, "14.58", `""`) + `]`,
			want: set(".com", op(958), op(1458)),
		},
		{
			name: "a Hint without Regular is no promotion",
			body: `[` + rowRegular("com", "9.58", "null", "14.58", `"31% off 1st year"`) + `]`,
			want: set(".com", op(958), op(1458)),
		},
		{
			name: "a Hint is not read, whatever it holds",
			body: `[` + rowRegular("com", "9.58", "13.98", "14.58", `{"until":"2026-12-31"}`) + `]`,
			want: set(".com", promo(1398, 958), op(1458)),
		},
		{
			name: "Regular without Price offers no registration",
			body: `[` + rowRegular("com", "null", "13.98", "14.58", `"31% off 1st year"`) + `]`,
			want: set(".com", nil, op(1458)),
		},
		{
			name: "Regular beside a zero Price offers no registration",
			body: `[` + rowRegular("com", "0", "13.98", "14.58", `""`) + `]`,
			want: set(".com", nil, op(1458)),
		},
		{
			name: "Regular in the row's currency",
			body: `[{"Name":"com","Pricing":{"Price":8.90,"Regular":12.99,"Renewal":13.50,"Duration":1,"DurationType":"YEAR","Currency":"EUR"}}]`,
			want: &contracts.PriceSet{
				V: contracts.SchemaVersion, Kind: contracts.KindPriceSet, Registrar: namecheaplist.Registrar, Zone: ".com",
				Register: &contracts.OpPrice{
					Regular: contracts.Price{Amount: 1299, Currency: "EUR"},
					Promo:   &contracts.Promo{Price: contracts.Price{Amount: 890, Currency: "EUR"}},
				},
				Renew:      &contracts.OpPrice{Regular: contracts.Price{Amount: 1350, Currency: "EUR"}},
				ObservedAt: suite.Observed, Source: namecheaplist.Name, Tax: contracts.TaxUnknown,
			},
		},
		{
			name:    "Price above Regular skips the zone and keeps its last price",
			body:    `[` + rowRegular("com", "14.98", "13.98", "14.58", `""`) + `,` + net + `]`,
			skipped: 1, keep: []string{"prices.v1.namecheap.com"},
		},
		{
			name:    "Price above Regular names both in the reason",
			body:    `[` + rowRegular("com", "14.98", "13.98", "14.58", `""`) + `]`,
			wantErr: "Pricing.Price 14.98 is above its regular price 13.98",
		},
		{
			name:    "unreadable Regular skips the zone",
			body:    `[` + rowRegular("com", "9.58", `"TBD"`, "14.58", `""`) + `,` + net + `]`,
			skipped: 1, keep: []string{"prices.v1.namecheap.com"},
		},
		{
			name:    "negative Regular skips the zone",
			body:    `[` + rowRegular("com", "9.58", "-13.98", "14.58", `""`) + `,` + net + `]`,
			skipped: 1, keep: []string{"prices.v1.namecheap.com"},
		},
		{
			name:    "Regular that is neither string nor number skips the zone",
			body:    `[` + rowRegular("com", "9.58", "true", "14.58", `""`) + `,` + net + `]`,
			skipped: 1, keep: []string{"prices.v1.namecheap.com"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list, err := namecheaplist.Declaration().Read([]byte(tt.body), suite.Observed)
			if ingesttest.CheckOutcome(t, list, err, tt.wantErr, tt.skipped, tt.keep) {
				ingesttest.CheckZone(t, suite.ByZone(t, list), ".com", tt.want)
			}
		})
	}
}

// TestHandshakeNames shows what the adapter yields for Handshake names,
// which the real file lists in rows like any other and marks in no way: an
// alphanumeric label is a price set like any zone's, which the runner's
// root-zone guard then skips (TestRootZoneGuard); a numeric one is no zone
// at all, and goes to List.Outside, which the guard counts with its own.
// Neither is a row the adapter could not read.
func TestHandshakeNames(t *testing.T) {
	tests := []struct {
		name, label, zone string
		want              *contracts.PriceSet // nil: absent
		outside           []ingest.Skip
	}{
		{"letters", "abo", ".abo", set(".abo", op(198), op(498)), nil},
		{"digit first", "0db", ".0db", set(".0db", op(198), op(498)), nil},
		{"digit and letter", "4k", ".4k", set(".4k", op(198), op(498)), nil},
		{"numeric", "8888", ".8888", nil, []ingest.Skip{{Registrar: namecheaplist.Registrar, Name: ".8888", Reason: contracts.SkipNotInRoot}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := `[` + row(tt.label, "1.98", "4.98") + `,` + row("net", "12.98", "16.98") + `]`
			list, err := namecheaplist.Declaration().Read([]byte(body), suite.Observed)
			if ingesttest.CheckOutcome(t, list, err, "", 0, nil) {
				ingesttest.CheckZone(t, suite.ByZone(t, list), tt.zone, tt.want)
				if !slices.Equal(list.Outside, tt.outside) {
					t.Errorf("outside the root %+v, want %+v", list.Outside, tt.outside)
				}
			}
		})
	}
}

// suite is the source, for the conformance suite and the tests above.
var suite = ingesttest.Declared(namecheaplist.Declaration()).Reads("tlds.json", "tlds_shrunk.json").With(ingesttest.Suite{
	Check:  ingesttest.GetJSON,
	Errors: []string{"error.json", "error.xml"}, Spoil: "0.Pricing.Renewal",
	Drift: ingesttest.DriftPaths{Row: "[].Pricing", Field: "Renewal", Shape: "[].Pricing"},
})

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, namecheaplist.Declaration().Read, "*.json") }
