package namecheaplist_test

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/iana"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/kit"
	"github.com/zoneprice/zoneprice/ingest/namecheap"
	"github.com/zoneprice/zoneprice/ingest/namecheaplist"
)

// fixedSource publishes the same list every round: another registrar on the
// stream, which neither Namecheap source may touch.
type fixedSource struct{ list ingest.List }

func (s *fixedSource) Name() string { return "porkbun" }

func (s *fixedSource) Fetch(context.Context) (*ingest.List, error) {
	l := s.list
	return &l, nil
}

// runner is a second runner on the harness's stream, as another process of
// the same deployment (or the same process after a restart) would run.
func runner(t *testing.T, h *ingesttest.Harness, src ingest.Source) func() error {
	t.Helper()
	cfg := ingest.RunnerConfig{Timeout: 10 * time.Second, MinKeepRatio: 0.5}
	r, err := ingest.NewRunner(src, h.Streams, h.Publisher, cfg, slog.New(slog.DiscardHandler), prometheus.NewRegistry(), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	r.Guard(iana.NewRoot(h.Streams))
	return func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		return r.Once(ctx)
	}
}

// zonesOf returns the zones of the DNS root a source lists, sorted: what
// its runner publishes.
func zonesOf(t *testing.T, h *ingesttest.Harness, src ingest.Source) []string {
	t.Helper()
	list, err := src.Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	inRoot, err := iana.NewRoot(h.Streams).Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var zones []string
	for _, p := range list.Prices {
		if inRoot(p.Zone) == "" {
			zones = append(zones, p.Zone)
		}
	}
	slices.Sort(zones)
	return zones
}

// checkHeldBy checks that every live Namecheap price on the stream is one
// of zones and comes from source, and that every other Namecheap subject
// holds a withdrawal by source or by an earlier one in withdrawnBy.
func checkHeldBy(t *testing.T, h *ingesttest.Harness, source string, zones []string, withdrawnBy map[string]string) {
	t.Helper()
	live := h.Prices(t, namecheap.Name)
	if got := slices.Sorted(maps.Keys(live)); !slices.Equal(got, zones) {
		t.Errorf("live namecheap zones = %q, want exactly the %s list's %q", got, source, zones)
	}
	for zone, p := range live {
		if p.Source != source {
			t.Errorf("%s: source %q, want %q", zone, p.Source, source)
		}
		if source == namecheaplist.Name && p.Transfer != nil {
			t.Errorf("%s: transfer %s survived the handover to a list without transfers", zone, ingesttest.Show(p.Transfer))
		}
	}
	for subject, ev := range h.Events(t, contracts.RegistrarPriceFilter(namecheap.Name)) {
		w, ok := ev.(*contracts.Withdrawal)
		if !ok {
			continue
		}
		if want := withdrawnBy[w.Zone]; w.Source != want {
			t.Errorf("%s withdrawn by %q, want %q", subject, w.Source, want)
		}
	}
}

