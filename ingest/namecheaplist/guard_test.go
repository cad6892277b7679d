package namecheaplist_test

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/eventtest"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/kit"
	"github.com/zoneprice/zoneprice/ingest/namecheaplist"
)

// handshake are the fixture's Handshake names that parse as zones; its
// numeric one, .8888, does not.
var handshake = []string{".0db", ".4k", ".abo"}

// TestRootZoneGuard runs the list in the real file's shape, Handshake rows
// among its zones, through a guarded runner on a real stream that an
// unguarded one (every ingester before the guard) had filled: the
// Handshake zones published then are withdrawn, none is published, the
// rest is not refused as shrunk, the names are counted and logged; and a
// name the root delegates later becomes a zone at the next round.
func TestRootZoneGuard(t *testing.T) {
	_, srv := ingesttest.NewAPI(t, ingesttest.Fixture(t, "tlds.json"), suite.Check)
	// Each round observes its prices a minute after the last, as a live
	// one would: a price published again is a new message.
	at := observed
	src, err := kit.New(namecheaplist.Declaration(), kit.Config{URL: srv.URL}, ingesttest.Client(nil), func() time.Time { at = at.Add(time.Minute); return at })
	if err != nil {
		t.Fatal(err)
	}
	h := ingesttest.New(t, src)

	unguarded, err := ingest.NewRunner(src, h.Streams, h.Publisher, ingest.RunnerConfig{Timeout: 10 * time.Second, MinKeepRatio: 0.5},
		slog.New(slog.DiscardHandler), prometheus.NewRegistry(), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	if err := unguarded.Once(context.Background()); err != nil {
		t.Fatal(err)
	}
	if live := h.Prices(t, namecheaplist.Registrar); len(live) != fixtureZones || live[".0db"] == nil {
		t.Fatalf("the unguarded round published %d zones, want %d with .0db", len(live), fixtureZones)
	}

	live := h.Round(t, namecheaplist.Registrar)
	if len(live) != rootZones {
		t.Errorf("guarded round: %d live zones, want %d", len(live), rootZones)
	}
	events := h.Events(t, contracts.RegistrarPriceFilter(namecheaplist.Registrar))
	for _, zone := range append(slices.Clone(handshake), ".8888") {
		if _, ok := events[contracts.PriceSubject(namecheaplist.Registrar, zone)].(*contracts.Withdrawal); zone != ".8888" && !ok {
			t.Errorf("%s: %v on the stream, want a withdrawal", zone, events[contracts.PriceSubject(namecheaplist.Registrar, zone)])
		}
		if live[zone] != nil {
			t.Errorf("%s is live after the guarded round", zone)
		}
	}
	if got := h.Counter(t, "zoneprice_ingest_names_outside_root_total", "reason", contracts.SkipNotInRoot); got != 4 {
		t.Errorf("names outside the root (not-in-root) = %v, want 4 (.0db .4k .abo .8888)", got)
	}
	if got := h.Counter(t, "zoneprice_ingest_names_outside_root_total", "reason", contracts.SkipUnknownSecondLevel); got != 0 {
		t.Errorf("names outside the root (unknown-second-level) = %v, want 0", got)
	}
	if got := h.Counter(t, "zoneprice_ingest_rows_skipped_total"); got != 0 {
		t.Errorf("rows skipped = %v, want 0: a Handshake name is no unreadable row", got)
	}
	logged := h.Log.String()
	if n := strings.Count(logged, "names outside the DNS root skipped"); n != 1 ||
		!strings.Contains(logged, "skipped=4") || !strings.Contains(logged, "not_in_root=4") || !strings.Contains(logged, `examples=".8888 .0db .4k .abo"`) {
		t.Errorf("want one log line of the round naming the four names; got %d in:\n%s", n, logged)
	}

	// The root delegates .abo: IANA's list on the stream has it now.
	meta, err := contracts.Encode(eventtest.ZoneMeta(".abo", contracts.TypeGeneric, time.Now().UTC()))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := h.Publisher.Send(context.Background(), []contracts.Message{meta}, 1); err != nil {
		t.Fatal(err)
	}
	live = h.Round(t, namecheaplist.Registrar)
	if len(live) != rootZones+1 || live[".abo"] == nil {
		t.Errorf("after .abo was delegated: %d live zones, .abo %v; want %d with .abo", len(live), live[".abo"], rootZones+1)
	}
	if got := h.Counter(t, "zoneprice_ingest_names_outside_root_total", "reason", contracts.SkipNotInRoot); got != 4+3 {
		t.Errorf("names outside the root after two rounds = %v, want 7 (.abo is a zone in the second)", got)
	}
}
