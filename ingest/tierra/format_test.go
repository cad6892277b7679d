package tierra_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/tierra"
)

func TestFormatDrift(t *testing.T) {
	ingesttest.Drift(t, tierra.Name, tierra.Parse, ingesttest.Fixture(t, "pricingData.json"),
		ingesttest.DriftPaths{Row: "", Field: "", Shape: "*"})
}

// TestCaptures parses every real response in testdata/captures.
func TestCaptures(t *testing.T) {
	ingesttest.Captures(t, tierra.Parse, tierra.Name, tierra.Name)
}
