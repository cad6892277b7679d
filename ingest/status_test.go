package ingest_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/iana"
)

// describedSource is a listSource that states its facts: registrar "a"
// is declared, any other its lists name is known by its id.
type describedSource struct{ listSource }

var _ ingest.Describer = (*describedSource)(nil)

func (s *describedSource) Describe() ingest.Description {
	return ingest.Description{
		Kind: contracts.SourceSite, Document: "https://user:secret@prices.example/list.json", Currency: "USD", Tax: contracts.TaxExcluded,
		Registrars: []ingest.Registrar{{ID: "a", Name: "Alpha Names", Website: "https://alpha.example", Currency: "EUR"}},
	}
}

// statusHarness is a guarded runner of a describedSource on a real stream.
type statusHarness struct {
	*harness
	src *describedSource
}

func newStatusHarness(t *testing.T, cfg ingest.RunnerConfig) *statusHarness {
	t.Helper()
	h := newHarness(t)
	sh := &statusHarness{harness: h, src: &describedSource{}}
	sh.restart(t, cfg)
	return sh
}

// restart replaces the runner by a new one on the same stream, as a
// restarted ingester's.
func (h *statusHarness) restart(t *testing.T, cfg ingest.RunnerConfig) {
	t.Helper()
	h.reg = prometheus.NewRegistry()
	h.r = describedRunner(t, h.harness, h.src, cfg)
}

// describedRunner is a guarded runner of src on h's stream and clock.
func describedRunner(t *testing.T, h *harness, src ingest.Source, cfg ingest.RunnerConfig) *ingest.Runner {
	t.Helper()
	cfg.Timeout, cfg.MinKeepRatio = 10*time.Second, 0.5
	r, err := ingest.NewRunner(src, bus.NewStreams(h.js), bus.NewPublisher(h.js), cfg, slog.New(slog.DiscardHandler), h.reg, func() time.Time { return h.now })
	if err != nil {
		t.Fatal(err)
	}
	r.Guard(iana.NewRoot(bus.NewStreams(h.js)))
	return r
}

// round runs one round of l, or of fetchErr, a minute after the last.
func (h *statusHarness) round(t *testing.T, l *ingest.List, fetchErr error) error {
	t.Helper()
	h.now = h.now.Add(time.Minute)
	if l != nil {
		for i := range l.Prices {
			l.Prices[i].ObservedAt = h.now
		}
	}
	h.src.list, h.src.err = l, fetchErr
	return h.r.Once(context.Background())
}

