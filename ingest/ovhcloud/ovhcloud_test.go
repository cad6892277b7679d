package ovhcloud_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/ovhcloud"
)

var (
	op  = ingesttest.In("EUR")
	gbp = ingesttest.In("GBP")
)

// promo is a euro price with a promotion to promoCents until ends.
func promo(cents, promoCents int64, ends *time.Time) *contracts.OpPrice {
	o := ingesttest.Promo(cents, promoCents, "EUR")
	o.Promo.EndsAt = ends
	return o
}

func at(s string) *time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return &t
}

// TestFetch reads the French catalog: 14 zones, 15 plans less .game, with
// only premium placeholder prices (left out, not skipped).
func TestFetch(t *testing.T) {
	got := suite.Fetched(t, "catalog_fr.json", 14, 0)
	ingesttest.CheckEach(t, got, []ingesttest.Ops{
		{Name: "cheap first year", Zone: ".com", Register: op(799), Renew: op(1349), Transfer: op(799)},
		{Name: "renewal below creation", Zone: ".org", Register: op(1249), Renew: op(878), Transfer: op(878)},
		{Name: "ccTLD", Zone: ".fr", Register: op(699), Renew: op(999), Transfer: op(699)},
		{Name: "second-level zone", Zone: ".co.uk", Register: op(719), Renew: op(999), Transfer: op(0)},
		{Name: "second-level zone of another country", Zone: ".com.pl", Register: op(1259), Renew: op(1409), Transfer: op(1259)},
		{Name: "no transfer pricing", Zone: ".eu", Register: op(499), Renew: op(899)},
		{Name: "IDN", Zone: ".xn--6frz82g", Register: op(2999), Renew: op(3499), Transfer: op(3499)},
		{Name: "running promotion rounds half up", Zone: ".app", Register: promo(1499, 1199, at("2026-12-31T22:59:59Z")), Renew: op(1749), Transfer: op(1749)},
		{Name: "ended promotion is ignored", Zone: ".info", Register: op(349), Renew: op(2459), Transfer: op(1999)},
		{Name: "placeholder creation price", Zone: ".luxe", Renew: op(2999), Transfer: op(2999)},
	}, ".game")
}

// plans builds a catalog body around plan objects, in the locale given.
func plans(currency string, plans ...string) string {
	return `{"catalogId":2387,"locale":{"currencyCode":"` + currency + `","subsidiary":"FR","taxRate":20},"plans":[` +
		strings.Join(plans, ",") + `],"products":[],"addons":[],"planFamilies":[]}`
}

// pricing is one catalog pricing entry; extra is appended inside the object.
func pricing(mode, caps string, interval int, unit string, price, extra string) string {
	return fmt.Sprintf(`{"capacities":%s,"mode":%q,"phase":0,"interval":%d,"intervalUnit":%q,"price":%s,"tax":0,"promotions":[]%s}`,
		caps, mode, interval, unit, price, extra)
}

func plan(code, invoice string, pricings ...string) string {
	return fmt.Sprintf(`{"planCode":%q,"invoiceName":%q,"product":"domain","pricingType":"rental","pricings":[%s]}`,
		code, invoice, strings.Join(pricings, ","))
}

const (
	create = `["installation","renew"]`
	renew  = `["renew"]`
)

// com is a plain plan, so that a body whose other plan is skipped still
// parses.
var com = plan("com", ".com", pricing("create-default", create, 12, "month", "799000000", ""))

