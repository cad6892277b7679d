package namecheaplist_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/namecheaplist"
)

var observed = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// checkRequest says what is wrong with a request that is not a plain GET
// of the file asking for JSON.
func checkRequest(r *http.Request) error {
	if r.Method != http.MethodGet || r.URL.RawQuery != "" || r.Header.Get("Accept") != "application/json" {
		return fmt.Errorf("%s %s Accept %q", r.Method, r.URL, r.Header.Get("Accept"))
	}
	if ua := r.Header.Get("User-Agent"); !strings.HasPrefix(ua, "zoneprice-ingest/") {
		return fmt.Errorf("User-Agent %q does not name the service", ua)
	}
	return nil
}

// newAPI fakes the CloudFront file, answering with body.
func newAPI(t *testing.T, body []byte) (*ingesttest.API, *httptest.Server) {
	t.Helper()
	return ingesttest.NewAPI(t, body, checkRequest)
}

func newSource(t testing.TB, url string, hc *http.Client) *namecheaplist.Source {
	t.Helper()
	src, err := namecheaplist.New(namecheaplist.Config{URL: url}, ingesttest.Client(hc), func() time.Time { return observed })
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func byZone(t testing.TB, list *ingest.List) map[string]contracts.PriceSet {
	t.Helper()
	return ingesttest.CheckList(t, list, namecheaplist.Registrar, namecheaplist.Name, observed)
}

func op(cents int64) *contracts.OpPrice {
	return &contracts.OpPrice{Regular: contracts.Price{Amount: cents, Currency: "USD"}}
}

// promo is a registration whose first year costs first cents instead of
// its regular cents, with no end date.
func promo(regular, first int64) *contracts.OpPrice {
	o := op(regular)
	o.Promo = &contracts.Promo{Price: contracts.Price{Amount: first, Currency: "USD"}}
	return o
}

func set(zone string, register, renew *contracts.OpPrice) *contracts.PriceSet {
	return &contracts.PriceSet{
		V: contracts.SchemaVersion, Kind: contracts.KindPriceSet, Registrar: namecheaplist.Registrar, Zone: zone,
		Register: register, Renew: renew, ObservedAt: observed, Source: namecheaplist.Name, Tax: contracts.TaxUnknown,
	}
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

func TestFetch(t *testing.T) {
	f, srv := newAPI(t, ingesttest.Fixture(t, "tlds.json"))
	list, err := newSource(t, srv.URL, nil).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := byZone(t, list)
	if len(got) != fixtureZones {
		t.Errorf("got %d zones, want %d (24 rows less .ai, sold for two years at least, and 8888, no zone)", len(got), fixtureZones)
	}
	if list.Skipped != 0 || list.Keep != nil {
		t.Errorf("skipped %d, keep %q; want none: a zone priced for two years is left out, not skipped", list.Skipped, list.Keep)
	}
	if want := []ingest.Skip{{Registrar: namecheaplist.Registrar, Name: ".8888", Reason: contracts.SkipNotInRoot}}; !slices.Equal(list.Outside, want) {
		t.Errorf("outside the root %+v, want %+v", list.Outside, want)
	}
	if got := f.Requests(); got != 1 {
		t.Errorf("server saw %d requests, want 1", got)
	}
	tests := []struct {
		name, zone      string
		register, renew *contracts.OpPrice
	}{
		{"first-year discount is a promotion on the regular price", ".com", promo(1398, 958), op(1458)},
		{"discount with an upper-case hint", ".org", promo(1248, 1098), op(1598)},
		{"discount to a first year far below the renewal", ".xyz", promo(1698, 198), op(1698)},
		{"discount written as strings", ".dev", promo(1498, 1298), op(1698)},
		{"Regular equal to Price is no promotion", ".net", op(1298), op(1698)},
		{"null Regular is no promotion", ".io", op(3498), op(5998)},
		{"zero Regular is no promotion", ".de", op(698), op(998)},
		{"no Regular: first year below the renewal is no promotion", ".online", op(98), op(3298)},
		{"no Regular", ".co", op(998), op(3298)},
		{"second-level zone is its own, with a discount", ".co.uk", promo(1198, 598), op(1098)},
		{"second-level zone beside its parent", ".uk", op(598), op(1098)},
		{"second-level zone without its parent", ".com.au", op(1298), op(1498)},
		{"thousands separator in a string", ".security", op(206023), op(206023)},
		{"IDN in Unicode", ".xn--3ds443g", op(398), op(2998)},
		{"IDN as an A-label", ".xn--6frz82g", op(1498), op(2998)},
		{"null renewal is not offered, discount stays", ".info", promo(1898, 298), nil},
		// Handshake names, which the file marks in no way: published as
		// zones until the runner's root-zone guard leaves them out.
		{"Handshake name", ".0db", op(298), op(298)},
		{"Handshake name starting with a digit", ".4k", op(498), op(498)},
		{"Handshake name with a discount", ".abo", promo(498, 198), op(498)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok := got[tt.zone]
			if !ok {
				t.Fatalf("no price set for %s", tt.zone)
			}
			ingesttest.CheckOps(t, p, tt.register, tt.renew, nil)
			if p.Tax != contracts.TaxUnknown {
				t.Errorf("tax = %q, want %q", p.Tax, contracts.TaxUnknown)
			}
		})
	}
	if _, ok := got[".ai"]; ok {
		t.Error(".ai is listed; its only price is for two years")
	}
	if _, ok := got[".8888"]; ok {
		t.Error(".8888 is listed; a numeric label is no zone")
	}
}

// TestConditional shows the list is fetched as the static file it is: the
// second fetch carries the validators, and a 304 answers with the list.
func TestConditional(t *testing.T) {
	body := ingesttest.Fixture(t, "tlds.json")
	f, srv := newAPI(t, body)
	f.SetHandler(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
	src := newSource(t, srv.URL, nil)
	for i := range 2 {
		list, err := src.Fetch(context.Background())
		if err != nil {
			t.Fatalf("fetch %d: %v", i, err)
		}
		if len(list.Prices) != fixtureZones {
			t.Errorf("fetch %d: %d zones, want %d", i, len(list.Prices), fixtureZones)
		}
	}
}

// TestParseQuirks covers the format's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	net := row("net", "12.98", "16.98")
	tests := []struct {
		name    string
		body    string
		zone    string
		want    *contracts.PriceSet // nil: the zone must be absent
		wantErr string              // non-empty: Parse fails with this in the message
		skipped int                 // rows that could not be read
		keep    []string            // zones whose last good price stays
	}{
		{
			name: "prices as numbers",
			body: `[` + row("com", "11.28", "16.98") + `]`,
			zone: ".com", want: set(".com", op(1128), op(1698)),
		},
		{
			name: "prices as strings",
			body: `[` + row("com", `"11.28"`, `"16.98"`) + `]`,
			zone: ".com", want: set(".com", op(1128), op(1698)),
		},
		{
			name: "number with more digits than cents rounds half up",
			body: `[` + row("com", "11.275", "16.98") + `]`,
			zone: ".com", want: set(".com", op(1128), op(1698)),
		},
		{
			name: "whole-dollar number",
			body: `[` + row("com", "11", "17") + `]`,
			zone: ".com", want: set(".com", op(1100), op(1700)),
		},
		{
			name: "thousands separator",
			body: `[` + row("security", `"2,060.23"`, `"2,060.23"`) + `]`,
			zone: ".security", want: set(".security", op(206023), op(206023)),
		},
		{
			name: "zero price is not offered",
			body: `[` + row("com", "0", "16.98") + `]`,
			zone: ".com", want: set(".com", nil, op(1698)),
		},
		{
			name: "zero renewal is not offered",
			body: `[` + row("com", "11.28", `"0.00"`) + `]`,
			zone: ".com", want: set(".com", op(1128), nil),
		},
		{
			name: "n/a price is not offered",
			body: `[` + row("com", `"n/a"`, "16.98") + `]`,
			zone: ".com", want: set(".com", nil, op(1698)),
		},
		{
			name: "empty price is not offered",
			body: `[` + row("com", `""`, "16.98") + `]`,
			zone: ".com", want: set(".com", nil, op(1698)),
		},
		{
			name: "missing renewal is not offered",
			body: `[{"Name":"com","Pricing":{"Price":11.28,"Duration":1,"DurationType":"YEAR"}}]`,
			zone: ".com", want: set(".com", op(1128), nil),
		},
		{
			name: "-1 skips the zone and keeps its last price",
			body: `[` + row("com", "-1", "16.98") + `,` + net + `]`,
			zone: ".com", skipped: 1, keep: []string{"prices.v1.namecheap.com"},
		},
		{
			name: `"-1" as a string skips the zone`,
			body: `[` + row("com", "11.28", `"-1"`) + `,` + net + `]`,
			zone: ".com", skipped: 1, keep: []string{"prices.v1.namecheap.com"},
		},
		{
			name: "unreadable price skips the zone",
			body: `[` + row("com", `"TBD"`, "16.98") + `,` + net + `]`,
			zone: ".com", skipped: 1, keep: []string{"prices.v1.namecheap.com"},
		},
		{
			name: "price that is neither string nor number skips the zone",
			body: `[` + row("com", "true", "16.98") + `,` + net + `]`,
			zone: ".com", skipped: 1, keep: []string{"prices.v1.namecheap.com"},
		},
		{
			name: "both prices missing: left out",
			body: `[` + row("com", "null", `"n/a"`) + `,` + net + `]`,
			zone: ".com",
		},
		{
			name: "null pricing: left out",
			body: `[{"Name":"com","Pricing":null},` + net + `]`,
			zone: ".com",
		},
		{
			name: "no pricing: left out",
			body: `[{"Name":"com"},` + net + `]`,
			zone: ".com",
		},
		{
			name: "duration as a string and unit in another case",
			body: `[{"Name":"com","Pricing":{"Price":11.28,"Renewal":16.98,"Duration":"1","DurationType":"Years"}}]`,
			zone: ".com", want: set(".com", op(1128), op(1698)),
		},
		{
			name: "two-year term: left out",
			body: `[{"Name":"com","Pricing":{"Price":22.56,"Renewal":33.96,"Duration":2,"DurationType":"YEAR"}},` + net + `]`,
			zone: ".com",
		},
		{
			name: "monthly term: left out",
			body: `[{"Name":"com","Pricing":{"Price":1.28,"Renewal":1.98,"Duration":1,"DurationType":"MONTH"}},` + net + `]`,
			zone: ".com",
		},
		{
			name: "one row per term: the one-year row prices the zone",
			body: `[{"Name":"com","Pricing":{"Price":22.56,"Renewal":33.96,"Duration":2,"DurationType":"YEAR"}},` + row("com", "11.28", "16.98") + `]`,
			zone: ".com", want: set(".com", op(1128), op(1698)),
		},
		{
			name: "missing term skips the zone",
			body: `[{"Name":"com","Pricing":{"Price":11.28,"Renewal":16.98}},` + net + `]`,
			zone: ".com", skipped: 1, keep: []string{"prices.v1.namecheap.com"},
		},
		{
			name: "unreadable term skips the zone",
			body: `[{"Name":"com","Pricing":{"Price":11.28,"Renewal":16.98,"Duration":1.5,"DurationType":"YEAR"}},` + net + `]`,
			zone: ".com", skipped: 1, keep: []string{"prices.v1.namecheap.com"},
		},
		{
			name: "currency in the row is read",
			body: `[{"Name":"com","Pricing":{"Price":10.40,"Renewal":15.65,"Duration":1,"DurationType":"YEAR","Currency":"eur"}}]`,
			zone: ".com", want: &contracts.PriceSet{
				V: contracts.SchemaVersion, Kind: contracts.KindPriceSet, Registrar: namecheaplist.Registrar, Zone: ".com",
				Register:   &contracts.OpPrice{Regular: contracts.Price{Amount: 1040, Currency: "EUR"}},
				Renew:      &contracts.OpPrice{Regular: contracts.Price{Amount: 1565, Currency: "EUR"}},
				ObservedAt: observed, Source: namecheaplist.Name, Tax: contracts.TaxUnknown,
			},
		},
		{
			name: "unknown currency skips the zone",
			body: `[{"Name":"com","Pricing":{"Price":10.40,"Renewal":15.65,"Duration":1,"DurationType":"YEAR","Currency":"XYZ"}},` + net + `]`,
			zone: ".com", skipped: 1, keep: []string{"prices.v1.namecheap.com"},
		},
		{
			name: "leading dot and upper case",
			body: `[` + row(".COM", "11.28", "16.98") + `]`,
			zone: ".com", want: set(".com", op(1128), op(1698)),
		},
		{
			name: "second-level zone",
			body: `[` + row("co.uk", "5.98", "10.98") + `]`,
			zone: ".co.uk", want: set(".co.uk", op(598), op(1098)),
		},
		{
			name: "IDN in Unicode",
			body: `[` + row("рф", "4.98", "9.98") + `]`,
			zone: ".xn--p1ai", want: set(".xn--p1ai", op(498), op(998)),
		},
		{
			name: "IDN as an A-label",
			body: `[` + row("xn--p1ai", "4.98", "9.98") + `]`,
			zone: ".xn--p1ai", want: set(".xn--p1ai", op(498), op(998)),
		},
		{
			name: "unicode and A-label of one zone keep the first row",
			body: `[` + row("рф", "4.98", "9.98") + `,` + row("xn--p1ai", "5.98", "10.98") + `]`,
			zone: ".xn--p1ai", want: set(".xn--p1ai", op(498), op(998)),
			skipped: 1,
		},
		{
			name: "zone listed twice keeps the first row",
			body: `[` + row("com", "11.28", "16.98") + `,` + row("com", "1.00", "1.00") + `]`,
			zone: ".com", want: set(".com", op(1128), op(1698)),
			skipped: 1,
		},
		{
			name: "name that is not a zone is skipped",
			body: `[` + row("foo bar", "1.00", "1.00") + `,` + net + `]`,
			zone: ".foo bar", skipped: 1,
		},
		{
			name: "name that is not a string is skipped",
			body: `[{"Name":42,"Pricing":{"Price":1,"Renewal":1,"Duration":1,"DurationType":"YEAR"}},` + net + `]`,
			zone: ".net", want: set(".net", op(1298), op(1698)), skipped: 1,
		},
		{
			name: "row that is not an object is skipped",
			body: `["com",` + net + `]`,
			zone: ".net", want: set(".net", op(1298), op(1698)), skipped: 1,
		},
		{
			name: "pricing that is not an object skips the zone",
			body: `[{"Name":"com","Pricing":"11.28"},` + net + `]`,
			zone: ".com", skipped: 1, keep: []string{"prices.v1.namecheap.com"},
		},
		{
			name:    "only rows that cannot be used",
			body:    `[{"Name":"ai","Pricing":{"Price":159.96,"Renewal":79.98,"Duration":2,"DurationType":"YEAR"}},{"Name":"com","Pricing":null}]`,
			wantErr: "no usable zone",
		},
		{name: "empty list", body: `[]`, wantErr: "no zones"},
		{name: "error object names its message", body: string(ingesttest.Fixture(t, "error.json")), wantErr: "Forbidden"},
		{name: "object without a message", body: `{"com":{"Price":1}}`, wantErr: "not a list"},
		{name: "S3 error document", body: string(ingesttest.Fixture(t, "error.xml")), wantErr: "decode namecheap list"},
		{name: "html", body: `<!DOCTYPE html><html><body>502 Bad Gateway</body></html>`, wantErr: "decode namecheap list"},
		{name: "truncated", body: string(ingesttest.Fixture(t, "tlds.json")[:300]), wantErr: "decode namecheap list"},
		{name: "empty body", body: ``, wantErr: "decode namecheap list"},
		{name: "null", body: `null`, wantErr: "no zones"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list, err := namecheaplist.Parse([]byte(tt.body), observed)
			if ingesttest.CheckOutcome(t, list, err, tt.wantErr, tt.skipped, tt.keep) {
				ingesttest.CheckZone(t, byZone(t, list), tt.zone, tt.want)
			}
		})
	}
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
				ObservedAt: observed, Source: namecheaplist.Name, Tax: contracts.TaxUnknown,
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
			wantErr: "field Price 14.98, Regular 13.98: the first-year price is above the regular one",
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
			list, err := namecheaplist.Parse([]byte(tt.body), observed)
			if ingesttest.CheckOutcome(t, list, err, tt.wantErr, tt.skipped, tt.keep) {
				ingesttest.CheckZone(t, byZone(t, list), ".com", tt.want)
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
			list, err := namecheaplist.Parse([]byte(body), observed)
			if ingesttest.CheckOutcome(t, list, err, "", 0, nil) {
				ingesttest.CheckZone(t, byZone(t, list), tt.zone, tt.want)
				if !slices.Equal(list.Outside, tt.outside) {
					t.Errorf("outside the root %+v, want %+v", list.Outside, tt.outside)
				}
			}
		})
	}
}