// observed is when the rounds below start: a time already past, as the
// runner refuses a price observed in the future.
var observed = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// TestSwitchOver shows how the credentialed source and this list hand the
// registrar "namecheap" over to each other when an operator sets or
// removes the API key: the new source's first round republishes every zone
// it prices under its own name and withdraws, once, the zones only the old
// one priced; prices of other registrars are never read or touched; and a
// new list less than half the size of what the stream holds is refused,
// leaving the old prices in place.
func TestSwitchOver(t *testing.T) {
	// Each fetch observes a moment later than the last, as in production:
	// a document republished unchanged within the stream's duplicate window
	// would otherwise be dropped as a duplicate of the first.
	var mu sync.Mutex
	tick := observed
	now := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		tick = tick.Add(time.Second)
		return tick
	}
	_, listSrv := ingesttest.NewAPI(t, ingesttest.Fixture(t, "tlds.json"), suite.Check)
	keyless, err := kit.New(namecheaplist.Declaration(), kit.Config{URL: listSrv.URL}, ingesttest.Client(nil), now)
	if err != nil {
		t.Fatal(err)
	}
	h := ingesttest.New(t, keyless)

	api, apiSrv := ingesttest.NewAPI(t, ingesttest.Fixture(t, "namecheap_api.xml"), nil)
	credentialed, err := namecheap.New(namecheap.Config{
		URL: apiSrv.URL, APIUser: "operator", APIKey: "0123456789abcdef", ClientIP: "192.0.2.1",
	}, ingesttest.Client(nil), now)
	if err != nil {
		t.Fatal(err)
	}
	credentialedRound := runner(t, h, credentialed)

	other := &fixedSource{list: ingest.List{Prices: []contracts.PriceSet{{
		V: contracts.SchemaVersion, Kind: contracts.KindPriceSet, Registrar: "porkbun", Zone: ".com",
		Register: op(1108), Renew: op(1108), Transfer: op(1108), ObservedAt: observed, Source: "porkbun",
	}}}}
	if err := runner(t, h, other)(); err != nil {
		t.Fatal(err)
	}
	otherBefore := h.Events(t, contracts.RegistrarPriceFilter("porkbun"))

	listZones := zonesOf(t, h, keyless)
	apiZones := zonesOf(t, h, credentialed)
	var listOnly, apiOnly []string
	for _, z := range listZones {
		if !slices.Contains(apiZones, z) {
			listOnly = append(listOnly, z)
		}
	}
	for _, z := range apiZones {
		if !slices.Contains(listZones, z) {
			apiOnly = append(apiOnly, z)
		}
	}
	if len(listOnly) == 0 || len(apiOnly) == 0 || len(apiOnly) == len(apiZones) {
		t.Fatalf("the fixtures must overlap and each price zones the other does not: list only %q, API only %q", listOnly, apiOnly)
	}
	withdrawnBy := map[string]string{}

	// No key: the list speaks for namecheap.
	if err := h.Once(t); err != nil {
		t.Fatal(err)
	}
	checkHeldBy(t, h, namecheaplist.Name, listZones, withdrawnBy)

	// The operator sets the key: the credentialed source takes over.
	if err := credentialedRound(); err != nil {
		t.Fatalf("first credentialed round after the list: %v", err)
	}
	for _, z := range listOnly {
		withdrawnBy[z] = namecheap.Name
	}
	checkHeldBy(t, h, namecheap.Name, apiZones, withdrawnBy)
	if p := h.Prices(t, namecheap.Name)[".com"]; p == nil || p.Transfer == nil {
		t.Error(".com has no transfer price after the credentialed source took over")
	}

	// The operator removes the key: the list takes the registrar back.
	if err := h.Once(t); err != nil {
		t.Fatalf("first list round after the credentialed source: %v", err)
	}
	for _, z := range apiOnly {
		withdrawnBy[z] = namecheaplist.Name
	}
	for _, z := range listOnly {
		delete(withdrawnBy, z) // priced again
	}
	checkHeldBy(t, h, namecheaplist.Name, listZones, withdrawnBy)

	// A credentialed list that is less than half of what the list left is
	// refused like any shrunken list: nothing is withdrawn, and the
	// list's prices stay until the two agree.
	before := h.Prices(t, namecheap.Name)
	api.SetBody(ingesttest.Fixture(t, "namecheap_api_shrunk.xml"))
	if err := credentialedRound(); !errors.Is(err, ingest.ErrShrunk) {
		t.Fatalf("credentialed round with a quarter of the zones: %v, want %v", err, ingest.ErrShrunk)
	}
	checkHeldBy(t, h, namecheaplist.Name, listZones, withdrawnBy)
	if after := h.Prices(t, namecheap.Name); len(after) != len(before) {
		t.Errorf("a refused handover changed the prices: %d zones before, %d after", len(before), len(after))
	}

	if after := h.Events(t, contracts.RegistrarPriceFilter("porkbun")); len(after) != 1 || !reflect.DeepEqual(after, otherBefore) {
		t.Errorf("another registrar's prices changed: %v, want %v", after, otherBefore)
	}
}