// statuses reads every registrar status on the stream, by registrar.
func (h *statusHarness) statuses(t *testing.T) map[string]*contracts.RegistrarStatus {
	t.Helper()
	out := map[string]*contracts.RegistrarStatus{}
	err := bus.NewStreams(h.js).ReadLast(context.Background(), contracts.StateStream, bus.ReaderConfig{Filters: []string{contracts.StatusSubjectPrefix + "*"}}, func(m bus.Msg) bool {
		ev, err := contracts.Decode(m.Data)
		st, ok := ev.(*contracts.RegistrarStatus)
		if err != nil || !ok {
			t.Errorf("%s: %v (%T)", m.Subject, err, ev)
			return true
		}
		out[st.Registrar] = st
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRunnerPublishesStatuses follows one registrar's status through a
// good round, failures of each class, a restart and a recovery: the last
// attempt and the failure follow every round, while the last success, the
// zones and what the guard skipped are the last good list's, read back
// from the stream after a restart.
func TestRunnerPublishesStatuses(t *testing.T) {
	h := newStatusHarness(t, ingest.RunnerConfig{Interval: 6 * time.Hour})
	good := func() *ingest.List {
		l := list(set("a", ".com", 100), set("a", ".net", 200), set("a", ".io", 250), set("a", ".info", 150), set("a", ".0db", 50), set("b", ".org", 300))
		l.Outside = []ingest.Skip{{Registrar: "a", Name: ".8888", Reason: contracts.SkipNotInRoot}}
		return l
	}
	if err := h.round(t, good(), nil); err != nil {
		t.Fatal(err)
	}
	success := h.now
	sts := h.statuses(t)
	if got := slices.Sorted(maps.Keys(sts)); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("statuses of %v, want a (declared) and b (its list names it)", got)
	}
	a := sts["a"]
	want := contracts.RegistrarStatus{
		V: contracts.SchemaVersion, Kind: contracts.KindRegistrarStatus, Registrar: "a", Name: "Alpha Names",
		Website: "https://alpha.example", Source: "test", SourceKind: contracts.SourceSite,
		Document: "https://prices.example/list.json", Currency: "EUR", Tax: contracts.TaxExcluded, IntervalSeconds: 6 * 3600,
		LastAttempt: success, LastSuccess: &success, Zones: 4,
		Skipped:      map[string]int{contracts.SkipNotInRoot: 2},
		SkippedNames: []string{".8888", ".0db"}, ObservedAt: success,
	}
	if got := fmt.Sprintf("%+v", *a); got != fmt.Sprintf("%+v", want) || !a.LastSuccess.Equal(success) {
		t.Errorf("a after a good round:\n got %s\nwant %s", got, fmt.Sprintf("%+v", want))
	}
	if b := sts["b"]; b.Name != "b" || b.Website != "" || b.Currency != "USD" || b.Zones != 1 || len(b.Skipped) != 0 {
		t.Errorf("b, which the source does not declare: %+v, want its id as its name and the source's currency", b)
	}

	tests := []struct {
		name    string
		list    *ingest.List
		err     error
		failure string
	}{
		{"an HTTP status", nil, fmt.Errorf("after 4 attempts: %w", &fetch.StatusError{Method: "GET", URL: "https://x", Status: 503}), contracts.FailureFetch},
		{"a timeout", nil, fmt.Errorf("fetch: %w", context.DeadlineExceeded), contracts.FailureFetch},
		{"a body that does not parse", nil, errors.New("decode price list: invalid character '<'"), contracts.FailureParse},
		{"a shrunk list", list(set("a", ".com", 100)), nil, contracts.FailureShrunk},
	}
	for i, tt := range tests {
		if i == 2 {
			// A restart in between: the last success is read back.
			h.restart(t, ingest.RunnerConfig{Interval: 6 * time.Hour})
		}
		if err := h.round(t, tt.list, tt.err); err == nil {
			t.Fatalf("%s: the round succeeded", tt.name)
		}
		sts := h.statuses(t)
		a, b := sts["a"], sts["b"]
		if a == nil || b == nil {
			t.Fatalf("%s: statuses %v, want a and b (b's last status was this source's)", tt.name, slices.Sorted(maps.Keys(sts)))
		}
		for _, st := range []*contracts.RegistrarStatus{a, b} {
			if st.Failure != tt.failure || !st.LastAttempt.Equal(h.now) || st.LastSuccess == nil || !st.LastSuccess.Equal(success) {
				t.Errorf("%s: %s failure %q, last attempt %v, last success %v; want %q, %v, %v", tt.name, st.Registrar, st.Failure, st.LastAttempt, st.LastSuccess, tt.failure, h.now, success)
			}
		}
		if a.Zones != 4 || a.Skipped[contracts.SkipNotInRoot] != 2 || len(a.SkippedNames) != 2 {
			t.Errorf("%s: a zones %d, skipped %v %v; want the last good list's 4, 2", tt.name, a.Zones, a.Skipped, a.SkippedNames)
		}
	}

	if err := h.round(t, good(), nil); err != nil {
		t.Fatal(err)
	}
	if a := h.statuses(t)["a"]; a.Failure != "" || !a.LastSuccess.Equal(h.now) {
		t.Errorf("a after a good round again: failure %q, last success %v; want none and %v", a.Failure, a.LastSuccess, h.now)
	}
}

// TestRunnerStatusesOfOneSource shows the interval a one-round run
// states, that a source reports on the registrars it declares even before
// its first good list and never carries over another source's last
// success (a handover), and that a source that describes nothing
// publishes no status.
func TestRunnerStatusesOfOneSource(t *testing.T) {
	h := newStatusHarness(t, ingest.RunnerConfig{})
	if err := h.round(t, list(set("a", ".com", 100)), nil); err != nil {
		t.Fatal(err)
	}
	if st := h.statuses(t)["a"]; st == nil || st.IntervalSeconds != 3600 || st.Source != "test" || st.LastSuccess == nil {
		t.Fatalf("a after a one-round runner with no stated interval: %+v, want a success and an hour", st)
	}

	other := &renamedSource{describedSource: &describedSource{listSource{err: errors.New("no list yet")}}, name: "other-test"}
	h.now = h.now.Add(time.Minute)
	if err := describedRunner(t, h.harness, other, ingest.RunnerConfig{StatedInterval: 24 * time.Hour}).Once(context.Background()); err == nil {
		t.Fatal("the round succeeded")
	}
	st := h.statuses(t)["a"]
	if st.Source != "other-test" || st.LastSuccess != nil || st.Zones != 0 || st.Failure != contracts.FailureParse || st.IntervalSeconds != 24*3600 {
		t.Errorf("a after another source's failed first round: %+v; want that source's, with no success, no zones, failure parse and a day's interval", st)
	}

	h.reg = prometheus.NewRegistry()
	plain := describedRunner(t, h.harness, &listSource{list: list(set("z", ".com", 100))}, ingest.RunnerConfig{})
	before := h.statuses(t)
	if err := plain.Once(context.Background()); err != nil {
		t.Fatal(err)
	}
	if after := h.statuses(t); len(after) != len(before) || after["z"] != nil {
		t.Errorf("a source that describes nothing changed the statuses: %v, want %v", slices.Sorted(maps.Keys(after)), slices.Sorted(maps.Keys(before)))
	}
}

// renamedSource is a describedSource under another name.
type renamedSource struct {
	*describedSource
	name string
}

func (s *renamedSource) Name() string { return s.name }
