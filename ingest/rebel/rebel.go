// Package rebel reads Rebel.com's all-zone price list (Rebel is a Tucows
// retail brand): one GET, without a key, of
// https://api.rebel.com/price/allTLDPrices/Rebel, the document its pricing
// page (https://www.rebel.com/domains/pricing) loads:
//
//	{"prices":[{"name":"com","prices":{"USD":{"Price":13.99,"Reg":17.99,"Ren":17.99,"Bo":…},
//	                                   "CAD":{…}}},
//	           {"name":"uk_co",…}, {"name":"com_it",…}, …]}
//
// What is KNOWN, from the one public client of this endpoint,
// github.com/hellouy/domainhub adapters/rebel.ts (commit 19063bf): the body
// is an object whose "prices" list holds one entry per zone, each with a
// "name" and its prices by currency code, USD and CAD, each holding Price,
// Reg, Ren and Bo; Reg is the standard registration price, Ren the renewal,
// Price the price charged now (below Reg, a first-year promotion); 471
// zones, every one with a registration and a renewal price. A zone of more
// than one label is written with underscores, in no fixed order: "uk_co" is
// co.uk but "com_it" is com.it (it.com is another zone, sold by CentralNic),
// so that client maps eight such names by hand (au_asn, au_com, au_id,
// au_net, au_org, com_it, nz_co, uk_co). "com_it" is listed twice, with the
// same prices. That client reads no transfer price and no Bo.
//
// What is ASSUMED:
//
//   - Currency: the US dollar prices are read; the Canadian ones are
//     known and left (one registrar, one currency here).
//   - Register: Reg is the regular price, and a Price below it a promotion
//     on it, with no end (none is given). A Price at or above Reg, or an
//     unreadable one, is ignored: Reg stands.
//   - Bo is not read: its meaning is not known (it may be a backorder
//     price). No transfer price is published: the list gives none.
//   - Prices are JSON numbers or decimal strings, read by their digits,
//     never through a float; a zero or absent Reg or Ren is no price.
//   - A name with underscores is read through the known map above; any
//     other is skipped (counted, logged, its zone's last price kept) and
//     named, since which order it is written in cannot be told.
//   - A zone listed again with the very same prices is one listing; with
//     other prices the later one is skipped.
//   - "error" and "message" strings beside no list are an error envelope.
//   - Tax: Rebel says nothing of tax on these prices: unknown.
//
// # Fields
//
//   - top level: prices (read); error?, message? (an error envelope).
//   - an entry: name (read), prices.USD (read), prices.CAD? (ignored).
//   - a currency's prices: Price, Reg, Ren (read), Bo? (ignored).
package rebel

import (
	"fmt"
	"strings"

	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/kit"
)

// Name is the source's name and Rebel.com's registrar id.
const Name = "rebel"

// Declaration is the source, as the package comment reads it.
func Declaration() *kit.Declaration {
	d := kit.Site(Name, "Rebel.com", "https://www.rebel.com", "https://api.rebel.com/price/allTLDPrices/Rebel", "rebel price list", "USD", &kit.Table{
		Rows: "prices[]", Zone: "name", ZoneName: zoneName, Repeats: true, Errors: []string{"error", "message"},
		Register: kit.Op{Price: "prices.USD.Reg", Sale: "prices.USD.Price"},
		Renew:    kit.Op{Price: "prices.USD.Ren"},
	})
	d.Shape = format()
	return d
}

// multiLevel are the names of more than one label Rebel is known to
// write, and the zones they are.
var multiLevel = map[string]string{
	"au_asn": "asn.au", "au_com": "com.au", "au_id": "id.au", "au_net": "net.au", "au_org": "org.au",
	"com_it": "com.it", "nz_co": "co.nz", "uk_co": "co.uk",
}

// zoneName reads a name as Rebel writes it.
func zoneName(written string) (string, error) {
	name := strings.ToLower(written)
	if !strings.Contains(name, "_") {
		return name, nil
	}
	if z, ok := multiLevel[name]; ok {
		return z, nil
	}
	return "", fmt.Errorf("name %q has labels in an order not known", written)
}

func format() *ingest.Shape {
	prices := ingest.Object(map[string]*ingest.Shape{
		"Price": ingest.Scalar(), "Reg": ingest.Scalar(), "Ren": ingest.Scalar(), "Bo?": ingest.Scalar(),
	})
	entry := ingest.Object(map[string]*ingest.Shape{
		"name":   ingest.Scalar(),
		"prices": ingest.Object(map[string]*ingest.Shape{"USD": prices, "CAD?": nil}),
	})
	return ingest.Object(map[string]*ingest.Shape{
		"prices": ingest.Array(entry), "error?": ingest.Scalar(), "message?": ingest.Scalar(),
	})
}
