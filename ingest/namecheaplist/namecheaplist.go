// Package namecheaplist reads the price list Namecheap's own domain search
// loads, without a key: one GET of
// https://d1dijnkjnmzy2z.cloudfront.net/tlds.json, a static JSON document on
// the CloudFront distribution that also serves Namecheap's search widget
// (a Namecheap page template in public code loads search.js and search.css
// from that host into its react-nc-search element), answering with one row
// per zone (.com's figures as a real capture gives them):
//
//	[{"Name":"com","Pricing":{"Price":9.58,"Regular":13.98,"Renewal":14.58,
//	  "Hint":"31% off 1st year","Duration":1,"DurationType":"YEAR"}}, ...]
//
// It speaks for the registrar "namecheap" (Registrar), as the credentialed
// adapter ingest/namecheap does, but under a source name of its own,
// "namecheap-list" (Name), which every price set and every withdrawal
// carries.
//
// # How the two Namecheap sources coexist
//
// One registrar has one voice on the stream. The runner of whichever source
// runs reads everything the stream holds for registrar "namecheap" and
// makes it match its own list: zones it prices are published, zones it does
// not are withdrawn, whichever source published them. So the two sources
// must never run at the same time, and they never do: the credentialed
// source is preferred, and this one runs only where it is not configured.
// Under --sources auto, this source is selected only when
// ZONEPRICE_NAMECHEAP_API_KEY (or its _FILE form) is not set (its
// registration in cmd/internal/sources has that variable in Unless, the
// credentialed one has it in Switch), and naming both sources in one
// --sources is refused. Preference goes by configuration, not by health:
// with the key set and the credentialed source failing, this list does not
// step in; the last good prices stay, as for any failing source. Were they to run together, each round of one would
// republish every zone in its own version (another source and, for the
// credentialed one, transfer prices and the ICANN fee) and withdraw the
// zones only the other lists, and the next round of the other would undo it.
//
// Switching is a handover, not a fight. When an operator sets the key, the
// credentialed source's first round diffs against what this one published
// for "namecheap": every zone it prices is republished under source
// "namecheap", every zone only this list had is withdrawn once, and nothing
// of any other registrar is read or touched. Removing the key hands the
// registrar back the same way. That is why the runner's per-registrar diff
// is right here: diffing per source would leave the old source's zones on
// the stream forever, since nobody would ever withdraw them. The shrink
// guard counts a registrar's live zones whoever published them, so it also
// guards the handover: a new source listing fewer than half the zones the
// old one left is refused, nothing is withdrawn, and the old prices stay
// (aging, with ZonepricePriceListRefused firing) until the lists agree
// again. Both lists presumably cover Namecheap's whole catalogue (ASSUMED;
// a real capture of this one has 1,167 rows, 627 of them Handshake names
// the API is not known to list, which the runner's root-zone guard keeps
// off the stream and out of the shrink guard's count), so this is not
// expected; switch_test.go shows the handover both ways and the refusal.
//
// What a handover changes, zone by zone, is what the two lists say: this
// list gives no transfer price (transfer is absent after a switch to it),
// and its prices are presumably without the ICANN fee, which the
// credentialed adapter adds (so gTLD prices move by the fee, $0.20 today).
//
// # What is known and what is assumed
//
// KNOWN, from public client code that reads this URL,
// github.com/zshnb/domain-price-compare: apps/backend/src/domain/domain.service.ts
// (namecheap()) fetches it with a plain GET and no key and finds a zone by
// comparing Name with the label after the dot ("com", no leading dot), and
// apps/backend/src/domain/domain.type.ts (commit 00fb57e) types a row as
// {Name: string, Pricing: {Price: number, Renewal: number, Duration: number,
// DurationType: string}}; that client reads Pricing.Price as the price of a
// new name, in US dollars. Nothing Namecheap publishes documents the file.
//
// KNOWN, from a real, public capture of the file (1,167 rows, imported with
// zoneprice-ingest --sources namecheap-list --file; issue 22 records what it
// showed): this package reads it, and every delegated zone's register and
// renew price came back to the cent, so Name, Price, Renewal, Duration and
// DurationType are what the decisions below take them for. Its rows also
// carry Pricing.Regular beside Pricing.Price, and Pricing.Hint, a label
// such as "31% off 1st year" or "12% OFF": in 293 rows Price is below
// Regular, a first-year discount (.com: Price 9.58, Regular 13.98, Renewal
// 14.58). And 627 of its rows are Handshake names, labels that are no zone
// of the DNS root, alphanumeric ("0db", "4k", "abo") or numeric ("8888"),
// in rows of the same shape, with nothing that marks them.
//
// Everything else is ASSUMED, and each decision below says so.
//
// How the format is read, decision by decision:
//
//   - Currency: the document names none, so every price is in US dollars
//     (KNOWN only as the client's assumption). No currency can be asked
//     for: this is a static file, no parameter of it is known, and a query
//     string on a CDN object would at best be ignored. Should a row carry
//     a Pricing.Currency (ASSUMED name, as in Namecheap's XML API), it is
//     read, and an unknown code makes the zone unreadable.
//   - Tax is unknown (contracts.TaxUnknown): nothing Namecheap publishes
//     that this package could read says whether the prices include sales
//     tax or VAT, and the credentialed adapter declares nothing either.
//   - Price is the price of a new name's first year and Renewal the price
//     of renewing it for one year (KNOWN from the capture, as above). No
//     transfer price is given: transfer is not offered in this list's
//     price sets. Renewal has no regular price beside it: it is always a
//     regular price, and a first-year price below it is no promotion by
//     itself.
//   - Regular is the registration's regular price (KNOWN from the capture).
//     Where Price is below it, the registration is Regular with a promotion
//     at Price, as Porkbun's coupons are; the promotion has no end, since
//     nothing in the row gives one, and it lasts until a list no longer
//     shows it. Where Regular equals Price, or is absent, null, "", "n/a",
//     "-" or zero, Price is the regular price, as it was before Regular was
//     known. Regular is read in the row's currency, like Price, and only
//     where Price is offered: a row without a Price offers no registration,
//     whatever its Regular. An unreadable Regular ("TBD", a negative
//     number) makes the zone unusable, as any unreadable price does:
//     publishing Price alone would state a discount as the regular price.
//   - A Price above its Regular is not read (ASSUMED not to occur; the
//     capture is not known to hold one): either Regular is not the regular
//     price or Price not the first-year one, and which a customer pays
//     cannot be told. The row is skipped with a reason naming both figures,
//     so it is counted (zoneprice_ingest_rows_skipped_total, which the
//     runner logs and ZonepriceRowsSkipped alerts on) and its zone keeps its
//     last good price. The credentialed adapter publishes the API's Price
//     in that case, because the API documents Price as the final price;
//     nothing documents this file's.
//   - Hint is only informative and is not read: it is a label for people
//     whose percentage is rounded (9.58 on 13.98 is 31.47% off, shown as
//     "31% off"), so no price can be taken from it, and no Hint seen gives
//     an end date. Its "1st year" agrees with what is published: a
//     promotion on one year's registration.
//   - The ICANN fee is not added (ASSUMED: Namecheap's search shows it
//     apart, at checkout, and the row has no field for it).
//   - Only one-year prices are published: Duration 1 (a number, or a
//     string of digits) with DurationType "YEAR" or "YEARS" in any case. A
//     row priced for another term (a zone sold for two years at least) is
//     left out; if the file lists a zone once per term, the one-year row
//     prices it and the others are left out. A row without a readable term
//     is skipped: its zone's price could be for any term.
//   - Prices are JSON numbers, read by their literal digits (never through
//     a float), or decimal strings, with thousands separators ("2,060.23").
//     A missing or null price, "", "n/a" or "-" is not offered, and so is
//     a zero (Namecheap gives no names away). Any other unreadable price
//     ("-1", "TBD", a negative number) makes the whole zone unusable: it is
//     skipped rather than published with an operation silently missing.
//     A row with neither price, or with "Pricing" absent or null, is not a
//     zone Namecheap prices: left out.
//   - Each Name is a zone of its own: second-level zones such as "co.uk"
//     are priced as themselves. Names are normalised with
//     contracts.NormalizeZone, so an optional leading dot, any case, and
//     IDNs in Unicode or as A-labels are all read; a Name that is not a
//     string or not a zone is skipped. The file lists Handshake names and
//     marks none (KNOWN, above), so this package cannot tell them from
//     zones: an alphanumeric one ("0db", "abo") is read like a zone, and a
//     numeric one ("8888") is no zone to contracts.NormalizeZone, so its
//     row goes to List.Outside, not counted as unreadable. Leaving them
//     out is the runner's work for every source (its root-zone guard,
//     ingest.Root: guard_test.go), not a guess of this package's.
//   - A zone listed twice (a Unicode Name and its A-label, or two one-year
//     rows) keeps its first row; the later one is skipped.
//   - A body that is not one complete JSON array (truncated, an HTML or XML
//     error page served with 200, a JSON object such as {"message":...})
//     fails the fetch, naming the message when there is one: never a
//     partial list. An empty array fails too.
//
// An entry left out is withdrawn like a zone that left the list. An entry
// skipped is counted in the list's Skipped (zoneprice_ingest_rows_skipped_total,
// and the runner logs it) and, when its Name is a zone, keeps that zone's
// last good price (Keep). The error names the rows left out and skipped
// only when nothing usable remains.
//
// # Fields
//
// The fields this package knows, read or deliberately ignored; any other
// is one it has never seen:
//
//   - a row: Name, Pricing.
//   - Pricing: Price, Regular, Renewal, Duration, DurationType (read);
//     Currency (read where present; an ASSUMED name, never seen); Hint
//     (ignored: a label for people).
package namecheaplist

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/kit"
	"github.com/zoneprice/zoneprice/ingest/namecheap"
)

