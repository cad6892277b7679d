package iana

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/weppos/publicsuffix-go/publicsuffix"

	"github.com/zoneprice/zoneprice/contracts"
)

// BuiltinSource is the source of the builtin catalog's metadata: derived by
// rule from the Public Suffix List and IANA's published types rather than
// fetched from IANA, so consumers can tell the two apart.
const BuiltinSource = "builtin"

// Category ids beyond the IANA type ids, which are categories too. API
// clients see them; they do not change.
const (
	CategoryIDN            = "idn"
	CategorySecondLevel    = "second-level"
	CategoryCCTLDAsGeneric = "cctld-as-generic"
	CategoryLegacyGTLD     = "legacy-gtld"
	CategoryNewGTLD        = "new-gtld"
)

// The builtin zone list is real: the ICANN section of the Public Suffix
// List, as the version of publicsuffix-go pinned in go.mod ships it. The
// library's List keeps its rules in an unexported map with no way to
// enumerate them, but it also exports DefaultRules (since v0.5.0), the
// generated table DefaultList is built from. Reading that needs no
// reflection on unexported fields, and its shape is part of the library's
// API. The tests pin minimum counts and known members, so an update that
// changes what the table holds fails loudly.

// notInRoot are ICANN-section rules that are not delegated in the IANA root:
// .onion is a special-use name (RFC 7686) that no registrar can sell.
var notInRoot = map[string]bool{"onion": true}

// secondLevelLabels picks the common commercial second-level zones out of
// the many two-label rules: co.uk, com.au, net.au, org.uk and their kind.
var secondLevelLabels = map[string]bool{"co": true, "com": true, "net": true, "org": true}

// idnCCTLDs are the internationalised country-code TLDs in the IANA root,
// in the Unicode form their countries publish; they are normalised to
// A-labels when the catalogue is first built.
var idnCCTLDs = []string{
	"ישראל", "امارات", "հայ", "বাংলা", "бг", "البحرين", "бел", "中国", "中國",
	"الجزائر", "مصر", "ею", "ευ", "موريتانيا", "გე", "ελ", "香港", "ಭಾರತ", "ଭାରତ",
	"ভাৰত", "भारतम्", "भारोत", "ڀارت", "ഭാരതം", "भारत", "بارت", "بھارت", "భారత్",
	"ભારત", "ਭਾਰਤ", "ভারত", "இந்தியா", "ایران", "ايران", "عراق", "الاردن", "한국",
	"қаз", "ລາວ", "ලංකා", "இலங்கை", "المغرب", "мкд", "мон", "澳門", "澳门",
	"مليسيا", "عمان", "پاکستان", "پاكستان", "فلسطين", "срб", "рф", "قطر",
	"السعودية", "السعودیة", "السعودیۃ", "السعوديه", "سودان", "新加坡",
	"சிங்கப்பூர்", "سورية", "سوريا", "ไทย", "تونس", "台灣", "台湾", "臺灣", "укр",
	"اليمن",
}

// The IANA types of the TLDs that are neither generic nor country-code, as
// the root zone database lists them.
var (
	sponsoredTLDs = map[string]bool{
		"aero": true, "asia": true, "cat": true, "coop": true, "edu": true, "gov": true,
		"int": true, "jobs": true, "mil": true, "museum": true, "post": true, "tel": true,
		"travel": true, "xxx": true,
	}
	restrictedTLDs = map[string]bool{"biz": true, "name": true, "pro": true}
)

// legacyGTLDs are the generic TLDs that predate the 2012 new gTLD programme.
var legacyGTLDs = map[string]bool{
	"com": true, "net": true, "org": true, "info": true, "biz": true,
	"name": true, "pro": true, "mobi": true,
}

// LegacyGTLD reports whether zone is one of the generic TLDs older than the
// 2012 new gTLD programme (.com, .net, .org, .info, .biz, .name, .pro,
// .mobi). A second-level zone is not.
func LegacyGTLD(zone string) bool { return !isSecondLevel(zone) && legacyGTLDs[tld(zone)] }

// Catalog is a list of zones with their IANA types and categories: the
// builtin one, or one built from IANA's published data.
type Catalog struct {
	zones  []contracts.Zone // sorted by ASCII form
	info   map[string]zoneInfo
	source string
}

type zoneInfo struct {
	unicode string
	typ     string
	cats    []string
}

