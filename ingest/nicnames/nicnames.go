// Package nicnames reads NicNames' public price list: one GET, without a
// key, of https://nicnames.com/api/domains/registrar-prices. The document
// is the data behind NicNames' price comparison: one entry per registrar,
// NicNames' own and those it compares itself with, each with its currency,
// an ICANN fee and one row per zone:
//
//	{"registrars":[
//	  {"name":"nicnames.com","currency":"USD","ICANNfee":"0.20",
//	   "prices":[["com","11.72","11.72","11.79"],["co.uk","5.49","5.49",""], ...]},
//	  {"name":"namecheap.com","currency":"USD","ICANNfee":"0.20","prices":[...]}, ...]}
//
// What is KNOWN, from a public client of this endpoint,
// github.com/hellouy/domainhub adapters/nicnames.ts (commit 69342a6,
// "NicNames.com — 公开价目 API", which names the URL and shape): the document is a JSON object whose "registrars" array
// holds {name, currency, ICANNfee, prices}; NicNames' own prices are the
// entry named "nicnames.com"; each price row is [tld, register, renew,
// transfer]; the zone has no leading dot; the prices are decimal strings,
// and an empty string means the operation is not offered; .com read
// 11.72 / 11.72 / 11.79 USD when that client was written. The other
// registrars' entries are prices NicNames shows for comparison: not
// NicNames' prices, and not this package's to publish, so they are not
// read at all (an odd entry there cannot fail the fetch). Re-read for
// issue 22: the client reads name, currency and prices, not ICANNfee, and
// neither its code nor the shape it names has a regular price beside a
// sale price or a sale's end date: none is read here.
//
// What is ASSUMED, decision by decision:
//
//   - ICANNfee is the fee a registrar charges on top of its listed prices,
//     per year, for the zones ICANN collects it on (generic TLDs). No public
//     code reads the field, so this is a reading, not a documented fact.
//     The reason for it: the field is given per registrar in a document
//     that exists to compare registrars like for like, and the one thing
//     such a comparison needs per registrar is what must be added to reach
//     the checkout price (Namecheap, for one, lists its prices without the
//     fee and adds it at checkout; this repository's namecheap adapter
//     adds it the same way). A fee already inside the prices would need no
//     field. So an ICANNfee above zero in the nicnames.com entry is added
//     to every offered operation of every generic, sponsored or
//     generic-restricted top-level zone, since the fee is part of what a
//     customer pays there; a zero, "", null or absent ICANNfee means the
//     prices are final. The fee is in the entry's currency. Country-code
//     zones and all second-level zones ("co.uk", "us.com": their registries
//     are not ICANN-contracted gTLD registries) never carry it. The IANA
//     type comes from the builtin zone catalog (ingest/iana); a top-level
//     zone the catalog does not know is a country-code one when it is two
//     ASCII letters and generic when it is any other ASCII name; an
//     unknown IDN top-level zone is skipped, because whether it owes the fee
//     cannot be told. An ICANNfee that is not an amount (a boolean, a
//     word) fails the whole fetch: the gTLD prices could not be stated.
//     The first live fetch should confirm the reading: the comparison
//     entries of registrars known to add the fee at checkout (Namecheap)
//     should carry a fee above zero, those known to include it a zero.
//   - The currency is the entry's "currency", an ISO 4217 code, and it is
//     always read from the document: an entry without one, or with one
//     that is not a known code, fails the fetch rather than being guessed.
//   - A row is [tld, register, renew, transfer]; a row with only three
//     values has no transfer (not offered), and values after the fourth
//     are not read. A row that is not an array, has no price, or whose tld
//     is not a string is skipped.
//   - Prices are decimal strings (a JSON number is read by its literal
//     digits, never through a float), thousands separators allowed
//     ("2,060.23"). "", null, "n/a" or "-" means the operation is not
//     offered. A zero register or renew price means not offered either
//     (nobody gives names away), while a zero transfer is a free transfer.
//     A zone left with no operation, or with nothing but a free transfer,
//     is not a zone NicNames sells: left out. Any other unreadable price
//     makes the whole zone unusable: it is skipped rather than published
//     with an operation silently missing.
//   - Zones are normalised with contracts.NormalizeZone: a leading dot,
//     upper case, Unicode or A-label forms are all accepted; second-level
//     zones are priced as themselves. A zone listed twice keeps its first
//     row; the other is skipped.
//   - Tax: NicNames publishes nothing about VAT or sales tax on these
//     prices, so every price set says contracts.TaxUnknown.
//   - The document gives no promotion or sale price: none is published.
//
// A body that is not one complete JSON object with a "registrars" array
// (truncated, an HTML error page served with 200, an error envelope such
// as {"statusCode":500,"message":...}) fails the fetch, and so does a
// document with no nicnames.com entry or with two. The request is a plain
// GET of a document, made conditional on the validators the server last
// sent.
//
// A row left out is not a zone NicNames sells: it is withdrawn like a zone
// that left the list. A row skipped could not be read: it is counted in the
// list's Skipped (zoneprice_ingest_rows_skipped_total, and the runner logs
// it), and when its zone was readable, that zone keeps its last good price
// (Keep).
//
// # Fields
//
// The fields this package knows, read or deliberately ignored; any other
// is one it has never seen:
//
//   - the document: registrars (read); message, error (an error envelope).
//   - a registrar: name, currency, ICANNfee, prices (read, in the
//     nicnames.com entry only; the other entries are not read at all).
//   - a price row, an array: tld, register, renew, transfer (read); values
//     after the fourth (ignored).
package nicnames

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest/iana"
	"github.com/zoneprice/zoneprice/ingest/kit"
	"github.com/zoneprice/zoneprice/ingest/money"
)

