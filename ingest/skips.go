package ingest

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/zoneprice/zoneprice/contracts"
)

// SkipSummary lists the first few reasons a source skipped rows, for the
// error it returns when nothing usable is left.
func SkipSummary(reasons []string) string {
	const show = 5
	if len(reasons) <= show {
		return strings.Join(reasons, "; ")
	}
	return strings.Join(reasons[:show], "; ") + fmt.Sprintf("; and %d more", len(reasons)-show)
}

// KeepSubjects returns List.Keep from the subjects of rows that could not
// be read, less those the list prices after all (a zone listed twice, one
// listing read), sorted; nil when none are left.
func KeepSubjects(subjects map[string]bool, prices []contracts.PriceSet) []string {
	for i := range prices {
		delete(subjects, prices[i].Subject())
	}
	if len(subjects) == 0 {
		return nil
	}
	return slices.Sorted(maps.Keys(subjects))
}

// LeftOut is why a row is left out by design rather than skipped: it is
// not a zone the source prices (a Handshake name, a premium plan, another
// duration). It is neither counted nor kept; its zone, if it had a price,
// is withdrawn like one that left the list.
type LeftOut string

func (e LeftOut) Error() string { return string(e) }

// Tally collects the rows of one list as a source parses them: the price
// sets, and for every other row why, whether it was left out or skipped,
// and the subject whose last good price a skipped row keeps.
type Tally struct {
	prices  []contracts.PriceSet
	reasons []string
	skipped int
	keep    map[string]bool
	seen    map[string]bool
	outside []Skip
}

// Add records one row: its price set, or the error that says why it has
// none (a LeftOut, or anything else for a row that could not be read; ps
// still names the zone when the row did, and its registrar). A zone
// already priced is a skipped duplicate. A name with a numeric top-level
// label (contracts.NumericTLDError) is no row the source failed to read
// but a name outside the DNS root: it goes to List.Outside. label names
// the row in the reasons.
func (t *Tally) Add(label string, ps contracts.PriceSet, err error) {
	if t.seen == nil {
		t.seen, t.keep = map[string]bool{}, map[string]bool{}
	}
	if err == nil && t.seen[ps.Zone] {
		err = fmt.Errorf("zone %s listed twice", ps.Zone)
	}
	if err != nil {
		t.reasons = append(t.reasons, label+": "+err.Error())
		if nt := (*contracts.NumericTLDError)(nil); errors.As(err, &nt) {
			t.outside = append(t.outside, Skip{Registrar: ps.Registrar, Name: nt.Name, Reason: contracts.SkipNotInRoot})
			return
		}
		if !errors.As(err, new(LeftOut)) {
			t.skipped++
			if ps.Zone != "" {
				t.keep[ps.Subject()] = true
			}
		}
		return
	}
	t.seen[ps.Zone] = true
	t.prices = append(t.prices, ps)
}

// Skipped is how many rows were skipped so far: rows that could not be
// read, not rows left out.
func (t *Tally) Skipped() int { return t.skipped }

// List returns the prices sorted by zone, with Keep and Skipped; or, when
// no row was usable, an error naming what (the list) and the first reasons.
func (t *Tally) List(what string) (*List, error) {
	if len(t.prices) == 0 {
		return nil, fmt.Errorf("no usable zone in %s: %d rows not priced: %s", what, len(t.reasons), SkipSummary(t.reasons))
	}
	slices.SortFunc(t.prices, func(a, b contracts.PriceSet) int { return strings.Compare(a.Zone, b.Zone) })
	return &List{Prices: t.prices, Keep: KeepSubjects(t.keep, t.prices), Skipped: t.skipped, Outside: t.outside}, nil
}
