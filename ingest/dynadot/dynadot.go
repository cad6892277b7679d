// Package dynadot reads Dynadot's public price list: one GET, without a key,
// of the document Dynadot's own TLD price page loads,
//
//	https://www.dynadot.com/dynadot-vue-api/dynadot-service/domain-search?command=get_current_list&lang=en
//
// which answers with every zone Dynadot sells, about 800:
//
//	{"code":200,"msg":"success","data":{"current_tlds":[
//	  {"name":"com","reg_price":"$6.99","original_reg_price":"$10.88",
//	   "renew_price":"$10.88","original_renew_price":"-1",
//	   "tr_price":"$10.88","restore":"$100.92", ...}, ...]}}
//
// Dynadot documents no such endpoint (its documented API needs a key); it
// is the one its site uses. What is KNOWN comes from public code that reads
// it or the same rows:
//
//   - A TypeScript price-comparison adapter (found by searching public
//     GitHub code for the URL; the index names no repository) fetches this
//     exact URL, reads data.current_tlds[] with name, reg_price,
//     original_reg_price, renew_price, tr_price and restore, all strings,
//     says the list holds 800-odd zones, and reads original_reg_price
//     "-1" as no promotion and any other value as "the registration price
//     shown is a sale price".
//   - A public TLD directory's reader of Dynadot's price page (the same
//     rows, embedded in the page's Nuxt payload; found the same way) shows
//     the values: prices are strings with a currency symbol ("$10.88",
//     "$267.72"), original_reg_price and original_renew_price are "-1" or
//     the regular price while the shown one is a sale, and rows may carry
//     google_data.currency. It reports that the same URL answered in US
//     dollars and, an hour later from the same machine, in yuan ("$10.88"
//     became "¥73.80"), so it reads the currency row by row and keeps
//     prices in whatever currency Dynadot chose.
//   - Dynadot's help pages list the currencies it shows: US dollars (the
//     default for every account), pounds, euros, yuan, Canadian dollars
//     (C$), Mexican pesos (MX$), reais (R$) and rupees (Rs.).
//   - github.com/7c/domain-prices keeps a list read from Dynadot: zones as
//     A-labels ("xn--mk1bu44c"), second-level zones ("co.uk", "com.mx") as
//     their own rows, no transfer price for .uk and .co.uk, and .sexy at
//     2900 dollars (so thousands separators: "$2,900.00").
//
// How the document is read, decision by decision:
//
//   - Currency: read from each price's symbol or ISO code ("$", "US$", "€",
//     "£", "¥", "C$", "MX$", "R$", "Rs.", "₹", "USD 10.88", "10.88 EUR"),
//     and from the row's google_data.currency where it has one. Every price
//     of a row must agree; a row whose prices disagree, or that names no
//     currency at all, is skipped (the currency varies by visitor, so none
//     is assumed). "$" alone is the US dollar: Dynadot writes other dollars
//     with their prefix. No query parameter or header that asks this
//     endpoint for a currency is known (the site switches currency with a
//     page and a cookie), so the request asks for none; USD is Dynadot's
//     default.
//   - Tax: every price set says contracts.TaxExcluded. Dynadot's price
//     page (www.dynadot.com/domain/prices) says that applicable taxes are
//     added at checkout by the customer's location: KNOWN second-hand,
//     from a public price comparison of 2026-08-11 that cites the page
//     (this machine cannot read it), which also says the page's structured
//     data states the ICANN fee is included.
//   - Promotions: where original_reg_price (or original_renew_price, or
//     original_tr_price, which no sample shows: ASSUMED by analogy) is a
//     price above the shown one, the shown price is a sale: the original is
//     the regular price and the shown one a contracts.Promo on it, with no
//     end (Dynadot gives none). "-1", absent or null means no sale; an
//     original at or below the shown price is no discount, and the shown
//     price stands as the regular one.
//   - Prices are strings (a JSON number is read too, by its digits), read
//     with money.Parse after their currency mark is taken off, never
//     through a float; thousands separators ("$2,900.00") are read as such.
//     "-1", "", "-", "N/A", null or absent means the operation is not
//     offered (nil). A zero price also reads as not offered, for every
//     operation: nothing says Dynadot gives names or transfers away, so a
//     zero is left out rather than published as a free operation that may
//     not exist (ASSUMED). Any other unreadable price (an unknown symbol, a
//     decimal comma) skips the row rather than publishing it with an
//     operation silently missing, as does a price above contracts.MaxAmount.
//   - restore (restoring a deleted name) is not one of the operations this
//     service compares: it is not read. Nor are privacy, idn, restrictions,
//     usage and grace_period.
//   - Each name is a zone of its own: second-level zones ("co.uk") are
//     priced as themselves, never folded into their parent; IDNs are
//     accepted in Unicode ("닷컴") or as A-labels ("xn--mk1bu44c"), with or
//     without a leading dot, in any case, and normalised with
//     contracts.NormalizeZone. A name that does not normalise skips the
//     row. A zone listed twice keeps its first listing; the other is
//     skipped.
//   - A row offering no operation at all is left out: it is not a zone
//     Dynadot sells. Dynadot marks no names outside the DNS root (such as
//     Handshake names) in this document, so none is left out on that
//     ground (no such marker is known).
//   - A body that is not one complete JSON object (truncated, an HTML error
//     page served with 200) fails the fetch, as does one without a
//     data.current_tlds array or with an empty one, or with a "code" of 400
//     or more (ASSUMED from public scripts reading Dynadot's sibling
//     endpoints, whose envelope is {"code":200,"msg":...,"data":...} and
//     whose errors carry a code of 400 or more), naming "msg".
//
// A row left out is not a price this package publishes: its zone is
// withdrawn like one that left the list. A row skipped could not be read:
// it is counted in the list's Skipped (zoneprice_ingest_rows_skipped_total,
// and the runner logs it), and when its name is a zone, that zone keeps its
// last good price (Keep) rather than being withdrawn. The error names the
// rows left out and skipped only when nothing usable remains.
//
// The request is a plain GET of a document, made conditional with the
// validators of the last answer (fetch.Client.Get).
package dynadot

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest/kit"
)

