package contracts

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// SchemaVersion is the version of the event documents this package writes
// and reads. Fields are only ever added within a version; a document with a
// higher version is rejected rather than half understood.
const SchemaVersion = 1

// Kind names what an event document is. Every document carries it, so one
// decoder reads every subject.
type Kind string

// The event kinds.
const (
	KindPriceSet   Kind = "price_set"
	KindWithdrawal Kind = "withdrawal"
	KindZoneMeta   Kind = "zone_meta"
	KindRates      Kind = "rates"
)

// Event is any event document.
type Event interface {
	// Validate reports the first problem with the event, naming the field.
	Validate() error
	// Subject is the subject the event must be published on.
	Subject() string
}

// Price is an amount of money: integer minor units of an ISO 4217 currency.
type Price struct {
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
}

// Promo is a promotional price and, when the source says, when it ends.
type Promo struct {
	Price  Price      `json:"price"`
	EndsAt *time.Time `json:"ends_at,omitempty"`
}

// OpPrice is the price of one operation (register, renew or transfer) for
// one year: the regular price and, where the source has one, a promotion.
type OpPrice struct {
	Regular Price  `json:"regular"`
	Promo   *Promo `json:"promo,omitempty"`
}

// Current is the price a customer pays at t: the promotion while it runs,
// the regular price otherwise. A promotion without an end is running.
func (o *OpPrice) Current(t time.Time) Price {
	if o.PromoRunning(t) {
		return o.Promo.Price
	}
	return o.Regular
}

// PromoRunning reports whether the operation has a promotion running at t.
func (o *OpPrice) PromoRunning(t time.Time) bool {
	return o.Promo != nil && (o.Promo.EndsAt == nil || t.Before(*o.Promo.EndsAt))
}

// PriceSet is one registrar's prices for one zone, as one source observed
// them. An operation the registrar does not offer is absent (nil).
type PriceSet struct {
	V          int       `json:"v"`
	Kind       Kind      `json:"kind"`
	Registrar  string    `json:"registrar"`
	Zone       string    `json:"zone"`
	Register   *OpPrice  `json:"register,omitempty"`
	Renew      *OpPrice  `json:"renew,omitempty"`
	Transfer   *OpPrice  `json:"transfer,omitempty"`
	ObservedAt time.Time `json:"observed_at"`
	Source     string    `json:"source"`
	// Tax says whether the prices include VAT or sales tax: TaxExcluded,
	// TaxIncluded, or TaxUnknown (also when absent, as in documents of
	// sources older than the field). A price with tax is not comparable
	// with one without.
	Tax Tax `json:"tax,omitempty"`
}

// Tax is whether a source's prices include VAT or sales tax.
type Tax string

// The tax declarations.
const (
	TaxExcluded Tax = "excluded"
	TaxIncluded Tax = "included"
	TaxUnknown  Tax = "unknown"
)

// Known reports the declaration, with TaxUnknown for none.
func (t Tax) Known() Tax {
	if t == "" {
		return TaxUnknown
	}
	return t
}

// Withdrawal says a registrar no longer sells a zone. It is published on the
// price set's subject and so replaces it as the current state.
type Withdrawal struct {
	V          int       `json:"v"`
	Kind       Kind      `json:"kind"`
	Registrar  string    `json:"registrar"`
	Zone       string    `json:"zone"`
	ObservedAt time.Time `json:"observed_at"`
	Source     string    `json:"source"`
}

// IANA root zone database types, and the type second-level zones inherit
// from their parent.
const (
	TypeGeneric           = "generic"
	TypeCountryCode       = "country-code"
	TypeSponsored         = "sponsored"
	TypeGenericRestricted = "generic-restricted"
	TypeInfrastructure    = "infrastructure"
)

var ianaTypes = map[string]bool{
	TypeGeneric: true, TypeCountryCode: true, TypeSponsored: true,
	TypeGenericRestricted: true, TypeInfrastructure: true,
}

