package epik_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/epik"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

func TestFormatDrift(t *testing.T) {
	ingesttest.Drift(t, epik.Name, epik.Parse, ingesttest.Fixture(t, "prices.json"),
		ingesttest.DriftPaths{Row: "*", Field: "renew", Shape: "*"})
}

// TestCaptures parses every real response in testdata/captures.
func TestCaptures(t *testing.T) {
	ingesttest.Captures(t, epik.Parse, epik.Name, epik.Name)
}
