package sheet_test

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/sheet"
)

// TestNamesOutsideRoot is a sheet copied from a registrar that sells
// Handshake names: the runner's root-zone guard keeps them out for the
// sheet as for any source. A numeric one is no zone at all, handed to the
// guard rather than skipped as a row the operator must fix; an
// alphanumeric one parses and the guard skips it.
func TestNamesOutsideRoot(t *testing.T) {
	body := "registrar,zone,currency,register\n" +
		"acme-names,.com,USD,9.99\n" +
		"acme-names,0db,USD,1.98\n" +
		"acme-names,8888,USD,0.98\n" +
		"acme-names,example.com,USD,3.00\n"
	list, err := sheet.Parse([]byte(body), observed)
	if err != nil {
		t.Fatal(err)
	}
	if list.Skipped != 0 || len(list.Prices) != 3 {
		t.Errorf("parsed %d prices, skipped %d; want 3 and none", len(list.Prices), list.Skipped)
	}
	if want := []ingest.Skip{{Registrar: "acme-names", Name: ".8888", Reason: contracts.SkipNotInRoot}}; !slices.Equal(list.Outside, want) {
		t.Errorf("outside the root %+v, want %+v", list.Outside, want)
	}

	path := filepath.Join(t.TempDir(), "prices.csv")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	src, err := sheet.New(sheet.Config{File: path}, nil, clock)
	if err != nil {
		t.Fatal(err)
	}
	h := ingesttest.New(t, src)
	live := h.Round(t, "acme-names")
	if len(live) != 1 || live[".com"] == nil {
		t.Errorf("live zones %v, want only .com", slices.Sorted(maps.Keys(live)))
	}
	for reason, want := range map[string]float64{contracts.SkipNotInRoot: 2, contracts.SkipUnknownSecondLevel: 1} {
		if got := h.Counter(t, "zoneprice_ingest_names_outside_root_total", "reason", reason); got != want {
			t.Errorf("names outside the root (%s) = %v, want %v", reason, got, want)
		}
	}
	if got := h.Counter(t, "zoneprice_ingest_rows_skipped_total"); got != 0 {
		t.Errorf("rows skipped = %v, want 0", got)
	}
	if !strings.Contains(h.Log.String(), `examples=".8888 .0db .example.com"`) {
		t.Errorf("log does not name the three names:\n%s", h.Log.String())
	}
}