// ZoneMeta describes a zone: its Unicode form, its IANA type and the
// categories people browse it by.
type ZoneMeta struct {
	V          int       `json:"v"`
	Kind       Kind      `json:"kind"`
	Zone       string    `json:"zone"`
	Unicode    string    `json:"unicode"`
	Type       string    `json:"type"`
	Categories []string  `json:"categories"`
	ObservedAt time.Time `json:"observed_at"`
	Source     string    `json:"source"`
}

// Rates are reference exchange rates: one unit of Base buys Rates[code]
// units of code. Rates are decimal strings ("1.0823") so that no float ever
// carries money.
type Rates struct {
	V          int               `json:"v"`
	Kind       Kind              `json:"kind"`
	Base       string            `json:"base"`
	Date       string            `json:"date"`
	Rates      map[string]string `json:"rates"`
	ObservedAt time.Time         `json:"observed_at"`
	Source     string            `json:"source"`
}

// ValidationError names the field that is wrong and why: a field of an
// event document, or of a package's Config. A Config names its fields as
// Go does ("TrustedProxies", "Limits.Tiers"); the command that set them
// from flags or the environment says which flag that is.
type ValidationError struct {
	Field   string
	Problem string
}

func (e *ValidationError) Error() string { return e.Field + ": " + e.Problem }

func invalid(field, format string, args ...any) error {
	return &ValidationError{Field: field, Problem: fmt.Sprintf(format, args...)}
}

// Invalid returns a ValidationError of field.
func Invalid(field, format string, args ...any) error { return invalid(field, format, args...) }

// InField places err, from validating the field parent, under it: a
// ValidationError of "Tiers" becomes one of "Limits.Tiers", and any other
// error becomes parent's problem.
func InField(parent string, err error) error {
	if err == nil {
		return nil
	}
	var ve *ValidationError
	if errors.As(err, &ve) {
		return &ValidationError{Field: parent + "." + ve.Field, Problem: ve.Problem}
	}
	return &ValidationError{Field: parent, Problem: err.Error()}
}

var (
	categoryPattern = regexp.MustCompile(`^[a-z][a-z0-9-]{0,39}$`)
	datePattern     = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
)

// SampleRegistrarPrefix starts the id of every synthetic sample registrar.
// Sample prices stand in for real ones where no registrar can be reached; a
// consumer holding any other registrar's live price hides them, so that
// sample and real prices never appear in one response.
const SampleRegistrarPrefix = "sample-"

// SampleSource is the source of the sample's prices and of its fixed
// rates, which are hidden beside real prices just as sample registrars are.
const SampleSource = "sample"

// IsSampleRegistrar reports whether id names a synthetic sample registrar.
func IsSampleRegistrar(id string) bool { return strings.HasPrefix(id, SampleRegistrarPrefix) }