// Name is the source's name: the source every price set and withdrawal of
// this list carries, and the name it is registered and selected by.
const Name = "namecheap-list"

// Registrar is the registrar this list speaks for: Namecheap, the same id
// as the credentialed source's, so that the two never publish one zone
// twice (see the package comment for how they take turns).
const Registrar = namecheap.Name

// DefaultURL is the price list Namecheap's domain search loads.
const DefaultURL = "https://d1dijnkjnmzy2z.cloudfront.net/tlds.json"

// Declaration is the source, as the package comment reads it: what
// --sources registers, --file imports (Read) and its tests check.
func Declaration() *kit.Declaration {
	d := kit.Site(Registrar, "Namecheap", "https://www.namecheap.com", DefaultURL, "namecheap list", "USD", &kit.Table{
		Rows: "[]", Zone: "Name", Check: notAList, Prepare: oneYear,
		Register: kit.Op{Price: "Pricing.Price", Regular: "Pricing.Regular", StrictRegular: true},
		Renew:    kit.Op{Price: "Pricing.Renewal"},
		Currency: "Pricing.Currency",
	})
	d.Name, d.Shape = Name, format()
	return d
}

// notAList fails a JSON object in place of the list, naming what it says:
// its "message" or "error" (ASSUMED names).
func notAList(doc *kit.Doc) error {
	if !kit.IsObject(doc.Raw) {
		return nil
	}
	msg := "a JSON object"
	for _, k := range []string{"message", "Message", "error", "Error"} {
		if v := doc.Get(k); !kit.IsNull(v) {
			msg = kit.Snippet(v)
			break
		}
	}
	return fmt.Errorf("namecheap list is not a list; the server answered %s", msg)
}

