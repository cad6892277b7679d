package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
)

// registrars prints every registrar's last status from the state stream,
// one row each, sorted by id; with skipped, the names the root-zone guard
// skipped of each registrar's last good list instead, one per line. A
// status that does not decode or validate is counted, not shown.
func registrars(ctx context.Context, js jetstream.JetStream, skipped bool, stdout io.Writer) error {
	var sts []*contracts.RegistrarStatus
	unreadable := 0
	err := bus.NewStreams(js).ReadLast(ctx, contracts.StateStream, bus.ReaderConfig{Filters: []string{contracts.StatusSubjectPrefix + "*"}}, func(m bus.Msg) bool {
		ev, err := contracts.Decode(m.Data)
		if st, ok := ev.(*contracts.RegistrarStatus); err == nil && ok && contracts.OnSubject(st, m.Subject) {
			sts = append(sts, st)
		} else {
			unreadable++
		}
		return true
	})
	if err != nil && !errors.Is(err, bus.ErrIncomplete) {
		return fmt.Errorf("read the registrars' statuses: %w", err)
	}
	slices.SortFunc(sts, func(a, b *contracts.RegistrarStatus) int { return strings.Compare(a.Registrar, b.Registrar) })
	if skipped {
		err = printSkipped(sts, stdout)
	} else {
		err = printStatuses(sts, stdout)
	}
	if err != nil {
		return err
	}
	if len(sts) == 0 {
		fmt.Fprintln(stdout, "no registrar status yet: each ingester publishes its registrars' after every round")
	}
	if unreadable > 0 {
		fmt.Fprintf(stdout, "%d status records could not be read (query pods ignore them)\n", unreadable)
	}
	return nil
}

// printStatuses writes the table of registrars.
func printStatuses(sts []*contracts.RegistrarStatus, stdout io.Writer) error {
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "REGISTRAR\tNAME\tSOURCE\tKIND\tCURRENCY\tTAX\tINTERVAL\tLAST ATTEMPT\tLAST SUCCESS\tFAILURE\tZONES\tSKIPPED")
	for _, st := range sts {
		success := "never"
		if st.LastSuccess != nil {
			success = st.LastSuccess.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%v\t%s\t%s\t%s\t%d\t%s\n", st.Registrar, st.Name, st.Source, st.SourceKind,
			cmp.Or(st.Currency, "per row"), st.Tax, time.Duration(st.IntervalSeconds)*time.Second,
			st.LastAttempt.UTC().Format(time.RFC3339), success, cmp.Or(st.Failure, "-"), st.Zones, skipCounts(st.Skipped))
	}
	return w.Flush()
}

// skipCounts writes a status's skipped counts by reason ("not-in-root=627"),
// "-" when there are none.
func skipCounts(skipped map[string]int) string {
	var parts []string
	for _, reason := range slices.Sorted(maps.Keys(skipped)) {
		if n := skipped[reason]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", reason, n))
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ",")
}

// printSkipped writes each registrar's skipped names, and how many more
// its status counted than it lists.
func printSkipped(sts []*contracts.RegistrarStatus, stdout io.Writer) error {
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "REGISTRAR\tSOURCE\tNAME")
	for _, st := range sts {
		for _, name := range st.SkippedNames {
			fmt.Fprintf(w, "%s\t%s\t%s\n", st.Registrar, st.Source, name)
		}
		total := 0
		for _, n := range st.Skipped {
			total += n
		}
		if more := total - len(st.SkippedNames); more > 0 {
			fmt.Fprintf(w, "%s\t%s\t(and %d more)\n", st.Registrar, st.Source, more)
		}
	}
	return w.Flush()
}
