package iana

import (
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/contracts"
)

func TestIDNCCTLDs(t *testing.T) {
	cat, err := Builtin()
	if err != nil {
		t.Fatalf("Builtin: %v", err)
	}
	idnCC := map[string]bool{}
	for _, u := range idnCCTLDs {
		z, err := contracts.NormalizeZone(u)
		if err != nil {
			t.Errorf("NormalizeZone(%s): %v", u, err)
			continue
		}
		idnCC[z.ASCII] = true
		if !strings.HasPrefix(z.ASCII, ".xn--") {
			t.Errorf("%s normalises to %s, want an A-label", u, z.ASCII)
		}
		if typ, ok := cat.Type(z.ASCII); !ok || typ != contracts.TypeCountryCode {
			t.Errorf("%s (%s): in catalog %v, type %q; want %q", u, z.ASCII, ok, typ, contracts.TypeCountryCode)
		}
	}
	// A few A-labels checked against the IANA root zone database by hand.
	for _, ascii := range []string{".xn--p1ai", ".xn--fiqs8s", ".xn--3e0b707e", ".xn--mgberp4a5d4ar"} {
		if !idnCC[ascii] {
			t.Errorf("%s missing from the IDN ccTLDs", ascii)
		}
	}
}

func TestBuiltinType(t *testing.T) {
	idnCC := map[string]bool{".xn--p1ai": true}
	tests := []struct{ zone, want string }{
		{".com", contracts.TypeGeneric},
		{".arpa", contracts.TypeInfrastructure},
		{".aero", contracts.TypeSponsored},
		{".biz", contracts.TypeGenericRestricted},
		{".uk", contracts.TypeCountryCode},
		{".co.uk", contracts.TypeCountryCode},
		{".xn--p1ai", contracts.TypeCountryCode},
		{".xn--80asehdb", contracts.TypeGeneric},
	}
	for _, tt := range tests {
		if got := builtinType(tt.zone, idnCC); got != tt.want {
			t.Errorf("builtinType(%s) = %s, want %s", tt.zone, got, tt.want)
		}
	}
}

func TestNewCategoryRules(t *testing.T) {
	if _, err := newCategoryRules(contracts.Categories()); err != nil {
		t.Fatalf("the category file and the rules disagree: %v", err)
	}
	// An overlay the code has no rule for, listing no zones, cannot be
	// assigned: that is a mistake in the file, not a category to skip.
	_, err := newCategoryRules([]contracts.Category{{ID: "mystery", Kind: contracts.CategoryKindOverlay}})
	if err == nil {
		t.Error("an overlay with neither a rule nor zones was accepted")
	}
	r, err := newCategoryRules([]contracts.Category{
		{ID: "generic", Kind: contracts.CategoryKindType},
		{ID: "listed-overlay", Kind: contracts.CategoryKindOverlay, Zones: []string{".io"}},
		{ID: "new-gtld", Kind: contracts.CategoryKindOverlay},
		{ID: "tech", Kind: contracts.CategoryKindThematic, Zones: []string{".app"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		zone, typ, want string
	}{
		{".app", contracts.TypeGeneric, "generic,new-gtld,tech"},
		{".io", contracts.TypeCountryCode, "listed-overlay"},
		{".com", contracts.TypeGeneric, "generic"},
		{".co.app", contracts.TypeGeneric, "generic"},
	} {
		if got := strings.Join(r.categories(tt.zone, tt.typ), ","); got != tt.want {
			t.Errorf("categories(%s, %s) = %s, want %s", tt.zone, tt.typ, got, tt.want)
		}
	}
}