// Name is the source's name and NicNames' registrar id.
const Name = "nicnames"

// DefaultURL is NicNames' public price comparison document.
const DefaultURL = "https://nicnames.com/api/domains/registrar-prices"

// entryName is the name of NicNames' own entry among the registrars.
const entryName = "nicnames.com"

// Declaration is the source, as the package comment reads it: what --sources
// registers, --file imports (Read) and its tests check; the rows of
// NicNames' own entry, by position, in its currency, the ICANN fee added
// where it is owed.
func Declaration() *kit.Declaration {
	d := kit.Site(Name, "NicNames", "https://nicnames.com", DefaultURL, "nicnames price list", "", &kit.Table{
		Within: own, Rows: "prices[]", Zone: "0", DocCurrency: "currency",
		Register: kit.Op{Price: "1"}, Renew: kit.Op{Price: "2"}, Transfer: kit.Op{Price: "3", ZeroFree: true},
		Prepare: priced, Finish: addICANNFee,
	})
	d.Shape = format()
	return d
}

// own narrows the document to NicNames' own entry, whose currency and
// ICANN fee must be readable and whose prices a list of rows.
func own(doc *kit.Doc) (*kit.Doc, error) {
	var d struct {
		Registrars *[]json.RawMessage `json:"registrars"`
	}
	if err := json.Unmarshal(doc.Raw, &d); err != nil {
		return nil, fmt.Errorf("decode nicnames price list: %w", err)
	}
	if d.Registrars == nil {
		if msg := kit.Message(doc, "message", "error"); msg != "" {
			return nil, fmt.Errorf("nicnames answered %q", msg)
		}
		return nil, errors.New("nicnames price list has no registrars")
	}
	e, err := ownEntry(*d.Registrars)
	if err != nil {
		return nil, err
	}
	currency, err := entryCurrency(e.Currency)
	if err == nil {
		_, err = icannFee(e.ICANNFee, currency)
	}
	if err != nil {
		return nil, err
	}
	if t := kit.Get(e.raw, "prices"); kit.IsNull(t) || t[0] != '[' {
		return nil, fmt.Errorf("nicnames.com prices are not a list of rows: %s", kit.Snippet(t))
	}
	return kit.NewDoc(e.raw), nil
}

// priced skips a row that has no price after its zone.
func priced(r *kit.Row) error {
	if _, ok := kit.Field(r.Raw, "1"); !ok {
		return fmt.Errorf("row %s has no price", kit.Snippet(r.Raw))
	}
	return nil
}