// oneYear leaves out a row without pricing, or priced for another term
// than one year, and skips one whose term cannot be read: its price could
// be for any term.
func oneYear(r *kit.Row) error {
	if kit.IsNull(r.Get("Pricing")) {
		return ingest.LeftOut("no pricing: not a zone namecheap prices")
	}
	if !kit.IsObject(r.Get("Pricing")) {
		return fmt.Errorf("field Pricing %s is not an object", kit.Snippet(r.Get("Pricing")))
	}
	duration, durationType := r.Get("Pricing.Duration"), r.Get("Pricing.DurationType")
	text, err := kit.DecimalText(duration)
	if err != nil {
		return fmt.Errorf("field Duration %s: %w", kit.Snippet(duration), err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(text))
	if err != nil || n < 1 {
		return fmt.Errorf("field Duration %s is not a whole number of units", kit.Snippet(duration))
	}
	unit, ok := kit.String(durationType)
	if !ok || unit == "" {
		return fmt.Errorf("field DurationType %s is not a unit", kit.Snippet(durationType))
	}
	if unit = strings.TrimSuffix(strings.ToUpper(unit), "S"); n != 1 || unit != "YEAR" {
		return ingest.LeftOut(fmt.Sprintf("priced for %d %s, not one year", n, unit))
	}
	return nil
}
