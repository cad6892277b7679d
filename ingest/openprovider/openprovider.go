// Package openprovider reads Openprovider's public price list: one GET,
// without a key, of the document the price pages of www.openprovider.com
// load,
//
//	https://www.openprovider.com/api/pricing-data?currency=USD
//
// which answers with every zone Openprovider sells, about 2,000:
//
//	{"data":[{"tld":"com","registerFee":10.45,"renewalFee":10.45,
//	  "transferFee":10.45,"restoreFee":85.5}, ...]}
//
// Openprovider documents no such endpoint; it is the one its own site uses.
// What is KNOWN comes from public client code that reads it:
// github.com/hellouy/domainhub adapters/openprovider.ts (commit 422007e), a
// price-comparison adapter that fetches this exact URL, reads
// data[] with tld, registerFee, renewalFee, transferFee and restoreFee,
// converts each fee with JavaScript's Number() (so a JSON number or a
// numeric string) and keeps only fees above zero, says the list holds 2,069
// zones in US dollars, and in a later version reads the fees from an object
// "nonMember" (the public retail price, it says) falling back to "member",
// with a per-row "currency" beside them:
//
//	{"tld":"com","currency":"USD","nonMember":{"registerFee":10.45,...},
//	 "member":{"registerFee":8.99,...}}
//
// (Re-read for issue 22: code search now holds only the flat version, at
// 422007e; the nonMember version, read when this package was written, is
// not among what it returns, so that shape rests on that earlier reading.
// Neither version reads a sale price beside a regular one, a sale end
// date or an ICANN fee, and none is known.)
//
// Openprovider's support pages (support.openprovider.eu, "Sizes of
// Membership plans and domains counter") say that member prices are cost
// prices for paying Membership subscribers and that everyone else is
// invoiced at the "non-member" price.
//
// How the document is read, decision by decision:
//
//   - Currency: a row's "currency" where it has one, else the document's
//     top-level "currency", else US dollars, which the request asks for
//     (currency=USD; Config.Validate refuses a URL asking for another
//     currency, since unlabelled prices are read as dollars). A currency
//     that is not an ISO 4217 code skips the row. (ASSUMED: that a
//     top-level currency would label the whole list; no sample shows one.)
//   - Tax: every price set says contracts.TaxExcluded. KNOWN: Openprovider's
//     support article "VAT charges" (support.openprovider.eu, article
//     216644108) says VAT is added when purchasing, by the customer's
//     country and VAT number (always in the Netherlands, in the EU without a
//     VAT number, never outside the EU bar two countries), so the list price
//     is before VAT; its terms of service sell only to professionals.
//   - Which price: the non-member price, from "nonMember" when the row has
//     it and otherwise from the row's own registerFee, renewalFee and
//     transferFee (the older flat shape). A row with only a "member" price
//     is left out: a member price needs a paid Membership, so it is not a
//     price anyone can compare with another registrar's list price.
//   - Prices are JSON numbers or strings, read by their literal digits with
//     money.Parse (never through a float); thousands separators ("1,500.00")
//     are read as such. A missing, null, "" or "n/a" fee means the operation
//     is not offered (nil). A zero fee also reads as not offered, for every
//     operation, transfer included: the public client code reads zero as no
//     price, and nothing says whether Openprovider's zero is a free transfer
//     or a placeholder, so a zero is left out rather than published as a
//     free operation that may not exist (ASSUMED). Any other unreadable fee
//     (a negative one, a currency symbol, an object) skips the row rather
//     than publishing it with an operation silently missing, as does a fee
//     above contracts.MaxAmount.
//   - restoreFee (restoring a deleted name) is not one of the operations this
//     service compares: it is not read.
//   - Each tld is a zone of its own: second-level zones ("co.uk") are priced
//     as themselves, never folded into their parent; IDNs are accepted in
//     Unicode ("рф") or as A-labels ("xn--p1ai"), with or without a leading
//     dot, in any case, and normalised with contracts.NormalizeZone. A tld
//     that does not normalise skips the row. A zone listed twice keeps its
//     first listing; the other is skipped.
//   - A row offering no operation at all is left out: it is not a zone
//     Openprovider sells. Openprovider marks no names outside the DNS root
//     (such as Handshake names) in this document, so none is left out on
//     that ground (no such marker is known).
//   - Openprovider gives no promotions in this document: every price is a
//     regular price.
//   - A body that is not one complete JSON object (truncated, an HTML error
//     page served with 200) fails the fetch, as does one without a "data"
//     array or with an empty one. An error envelope is named in the error:
//     a non-zero "code" with its "desc" (the envelope of Openprovider's
//     REST API; ASSUMED to be what this endpoint answers on failure), or
//     a "message" or "error".
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
//   - the document: data, currency (read; currency an ASSUMED name at this
//     level); code, desc, message, error (an error envelope).
//   - a row: tld, currency, nonMember, member, and the flat registerFee,
//     renewalFee, transferFee (read); restoreFee (ignored).
//   - nonMember and member: registerFee, renewalFee, transferFee (read);
//     restoreFee (ignored).
package openprovider

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/kit"
)

