package sample

import (
	"fmt"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest/iana"
)

// How the sample prices come about. Every choice is a hash of constants, so
// the list is the same on every run and every machine:
//
//   - A zone's wholesale price in US cents is a hash of its name within a band
//     that resembles the market: .com 9–11 USD, .net and .org 11–15, the other
//     legacy gTLDs 10–25, country codes 8–60, second-level zones 5–15, new
//     gTLDs 15–60 with one in twenty "premium" at 80–400.
//   - A registrar sells a zone when a hash of both falls under its coverage;
//     .com, .net, .org and the .uk second-level zones are sold by all.
//   - It adds its markup (plus up to five points that vary by zone), converts
//     to its currency with the sample rates and rounds up its own way.
//   - Per registrar and zone, a hash picks: renewal equal to registration
//     (about half), higher (40%), a "renewal trap" of 2–3.5× (10%) or a little
//     lower (3%); a first-year promotion at 40–80% (10%), half of them ending
//     30–90 days after promoEpoch; transfer at the renewal price, at the
//     registration price (12%) or not offered (3%).
//
// Money is integer minor units throughout; no float touches it.

// registrar is one sample registrar's pricing habits.
type registrar struct {
	id       string
	currency string
	coverage int // percent of the priced zones it sells
	markup   int // percent over wholesale
	habit    habit
}

// named are the sample registrars Fetch publishes: big ones sell about 90%
// of the zones, small ones about 40%.
var named = []registrar{
	{id: "sample-alpha", currency: "USD", coverage: 92, markup: 8, habit: charm99},
	{id: "sample-bravo", currency: "USD", coverage: 90, markup: 15, habit: charm99},
	{id: "sample-charlie", currency: "USD", coverage: 88, markup: 0, habit: exact},
	{id: "sample-delta", currency: "USD", coverage: 85, markup: 25, habit: half49},
	{id: "sample-echo", currency: "EUR", coverage: 70, markup: 18, habit: charm99},
	{id: "sample-foxtrot", currency: "EUR", coverage: 45, markup: 30, habit: whole},
	{id: "sample-golf", currency: "GBP", coverage: 60, markup: 20, habit: charm99},
	{id: "sample-hotel", currency: "JPY", coverage: 50, markup: 10, habit: tens},
	{id: "sample-india", currency: "INR", coverage: 40, markup: 22, habit: whole},
	{id: "sample-juliett", currency: "USD", coverage: 40, markup: 35, habit: charm99},
	{id: "sample-kilo", currency: "USD", coverage: 45, markup: 12, habit: half49},
	{id: "sample-lima", currency: "USD", coverage: 55, markup: 5, habit: whole},
	{id: "sample-mike", currency: "USD", coverage: 40, markup: 28, habit: charm99},
	{id: "sample-november", currency: "USD", coverage: 65, markup: 18, habit: whole},
	{id: "sample-oscar", currency: "USD", coverage: 42, markup: 33, habit: half49},
	{id: "sample-papa", currency: "USD", coverage: 90, markup: 10, habit: charm99},
}

// sampleRegistrars returns the first n named registrars, then generated
// ones that price in USD with hash-chosen markups and habits.
func sampleRegistrars(n int) []registrar {
	out := make([]registrar, 0, max(n, 0))
	for i := range n {
		if i < len(named) {
			out = append(out, named[i])
			continue
		}
		id := fmt.Sprintf("sample-r%03d", i+1)
		h := fnv1a(id, "")
		out = append(out, registrar{
			id: id, currency: "USD", coverage: 100,
			markup: int(mix(h, 1) % 36), habit: habit(mix(h, 2) % uint64(habitCount)),
		})
	}
	return out
}

// habit is how a registrar rounds a computed price, always upwards.
type habit int

const (
	exact   habit = iota // to the minor unit: at-cost registrars
	charm99              // up to the next x.99
	half49               // up to the next x.49 or x.99
	whole                // up to the next whole unit
	tens                 // up to ten minor units: ¥10 steps for yen
	habitCount
)

func (h habit) round(minor int64, exp int) int64 {
	unit := pow10(exp)
	switch h {
	case charm99:
		return ceilTo(minor+1, unit) - 1
	case half49:
		if unit < 2 {
			return minor
		}
		return ceilTo(minor+1, unit/2) - 1
	case whole:
		return ceilTo(minor, unit)
	case tens:
		return ceilTo(minor, 10)
	}
	return minor
}

func ceilTo(v, step int64) int64 { return (v + step - 1) / step * step }

func pow10(n int) int64 {
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}

// promoEpoch is the fixed date promotion ends count from, so that the list
// does not change with the clock.
var promoEpoch = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

// currency is what converting into one currency needs.
type currency struct {
	exp    int
	perEUR int64 // units per EUR, fixed point with contracts.RateScale
}

// pricer turns registrars and zones into price sets.
type pricer struct {
	cat        *iana.Catalog // the zones' types
	currencies map[string]currency
}

func newPricer(cat *iana.Catalog) (*pricer, error) {
	perEUR := sampleRates()
	perEUR["EUR"] = "1"
	perEUR["INR"] = inrPerEUR
	p := &pricer{cat: cat, currencies: make(map[string]currency, len(perEUR))}
	for code, s := range perEUR {
		rate, err := contracts.ParseRate(s)
		if err != nil {
			return nil, fmt.Errorf("sample rate %s: %w", code, err)
		}
		exp, ok := contracts.CurrencyExponent(code)
		if !ok {
			return nil, fmt.Errorf("sample rate %s: unknown currency", code)
		}
		p.currencies[code] = currency{exp: exp, perEUR: rate}
	}
	return p, nil
}

