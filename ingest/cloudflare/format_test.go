package cloudflare_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/cloudflare"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

func TestFormatDrift(t *testing.T) {
	ingesttest.Drift(t, cloudflare.ListSource, cloudflare.Parse, ingesttest.Fixture(t, "prices.json"),
		ingesttest.DriftPaths{Row: "*", Field: "renewal", Shape: "*"})
}

// TestCaptures parses every real response in testdata/captures.
func TestCaptures(t *testing.T) {
	ingesttest.Captures(t, cloudflare.Parse, cloudflare.Name, cloudflare.ListSource)
}