// Name is the source's name and Openprovider's registrar id.
const Name = "openprovider"

// DefaultURL is Openprovider's public price list, asked for in US dollars.
const DefaultURL = "https://www.openprovider.com/api/pricing-data?currency=USD"

// requested is the currency the request asks for, and so the currency of
// a price nothing else labels.
const requested = "USD"

// declaration is the source, as the package comment reads it: a row's
// non-member fees, flat or in "nonMember", in its currency, the
// document's or the one asked for.
var declaration = kit.Declaration{
	Name: Name, Registrar: ingest.Registrar{ID: Name, Name: "Openprovider", Website: "https://www.openprovider.com"},
	Kind: contracts.SourceSite, URL: DefaultURL, What: "openprovider price list", Currency: requested, Tax: contracts.TaxExcluded,
	Table: &kit.Table{
		Rows: "data[]", Zone: "tld", Check: failure, Prepare: membership,
		Register: kit.Op{Price: "registerFee"}, Renew: kit.Op{Price: "renewalFee"}, Transfer: kit.Op{Price: "transferFee"},
		Currency: "currency", DocCurrency: "currency",
	},
	Shape: format(),
}

// Config configures a Source.
type Config struct {
	// URL is the price list; empty means DefaultURL. A URL that asks for a
	// currency must ask for USD.
	URL string
}

// Validate reports a configuration that cannot work, naming the field
// (contracts.ValidationError).
func (c Config) Validate() error {
	if err := (kit.Config{URL: c.URL}).Validate(); err != nil || c.URL == "" {
		return err
	}
	u, _ := url.Parse(c.URL) // kit.Config parsed it
	if cur := u.Query().Get("currency"); cur != "" && !strings.EqualFold(cur, requested) {
		return contracts.Invalid("URL", "asks for currency %q: this source reads unlabelled prices as %s, so it must ask for %s", cur, requested, requested)
	}
	return nil
}

// Source fetches Openprovider's price list, conditionally: its answer
// depends on the URL alone.
type Source = kit.Source

// New returns a Source that fetches with client and stamps what it observes
// with now() (time.Now when nil).
func New(cfg Config, client *fetch.Client, now func() time.Time) (*Source, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return kit.New(&declaration, kit.Config{URL: cfg.URL}, client, now)
}

// Parse reads a saved response into price sets observed at observed, with
// its drift from format.
func Parse(body []byte, observed time.Time) (*ingest.List, error) {
	return declaration.Read(body, observed)
}

// failure names the error a document without a price list reports, or
// returns nil for a document with one.
func failure(doc *kit.Doc) error {
	code := strings.Trim(string(doc.Get("code")), `" `)
	failed := code != "" && code != "0" && code != "null"
	if !failed && !kit.IsNull(doc.Get("data")) {
		return nil
	}
	var msg []string
	if failed {
		msg = append(msg, "code "+code)
	}
	for _, f := range []string{"desc", "message", "error"} {
		if m := strings.Trim(string(doc.Get(f)), `" `); m != "" && m != "null" {
			msg = append(msg, m)
		}
	}
	if len(msg) == 0 {
		return errors.New("openprovider price list has no data")
	}
	return fmt.Errorf("openprovider answered %s", strings.Join(msg, ": "))
}

// membership reads a row's non-member fees: its "nonMember" object where
// it has one, else its own; a row priced only for members, which needs a
// paid membership, is left out.
func membership(r *kit.Row) error {
	switch nm := r.Get("nonMember"); {
	case !kit.IsNull(nm) && !kit.IsObject(nm):
		return fmt.Errorf("nonMember %s is not an object", kit.Snippet(nm))
	case !kit.IsNull(nm):
		r.Narrow("nonMember")
	case kit.IsNull(r.Get("registerFee")) && kit.IsNull(r.Get("renewalFee")) && kit.IsNull(r.Get("transferFee")) && !kit.IsNull(r.Get("member")):
		return ingest.LeftOut("only a member price, which needs a paid membership")
	}
	return nil
}