// builtin is what Builtin computes once: it depends only on constants, the
// embedded category file and the pinned library.
type builtin struct {
	cat         *Catalog
	secondLevel map[string][]contracts.Zone // the PSL's commercial second-level zones by TLD
	rules       *categoryRules
	// suffixes are every name of more than one label that the Public
	// Suffix List has a normal rule for, in either of its sections
	// (.me.uk, .com.au, CentralNic's .uk.com), canonical: the second-level
	// zones the root-zone guard knows (Root).
	suffixes map[string]bool
}

var loadBuiltin = sync.OnceValues(buildBuiltin)

// Builtin returns the builtin catalog: every ICANN top-level domain in the
// Public Suffix List that is in the IANA root, and the common second-level
// zones (co, com, net and org under a TLD), with types by rule (see
// builtinType). It includes zones nobody sells, such as .arpa and .gov.
// Its metadata carries source BuiltinSource.
func Builtin() (*Catalog, error) {
	b, err := loadBuiltin()
	if err != nil {
		return nil, err
	}
	return b.cat, nil
}

func buildBuiltin() (*builtin, error) {
	rules, err := newCategoryRules(contracts.Categories())
	if err != nil {
		return nil, err
	}
	idnCC := make(map[string]bool, len(idnCCTLDs))
	for _, u := range idnCCTLDs {
		z, err := contracts.NormalizeZone(u)
		if err != nil {
			return nil, fmt.Errorf("normalise IDN ccTLD %s: %w", u, err)
		}
		idnCC[z.ASCII] = true
	}
	var tlds []contracts.Zone
	second := map[string][]contracts.Zone{}
	seen := map[string]bool{}
	suffixes := map[string]bool{}
	for _, r := range publicsuffix.DefaultRules() {
		if r.Type != publicsuffix.NormalType {
			continue
		}
		left, _, twoLabels := strings.Cut(r.Value, ".")
		if twoLabels {
			if z, err := contracts.NormalizeZone(r.Value); err == nil {
				suffixes[z.ASCII] = true
			}
		}
		if r.Private {
			continue
		}
		switch {
		case !twoLabels:
			if notInRoot[r.Value] {
				continue
			}
		case strings.Count(r.Value, ".") == 1 && secondLevelLabels[left]:
		default:
			continue
		}
		z, err := contracts.NormalizeZone(r.Value)
		if err != nil || seen[z.ASCII] {
			continue
		}
		seen[z.ASCII] = true
		if twoLabels {
			parent := z.ASCII[strings.IndexByte(z.ASCII[1:], '.')+1:]
			second[parent] = append(second[parent], z)
		} else {
			tlds = append(tlds, z)
		}
	}
	if len(tlds) == 0 {
		return nil, errors.New("public suffix list has no ICANN top-level rules")
	}
	types := make(map[string]string, len(tlds))
	for _, z := range tlds {
		types[z.ASCII] = builtinType(z.ASCII, idnCC)
	}
	// The list has second-level rules under a few TLDs it has no rule for
	// (co.za but no za); those second-level zones are kept, typed by rule.
	for parent := range second {
		if types[parent] == "" {
			types[parent] = builtinType(parent, idnCC)
		}
	}
	cat := newCatalog(tlds, types, second, rules, BuiltinSource)
	return &builtin{cat: cat, secondLevel: second, rules: rules, suffixes: suffixes}, nil
}

// newCatalog builds a catalog of the TLDs in tlds, typed by types (keyed by
// canonical zone), plus the second-level zones second lists under each
// typed TLD, typed as their TLD.
func newCatalog(tlds []contracts.Zone, types map[string]string, second map[string][]contracts.Zone, rules *categoryRules, source string) *Catalog {
	c := &Catalog{info: make(map[string]zoneInfo, len(tlds)), source: source}
	add := func(z contracts.Zone, typ string) {
		if _, dup := c.info[z.ASCII]; dup {
			return
		}
		c.zones = append(c.zones, z)
		c.info[z.ASCII] = zoneInfo{unicode: z.Unicode, typ: typ, cats: rules.categories(z.ASCII, typ)}
	}
	for _, z := range tlds {
		add(z, types[z.ASCII])
	}
	for parent, zones := range second {
		if typ, ok := types[parent]; ok {
			for _, z := range zones {
				add(z, typ)
			}
		}
	}
	slices.SortFunc(c.zones, func(a, b contracts.Zone) int { return strings.Compare(a.ASCII, b.ASCII) })
	return c
}

// Zones returns the catalog's zones, sorted by canonical ASCII form.
func (c *Catalog) Zones() []contracts.Zone { return slices.Clone(c.zones) }

