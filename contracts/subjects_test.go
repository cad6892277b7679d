package contracts_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/contracts"
)

func TestZoneToken(t *testing.T) {
	tests := []struct {
		zone string
		want string
	}{
		{zone: ".com", want: "com"},
		{zone: ".uk", want: "uk"},
		{zone: ".co.uk", want: "co_uk"},
		{zone: ".xn--p1ai", want: "xn--p1ai"},
		{zone: ".com.xn--p1ai", want: "com_xn--p1ai"},
		{zone: ".a.b.c", want: "a_b_c"},
	}
	for _, tt := range tests {
		t.Run(tt.zone, func(t *testing.T) {
			got := contracts.ZoneToken(tt.zone)
			if got != tt.want {
				t.Errorf("ZoneToken(%q) = %q, want %q", tt.zone, got, tt.want)
			}
			if back := contracts.ZoneFromToken(got); back != tt.zone {
				t.Errorf("ZoneFromToken(%q) = %q, want %q", got, back, tt.zone)
			}
		})
	}
}

func TestParsePriceSubject(t *testing.T) {
	tests := []struct {
		subject         string
		registrar, zone string
		ok              bool
	}{
		{subject: contracts.PriceSubject("porkbun", ".co.uk"), registrar: "porkbun", zone: ".co.uk", ok: true},
		{subject: contracts.PriceSubject("sample-alpha", ".xn--p1ai"), registrar: "sample-alpha", zone: ".xn--p1ai", ok: true},
		{subject: "prices.v1.porkbun", ok: false},
		{subject: "prices.v1..com", ok: false},
		{subject: "prices.v1.porkbun.", ok: false},
		{subject: "prices.v1.porkbun.co.uk", ok: false},
		{subject: contracts.ZoneSubject(".com"), ok: false},
		{subject: contracts.RatesSubject("EUR"), ok: false},
	}
	for _, tt := range tests {
		t.Run(tt.subject, func(t *testing.T) {
			reg, zone, ok := contracts.ParsePriceSubject(tt.subject)
			if ok != tt.ok || reg != tt.registrar || zone != tt.zone {
				t.Errorf("ParsePriceSubject(%q) = %q, %q, %v; want %q, %q, %v", tt.subject, reg, zone, ok, tt.registrar, tt.zone, tt.ok)
			}
		})
	}
}

func TestZoneTokensDistinct(t *testing.T) {
	zones := []string{".co.uk", ".uk", ".co"}
	seen := make(map[string]string)
	for _, z := range zones {
		tok := contracts.ZoneToken(z)
		if other, ok := seen[tok]; ok {
			t.Errorf("ZoneToken(%q) = ZoneToken(%q) = %q, want distinct tokens", z, other, tok)
		}
		seen[tok] = z
	}
}

func TestSubjects(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{name: "price", got: contracts.PriceSubject("porkbun", ".co.uk"), want: "prices.v1.porkbun.co_uk"},
		{name: "price idn", got: contracts.PriceSubject("porkbun", ".xn--p1ai"), want: "prices.v1.porkbun.xn--p1ai"},
		{name: "registrar filter", got: contracts.RegistrarPriceFilter("porkbun"), want: "prices.v1.porkbun.*"},
		{name: "zone", got: contracts.ZoneSubject(".co.uk"), want: "zones.v1.co_uk"},
		{name: "rates", got: contracts.RatesSubject("EUR"), want: "rates.v1.EUR"},
		{name: "change", got: contracts.ChangeSubject("porkbun", ".co.uk"), want: "changes.v1.porkbun.co_uk"},
		{name: "registrar change filter", got: contracts.RegistrarChangeFilter("porkbun"), want: "changes.v1.porkbun.*"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}

func TestOnSubject(t *testing.T) {
	set := &contracts.PriceSet{Registrar: "porkbun", Zone: ".co.uk"}
	tests := []struct {
		subject string
		want    bool
	}{
		{"prices.v1.porkbun.co_uk", true},
		{"prices.v1.porkbun.uk", false},
		{"prices.v1.porkbun.co.uk", false},
		{"prices.v1.porkbunx.co_uk", false},
		{"prices.v1.pork.co_uk", false},
		{"prices.v1.porkbun.co_ukx", false},
		{"prices.v2.porkbun.co_uk", false},
		{"zones.v1.co_uk", false},
	}
	for _, tt := range tests {
		if got := contracts.OnSubject(set, tt.subject); got != tt.want {
			t.Errorf("OnSubject(porkbun .co.uk, %q) = %v, want %v", tt.subject, got, tt.want)
		}
		if got, want := contracts.OnSubject(set, tt.subject), set.Subject() == tt.subject; got != want {
			t.Errorf("OnSubject disagrees with Subject() for %q", tt.subject)
		}
	}
	change := &contracts.PriceChange{Registrar: "porkbun", Zone: ".co.uk"}
	if !contracts.OnSubject(change, "changes.v1.porkbun.co_uk") || contracts.OnSubject(change, "prices.v1.porkbun.co_uk") ||
		contracts.OnSubject(change, "changes.v1.porkbun.uk") {
		t.Error("OnSubject for a change does not follow Subject()")
	}
	if reg, zone, ok := contracts.ParseChangeSubject("changes.v1.porkbun.co_uk"); !ok || reg != "porkbun" || zone != ".co.uk" {
		t.Errorf("ParseChangeSubject = %q, %q, %v", reg, zone, ok)
	}
	if _, _, ok := contracts.ParseChangeSubject("prices.v1.porkbun.co_uk"); ok {
		t.Error("ParseChangeSubject read a price subject")
	}
	meta := &contracts.ZoneMeta{Zone: ".co.uk"}
	if !contracts.OnSubject(meta, "zones.v1.co_uk") || contracts.OnSubject(meta, "zones.v1.uk") {
		t.Error("OnSubject for zone metadata does not follow Subject()")
	}
}
