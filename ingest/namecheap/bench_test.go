package namecheap_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/namecheap"
)

// pricing600 is a namecheap.users.getPricing answer for 600 zones in the
// real shape: the ApiResponse envelope, the register and renew categories
// with a one- and a two-year Price per zone, the transfer category with a
// one-year one, every Price element with all its attributes, an ICANN fee
// (AdditionalCost) on every zone, a first-year Price below its
// RegularPrice every 10th zone.
func pricing600() []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?>
<ApiResponse Status="OK" xmlns="http://api.namecheap.com/xml.response">
  <Errors />
  <Warnings />
  <RequestedCommand>namecheap.users.getPricing</RequestedCommand>
  <CommandResponse Type="namecheap.users.getPricing">
    <UserGetPricingResult>
      <ProductType Name="domains">
`)
	price := func(years int, yours, regular string) string {
		return fmt.Sprintf(`            <Price Duration="%d" DurationType="YEAR" Price="%s" PricingType="MULTIPLE" AdditionalCost="0.18" RegularPrice="%s" RegularPriceType="MULTIPLE" RegularAdditionalCost="0.18" RegularAdditionalCostType="MULTIPLE" YourPrice="%s" YourPriceType="MULTIPLE" YourAdditonalCost="0.18" YourAdditonalCostType="MULTIPLE" PromotionPrice="0.0" Currency="USD" />`+"\n",
			years, yours, regular, yours)
	}
	for _, category := range []string{"register", "renew", "transfer"} {
		fmt.Fprintf(&b, "        <ProductCategory Name=%q>\n", category)
		for i := range 600 {
			regular := fmt.Sprintf("%d.%02d", 2+i%60, i%100)
			yours := regular
			switch {
			case category == "renew":
				regular = fmt.Sprintf("%d.88", 10+i%40)
				yours = regular
			case category == "register" && i%10 == 0:
				yours = "1.98"
			}
			fmt.Fprintf(&b, "          <Product Name=\"z%c%c%c\">\n", 'a'+i/676%26, 'a'+i/26%26, 'a'+i%26)
			b.WriteString(price(1, yours, regular))
			if category != "transfer" {
				b.WriteString(price(2, regular+"0", regular+"0"))
			}
			b.WriteString("          </Product>\n")
		}
		b.WriteString("        </ProductCategory>\n")
	}
	b.WriteString(`      </ProductType>
    </UserGetPricingResult>
  </CommandResponse>
  <Server>PHX01APIEXT01</Server>
  <GMTTimeDifference>--5:00</GMTTimeDifference>
  <ExecutionTime>2.047</ExecutionTime>
</ApiResponse>
`)
	return []byte(b.String())
}

// BenchmarkParse600 parses the answer into price sets; BenchmarkDecode600
// is its baseline, an encoding/xml read of every token of the same
// bytes, in the same run (make bench-ingest).
func BenchmarkParse600(b *testing.B) {
	ingesttest.BenchParse(b, namecheap.Parse, pricing600(), 600)
}

func BenchmarkDecode600(b *testing.B) { ingesttest.BenchDecodeXML(b, pricing600()) }
