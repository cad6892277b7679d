package joker_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/joker"
)

func TestFormatDrift(t *testing.T) {
	ingesttest.Drift(t, joker.Name, joker.Parse, ingesttest.Fixture(t, "pricelist.json"),
		ingesttest.DriftPaths{Row: "result.pricelist.domains.*", Field: "renewal", Shape: "result.pricelist.domains"})
}

// TestCaptures parses every real response in testdata/captures.
func TestCaptures(t *testing.T) {
	ingesttest.Captures(t, joker.Parse, joker.Name, joker.Name)
}
