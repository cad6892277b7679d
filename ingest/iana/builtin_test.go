package iana_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest/iana"
)

func TestBuiltinZones(t *testing.T) {
	zs := builtin(t).Zones()
	var tlds, second int
	has := map[string]bool{}
	for i, z := range zs {
		if i > 0 && zs[i-1].ASCII >= z.ASCII {
			t.Errorf("zones not sorted and unique: %s before %s", zs[i-1].ASCII, z.ASCII)
		}
		if !contracts.IsCanonicalZone(z.ASCII) {
			t.Errorf("zone %q is not canonical", z.ASCII)
		}
		has[z.ASCII] = true
		switch strings.Count(z.ASCII, ".") {
		case 1:
			tlds++
		case 2:
			second++
		default:
			t.Errorf("zone %s has more than two labels", z.ASCII)
		}
	}
	t.Logf("%d zones: %d TLDs, %d second-level", len(zs), tlds, second)
	if tlds < 1400 {
		t.Errorf("got %d TLDs, want at least 1400", tlds)
	}
	if second < 300 {
		t.Errorf("got %d second-level zones, want at least 300", second)
	}
	for _, tt := range []struct {
		zone string
		want bool
	}{
		{".com", true},
		{".co.uk", true},
		{".com.au", true},
		{".co.za", true}, // the list has no za rule, but its second levels
		{".xn--p1ai", true},
		{".arpa", true},
		{".gov", true},
		{".onion", false}, // special-use, not in the root
		{".ac.uk", false}, // not a commercial second level
		{".blogspot.com", false},
	} {
		if got := has[tt.zone]; got != tt.want {
			t.Errorf("Zones() has %s = %v, want %v", tt.zone, got, tt.want)
		}
	}
}

func TestBuiltinZonesReturnsCopy(t *testing.T) {
	zs := builtin(t).Zones()
	zs[0] = contracts.Zone{ASCII: ".mutated"}
	if again := builtin(t).Zones(); again[0].ASCII == ".mutated" {
		t.Error("Zones() shares its slice with callers")
	}
	m, _ := builtin(t).Meta(".com", observed)
	m.Categories[0] = "mutated"
	if again, _ := builtin(t).Meta(".com", observed); again.Categories[0] == "mutated" {
		t.Error("Meta shares its categories with callers")
	}
}