func TestRetries(t *testing.T) {
	good := ingesttest.Fixture(t, "tlds.json")
	t.Run("500s then success", func(t *testing.T) {
		f, srv := newAPI(t, good)
		f.Serve(ingesttest.Status(http.StatusInternalServerError), ingesttest.Status(http.StatusBadGateway))
		list, err := newSource(t, srv.URL, nil).Fetch(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Prices) != fixtureZones {
			t.Errorf("got %d zones, want %d", len(list.Prices), fixtureZones)
		}
		if got := f.Requests(); got != 3 {
			t.Errorf("server saw %d requests, want 3", got)
		}
	})
	t.Run("timeout then success", func(t *testing.T) {
		f, srv := newAPI(t, good)
		f.Serve(ingesttest.Hang(t))
		list, err := newSource(t, srv.URL, &http.Client{Timeout: 100 * time.Millisecond}).Fetch(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Prices) != fixtureZones {
			t.Errorf("got %d zones, want %d", len(list.Prices), fixtureZones)
		}
		if got := f.Requests(); got != 2 {
			t.Errorf("server saw %d requests, want 2", got)
		}
	})
	t.Run("429 with Retry-After then success", func(t *testing.T) {
		f, srv := newAPI(t, good)
		f.Serve(ingesttest.Status(http.StatusTooManyRequests, "Retry-After", "1"))
		list, err := newSource(t, srv.URL, nil).Fetch(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Prices) != fixtureZones {
			t.Errorf("got %d zones, want %d", len(list.Prices), fixtureZones)
		}
		if got := f.Requests(); got != 2 {
			t.Errorf("server saw %d requests, want 2", got)
		}
	})
	t.Run("403 from CloudFront is not retried", func(t *testing.T) {
		f, srv := newAPI(t, good)
		f.SetHandler(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write(ingesttest.Fixture(t, "error.xml"))
		})
		_, err := newSource(t, srv.URL, nil).Fetch(context.Background())
		var se *fetch.StatusError
		if !errors.As(err, &se) || se.Status != http.StatusForbidden || !strings.Contains(err.Error(), "fetch namecheap list") {
			t.Fatalf("Fetch error = %v, want a wrapped HTTP 403", err)
		}
		if got := f.Requests(); got != 1 {
			t.Errorf("server saw %d requests, want 1", got)
		}
	})
}

