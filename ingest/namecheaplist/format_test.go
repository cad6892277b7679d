package namecheaplist_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/namecheaplist"
)

func TestFormatDrift(t *testing.T) {
	ingesttest.Drift(t, namecheaplist.Name, namecheaplist.Parse, ingesttest.Fixture(t, "tlds.json"),
		ingesttest.DriftPaths{Row: "[].Pricing", Field: "Renewal", Shape: "[].Pricing"})
}

// TestCaptures parses every real response in testdata/captures.
func TestCaptures(t *testing.T) {
	ingesttest.Captures(t, namecheaplist.Parse, namecheaplist.Name, namecheaplist.Name)
}