// ValidRegistrar reports whether id is a well-formed registrar id: lower-case
// letters, digits and inner hyphens, as it must be to be a subject token.
func ValidRegistrar(id string) bool {
	if len(id) == 0 || len(id) > 63 || id[0] == '-' || id[len(id)-1] == '-' {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return true
}

func validateHeader(v int, kind, want Kind) error {
	if v != SchemaVersion {
		return invalid("v", "unsupported schema version %d (want %d)", v, SchemaVersion)
	}
	if kind != want {
		return invalid("kind", "is %q, want %q", kind, want)
	}
	return nil
}

func validateCommon(registrar, zone string, observed time.Time, source string) error {
	if registrar == "" {
		return invalid("registrar", "must not be empty")
	}
	if !ValidRegistrar(registrar) {
		return invalid("registrar", "%q is not lower-case letters, digits and inner hyphens", registrar)
	}
	if err := validateZone("zone", zone); err != nil {
		return err
	}
	return validateObserved(observed, source)
}

func validateZone(field, zone string) error {
	if zone == "" {
		return invalid(field, "must not be empty")
	}
	z, err := NormalizeZone(zone)
	if err != nil {
		return invalid(field, "%v", err)
	}
	if z.ASCII != zone {
		return invalid(field, "%q is not canonical (want %q)", zone, z.ASCII)
	}
	return nil
}

func validateObserved(observed time.Time, source string) error {
	if observed.IsZero() {
		return invalid("observed_at", "must be set")
	}
	if y := observed.Year(); y < 2000 || y > 2200 {
		return invalid("observed_at", "year %d is not plausible for an observation", y)
	}
	if source == "" {
		return invalid("source", "must not be empty")
	}
	if !ValidSource(source) {
		return invalid("source", "%q is not a source id: 1 to %d lower-case letters, digits and inner hyphens", truncate(source, 40), maxSourceLen)
	}
	return nil
}

// maxSourceLen bounds a source id: it becomes a metric label and is shown
// in every comparison row.
const maxSourceLen = 32

// ValidSource reports whether id is a well-formed source id: like a
// registrar id, lower-case letters, digits and inner hyphens, at most 32
// bytes. Sources are named by their operators ("porkbun", "iana",
// "sheet-b"); anything longer or freer is a malformed or hostile document.
func ValidSource(id string) bool { return len(id) <= maxSourceLen && ValidRegistrar(id) }

// truncate shortens s for an error message, so that a hostile value
// cannot make the message as large as itself.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// validatePrice checks the price at field prefix+op+name ("before.",
// OpRegister and ".regular"); the parts are joined only for an error,
// since a replay validates every price of the stream.
func validatePrice(prefix string, op Op, name string, p Price) error {
	if p.Currency == "" {
		return invalid(prefix+op.String()+name+".currency", "must not be empty")
	}
	if _, ok := CurrencyExponent(p.Currency); !ok {
		return invalid(prefix+op.String()+name+".currency", "unknown currency %q", p.Currency)
	}
	if p.Amount < 0 {
		return invalid(prefix+op.String()+name+".amount", "negative amount %d", p.Amount)
	}
	if p.Amount > MaxAmount {
		return invalid(prefix+op.String()+name+".amount", "%d minor units is above the ceiling of %d", p.Amount, MaxAmount)
	}
	return nil
}

// validateOp checks one operation's price. The regular price of a
// registration or renewal is never nothing: a zero there is a source's
// "n/a" read as a price, and would be every zone's cheapest and a renewal
// trap, so it is refused (an operation not offered is left out). A
// promotion may make a name free (a coupon worth its price), and a transfer
// may cost nothing: moving a .uk name between registrars is free, since no
// year comes with it.
func validateOp(prefix string, op Op, o *OpPrice) error {
	if o == nil {
		return nil
	}
	if err := validatePrice(prefix, op, ".regular", o.Regular); err != nil {
		return err
	}
	if o.Regular.Amount == 0 && op != OpTransfer {
		return invalid(prefix+op.String()+".regular.amount", "0 is no price: an operation not offered is left out")
	}
	if o.Promo != nil {
		if err := validatePrice(prefix, op, ".promo.price", o.Promo.Price); err != nil {
			return err
		}
		if o.Promo.Price.Currency != o.Regular.Currency {
			return invalid(prefix+op.String()+".promo.price.currency", "%s differs from the regular price's %s", o.Promo.Price.Currency, o.Regular.Currency)
		}
	}
	return nil
}

// Validate implements Event.
func (p *PriceSet) Validate() error {
	if err := validateHeader(p.V, p.Kind, KindPriceSet); err != nil {
		return err
	}
	if err := validateCommon(p.Registrar, p.Zone, p.ObservedAt, p.Source); err != nil {
		return err
	}
	return validateOffer("", p.Offer())
}

// validateOffer checks the operations and tax of a price set, or of one
// side of a change (prefix "before." or "after.").
func validateOffer(prefix string, o *Offer) error {
	if o.Register == nil && o.Renew == nil && o.Transfer == nil {
		return invalid(prefix+"register", "a price set needs at least one of register, renew, transfer")
	}
	switch o.Tax {
	case "", TaxExcluded, TaxIncluded, TaxUnknown:
	default:
		return invalid(prefix+"tax", "%q is not excluded, included or unknown", truncate(string(o.Tax), 20))
	}
	ops := o.Ops()
	for _, op := range Ops {
		if err := validateOp(prefix, op, ops[op]); err != nil {
			return err
		}
	}
	// One registrar prices one zone in one currency; a set mixing them is
	// more likely a parsing mistake than a price list.
	var cur string
	for i, op := range ops {
		if op == nil {
			continue
		}
		if cur == "" {
			cur = op.Regular.Currency
		} else if op.Regular.Currency != cur {
			return invalid(prefix+Op(i).String()+".regular.currency", "%s differs from the set's %s: a price set has one currency", op.Regular.Currency, cur)
		}
	}
	return nil
}

// Subject implements Event.
func (p *PriceSet) Subject() string { return PriceSubject(p.Registrar, p.Zone) }

// Validate implements Event.
func (w *Withdrawal) Validate() error {
	if err := validateHeader(w.V, w.Kind, KindWithdrawal); err != nil {
		return err
	}
	return validateCommon(w.Registrar, w.Zone, w.ObservedAt, w.Source)
}

// Subject implements Event.
func (w *Withdrawal) Subject() string { return PriceSubject(w.Registrar, w.Zone) }

// Validate implements Event.
func (m *ZoneMeta) Validate() error {
	if err := validateHeader(m.V, m.Kind, KindZoneMeta); err != nil {
		return err
	}
	if err := validateZone("zone", m.Zone); err != nil {
		return err
	}
	if z, _ := NormalizeZone(m.Zone); m.Unicode != z.Unicode {
		return invalid("unicode", "%q is not the Unicode form of %s (want %q)", m.Unicode, m.Zone, z.Unicode)
	}
	if !ianaTypes[m.Type] {
		return invalid("type", "unknown IANA type %q", m.Type)
	}
	for i, c := range m.Categories {
		if !categoryPattern.MatchString(c) {
			return invalid(fmt.Sprintf("categories[%d]", i), "%q is not a category id", c)
		}
	}
	return validateObserved(m.ObservedAt, m.Source)
}

// Subject implements Event.
func (m *ZoneMeta) Subject() string { return ZoneSubject(m.Zone) }

// Validate implements Event.
func (r *Rates) Validate() error {
	if err := validateHeader(r.V, r.Kind, KindRates); err != nil {
		return err
	}
	if _, ok := CurrencyExponent(r.Base); !ok {
		return invalid("base", "unknown currency %q", r.Base)
	}
	if !datePattern.MatchString(r.Date) {
		return invalid("date", "%q is not YYYY-MM-DD", r.Date)
	}
	if _, err := time.Parse(time.DateOnly, r.Date); err != nil {
		return invalid("date", "%q is not a date", r.Date)
	}
	if len(r.Rates) == 0 {
		return invalid("rates", "must not be empty")
	}
	for code, rate := range r.Rates {
		if _, ok := CurrencyExponent(code); !ok {
			return invalid("rates."+code, "unknown currency %q", code)
		}
		v, err := ParseRate(rate)
		if err != nil {
			return invalid("rates."+code, "%v", err)
		}
		if v < MinRate || v > MaxRate {
			return invalid("rates."+code, "%s is outside the plausible range 0.0000001 to 99999999.9999999999", rate)
		}
	}
	return validateObserved(r.ObservedAt, r.Source)
}

// Subject implements Event.
func (r *Rates) Subject() string { return RatesSubject(r.Base) }

// SourceOf is the source a document names: the ingest source that
// published it; "" for a document that names none, or nil.
func SourceOf(ev Event) string {
	switch e := ev.(type) {
	case *PriceSet:
		return e.Source
	case *Withdrawal:
		return e.Source
	case *ZoneMeta:
		return e.Source
	case *Rates:
		return e.Source
	case *RegistrarStatus:
		return e.Source
	case *PriceChange:
		return e.Source
	}
	return ""
}
