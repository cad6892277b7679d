package ovhcloud_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/ovhcloud"
)

// catalog600 is an OVHcloud public domain catalog of 600 plans in the
// real shape: the catalog's envelope with its locale, each plan with its
// configurations and pricings (creation and renewal for create-default
// and transfer-default, the premium ones, restore), prices in 10⁻⁸ of a
// euro, a percentage promotion on creation every 20th plan.
func catalog600() []byte {
	pricing := func(capacities, description string, interval int, unit, mode string, phase int, price int64, promotions string) string {
		return fmt.Sprintf(`{"capacities":[%s],"commitment":0,"description":%q,"engagementConfiguration":null,"formattedPrice":"","interval":%d,"intervalUnit":%q,"mode":%q,"mustBeCompleted":false,"phase":%d,"price":%d,"promotions":[%s],"quantity":{"max":1,"min":1},"repeat":{"max":10,"min":1},"strategy":"tiered","tax":%d,"type":"rental"}`,
			capacities, description, interval, unit, mode, phase, price, promotions, price/5)
	}
	const create, renew = `"installation","renew"`, `"renew"`
	var b strings.Builder
	b.WriteString(`{"addons":[],"catalogId":2387,"locale":{"currencyCode":"EUR","subsidiary":"FR","taxRate":20},"planFamilies":[],"plans":[`)
	for i := range 600 {
		if i > 0 {
			b.WriteByte(',')
		}
		zone := fmt.Sprintf("z%c%c%c", 'a'+i/676%26, 'a'+i/26%26, 'a'+i%26)
		price := int64(2+i%60)*100_000_000 + int64(i%100)*1_000_000
		renewal := int64(10+i%40)*100_000_000 + 49_000_000
		promotions := ""
		if i%20 == 0 {
			promotions = fmt.Sprintf(`{"context":"standard","description":"-20%% on .%s creation","discount":{"formattedValue":"","tax":%d,"value":%d},"duration":1,"endDate":"2026-12-31T23:59:59+01:00","formattedValue":"","globalQuantity":null,"isGlobalQuantityLimited":false,"minimumDuration":1,"name":"DOMAIN_CREATE_2026","quantity":null,"startDate":"2026-11-01T00:00:00+01:00","tags":null,"total":{"formattedValue":"","tax":%d,"value":%d},"type":"percentage","value":20}`,
				zone, price/25, price/5, price*4/25, price*4/5)
		}
		pricings := []string{
			pricing(create, "Creation", 12, "month", "create-default", 0, price, promotions),
			pricing(renew, "Renewal", 12, "month", "create-default", 1, renewal, ""),
			pricing(create, "Transfer", 12, "month", "transfer-default", 0, price, ""),
			pricing(renew, "Renewal", 12, "month", "transfer-default", 1, renewal, ""),
			pricing(create, "Premium creation", 12, "month", "create-premium", 0, 99_999_900_000_000, ""),
			pricing(create, "Premium transfer", 12, "month", "transfer-premium", 0, 99_999_900_000_000, ""),
			pricing(`"installation"`, "Restore", 0, "none", "restore-default", 0, 9_900_000_000, ""),
		}
		fmt.Fprintf(&b, "\n"+`{"planCode":%q,"invoiceName":".%s","addonFamilies":[],"configurations":[{"name":"DOMAIN","isCustom":true,"isMandatory":true,"values":null}],"consumptionConfiguration":null,"family":null,"pricingType":"rental","product":"domain","pricings":[%s]}`,
			zone, zone, strings.Join(pricings, ","))
	}
	b.WriteString("\n" + `],"products":[{"blobs":null,"configurations":[{"name":"DOMAIN","isCustom":true,"isMandatory":true,"values":null}],"description":"Domain name","name":"domain"}]}` + "\n")
	return []byte(b.String())
}

// BenchmarkParse600 parses the catalog into price sets; BenchmarkDecode600
// is its baseline in the same run (make bench-ingest).
func BenchmarkParse600(b *testing.B) {
	ingesttest.BenchParse(b, ovhcloud.Parse, catalog600(), 600)
}

func BenchmarkDecode600(b *testing.B) { ingesttest.BenchDecode(b, catalog600()) }