func TestBadBodyKeepsLastPrices(t *testing.T) {
	good := ingesttest.Fixture(t, "tlds.json")
	for _, tt := range []struct {
		name, body, wantErr string
	}{
		{"truncated", string(good[:len(good)/2]), "decode namecheap list"},
		{"html with 200", `<html><head><title>503 Service Unavailable</title></head></html>`, "decode namecheap list"},
		{"S3 error with 200", string(ingesttest.Fixture(t, "error.xml")), "decode namecheap list"},
		{"error object", string(ingesttest.Fixture(t, "error.json")), "Forbidden"},
		{"empty list", `[]`, "no zones"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, srv := newAPI(t, good)
			src := newSource(t, srv.URL, nil)
			h := ingesttest.New(t, src)
			before := h.Round(t, namecheaplist.Registrar)
			if len(before) != rootZones {
				t.Fatalf("first round published %d zones, want %d", len(before), rootZones)
			}

			f.SetBody([]byte(tt.body))
			if _, err := src.Fetch(context.Background()); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Fetch error = %v, want one containing %q", err, tt.wantErr)
			}
			h.RoundFails(t, namecheaplist.Registrar, before, nil)
		})
	}
}

func TestUnreadableZoneKeepsLastPrice(t *testing.T) {
	good := ingesttest.Fixture(t, "tlds.json")
	f, srv := newAPI(t, good)
	h := ingesttest.New(t, newSource(t, srv.URL, nil))
	before := h.Round(t, namecheaplist.Registrar)
	if before[".com"] == nil {
		t.Fatal("first round did not publish .com")
	}

	bad := strings.Replace(string(good), `{"Name":"com","Pricing":{"Price":9.58`, `{"Name":"com","Pricing":{"Price":"TBD"`, 1)
	if bad == string(good) {
		t.Fatal("the fixture has no .com row to spoil")
	}
	f.SetBody([]byte(bad))
	if err := h.Once(t); err != nil {
		t.Fatalf("second round with one unreadable row: %v", err)
	}
	after := h.Prices(t, namecheaplist.Registrar)
	if !reflect.DeepEqual(after[".com"], before[".com"]) {
		t.Errorf(".com after an unreadable row = %+v, want the first round's %+v", after[".com"], before[".com"])
	}
	if len(after) != len(before) {
		t.Errorf("%d zones after an unreadable row, want %d", len(after), len(before))
	}
	if got := h.Counter(t, "zoneprice_ingest_rows_skipped_total"); got != 1 {
		t.Errorf("zoneprice_ingest_rows_skipped_total = %v, want 1 (.com in the second round; 8888 is outside the root, not unreadable)", got)
	}
}

