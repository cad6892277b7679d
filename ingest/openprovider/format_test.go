package openprovider_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/openprovider"
)

func TestFormatDrift(t *testing.T) {
	ingesttest.Drift(t, openprovider.Name, openprovider.Parse, ingesttest.Fixture(t, "pricing.json"),
		ingesttest.DriftPaths{Row: "data[]", Field: "tld", Shape: "data"})
}

// TestCaptures parses every real response in testdata/captures.
func TestCaptures(t *testing.T) {
	ingesttest.Captures(t, openprovider.Parse, openprovider.Name, openprovider.Name)
}