// Name is the source's name and Dynadot's registrar id.
const Name = "dynadot"

// DefaultURL is Dynadot's public price list.
const DefaultURL = "https://www.dynadot.com/dynadot-vue-api/dynadot-service/domain-search?command=get_current_list&lang=en"

// Declaration is the source, as the package comment reads it: what --sources
// registers, --file imports (Read) and its tests check; every price in the
// currency its symbol shows, a sale's original beside it.
func Declaration() *kit.Declaration {
	d := kit.Site(Name, "Dynadot", "https://www.dynadot.com", DefaultURL, "dynadot price list", "", &kit.Table{
		Rows: "data.current_tlds[]", Zone: "name", Check: code,
		Register: kit.Op{Price: "reg_price", Regular: "original_reg_price"},
		Renew:    kit.Op{Price: "renew_price", Regular: "original_renew_price"},
		Transfer: kit.Op{Price: "tr_price", Regular: "original_tr_price"},
		Currency: "google_data.currency", Symbols: true, NotOffered: kit.MinusOne,
	})
	d.Tax, d.Shape = contracts.TaxExcluded, format()
	return d
}

// code fails a document whose "code" is 400 or more, naming its "msg", and
// one without data.current_tlds, naming both.
func code(doc *kit.Doc) error {
	c := strings.Trim(string(doc.Get("code")), `" `)
	msg, _ := kit.String(doc.Get("msg"))
	if n, err := strconv.Atoi(c); err == nil && n >= 400 {
		return fmt.Errorf("dynadot answered code %d: %s", n, msg)
	}
	if kit.IsNull(doc.Get("data.current_tlds")) && msg != "" {
		return fmt.Errorf("dynadot price list has no current_tlds (code %s: %s)", c, msg)
	}
	return nil
}
