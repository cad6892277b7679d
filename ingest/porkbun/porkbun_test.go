package porkbun_test

import (
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/porkbun"
)

// checkRequest says what is wrong with a request that is not the
// documented POST of "{}" as JSON.
func checkRequest(r *http.Request) error {
	got, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost || string(got) != "{}" || r.Header.Get("Content-Type") != "application/json" {
		return fmt.Errorf("%s %s %s", r.Method, got, r.Header.Get("Content-Type"))
	}
	return nil
}

var (
	op    = ingesttest.USD
	promo = ingesttest.USDPromo
)

// TestFetch reads the list: 19 zones, 23 entries less 2 Handshake names
// and 2 all-zero stand-ins, left out, not skipped.
func TestFetch(t *testing.T) {
	got := suite.Fetched(t, "pricing.json", 19, 0)
	ingesttest.CheckEach(t, got, []ingesttest.Ops{
		{Name: "plain", Zone: ".com", Register: op(1108), Renew: op(1108), Transfer: op(1108)},
		{Name: "cheap first year", Zone: ".org", Register: op(798), Renew: op(1184), Transfer: op(1184)},
		{Name: "second-level zone is its own", Zone: ".co.uk", Register: op(432), Renew: op(566), Transfer: op(0)},
		{Name: "second-level zone beside its parent", Zone: ".com.mx", Register: op(2852), Renew: op(2852), Transfer: op(2852)},
		{Name: "free transfer", Zone: ".uk", Register: op(432), Renew: op(566), Transfer: op(0)},
		{Name: "thousands separator", Zone: ".security", Register: op(206023), Renew: op(206023), Transfer: op(206023)},
		{Name: "amount coupon", Zone: ".de", Register: promo(555, 455), Renew: op(411), Transfer: op(411)},
		{Name: "coupon larger than the price is ignored", Zone: ".quest", Register: op(110), Renew: op(2262), Transfer: op(2262)},
		{Name: "exact percent coupon", Zone: ".xyz", Register: promo(1200, 960), Renew: op(1366), Transfer: op(1366)},
		{Name: "empty coupon object", Zone: ".shop", Register: op(123), Renew: op(3117), Transfer: op(3117)},
		{Name: "n/a transfer is not offered", Zone: ".es", Register: op(599), Renew: op(836)},
		{Name: "empty transfer is not offered", Zone: ".online", Register: op(126), Renew: op(2574)},
		{Name: "IDN A-label", Zone: ".xn--q9jyb4c", Register: op(861), Renew: op(2858), Transfer: op(2858)},
	}, ".0z", ".doge", ".pl", ".com.pl", ".co")
}