func TestParseQuirks(t *testing.T) {
	suite.Quirks(t, []ingesttest.Quirk{
		{
			Name: "locale currency",
			Body: plans("GBP", plan("co.uk", ".co.uk", pricing("create-default", create, 12, "month", "699000000", ""),
				pricing("create-default", renew, 12, "month", "899000000", ""))),
			Zone: ".co.uk", Want: suite.Set(".co.uk", gbp(699), gbp(899), nil),
		},
		{
			Name: "one year written as a year",
			Body: plans("EUR", plan("net", ".net", pricing("create-default", create, 1, "year", "1099000000", ""))),
			Zone: ".net", Want: suite.Set(".net", op(1099), nil, nil),
		},
		{
			Name: "multi-year pricing is not a one-year price",
			Body: plans("EUR", com, plan("net", ".net", pricing("create-default", create, 24, "month", "2198000000", ""))),
			Zone: ".net",
		},
		{
			Name: "pricings that disagree leave the operation out",
			Body: plans("EUR", plan("net", ".net", pricing("create-default", create, 12, "month", "1099000000", ""),
				pricing("create-default", create, 12, "month", "1199000000", ""),
				pricing("create-default", renew, 12, "month", "1519000000", ""))),
			Zone: ".net", Want: suite.Set(".net", nil, op(1519), nil),
		},
		{
			Name: "pricings that all disagree skip the plan",
			Body: plans("EUR", com, plan("net", ".net", pricing("create-default", create, 12, "month", "1099000000", ""),
				pricing("create-default", create, 12, "month", "1199000000", ""))),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.ovhcloud.net"},
		},
		{
			Name: "free transfer is kept",
			Body: plans("EUR", plan("uk", ".uk", pricing("create-default", create, 12, "month", "699000000", ""),
				pricing("transfer-default", create, 12, "month", "0", ""))),
			Zone: ".uk", Want: suite.Set(".uk", op(699), nil, op(0)),
		},
		{
			Name: "premium modes are not default prices",
			Body: plans("EUR", com, plan("game", ".game", pricing("create-premium", create, 12, "month", "1999000000", ""),
				pricing("transfer-aftermarket1", create, 12, "month", "999000000", ""))),
			Zone: ".game",
		},
		{
			Name: "premium variant plan code",
			Body: plans("EUR", com, plan("com-premium", ".com-premium", pricing("create-default", create, 12, "month", "4999000000", ""))),
			Zone: ".com-premium",
		},
		{
			Name: "plan invoiced as another zone",
			Body: plans("EUR", plan("comx", ".com", pricing("create-default", create, 12, "month", "4999000000", "")),
				plan("net", ".net", pricing("create-default", create, 12, "month", "1099000000", ""))),
			Zone: ".comx",
		},
		{
			Name: "unicode plan code",
			Body: plans("EUR", plan("移动", ".xn--6frz82g (.移动)", pricing("create-default", create, 12, "month", "2999000000", ""))),
			Zone: ".xn--6frz82g", Want: suite.Set(".xn--6frz82g", op(2999), nil, nil),
		},
		{
			Name: "duplicate zone keeps the first",
			Body: plans("EUR", com, plan("COM", ".com", pricing("create-default", create, 12, "month", "999000000", ""))),
			Zone: ".com", Want: suite.Set(".com", op(799), nil, nil),
			Skipped: 1,
		},
		{
			Name: "fractional price skips the plan",
			Body: plans("EUR", com, plan("net", ".net", pricing("create-default", create, 12, "month", "1099000000.5", ""))),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.ovhcloud.net"},
		},
		{
			Name: "negative price skips the plan",
			Body: plans("EUR", com, plan("net", ".net", pricing("create-default", create, 12, "month", "-1", ""))),
			Zone: ".net", Skipped: 1, Keep: []string{"prices.v1.ovhcloud.net"},
		},
		{
			Name: "plan that is not an object is skipped",
			Body: plans("EUR", com, `"net"`),
			Zone: ".com", Want: suite.Set(".com", op(799), nil, nil),
			Skipped: 1,
		},
		{
			Name: "unreadable plans are counted and kept, plans that are not zones are not",
			Body: plans("EUR", com,
				plan("com-premium", ".com-premium", pricing("create-default", create, 12, "month", "4999000000", "")),
				plan("game", ".game", pricing("create-premium", create, 12, "month", "99999900000000", "")),
				plan("net", ".net", pricing("create-default", create, 12, "month", `"TBD"`, "")),
				plan("CO.UK", ".co.uk", pricing("create-default", create, 12, "month", "-719000000", "")),
				`{"invoiceName":".org","pricings":[]}`,
				plan("com", ".com", pricing("create-default", create, 12, "month", `"x"`, ""))),
			Zone: ".com", Want: suite.Set(".com", op(799), nil, nil),
			Skipped: 4, Keep: []string{"prices.v1.ovhcloud.co_uk", "prices.v1.ovhcloud.net"},
		},
		{
			Name: "promotion from its discount without an end",
			Body: plans("EUR", plan("net", ".net", pricing("create-default", create, 12, "month", "1099000000",
				`,"promotions":[{"name":"N","startDate":"2026-11-01T00:00:00+01:00","discount":{"tax":0,"value":500000000},"type":"fixed_amount"}]`))),
			Zone: ".net", Want: suite.Set(".net", promo(1099, 599, nil), nil, nil),
		},
		{
			Name: "promotion not started yet is ignored",
			Body: plans("EUR", plan("net", ".net", pricing("create-default", create, 12, "month", "1099000000",
				`,"promotions":[{"startDate":"2026-12-01T00:00:00+01:00","endDate":"2026-12-31T00:00:00+01:00","total":{"value":599000000}}]`))),
			Zone: ".net", Want: suite.Set(".net", op(1099), nil, nil),
		},
		{
			Name: "cheapest of two running promotions",
			Body: plans("EUR", plan("net", ".net", pricing("create-default", create, 12, "month", "1099000000",
				`,"promotions":[{"endDate":"2027-01-31T00:00:00+01:00","total":{"value":899000000}},{"endDate":"2026-12-31T00:00:00+01:00","total":{"value":599000000}}]`))),
			Zone: ".net", Want: suite.Set(".net", promo(1099, 599, at("2026-12-30T23:00:00Z")), nil, nil),
		},
		{
			Name: "promotion that rounds to no discount is ignored",
			Body: plans("EUR", plan("net", ".net", pricing("create-default", create, 12, "month", "1099000000",
				`,"promotions":[{"total":{"value":1098900000}}]`))),
			Zone: ".net", Want: suite.Set(".net", op(1099), nil, nil),
		},
		{
			Name: "promotion dearer than the price is ignored",
			Body: plans("EUR", plan("net", ".net", pricing("create-default", create, 12, "month", "1099000000",
				`,"promotions":[{"total":{"value":1299000000}}]`))),
			Zone: ".net", Want: suite.Set(".net", op(1099), nil, nil),
		},
		{Name: "api error", Body: string(ingesttest.Fixture(t, "error.json")), WantErr: "Invalid value for ovhSubsidiary"},
		{Name: "unknown currency", Body: plans("XYZ", com), WantErr: `currency "XYZ"`},
		{Name: "no locale", Body: `{"plans":[` + com + `]}`, WantErr: "no locale"},
		{Name: "no plans", Body: plans("EUR"), WantErr: "no plans"},
		{
			Name:    "only plans that cannot be used",
			Body:    plans("EUR", plan("game", ".game", pricing("create-premium", create, 12, "month", "99999900000000", ""))),
			WantErr: "no usable zone",
		},
		{Name: "truncated", Body: string(ingesttest.Fixture(t, "catalog_fr.json")[:4000]), WantErr: "decode ovhcloud catalog"},
		{Name: "html", Body: "<html><body><h1>504 Gateway Time-out</h1></body></html>", WantErr: "decode ovhcloud catalog"},
	})
}

