// Package inwx reads INWX's public price list: one GET, without a key, of
// the document INWX's own price list page (www.inwx.com/en/domain/pricelist)
// loads,
//
//	https://www.inwx.com/api/v1/domain/all-prices
//
// which answers with every zone INWX sells, about 2,200:
//
//	{"tlds":[{"tld":"com","createPrice":11.9,"renewalPrice":11.9,
//	  "transferPrice":11.9,"restorePrice":95,"currency":"USD"}, ...]}
//
// INWX documents no such endpoint (its documented API, the DomRobot
// JSON-RPC API, needs an account); it is the one its site uses. What is
// KNOWN comes from public client code that reads it:
// github.com/hellouy/domainhub adapters/inwx.ts (commit b0b57be), a
// price-comparison adapter that fetches this exact URL, reads
// tlds[] with tld, createPrice, renewalPrice, transferPrice, restorePrice
// and currency, converts each price with JavaScript's Number() (so a JSON
// number or a numeric string) and keeps only prices above zero, and says
// the list holds 2,232 zones, "mostly USD, some EUR", the currency chosen
// by where the visitor is; a second adapter of the same project
// (adapters/auto-registrars.ts, in one of the versions code search holds)
// notes that the endpoint "by default answers in USD according to the
// visitor's location" and reads the currency row by row. Re-read for
// issue 22: no field beside those (no regular or original price, no sale
// end date, no ICANN fee) is in that code.
//
// How the document is read, decision by decision:
//
//   - Currency: each row's "currency" (any case), else the document's
//     top-level "currency" (ASSUMED: no sample shows one). A row whose
//     currency nobody gives is skipped: the currency varies by visitor, so
//     guessing one would publish a price in the wrong money. No query
//     parameter or header that asks this endpoint for a currency is known,
//     so the request asks for none; the list's currencies are what INWX
//     chose for the fetching machine's location.
//   - Tax: every price set says contracts.TaxUnknown. INWX is German
//     (InterNetworX; the terms on www.inwx.com name INWX Inc. as the
//     provider) and sells to consumers as well as resellers, and a price
//     shown to an EU consumer must include VAT; so the list may be gross
//     for some visitors and net for others, as its currency is. Nothing
//     found says which, for which visitor, or at which rate, and neither
//     the document nor the public client code carries a tax field. A price
//     that might include 19% VAT is not comparable with a net one, and
//     TaxUnknown says so.
//   - Prices are JSON numbers or strings, read by their literal digits with
//     money.Parse (never through a float); thousands separators ("2,190.00")
//     are read as such. A missing, null, "" or "n/a" price means the
//     operation is not offered (nil). A zero price also reads as not
//     offered, for every operation, transfer included: the public client
//     code reads zero as no price, and nothing says whether INWX's zero is
//     a free transfer or a placeholder, so a zero is left out rather than
//     published as a free operation that may not exist (ASSUMED). Any other
//     unreadable price (negative, with a currency symbol, an object) skips
//     the row rather than publishing it with an operation silently missing,
//     as does a price above contracts.MaxAmount.
//   - restorePrice (restoring a deleted name) is not one of the operations
//     this service compares: it is not read.
//   - Each tld is a zone of its own: second-level zones ("co.uk") are priced
//     as themselves, never folded into their parent; IDNs are accepted in
//     Unicode ("みんな") or as A-labels ("xn--q9jyb4c"), with or without a
//     leading dot, in any case, and normalised with contracts.NormalizeZone.
//     A tld that does not normalise skips the row. A zone listed twice keeps
//     its first listing; the other is skipped.
//   - A row offering no operation at all is left out: it is not a zone INWX
//     sells. INWX marks no names outside the DNS root (such as Handshake
//     names) in this document, so none is left out on that ground (no such
//     marker is known).
//   - INWX gives no promotions in this document (no sale or original price
//     is known): every price is a regular price.
//   - A body that is not one complete JSON object (truncated, an HTML error
//     page served with 200) fails the fetch, as does one without a "tlds"
//     array or with an empty one. An error envelope is named in the error:
//     "code" with "msg" and "reason" (the envelope of INWX's DomRobot API;
//     ASSUMED to be what this endpoint answers on failure), or a "message"
//     or "error".
//
// A row left out is not a price this package publishes: its zone is
// withdrawn like one that left the list. A row skipped could not be read:
// it is counted in the list's Skipped (zoneprice_ingest_rows_skipped_total,
// and the runner logs it), and when its tld is a zone, that zone keeps its
// last good price (Keep) rather than being withdrawn. The error names the
// rows left out and skipped only when nothing usable remains.
//
// The request is a plain GET of a document, made conditional with the
// validators of the last answer (fetch.Client.Get).
//
// # Fields
//
// The fields this package knows, read or deliberately ignored; any other
// is one it has never seen:
//
//   - the document: tlds, currency (read; currency an ASSUMED name at this
//     level); code, msg, reason, message, error (an error envelope).
//   - a row: tld, createPrice, renewalPrice, transferPrice, currency
//     (read); restorePrice (ignored).
package inwx

import (
	"errors"
	"fmt"
	"strings"

	"github.com/zoneprice/zoneprice/ingest/kit"
)

// Name is the source's name and INWX's registrar id.
const Name = "inwx"

// Declaration is the source, as the package comment reads it: what --sources
// registers, --file imports (Read) and its tests check; each row in its own
// currency or the document's, which INWX picks by the visitor's location.
func Declaration() *kit.Declaration {
	d := kit.Site(Name, "INWX", "https://www.inwx.com", "https://www.inwx.com/api/v1/domain/all-prices", "inwx price list", "", &kit.Table{
		Rows: "tlds[]", Zone: "tld", Check: failure,
		Register: kit.Op{Price: "createPrice"}, Renew: kit.Op{Price: "renewalPrice"}, Transfer: kit.Op{Price: "transferPrice"},
		Currency: "currency", DocCurrency: "currency",
	})
	d.Shape = format()
	return d
}

// failure is the error a document without a "tlds" array reports, naming
// its envelope: code, msg and reason, or a message or error.
func failure(doc *kit.Doc) error {
	if !kit.IsNull(doc.Get("tlds")) {
		return nil
	}
	var msg []string
	if code := strings.Trim(string(doc.Get("code")), `" `); code != "" && code != "null" {
		msg = append(msg, "code "+code)
	}
	for _, f := range []string{"msg", "reason", "message", "error"} {
		if m := strings.Trim(string(doc.Get(f)), `" `); m != "" && m != "null" {
			msg = append(msg, m)
		}
	}
	if len(msg) == 0 {
		return errors.New("inwx price list has no tlds")
	}
	return fmt.Errorf("inwx answered %s", strings.Join(msg, ": "))
}
