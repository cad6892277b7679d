package ovhcloud_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/ovhcloud"
)

func TestFormatDrift(t *testing.T) {
	ingesttest.Drift(t, ovhcloud.Name, ovhcloud.Parse, ingesttest.Fixture(t, "catalog_fr.json"),
		ingesttest.DriftPaths{Row: "plans[]", Field: "invoiceName", Shape: "plans"})
}

// TestCaptures parses every real response in testdata/captures.
func TestCaptures(t *testing.T) {
	ingesttest.Captures(t, ovhcloud.Parse, ovhcloud.Name, ovhcloud.Name)
}