func TestBuiltinMeta(t *testing.T) {
	cat := builtin(t)
	metas := cat.Metas(observed)
	if len(metas) != cat.Len() {
		t.Fatalf("Metas has %d documents for %d zones", len(metas), cat.Len())
	}
	for _, m := range metas {
		if err := m.Validate(); err != nil {
			t.Errorf("zone meta %s: %v", m.Zone, err)
		}
		if m.Source != iana.BuiltinSource {
			t.Errorf("zone meta %s: source %q, want %q", m.Zone, m.Source, iana.BuiltinSource)
		}
		if len(m.Categories) == 0 || m.Categories[0] != m.Type {
			t.Errorf("zone meta %s: categories %v do not start with its type %s", m.Zone, m.Categories, m.Type)
		}
		for _, c := range m.Categories {
			if _, ok := contracts.CategoryByID(c); !ok {
				t.Errorf("zone meta %s: unknown category %q", m.Zone, c)
			}
		}
	}
	tests := []struct {
		zone, unicode, typ string
		cats               []string
	}{
		{".com", ".com", contracts.TypeGeneric, []string{"generic", "legacy-gtld"}},
		{".app", ".app", contracts.TypeGeneric, []string{"generic", "new-gtld", "technology"}},
		{".co.uk", ".co.uk", contracts.TypeCountryCode, []string{"country-code", "second-level"}},
		{".com.au", ".com.au", contracts.TypeCountryCode, []string{"country-code", "second-level"}},
		{".co.za", ".co.za", contracts.TypeCountryCode, []string{"country-code", "second-level"}},
		{".xn--p1ai", ".рф", contracts.TypeCountryCode, []string{"country-code", "idn"}},
		{".xn--80asehdb", ".онлайн", contracts.TypeGeneric, []string{"generic", "idn", "new-gtld"}},
		{".xn--80adxhks", ".москва", contracts.TypeGeneric, []string{"generic", "idn", "new-gtld", "geographic"}},
		{".io", ".io", contracts.TypeCountryCode, []string{"country-code", "cctld-as-generic", "technology"}},
		{".co", ".co", contracts.TypeCountryCode, []string{"country-code", "cctld-as-generic", "business"}},
		{".com.co", ".com.co", contracts.TypeCountryCode, []string{"country-code", "second-level"}},
		{".biz", ".biz", contracts.TypeGenericRestricted, []string{"generic-restricted", "legacy-gtld", "business"}},
		{".pro", ".pro", contracts.TypeGenericRestricted, []string{"generic-restricted", "legacy-gtld", "professional"}},
		{".mobi", ".mobi", contracts.TypeGeneric, []string{"generic", "legacy-gtld"}},
		{".aero", ".aero", contracts.TypeSponsored, []string{"sponsored"}},
		{".cat", ".cat", contracts.TypeSponsored, []string{"sponsored", "geographic"}},
		{".travel", ".travel", contracts.TypeSponsored, []string{"sponsored", "travel"}},
		{".gov", ".gov", contracts.TypeSponsored, []string{"sponsored"}},
		{".arpa", ".arpa", contracts.TypeInfrastructure, []string{"infrastructure"}},
		{".tv", ".tv", contracts.TypeCountryCode, []string{"country-code", "cctld-as-generic", "media"}},
		{".berlin", ".berlin", contracts.TypeGeneric, []string{"generic", "new-gtld", "geographic"}},
		{".shop", ".shop", contracts.TypeGeneric, []string{"generic", "new-gtld", "shopping"}},
		{".google", ".google", contracts.TypeGeneric, []string{"generic", "new-gtld"}},
	}
	for _, tt := range tests {
		t.Run(tt.zone, func(t *testing.T) {
			m, ok := cat.Meta(tt.zone, observed)
			if !ok {
				t.Fatalf("no metadata for %s", tt.zone)
			}
			if m.Unicode != tt.unicode || m.Type != tt.typ || !slices.Equal(m.Categories, tt.cats) {
				t.Errorf("got %s %s %v, want %s %s %v", m.Unicode, m.Type, m.Categories, tt.unicode, tt.typ, tt.cats)
			}
			if typ, _ := cat.Type(tt.zone); typ != tt.typ {
				t.Errorf("Type(%s) = %s, want %s", tt.zone, typ, tt.typ)
			}
		})
	}
	if _, ok := cat.Meta(".no-such-zone", observed); ok {
		t.Error("Meta of a zone outside the catalog succeeded")
	}
}

// TestListedZonesInCatalog checks that every zone a category lists is a
// real top-level domain: in the builtin catalog (the ICANN section of the
// Public Suffix List, which lists delegated TLDs), and given that category.
func TestListedZonesInCatalog(t *testing.T) {
	cat := builtin(t)
	for _, c := range contracts.Categories() {
		for _, z := range c.Zones {
			if strings.Count(z, ".") != 1 {
				t.Errorf("category %s lists %s, which is not a top-level domain", c.ID, z)
			}
			m, ok := cat.Meta(z, observed)
			if !ok {
				t.Errorf("category %s lists %s, which is not in the builtin catalog", c.ID, z)
				continue
			}
			if !slices.Contains(m.Categories, c.ID) {
				t.Errorf("%s is listed in %s but its metadata says %v", z, c.ID, m.Categories)
			}
		}
	}
}

// TestCategoryCounts logs how many builtin zones each category holds and
// checks that no category the service knows is empty.
func TestCategoryCounts(t *testing.T) {
	counts := map[string]int{}
	for _, m := range builtin(t).Metas(observed) {
		for _, c := range m.Categories {
			counts[c]++
		}
	}
	for _, c := range contracts.Categories() {
		t.Logf("%-20s %-9s %5d zones", c.ID, c.Kind, counts[c.ID])
		if counts[c.ID] == 0 {
			t.Errorf("category %s has no zone in the builtin catalog", c.ID)
		}
	}
}

func TestLegacyGTLD(t *testing.T) {
	for zone, want := range map[string]bool{
		".com": true, ".mobi": true, ".biz": true, ".app": false, ".com.au": false, ".co": false, ".aero": false,
	} {
		if got := iana.LegacyGTLD(zone); got != want {
			t.Errorf("LegacyGTLD(%s) = %v, want %v", zone, got, want)
		}
	}
}
