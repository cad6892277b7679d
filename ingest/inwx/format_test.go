package inwx_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/inwx"
)

func TestFormatDrift(t *testing.T) {
	ingesttest.Drift(t, inwx.Name, inwx.Parse, ingesttest.Fixture(t, "all-prices.json"),
		ingesttest.DriftPaths{Row: "tlds[]", Field: "renewalPrice", Shape: "tlds"})
}

// TestCaptures parses every real response in testdata/captures.
func TestCaptures(t *testing.T) {
	ingesttest.Captures(t, inwx.Parse, inwx.Name, inwx.Name)
}