// addICANNFee adds the entry's ICANN fee to every price of a zone that
// owes it.
func addICANNFee(r *kit.Row, ps *contracts.PriceSet) error {
	var cur string
	for _, o := range ps.Ops() {
		if o != nil {
			cur = o.Regular.Currency
		}
	}
	fee, _ := icannFee(r.Doc.Get("ICANNfee"), cur) // own read it
	if fee == 0 {
		return nil
	}
	owes, err := owesICANNFee(ps.Zone)
	if err != nil || !owes {
		return err
	}
	for _, o := range ps.Ops() {
		if o != nil {
			o.Regular.Amount += fee
		}
	}
	return nil
}

type entry struct {
	Name     json.RawMessage `json:"name"`
	Currency json.RawMessage `json:"currency"`
	ICANNFee json.RawMessage `json:"ICANNfee"`
	raw      json.RawMessage
}

// ownEntry finds NicNames' own entry. Other entries are not decoded beyond
// their name, and one that is not even an object is passed over: they are
// not NicNames' prices.
func ownEntry(registrars []json.RawMessage) (entry, error) {
	var (
		own   entry
		found int
	)
	for _, raw := range registrars {
		var e entry
		if json.Unmarshal(raw, &e) != nil {
			continue
		}
		var name string
		if json.Unmarshal(e.Name, &name) != nil || !strings.EqualFold(strings.TrimSpace(name), entryName) {
			continue
		}
		own, own.raw = e, raw
		found++
	}
	switch found {
	case 0:
		return entry{}, fmt.Errorf("nicnames price list has no %s entry among %d registrars", entryName, len(registrars))
	case 1:
		return own, nil
	}
	return entry{}, fmt.Errorf("nicnames price list has %d %s entries: which holds the prices is unclear", found, entryName)
}

// entryCurrency reads the entry's currency, which the document must state.
func entryCurrency(raw json.RawMessage) (string, error) {
	var c string
	if err := json.Unmarshal(raw, &c); err != nil || strings.TrimSpace(c) == "" {
		return "", fmt.Errorf("%s entry names no currency (%s)", entryName, kit.Snippet(raw))
	}
	c = strings.ToUpper(strings.TrimSpace(c))
	if _, ok := contracts.CurrencyExponent(c); !ok {
		return "", fmt.Errorf("%s entry's currency %q is not an ISO 4217 code this service knows", entryName, c)
	}
	return c, nil
}

// icannFee reads the entry's ICANN fee in minor units; zero when there is
// none to add.
func icannFee(raw json.RawMessage, currency string) (int64, error) {
	text, err := kit.DecimalText(raw)
	if errors.Is(err, money.ErrNoPrice) {
		return 0, nil
	}
	if err == nil {
		var fee int64
		fee, err = money.Parse(text, currency)
		if err == nil || errors.Is(err, money.ErrNoPrice) {
			return fee, nil
		}
	}
	return 0, fmt.Errorf("%s entry's ICANNfee %s is not an amount: %w", entryName, kit.Snippet(raw), err)
}

// owesICANNFee reports whether a customer pays the ICANN fee on zone: a
// generic, sponsored or generic-restricted top-level zone.
func owesICANNFee(zone string) (bool, error) {
	if strings.Count(zone, ".") > 1 {
		return false, nil // second-level: not an ICANN-contracted gTLD registry
	}
	cat, err := iana.Builtin()
	if err != nil {
		return false, fmt.Errorf("zone catalog: %w", err)
	}
	if typ, ok := cat.Type(zone); ok {
		switch typ {
		case contracts.TypeGeneric, contracts.TypeSponsored, contracts.TypeGenericRestricted:
			return true, nil
		}
		return false, nil
	}
	label := zone[1:]
	switch {
	case strings.HasPrefix(label, "xn--"):
		return false, fmt.Errorf("IDN %s is not in the zone catalog: whether the ICANN fee applies is unknown", zone)
	case len(label) == 2:
		return false, nil // every two-letter TLD is a country code
	}
	return true, nil
}
