package sample

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

// The zone list is real: the ICANN section of the Public Suffix List, as the
// version of publicsuffix-go pinned in go.mod ships it. The library's List
// keeps its rules in an unexported map with no way to enumerate them, but it
// also exports DefaultRules (since v0.5.0), the generated table DefaultList
// is built from. Reading that needs no reflection on unexported fields, and
// its shape is part of the library's API. The tests pin minimum counts and
// known members, so an update that changes what the table holds fails loudly.

// notInRoot are ICANN-section rules that are not delegated in the IANA root:
// .onion is a special-use name (RFC 7686) that no registrar can sell.
var notInRoot = map[string]bool{"onion": true}

// notForSale are TLDs that are in the root but not sold to the public. They
// get metadata but no prices.
var notForSale = map[string]bool{"arpa": true, "int": true, "mil": true, "gov": true, "edu": true}

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

// Category ids beyond the IANA type ids, which are categories too.
const (
	CategoryIDN            = "idn"
	CategorySecondLevel    = "second-level"
	CategoryCCTLDAsGeneric = "cctld-as-generic"
	CategoryLegacyGTLD     = "legacy-gtld"
)

// ccTLDsAsGeneric are country codes marketed worldwide as generic names.
var ccTLDsAsGeneric = map[string]bool{
	"io": true, "ai": true, "co": true, "me": true, "tv": true, "cc": true,
	"fm": true, "gg": true, "ly": true, "sh": true, "to": true, "ws": true,
}

// legacyGTLDs are the generic TLDs that predate the 2012 new gTLD programme.
var legacyGTLDs = map[string]bool{
	"com": true, "net": true, "org": true, "info": true, "biz": true,
	"name": true, "pro": true, "mobi": true,
}

// catalog is everything derived once from the bundled list.
type catalog struct {
	zones []contracts.Zone // sorted by ASCII form
	idnCC map[string]bool  // canonical ASCII forms of the IDN ccTLDs
}

// loadCatalog builds the catalogue on first use. It depends only on
// constants and the pinned library, so computing it once is safe.
var loadCatalog = sync.OnceValues(buildCatalog)

func buildCatalog() (*catalog, error) {
	idnCC := make(map[string]bool, len(idnCCTLDs))
	for _, u := range idnCCTLDs {
		z, err := contracts.NormalizeZone(u)
		if err != nil {
			return nil, fmt.Errorf("normalise IDN ccTLD %s: %w", u, err)
		}
		idnCC[z.ASCII] = true
	}
	var zones []contracts.Zone
	seen := map[string]bool{}
	tlds := 0
	for _, r := range publicsuffix.DefaultRules() {
		if r.Private || r.Type != publicsuffix.NormalType {
			continue
		}
		left, _, twoLabels := strings.Cut(r.Value, ".")
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
		zones = append(zones, z)
		if !twoLabels {
			tlds++
		}
	}
	if tlds == 0 {
		return nil, errors.New("public suffix list has no ICANN top-level rules")
	}
	slices.SortFunc(zones, func(a, b contracts.Zone) int { return strings.Compare(a.ASCII, b.ASCII) })
	return &catalog{zones: zones, idnCC: idnCC}, nil
}

// Zones returns the real zone list, sorted by canonical ASCII form: every
// ICANN top-level domain in the Public Suffix List that is in the IANA root,
// and the common second-level zones (co, com, net and org under a TLD). It
// includes zones that are not for sale, such as .arpa and .gov; the sample
// prices none of them.
func Zones() ([]contracts.Zone, error) {
	cat, err := loadCatalog()
	if err != nil {
		return nil, err
	}
	return slices.Clone(cat.zones), nil
}

// tld returns the rightmost label of a canonical zone, without the dot.
func tld(zone string) string { return zone[strings.LastIndexByte(zone, '.')+1:] }

// isSecondLevel reports whether a canonical zone has two labels.
func isSecondLevel(zone string) bool { return strings.Count(zone, ".") == 2 }

// priced reports whether the sample registrars may sell a zone.
func priced(zone string) bool { return !notForSale[tld(zone)] }

// soldByAll are zones every sample registrar sells, as every real general
// registrar does.
func soldByAll(zone string) bool {
	switch zone {
	case ".com", ".net", ".org":
		return true
	}
	return isSecondLevel(zone) && tld(zone) == "uk"
}

// zoneType is the IANA root zone database type of a zone's TLD, by rule:
// "arpa" is infrastructure; the sponsored and generic-restricted TLDs are
// listed above; every two-letter TLD and every IDN ccTLD is country-code;
// everything else is generic. A second-level zone takes its TLD's type.
func zoneType(zone string, idnCC map[string]bool) string {
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

// categories are the ids a zone is browsed by: its IANA type; "second-level"
// for two-label zones; "idn" when a label is an A-label; and, for TLDs only,
// "cctld-as-generic" for country codes sold as generic names and
// "legacy-gtld" for the generic TLDs older than the new gTLD programme.
func categories(zone, typ string) []string {
	cats := []string{typ}
	second := isSecondLevel(zone)
	if second {
		cats = append(cats, CategorySecondLevel)
	}
	if strings.Contains(zone, ".xn--") {
		cats = append(cats, CategoryIDN)
	}
	if !second && ccTLDsAsGeneric[tld(zone)] {
		cats = append(cats, CategoryCCTLDAsGeneric)
	}
	if !second && legacyGTLDs[tld(zone)] {
		cats = append(cats, CategoryLegacyGTLD)
	}
	return cats
}

func zoneMeta(z contracts.Zone, idnCC map[string]bool, observed time.Time) contracts.ZoneMeta {
	typ := zoneType(z.ASCII, idnCC)
	return contracts.ZoneMeta{
		V: contracts.SchemaVersion, Kind: contracts.KindZoneMeta, Zone: z.ASCII, Unicode: z.Unicode,
		Type: typ, Categories: categories(z.ASCII, typ), ObservedAt: observed, Source: MetaSource,
	}
}
