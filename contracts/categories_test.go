package contracts

import (
	"slices"
	"strings"
	"testing"
)

func TestCategoriesFile(t *testing.T) {
	cats := Categories()
	if len(cats) == 0 {
		t.Fatal("no categories")
	}
	ids := map[string]bool{}
	kinds := map[CategoryKind]int{}
	for _, c := range cats {
		if !categoryPattern.MatchString(c.ID) {
			t.Errorf("category id %q does not match %s", c.ID, categoryPattern)
		}
		if ids[c.ID] {
			t.Errorf("category id %q appears twice", c.ID)
		}
		ids[c.ID] = true
		if strings.TrimSpace(c.Name) == "" {
			t.Errorf("category %s: empty name", c.ID)
		}
		if strings.TrimSpace(c.Description) == "" {
			t.Errorf("category %s: empty description", c.ID)
		}
		kinds[c.Kind]++
		switch c.Kind {
		case CategoryKindType:
			if !ianaTypes[c.ID] {
				t.Errorf("type category %s is not an IANA type", c.ID)
			}
			if len(c.Zones) > 0 {
				t.Errorf("type category %s lists zones; types are assigned from the zone's type", c.ID)
			}
		case CategoryKindOverlay:
			if c.ID != "cctld-as-generic" && len(c.Zones) > 0 {
				t.Errorf("overlay category %s lists zones; overlays are derived by rule", c.ID)
			}
		case CategoryKindThematic:
			if len(c.Zones) == 0 {
				t.Errorf("thematic category %s lists no zones", c.ID)
			}
		default:
			t.Errorf("category %s: unknown kind %q", c.ID, c.Kind)
		}
		seen := map[string]bool{}
		for _, z := range c.Zones {
			n, err := NormalizeZone(z)
			if err != nil {
				t.Errorf("category %s: zone %q: %v", c.ID, z, err)
				continue
			}
			if n.ASCII != z {
				t.Errorf("category %s: zone %q is not canonical (want %q)", c.ID, z, n.ASCII)
			}
			if seen[z] {
				t.Errorf("category %s lists %s twice", c.ID, z)
			}
			seen[z] = true
		}
	}
	// Every IANA type has its category, and the ids API clients already
	// see are still there.
	for id := range ianaTypes {
		if c, ok := CategoryByID(id); !ok || c.Kind != CategoryKindType {
			t.Errorf("IANA type %s has no type category", id)
		}
	}
	for _, id := range []string{"idn", "second-level", "cctld-as-generic", "legacy-gtld", "new-gtld"} {
		if c, ok := CategoryByID(id); !ok || c.Kind != CategoryKindOverlay {
			t.Errorf("overlay %s missing", id)
		}
	}
	if kinds[CategoryKindThematic] < 10 {
		t.Errorf("got %d thematic categories, want at least 10", kinds[CategoryKindThematic])
	}
	for _, c := range cats {
		t.Logf("%-20s %-9s %3d zones  %s", c.ID, c.Kind, len(c.Zones), c.Name)
	}
}

func TestCategoryByID(t *testing.T) {
	tests := []struct {
		name, id string
		ok       bool
		wantName string
	}{
		{"type", "country-code", true, "Country code"},
		{"overlay", "idn", true, "Internationalized (IDN)"},
		{"thematic", "technology", true, "Technology"},
		{"unknown", "no-such-category", false, ""},
		{"empty", "", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := CategoryByID(tt.id)
			if ok != tt.ok || got.Name != tt.wantName {
				t.Errorf("CategoryByID(%q) = %q, %v; want %q, %v", tt.id, got.Name, ok, tt.wantName, tt.ok)
			}
		})
	}
}

func TestCategoriesReturnsCopies(t *testing.T) {
	a := Categories()
	tech := slices.IndexFunc(a, func(c Category) bool { return c.ID == "technology" })
	if tech < 0 {
		t.Fatal("no technology category")
	}
	a[tech].Name = "mutated"
	a[tech].Zones[0] = ".mutated"
	c, _ := CategoryByID("technology")
	c.Zones[0] = ".mutated-too"
	b := Categories()
	if b[tech].Name == "mutated" || b[tech].Zones[0] == ".mutated" || b[tech].Zones[0] == ".mutated-too" {
		t.Error("callers share the category data")
	}
}

func TestParseCategories(t *testing.T) {
	tests := []struct {
		name, data string
		ok         bool
	}{
		{"valid", `{"categories":[{"id":"a","name":"A","kind":"type","description":"d"}]}`, true},
		{"unknown field", `{"categories":[{"id":"a","name":"A","kind":"type","description":"d","zone":[".x"]}]}`, false},
		{"trailing data", `{"categories":[{"id":"a","name":"A","kind":"type","description":"d"}]} {}`, false},
		{"empty", `{"categories":[]}`, false},
		{"truncated", `{"categories":[{"id":"a"`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseCategories([]byte(tt.data))
			if (err == nil) != tt.ok {
				t.Errorf("parseCategories: err = %v, want ok = %v", err, tt.ok)
			}
		})
	}
}