// fromUSD converts US cents into minor units of cur, rounding half up.
// The largest sample price times the largest rate stays far below 2^63.
func (p *pricer) fromUSD(cents int64, code string) (int64, int) {
	usd, cur := p.currencies["USD"], p.currencies[code]
	num, den := cents*cur.perEUR, usd.perEUR
	if d := cur.exp - usd.exp; d > 0 {
		num *= pow10(d)
	} else if d < 0 {
		den *= pow10(-d)
	}
	return (2*num + den) / (2 * den), cur.exp
}

// Draw numbers: each decision about a registrar and zone reads its own draw.
const (
	drawSells uint64 = iota
	drawMarkup
	drawRenewKind
	drawRenewFactor
	drawPromo
	drawPromoShare
	drawPromoEnds
	drawPromoDays
	drawTransfer
)

// draw is a hash of registrar, zone and decision.
func (p *pricer) draw(r *registrar, zone string, k uint64) uint64 {
	return mix(fnv1a(r.id, zone), k)
}

// wholesale is a zone's base price in US cents, by the bands described above.
func (p *pricer) wholesale(zone string) int64 {
	h := fnv1a("", zone)
	pick := func(lo, hi int64) int64 { return lo + int64(mix(h, 1)%uint64(hi-lo+1)) }
	t := tld(zone)
	switch {
	case isSecondLevel(zone):
		return pick(500, 1500)
	case t == "com":
		return pick(900, 1100)
	case t == "net" || t == "org":
		return pick(1100, 1500)
	case iana.LegacyGTLD(zone):
		return pick(1000, 2500)
	case p.typeOf(zone) == contracts.TypeCountryCode:
		return pick(800, 6000)
	case mix(h, 2)%100 < 5:
		return pick(8000, 40000)
	}
	return pick(1500, 6000)
}

// typeOf is the IANA type of a zone; a zone outside the catalog (Generate
// takes any) counts as generic.
func (p *pricer) typeOf(zone string) string {
	if t, ok := p.cat.Type(zone); ok {
		return t
	}
	return contracts.TypeGeneric
}

// priceSet is registrar r's prices for zone.
func (p *pricer) priceSet(r *registrar, zone string, observed time.Time) contracts.PriceSet {
	pair := fnv1a(r.id, zone)
	draw := func(k uint64) uint64 { return mix(pair, k) }
	markup := int64(r.markup) + int64(draw(drawMarkup)%6)
	retailUSD := (p.wholesale(zone)*(100+markup) + 50) / 100
	amount, exp := p.fromUSD(retailUSD, r.currency)
	register := r.habit.round(amount, exp)
	scaled := func(pct int64) int64 { return r.habit.round((register*pct+50)/100, exp) }

	var renew int64
	switch k := draw(drawRenewKind) % 100; {
	case k < 10: // renewal trap
		renew = scaled(200 + int64(draw(drawRenewFactor)%151))
	case k < 13:
		renew = scaled(85 + int64(draw(drawRenewFactor)%11))
	case k < 60:
		renew = register
	default:
		renew = scaled(105 + int64(draw(drawRenewFactor)%26))
	}

	price := func(minor int64) contracts.Price { return contracts.Price{Amount: minor, Currency: r.currency} }
	reg := &contracts.OpPrice{Regular: price(register)}
	if draw(drawPromo)%100 < 10 {
		if promo := scaled(40 + int64(draw(drawPromoShare)%41)); promo < register {
			reg.Promo = &contracts.Promo{Price: price(promo)}
			if draw(drawPromoEnds)%2 == 0 {
				ends := promoEpoch.AddDate(0, 0, 30+int(draw(drawPromoDays)%61))
				reg.Promo.EndsAt = &ends
			}
		}
	}
	ps := contracts.PriceSet{
		V: contracts.SchemaVersion, Kind: contracts.KindPriceSet, Registrar: r.id, Zone: zone,
		Register: reg, Renew: &contracts.OpPrice{Regular: price(renew)},
		ObservedAt: observed, Source: SourceName,
	}
	switch k := draw(drawTransfer) % 100; {
	case k < 3: // not offered
	case k < 15:
		ps.Transfer = &contracts.OpPrice{Regular: price(register)}
	default:
		ps.Transfer = &contracts.OpPrice{Regular: price(renew)}
	}
	return ps
}

// fnv1a is the 64-bit FNV-1a hash of a, a zero byte and b.
func fnv1a(a, b string) uint64 {
	const prime = 1099511628211
	h := uint64(14695981039346656037)
	for i := 0; i < len(a); i++ {
		h = (h ^ uint64(a[i])) * prime
	}
	h *= prime // the zero separator
	for i := 0; i < len(b); i++ {
		h = (h ^ uint64(b[i])) * prime
	}
	return h
}

// mix derives the k-th independent number from h (the splitmix64
// finaliser), so that one hash feeds many decisions without their low bits
// correlating.
func mix(h, k uint64) uint64 {
	z := h + (k+1)*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
