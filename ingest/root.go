package ingest

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/zoneprice/zoneprice/contracts"
)

// Root is the root-zone guard's knowledge of the DNS root (iana.Root): a
// price is for a zone only if the zone's TLD is delegated in the root or
// it is a known second-level zone under one. Everything else a list
// prices (Handshake names, typos, test labels) the runner skips, for
// every source: never published, never a zone of the catalog, and
// withdrawn where an earlier round published it.
type Root interface {
	// Check returns the test of one round, read again every round so
	// that a TLD the root delegates later is a zone from the next round
	// on. The test returns why a canonical zone is no zone of the root
	// (contracts.SkipNotInRoot, contracts.SkipUnknownSecondLevel), or ""
	// for a zone of the root.
	Check(ctx context.Context) (func(zone string) (reason string), error)
}

// Skip is a name of a list that the root-zone guard kept out of the
// catalog: the registrar whose price it was, the name (canonical, ".0db")
// and the reason, one of contracts.SkipReasons.
type Skip struct {
	Registrar, Name, Reason string
}

// maxSkipExamples is how many skipped names a round's log line shows.
const maxSkipExamples = 8

// Guard makes every round keep its list to the zones root knows
// (Root). It must be called before Run; without it nothing is skipped.
func (r *Runner) Guard(root Root) { r.root = root }

// guard returns the list without the prices of names outside the root,
// nor the kept subjects of such names (so that an earlier price of theirs
// is withdrawn like a zone that left the list), and every name skipped,
// the list's own Outside among them. It also returns the round's test,
// nil without a guard, so that the shrink guard counts only the zones of
// the root the stream holds.
func (r *Runner) guard(ctx context.Context, list *List) (*List, []Skip, func(string) string, error) {
	skips := make([]Skip, 0, len(list.Outside))
	for _, s := range list.Outside {
		if !slices.Contains(contracts.SkipReasons(), s.Reason) {
			s.Reason = contracts.SkipNotInRoot // a bounded label, whatever a source says
		}
		skips = append(skips, s)
	}
	if r.root == nil || len(list.Prices) == 0 && len(list.Keep) == 0 {
		return list, skips, nil, nil
	}
	cctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	check, err := r.root.Check(cctx)
	cancel()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("read the zones of the DNS root: %w", err)
	}
	test := func(zone string) string {
		if !contracts.IsCanonicalZone(zone) {
			return "" // not a zone at all: validation skips and counts it
		}
		return check(zone)
	}
	out := *list
	out.Prices = make([]contracts.PriceSet, 0, len(list.Prices))
	for _, p := range list.Prices {
		if reason := test(p.Zone); reason != "" {
			skips = append(skips, Skip{Registrar: p.Registrar, Name: p.Zone, Reason: reason})
			continue
		}
		out.Prices = append(out.Prices, p)
	}
	out.Keep = slices.DeleteFunc(slices.Clone(list.Keep), func(s string) bool {
		_, zone, ok := contracts.ParsePriceSubject(s)
		return ok && test(zone) != ""
	})
	return &out, skips, test, nil
}

// reportSkips counts a round's skipped names by reason and logs them once,
// with a few examples.
func (r *Runner) reportSkips(skips []Skip) {
	if len(skips) == 0 {
		return
	}
	counts := map[string]int{}
	var examples []string
	for _, s := range skips {
		counts[s.Reason]++
		if len(examples) < maxSkipExamples {
			examples = append(examples, s.Name)
		}
	}
	args := []any{"skipped", len(skips)}
	for _, reason := range contracts.SkipReasons() {
		r.m.outside.WithLabelValues(reason).Add(float64(counts[reason]))
		args = append(args, strings.ReplaceAll(reason, "-", "_"), counts[reason])
	}
	args = append(args, "examples", strings.Join(examples, " "))
	r.log.Info("names outside the DNS root skipped: never published, withdrawn where published before", args...)
}
