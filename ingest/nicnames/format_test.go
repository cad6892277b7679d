package nicnames_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/nicnames"
)

func TestFormatDrift(t *testing.T) {
	ingesttest.Drift(t, nicnames.Name, nicnames.Parse, ingesttest.Fixture(t, "prices.json"),
		ingesttest.DriftPaths{Row: "registrars[]", Field: "currency", Shape: "registrars"})
}

// TestCaptures parses every real response in testdata/captures.
func TestCaptures(t *testing.T) {
	ingesttest.Captures(t, nicnames.Parse, nicnames.Name, nicnames.Name)
}