// Len is the number of zones in the catalog.
func (c *Catalog) Len() int { return len(c.zones) }

// Source is the source the catalog's metadata carries: BuiltinSource or
// Name.
func (c *Catalog) Source() string { return c.source }

// Type returns the IANA type of a canonical zone in the catalog; a
// second-level zone has its TLD's type.
func (c *Catalog) Type(zone string) (string, bool) {
	i, ok := c.info[zone]
	return i.typ, ok
}

// Meta returns the metadata of a canonical zone in the catalog, observed
// at observed.
func (c *Catalog) Meta(zone string, observed time.Time) (contracts.ZoneMeta, bool) {
	i, ok := c.info[zone]
	if !ok {
		return contracts.ZoneMeta{}, false
	}
	return contracts.ZoneMeta{
		V: contracts.SchemaVersion, Kind: contracts.KindZoneMeta, Zone: zone, Unicode: i.unicode,
		Type: i.typ, Categories: slices.Clone(i.cats), ObservedAt: observed, Source: c.source,
	}, true
}

// Metas returns the metadata of every zone in the catalog, in Zones order.
func (c *Catalog) Metas(observed time.Time) []contracts.ZoneMeta {
	out := make([]contracts.ZoneMeta, 0, len(c.zones))
	for _, z := range c.zones {
		m, _ := c.Meta(z.ASCII, observed)
		out = append(out, m)
	}
	return out
}

// tld returns the rightmost label of a canonical zone, without the dot.
func tld(zone string) string { return zone[strings.LastIndexByte(zone, '.')+1:] }

// isSecondLevel reports whether a canonical zone has two labels.
func isSecondLevel(zone string) bool { return strings.Count(zone, ".") == 2 }

// builtinType is the IANA root zone database type of a TLD, by rule:
// "arpa" is infrastructure; the sponsored and generic-restricted TLDs are
// listed above; every two-letter TLD and every IDN ccTLD is country-code;
// everything else is generic.
func builtinType(zone string, idnCC map[string]bool) string {
	t := tld(zone)
	switch {
	case t == "arpa":
		return contracts.TypeInfrastructure
	case sponsoredTLDs[t]:
		return contracts.TypeSponsored
	case restrictedTLDs[t]:
		return contracts.TypeGenericRestricted
	case len(t) == 2 && isLetters(t), idnCC["."+t]:
		return contracts.TypeCountryCode
	}
	return contracts.TypeGeneric
}

func isLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

// categoryRules assigns categories in the order contracts.Categories lists
// them: the zone's type, the overlays by rule, then the thematic categories
// that list the zone.
type categoryRules struct {
	steps []categoryStep
}

type categoryStep struct {
	id     string
	member func(zone, typ string) bool
}

// overlayRules are the overlays derived from a zone's name and type; an
// overlay that lists zones (cctld-as-generic) needs none.
var overlayRules = map[string]func(zone, typ string) bool{
	CategorySecondLevel: func(zone, _ string) bool { return isSecondLevel(zone) },
	CategoryIDN:         func(zone, _ string) bool { return strings.Contains(zone, ".xn--") },
	CategoryLegacyGTLD:  func(zone, _ string) bool { return LegacyGTLD(zone) },
	CategoryNewGTLD: func(zone, typ string) bool {
		return typ == contracts.TypeGeneric && !isSecondLevel(zone) && !legacyGTLDs[tld(zone)]
	},
}

func newCategoryRules(cats []contracts.Category) (*categoryRules, error) {
	r := &categoryRules{}
	for _, c := range cats {
		var member func(zone, typ string) bool
		switch {
		case c.Kind == contracts.CategoryKindType:
			id := c.ID
			member = func(_, typ string) bool { return typ == id }
		case c.Kind == contracts.CategoryKindOverlay && overlayRules[c.ID] != nil:
			member = overlayRules[c.ID]
		case len(c.Zones) > 0:
			listed := make(map[string]bool, len(c.Zones))
			for _, z := range c.Zones {
				listed[z] = true
			}
			member = func(zone, _ string) bool { return listed[zone] }
		default:
			return nil, fmt.Errorf("category %s (%s) has neither a rule nor zones", c.ID, c.Kind)
		}
		r.steps = append(r.steps, categoryStep{id: c.ID, member: member})
	}
	return r, nil
}

// categories are the ids a zone of type typ is browsed by.
func (r *categoryRules) categories(zone, typ string) []string {
	var cats []string
	for _, s := range r.steps {
		if s.member(zone, typ) {
			cats = append(cats, s.id)
		}
	}
	return cats
}
