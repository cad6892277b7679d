package contracts

import (
	"time"
)

// KindPriceChange is the kind of a change document, on the history stream.
const KindPriceChange Kind = "price_change"

// Change is what happened to what a registrar charges for a zone.
type Change string

// The changes. Added, Changed and Withdrawn are changes a customer sees;
// Known records a price the service held before it kept history, once,
// as the first period it knows of (its start is when it was last
// observed, not when the registrar set it).
const (
	ChangeAdded     Change = "added"
	ChangeChanged   Change = "changed"
	ChangeWithdrawn Change = "withdrawn"
	ChangeKnown     Change = "known"
)

// Offer is what a registrar charges for a zone: the part of a price set a
// change compares. Two offers that are Equal cost every customer the same.
type Offer struct {
	Register *OpPrice `json:"register,omitempty"`
	Renew    *OpPrice `json:"renew,omitempty"`
	Transfer *OpPrice `json:"transfer,omitempty"`
	Tax      Tax      `json:"tax,omitempty"`
}

// Offer returns the set's offer. It shares the set's operations.
func (p *PriceSet) Offer() *Offer {
	return &Offer{Register: p.Register, Renew: p.Renew, Transfer: p.Transfer, Tax: p.Tax}
}

// Ops returns the offer's price of each operation, in Ops order; nil where
// the registrar does not offer it.
func (o *Offer) Ops() [NumOps]*OpPrice {
	return [NumOps]*OpPrice{o.Register, o.Renew, o.Transfer}
}

// Equal reports whether two offers charge the same: the same operations
// at the same regular prices, the same promotions with the same ends, and
// the same tax declaration (an absent one is TaxUnknown). Nil offers
// (nothing on offer) are equal to each other only.
func (o *Offer) Equal(p *Offer) bool {
	if o == nil || p == nil {
		return o == p
	}
	if o.Tax.Known() != p.Tax.Known() {
		return false
	}
	a, b := o.Ops(), p.Ops()
	for i := range a {
		if !a[i].equal(b[i]) {
			return false
		}
	}
	return true
}

func (o *OpPrice) equal(p *OpPrice) bool {
	if o == nil || p == nil {
		return o == p
	}
	if o.Regular != p.Regular {
		return false
	}
	if o.Promo == nil || p.Promo == nil {
		return o.Promo == p.Promo
	}
	if o.Promo.Price != p.Promo.Price {
		return false
	}
	if o.Promo.EndsAt == nil || p.Promo.EndsAt == nil {
		return o.Promo.EndsAt == p.Promo.EndsAt
	}
	return o.Promo.EndsAt.Equal(*p.Promo.EndsAt)
}

// PriceChange records one change of what a registrar charges for a zone:
// the offer before and after it (Before is nil for ChangeAdded and
// ChangeKnown, After for ChangeWithdrawn), when the change was observed and
// by which source. The ingester that publishes a registrar's prices
// publishes its changes, on the history stream, before the new state.
type PriceChange struct {
	V          int       `json:"v"`
	Kind       Kind      `json:"kind"`
	Change     Change    `json:"change"`
	Registrar  string    `json:"registrar"`
	Zone       string    `json:"zone"`
	Before     *Offer    `json:"before"`
	After      *Offer    `json:"after"`
	ObservedAt time.Time `json:"observed_at"`
	Source     string    `json:"source"`
}

// Validate implements Event.
func (c *PriceChange) Validate() error {
	if err := validateHeader(c.V, c.Kind, KindPriceChange); err != nil {
		return err
	}
	var before, after bool // which offers the change must have
	switch c.Change {
	case ChangeAdded, ChangeKnown:
		after = true
	case ChangeChanged:
		before, after = true, true
	case ChangeWithdrawn:
		before = true
	default:
		return invalid("change", "%q is not added, changed, withdrawn or known", truncate(string(c.Change), 20))
	}
	if err := validateCommon(c.Registrar, c.Zone, c.ObservedAt, c.Source); err != nil {
		return err
	}
	for _, side := range []struct {
		field string
		want  bool
		offer *Offer
	}{{"before", before, c.Before}, {"after", after, c.After}} {
		switch {
		case side.want && side.offer == nil:
			return invalid(side.field, "a change %s needs the offer %s it", c.Change, side.field)
		case !side.want && side.offer != nil:
			return invalid(side.field, "must be null for a change %s", c.Change)
		}
		if side.offer != nil {
			if err := validateOffer(side.field+".", side.offer); err != nil {
				return err
			}
		}
	}
	if c.Change == ChangeChanged && c.Before.Equal(c.After) {
		return invalid("after", "equals before: a change must change what the registrar charges")
	}
	return nil
}

// Subject implements Event.
func (c *PriceChange) Subject() string { return ChangeSubject(c.Registrar, c.Zone) }

// Dropped reports whether the change lowered what a customer pays, when
// it was observed, to register or to renew (in the same currency): what
// the "latest price drops" lists.
func (c *PriceChange) Dropped() bool {
	if c.Change != ChangeChanged {
		return false
	}
	for _, op := range []Op{OpRegister, OpRenew} {
		a, b := c.Before.Ops()[op], c.After.Ops()[op]
		if a == nil || b == nil {
			continue
		}
		was, is := a.Current(c.ObservedAt), b.Current(c.ObservedAt)
		if was.Currency == is.Currency && is.Amount < was.Amount {
			return true
		}
	}
	return false
}
