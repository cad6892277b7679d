package ingest

import (
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