func TestShrunkListRefused(t *testing.T) {
	f, srv := newAPI(t, ingesttest.Fixture(t, "tlds.json"))
	h := ingesttest.New(t, newSource(t, srv.URL, nil))
	before := h.Round(t, namecheaplist.Registrar)

	f.SetBody(ingesttest.Fixture(t, "tlds_shrunk.json"))
	h.RoundFails(t, namecheaplist.Registrar, before, ingest.ErrShrunk)
}

func TestConfig(t *testing.T) {
	tests := []struct {
		name    string
		cfg     namecheaplist.Config
		wantErr bool
	}{
		{"default", namecheaplist.Config{}, false},
		{"https", namecheaplist.Config{URL: namecheaplist.DefaultURL}, false},
		{"relative", namecheaplist.Config{URL: "/tlds.json"}, true},
		{"ftp", namecheaplist.Config{URL: "ftp://d1dijnkjnmzy2z.cloudfront.net/tlds.json"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if (err != nil) != tt.wantErr {
				t.Fatalf("Validate() = %v, want error %v", err, tt.wantErr)
			}
			var ve *contracts.ValidationError
			if err != nil && (!errors.As(err, &ve) || ve.Field != "URL") {
				t.Errorf("error %v does not name the field URL", err)
			}
		})
	}
	client := fetch.New(fetch.Config{}, nil, slog.New(slog.DiscardHandler))
	if _, err := namecheaplist.New(namecheaplist.Config{URL: "nope"}, client, nil); err == nil {
		t.Error("New accepted an invalid config")
	}
	if _, err := namecheaplist.New(namecheaplist.Config{}, nil, nil); err == nil {
		t.Error("New accepted a nil client")
	}
	src, err := namecheaplist.New(namecheaplist.Config{}, client, nil)
	if err != nil || src.Name() != namecheaplist.Name {
		t.Errorf("New(default) = %v, %v", src, err)
	}
	if !contracts.ValidSource(namecheaplist.Name) || namecheaplist.Registrar != "namecheap" {
		t.Errorf("source %q registrar %q: want a valid source id speaking for namecheap", namecheaplist.Name, namecheaplist.Registrar)
	}
}

// FuzzParse checks that Parse never panics and that whatever it returns is
// valid: a list is whole or there is an error.
func FuzzParse(f *testing.F) {
	ingesttest.Seed(f, "*.json")
	f.Add([]byte(`[{"Name":"com","Pricing":{"Price":"1,000.005","Renewal":-0,"Duration":"01","DurationType":"years","Currency":"jpy"}}]`))
	f.Add([]byte(`[{"Name":"com","Pricing":{"Price":"9.584","Regular":9.585,"Renewal":14.58,"Hint":"0% OFF","Duration":1,"DurationType":"YEAR"}}]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		list, err := namecheaplist.Parse(body, observed)
		ingesttest.CheckParsed(t, list, err)
	})
}