// TestParseQuirks covers the format's quirks one body at a time.
func TestParseQuirks(t *testing.T) {
	suite.Quirks(t, []ingesttest.Quirk{
		{
			Name: "prices as JSON numbers",
			Body: `{"status":"SUCCESS","pricing":{"com":{"registration":11.08,"renewal":11.08,"transfer":11.08,"coupons":[]}}}`,
			Zone: ".com", Want: suite.Set(".com", op(1108), op(1108), op(1108)),
		},
		{
			Name: "missing operation",
			Body: `{"status":"SUCCESS","pricing":{"com":{"registration":"11.08","renewal":"11.08"}}}`,
			Zone: ".com", Want: suite.Set(".com", op(1108), op(1108), nil),
		},
		{
			Name: "zero registration is not offered",
			Body: `{"status":"SUCCESS","pricing":{"com":{"registration":"0.00","renewal":"11.08","transfer":"11.08"},"net":{"registration":"1.00","renewal":"1.00","transfer":"1.00"}}}`,
			Zone: ".com", Want: suite.Set(".com", nil, op(1108), op(1108)),
		},
		{
			Name: "zero renewal is not offered",
			Body: `{"status":"SUCCESS","pricing":{"com":{"registration":"11.08","renewal":0,"transfer":"11.08"}}}`,
			Zone: ".com", Want: suite.Set(".com", op(1108), nil, op(1108)),
		},
		{
			Name: "zero registration and renewal leave the transfer",
			Body: `{"status":"SUCCESS","pricing":{"com":{"registration":"0.00","renewal":"0.00","transfer":"11.08"}}}`,
			Zone: ".com", Want: suite.Set(".com", nil, nil, op(1108)),
		},
		{
			Name: "zero transfer is a free transfer",
			Body: `{"status":"SUCCESS","pricing":{"uk":{"registration":"4.32","renewal":"5.66","transfer":"0.00"}}}`,
			Zone: ".uk", Want: suite.Set(".uk", op(432), op(566), op(0)),
		},
		{
			Name: "zero registration and renewal with no transfer is left out, not skipped",
			Body: `{"status":"SUCCESS","pricing":{"com":{"registration":"0.00","renewal":"0.00"},"net":{"registration":"12.52","renewal":"12.52","transfer":"12.52"}}}`,
			Zone: ".com",
		},
		{
			Name: "coupon on a zero registration is ignored",
			Body: `{"status":"SUCCESS","pricing":{"com":{"registration":"0.00","renewal":"11.08","transfer":"11.08","coupons":{"registration":{"type":"amount","amount":1}}}}}`,
			Zone: ".com", Want: suite.Set(".com", nil, op(1108), op(1108)),
		},
		{
			Name: "upper-case key",
			Body: `{"status":"SUCCESS","pricing":{"COM":{"registration":"11.08","renewal":"11.08","transfer":"11.08"}}}`,
			Zone: ".com", Want: suite.Set(".com", op(1108), op(1108), op(1108)),
		},
		{
			Name: "unicode key",
			Body: `{"status":"SUCCESS","pricing":{"みんな":{"registration":"8.61","renewal":"28.58","transfer":"28.58"}}}`,
			Zone: ".xn--q9jyb4c", Want: suite.Set(".xn--q9jyb4c", op(861), op(2858), op(2858)),
		},
		{
			Name: "unicode key and its A-label keep the first",
			Body: `{"status":"SUCCESS","pricing":{"みんな":{"registration":"9.99","renewal":"9.99","transfer":"9.99"},"xn--q9jyb4c":{"registration":"8.61","renewal":"28.58","transfer":"28.58"}}}`,
			Zone: ".xn--q9jyb4c", Want: suite.Set(".xn--q9jyb4c", op(861), op(2858), op(2858)),
			Skipped: 1,
		},
		{
			Name: "unreadable A-label beside its readable unicode key",
			Body: `{"status":"SUCCESS","pricing":{"みんな":{"registration":"8.61","renewal":"28.58","transfer":"28.58"},"xn--q9jyb4c":{"registration":"TBD"}}}`,
			Zone: ".xn--q9jyb4c", Want: suite.Set(".xn--q9jyb4c", op(861), op(2858), op(2858)),
			Skipped: 1,
		},
		{
			Name: "unreadable price skips the zone",
			Body: `{"status":"SUCCESS","pricing":{"com":{"registration":"TBD","renewal":"11.08","transfer":"11.08"},"net":{"registration":"12.52","renewal":"12.52","transfer":"12.52"}}}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.porkbun.com"},
		},
		{
			Name: "unknown special type skips the zone",
			Body: `{"status":"SUCCESS","pricing":{"com":{"registration":"1.00","renewal":"1.00","transfer":"1.00","specialType":{"kind":"x"}},"net":{"registration":"12.52","renewal":"12.52","transfer":"12.52"}}}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.porkbun.com"},
		},
		{
			Name: "entry that is not an object skips the zone",
			Body: `{"status":"SUCCESS","pricing":{"com":"11.08","net":{"registration":"12.52","renewal":"12.52","transfer":"12.52"}}}`,
			Zone: ".com", Skipped: 1, Keep: []string{"prices.v1.porkbun.com"},
		},
		{
			Name: "key that is not a zone is skipped",
			Body: `{"status":"SUCCESS","pricing":{"foo bar":{"registration":"1.00"},"net":{"registration":"12.52","renewal":"12.52","transfer":"12.52"}}}`,
			Zone: ".foo bar", Skipped: 1,
		},
		{
			Name: "unreadable entries are counted and kept, zones not sold are not",
			Body: `{"status":"SUCCESS","pricing":{` +
				`"0z":{"registration":"42.52","specialType":"handshake"},` +
				`"pl":{"registration":"0.00","renewal":"0.00","transfer":"0.00"},` +
				`"es":{"registration":"n/a","renewal":null},` +
				`"CO.UK":{"registration":"4,32,1","renewal":"5.66","transfer":"0.00"},` +
				`"io":{"registration":"28.12","renewal":"51.80","transfer":[]},` +
				`"com":{"registration":"11.08","renewal":"11.08","transfer":"11.08"}}}`,
			Zone: ".com", Want: suite.Set(".com", op(1108), op(1108), op(1108)),
			Skipped: 2, Keep: []string{"prices.v1.porkbun.co_uk", "prices.v1.porkbun.io"},
		},
		{
			Name: "amount coupon as a string",
			Body: `{"status":"SUCCESS","pricing":{"com":{"registration":"11.08","renewal":"11.08","transfer":"11.08","coupons":{"registration":{"code":"X","max_per_user":"1","first_year_only":"no","type":"amount","amount":"2.50"}}}}}`,
			Zone: ".com", Want: suite.Set(".com", promo(1108, 858), op(1108), op(1108)),
		},
		{
			Name: "coupon that makes the name free",
			Body: `{"status":"SUCCESS","pricing":{"com":{"registration":"1.00","renewal":"11.08","transfer":"11.08","coupons":{"registration":{"type":"amount","amount":1}}}}}`,
			Zone: ".com", Want: suite.Set(".com", promo(100, 0), op(1108), op(1108)),
		},
		{
			Name: "transfer coupon",
			Body: `{"status":"SUCCESS","pricing":{"com":{"registration":"11.08","renewal":"11.08","transfer":"11.08","coupons":{"transfer":{"type":"amount","amount":1}}}}}`,
			Zone: ".com", Want: suite.Set(".com", op(1108), op(1108), promo(1108, 1008)),
		},
		{
			Name: "inexact percent coupon is left out",
			Body: `{"status":"SUCCESS","pricing":{"com":{"registration":"11.08","renewal":"11.08","transfer":"11.08","coupons":{"registration":{"type":"percent","amount":15}}}}}`,
			Zone: ".com", Want: suite.Set(".com", op(1108), op(1108), op(1108)),
		},
		{
			Name: "unknown coupon type is ignored",
			Body: `{"status":"SUCCESS","pricing":{"com":{"registration":"11.08","renewal":"11.08","transfer":"11.08","coupons":{"registration":{"type":"bogo","amount":1}}}}}`,
			Zone: ".com", Want: suite.Set(".com", op(1108), op(1108), op(1108)),
		},
		{
			Name: "coupon for an operation not offered is ignored",
			Body: `{"status":"SUCCESS","pricing":{"com":{"registration":"11.08","renewal":"11.08","coupons":{"transfer":{"type":"amount","amount":1}}}}}`,
			Zone: ".com", Want: suite.Set(".com", op(1108), op(1108), nil),
		},
		{
			Name: "populated coupon array is ignored",
			Body: `{"status":"SUCCESS","pricing":{"com":{"registration":"11.08","renewal":"11.08","transfer":"11.08","coupons":[{"type":"amount","amount":1}]}}}`,
			Zone: ".com", Want: suite.Set(".com", op(1108), op(1108), op(1108)),
		},
		{
			Name:    "error status names the message",
			Body:    string(ingesttest.Fixture(t, "error.json")),
			WantErr: "Too many requests",
		},
		{
			Name:    "only zones that cannot be used",
			Body:    `{"status":"SUCCESS","pricing":{"0z":{"registration":"1.00","specialType":"handshake"},"pl":{"registration":"0.00","renewal":"0.00","transfer":"0.00"}}}`,
			WantErr: "no usable zone",
		},
		{Name: "no pricing", Body: `{"status":"SUCCESS"}`, WantErr: "no zones"},
		{Name: "no status", Body: `{"pricing":{"com":{"registration":"1.00"}}}`, WantErr: "no status"},
		{Name: "html", Body: `<html><body>502 Bad Gateway</body></html>`, WantErr: "decode porkbun price list"},
		{Name: "truncated", Body: string(ingesttest.Fixture(t, "pricing.json")[:300]), WantErr: "decode porkbun price list"},
		{Name: "pricing is a list", Body: `{"status":"SUCCESS","pricing":[]}`, WantErr: "decode porkbun price list"},
	})
}

// suite is the source, for the conformance suite and the tests above;
// its POSTs are not conditional.
var suite = ingesttest.Declared(porkbun.Declaration()).With(ingesttest.Suite{
	Fixtures: []string{"pricing.json"}, Shrunk: "pricing_shrunk.json", Errors: []string{"error.json"},
	Check: checkRequest, Spoil: "pricing.com.renewal",
	Drift: ingesttest.DriftPaths{Row: "pricing.*", Field: "renewal", Shape: "pricing"},
})

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, porkbun.Declaration().Read, "*.json") }
