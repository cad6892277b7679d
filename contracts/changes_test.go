package contracts

import (
	"errors"
	"testing"
	"time"
)

func validChange() *PriceChange {
	before, after := validPriceSet().Offer(), validPriceSet().Offer()
	after.Renew = &OpPrice{Regular: Price{Amount: 1299, Currency: "USD"}}
	return &PriceChange{
		V: SchemaVersion, Kind: KindPriceChange, Change: ChangeChanged, Registrar: "porkbun", Zone: ".com",
		Before: before, After: after, ObservedAt: observed, Source: "porkbun-api",
	}
}

func TestPriceChangeValidate(t *testing.T) {
	valid := []struct {
		name string
		c    *PriceChange
	}{
		{"changed", validChange()},
		{"added", with(validChange(), func(c *PriceChange) { c.Change, c.Before = ChangeAdded, nil })},
		{"known", with(validChange(), func(c *PriceChange) { c.Change, c.Before = ChangeKnown, nil })},
		{"withdrawn", with(validChange(), func(c *PriceChange) { c.Change, c.After = ChangeWithdrawn, nil })},
		{"tax declared", with(validChange(), func(c *PriceChange) { c.After.Tax = TaxIncluded })},
	}
	for _, tt := range valid {
		if err := tt.c.Validate(); err != nil {
			t.Errorf("%s: Validate() = %v, want nil", tt.name, err)
		}
	}
	invalidCases := []struct {
		name, field string
		c           *PriceChange
	}{
		{"unknown change", "change", with(validChange(), func(c *PriceChange) { c.Change = "dropped" })},
		{"wrong kind", "kind", with(validChange(), func(c *PriceChange) { c.Kind = KindPriceSet })},
		{"added with a before", "before", with(validChange(), func(c *PriceChange) { c.Change = ChangeAdded })},
		{"known without an after", "after", with(validChange(), func(c *PriceChange) { c.Change, c.Before, c.After = ChangeKnown, nil, nil })},
		{"withdrawn with an after", "after", with(validChange(), func(c *PriceChange) { c.Change = ChangeWithdrawn })},
		{"changed without a before", "before", with(validChange(), func(c *PriceChange) { c.Before = nil })},
		{"changed to the same offer", "after", with(validChange(), func(c *PriceChange) { c.After = validPriceSet().Offer() })},
		{"empty offer", "after.register", with(validChange(), func(c *PriceChange) { c.After = &Offer{} })},
		{"bad amount before", "before.renew.regular.amount", with(validChange(), func(c *PriceChange) { c.Before.Renew.Regular.Amount = -5 })},
		{"two currencies after", "after.renew.regular.currency", with(validChange(), func(c *PriceChange) { c.After.Renew.Regular.Currency = "EUR" })},
		{"bad tax", "after.tax", with(validChange(), func(c *PriceChange) { c.After.Tax = "maybe" })},
		{"bad zone", "zone", with(validChange(), func(c *PriceChange) { c.Zone = ".COM" })},
		{"no source", "source", with(validChange(), func(c *PriceChange) { c.Source = "" })},
	}
	for _, tt := range invalidCases {
		err := tt.c.Validate()
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Field != tt.field {
			t.Errorf("%s: Validate() = %v, want a problem with %s", tt.name, err, tt.field)
		}
	}
}

func TestOfferEqual(t *testing.T) {
	ends := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	base := func() *Offer {
		return &Offer{
			Register: &OpPrice{Regular: Price{Amount: 1000, Currency: "USD"}, Promo: &Promo{Price: Price{Amount: 500, Currency: "USD"}, EndsAt: &ends}},
			Renew:    &OpPrice{Regular: Price{Amount: 1200, Currency: "USD"}},
		}
	}
	sameEnd := ends.In(time.FixedZone("CET", 3600))
	tests := []struct {
		name  string
		other *Offer
		want  bool
	}{
		{"same", base(), true},
		{"same promo end in another zone", with2(base(), func(o *Offer) { o.Register.Promo.EndsAt = &sameEnd }), true},
		{"absent tax is unknown", with2(base(), func(o *Offer) { o.Tax = TaxUnknown }), true},
		{"tax declared", with2(base(), func(o *Offer) { o.Tax = TaxIncluded }), false},
		{"regular price", with2(base(), func(o *Offer) { o.Renew.Regular.Amount = 1201 }), false},
		{"currency", with2(base(), func(o *Offer) { o.Renew.Regular.Currency = "EUR" }), false},
		{"promotion ended", with2(base(), func(o *Offer) { o.Register.Promo = nil }), false},
		{"promotion without end", with2(base(), func(o *Offer) { o.Register.Promo.EndsAt = nil }), false},
		{"promotion price", with2(base(), func(o *Offer) { o.Register.Promo.Price.Amount = 499 }), false},
		{"transfer offered", with2(base(), func(o *Offer) { o.Transfer = &OpPrice{Regular: Price{Amount: 1, Currency: "USD"}} }), false},
		{"nothing on offer", nil, false},
	}
	for _, tt := range tests {
		if got := base().Equal(tt.other); got != tt.want {
			t.Errorf("%s: Equal = %v, want %v", tt.name, got, tt.want)
		}
		if tt.other != nil {
			if got := tt.other.Equal(base()); got != tt.want {
				t.Errorf("%s: Equal is not symmetric", tt.name)
			}
		}
	}
	var none *Offer
	if !none.Equal(nil) {
		t.Error("two nil offers are not equal")
	}
}

func with2(o *Offer, change func(*Offer)) *Offer {
	change(o)
	return o
}

func TestPriceChangeDropped(t *testing.T) {
	ended := observed.Add(-time.Hour)
	tests := []struct {
		name string
		c    *PriceChange
		want bool
	}{
		{"renewal raised", validChange(), false},
		{"renewal lowered", with(validChange(), func(c *PriceChange) { c.After.Renew.Regular.Amount = 999 }), true},
		// The promotion of 6.99 runs; a regular price of 9.00 is dearer.
		{"regular lowered below the old regular, above the running promotion", with(validChange(), func(c *PriceChange) {
			c.After.Register = &OpPrice{Regular: Price{Amount: 900, Currency: "USD"}}
		}), false},
		{"a regular price below what was paid once the promotion had ended", with(validChange(), func(c *PriceChange) {
			c.Before.Register.Promo.EndsAt = &ended
			c.After.Register = &OpPrice{Regular: Price{Amount: 900, Currency: "USD"}}
		}), true},
		{"transfer lowered only", with(validChange(), func(c *PriceChange) {
			c.After.Renew = c.Before.Renew
			c.After.Transfer = &OpPrice{Regular: Price{Amount: 1, Currency: "USD"}}
			c.Before.Transfer = &OpPrice{Regular: Price{Amount: 900, Currency: "USD"}}
		}), false},
		{"another currency", with(validChange(), func(c *PriceChange) {
			c.After.Renew = &OpPrice{Regular: Price{Amount: 10, Currency: "EUR"}}
		}), false},
		{"added", with(validChange(), func(c *PriceChange) { c.Change, c.Before = ChangeAdded, nil }), false},
	}
	for _, tt := range tests {
		if got := tt.c.Dropped(); got != tt.want {
			t.Errorf("%s: Dropped = %v, want %v", tt.name, got, tt.want)
		}
	}
}
