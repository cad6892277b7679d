package ingesttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
)

// CaptureDir is where an adapter keeps real responses: the files
// zoneprice-ingest --capture wrote (fetch.Capture), a <name>.body and its
// <name>.json, and a README.md naming each and where it came from.
const CaptureDir = "testdata/captures"

// maxCapturedAmount bounds every price a capture may hold, in minor
// units: a year of any zone costs less than a million units of any
// currency, and a price above it is a misread scale.
const maxCapturedAmount = 100_000_000

// Captures parses every capture in CaptureDir with parse, as --file would
// import it, and checks what any real response must give: no error, the
// invariants of CheckParsed and CheckList, every zone canonical, every
// price within bounds, and no drift from the adapter's declared format
// (a capture that shows a field the adapter has never seen is a reason to
// re-read the format, and its declaration). The README must name every
// capture, so that each says where it came from. Adding a capture is
// adding a test.
func Captures(t *testing.T, parse ingest.ParseFunc, registrar, source string) {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join(CaptureDir, "README.md"))
	if err != nil {
		t.Fatalf("%s has no README.md saying where its captures came from: %v", CaptureDir, err)
	}
	metas, err := filepath.Glob(filepath.Join(CaptureDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range metas {
		name := strings.TrimSuffix(filepath.Base(path), ".json")
		t.Run(name, func(t *testing.T) {
			if !strings.Contains(string(readme), name) {
				t.Errorf("%s/README.md does not name %s: say where it came from", CaptureDir, name)
			}
			var meta fetch.Meta
			raw, err := os.ReadFile(path)
			if err == nil {
				err = json.Unmarshal(raw, &meta)
			}
			if err != nil || meta.Source != source || meta.Body == "" || meta.FetchedAt.IsZero() {
				t.Fatalf("%s is no capture of %s (%v): %s", path, source, err, raw)
			}
			list, err := parse(Fixture(t, filepath.Join("captures", meta.Body)), meta.FetchedAt)
			if err != nil {
				t.Fatalf("the capture does not parse: %v", err)
			}
			CheckParsed(t, list, nil)
			for zone, p := range CheckList(t, list, registrar, source, meta.FetchedAt) {
				checkCaptured(t, zone, p)
			}
			if list.Drift != nil && !list.Drift.Empty() {
				t.Errorf("the capture drifted from the adapter's format: %+v", *list.Drift)
			}
		})
	}
}

// checkCaptured checks one price set of a capture.
func checkCaptured(t *testing.T, zone string, p contracts.PriceSet) {
	t.Helper()
	if !contracts.IsCanonicalZone(zone) {
		t.Errorf("%s is no canonical zone", zone)
	}
	for _, o := range p.Ops() {
		if o != nil && (o.Regular.Amount < 0 || o.Regular.Amount > maxCapturedAmount) {
			t.Errorf("%s: %s is out of bounds", zone, Show(o))
		}
	}
}