func TestConfigSubsidiary(t *testing.T) {
	tests := []struct {
		name    string
		cfg     ovhcloud.Config
		wantURL string
		wantErr string
	}{
		{name: "default", cfg: ovhcloud.Config{}, wantURL: ovhcloud.DefaultURL},
		{name: "european subsidiary", cfg: ovhcloud.Config{Subsidiary: "GB"},
			wantURL: "https://eu.api.ovh.com/1.0/order/catalog/public/domain?ovhSubsidiary=GB"},
		{name: "lower case", cfg: ovhcloud.Config{Subsidiary: "pl"},
			wantURL: "https://eu.api.ovh.com/1.0/order/catalog/public/domain?ovhSubsidiary=PL"},
		{name: "rest of the world", cfg: ovhcloud.Config{Subsidiary: "WE"},
			wantURL: "https://ca.api.ovh.com/1.0/order/catalog/public/domain?ovhSubsidiary=WE"},
		{name: "united states", cfg: ovhcloud.Config{Subsidiary: "US"},
			wantURL: "https://api.us.ovhcloud.com/1.0/order/catalog/public/domain?ovhSubsidiary=US"},
		{name: "explicit URL wins", cfg: ovhcloud.Config{URL: "http://127.0.0.1:8080/catalog", Subsidiary: "GB"},
			wantURL: "http://127.0.0.1:8080/catalog"},
		{name: "unknown subsidiary", cfg: ovhcloud.Config{Subsidiary: "ZZ"}, wantErr: "subsidiary"},
		{name: "relative URL", cfg: ovhcloud.Config{URL: "/catalog"}, wantErr: "URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Validate() = %v, want an error naming %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := tt.cfg.CatalogURL(); got != tt.wantURL {
				t.Errorf("URL = %s, want %s", got, tt.wantURL)
			}
		})
	}
}

// suite is the source, for the conformance suite and the tests above.
var suite = ingesttest.Suite{
	Name: ovhcloud.Name, Registrar: ovhcloud.Name, Parse: ovhcloud.Parse, Tax: contracts.TaxExcluded,
	New: func(url string, client *fetch.Client, now func() time.Time) (ingest.Source, error) {
		return ovhcloud.New(ovhcloud.Config{URL: url}, client, now)
	},
	Validate: func(url string) error { return ovhcloud.Config{URL: url}.Validate() },
	Spoil:    "plans.0.pricings.0.price",
	Drift:    ingesttest.DriftPaths{Row: "plans[]", Field: "invoiceName", Shape: "plans"},
}.Reads("catalog_fr.json", "catalog_shrunk.json").At("/1.0/order/catalog/public/domain?ovhSubsidiary=FR")

// TestConform runs the behaviour tests every source passes.
func TestConform(t *testing.T) { ingesttest.Conform(t, suite) }

func FuzzParse(f *testing.F) { ingesttest.Fuzz(f, ovhcloud.Parse, "*.json") }
