package dynadot_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/dynadot"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

func TestFormatDrift(t *testing.T) {
	ingesttest.Drift(t, dynadot.Name, dynadot.Parse, ingesttest.Fixture(t, "current_list.json"),
		ingesttest.DriftPaths{Row: "data.current_tlds[]", Field: "renew_price", Shape: "data.current_tlds"})
}

// TestCaptures parses every real response in testdata/captures.
func TestCaptures(t *testing.T) {
	ingesttest.Captures(t, dynadot.Parse, dynadot.Name, dynadot.Name)
}
