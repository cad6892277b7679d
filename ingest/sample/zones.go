package sample

import (
	"strings"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest/iana"
)

// The zones, their types and their categories are the iana package's
// builtin catalog: real zones from the Public Suffix List, typed by rule.
// The sample publishes that catalog's metadata unchanged, so that it and
// the iana source publish identical documents for a zone apart from
// observed_at; only the prices here are made up.

// notForSale are TLDs that are in the root but not sold to the public. They
// get metadata but no prices.
var notForSale = map[string]bool{"arpa": true, "int": true, "mil": true, "gov": true, "edu": true}

// Zones returns the real zone list, sorted by canonical ASCII form: the
// builtin catalog of package iana (every ICANN top-level domain in the
// Public Suffix List that is in the IANA root, and the common second-level
// zones: co, com, net and org under a TLD). It includes zones that are not
// for sale, such as .arpa and .gov; the sample prices none of them.
func Zones() ([]contracts.Zone, error) {
	cat, err := iana.Builtin()
	if err != nil {
		return nil, err
	}
	return cat.Zones(), nil
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
