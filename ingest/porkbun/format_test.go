package porkbun_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/porkbun"
)

func TestFormatDrift(t *testing.T) {
	ingesttest.Drift(t, porkbun.Name, porkbun.Parse, ingesttest.Fixture(t, "pricing.json"),
		ingesttest.DriftPaths{Row: "pricing.*", Field: "renewal", Shape: "pricing"})
}

// TestCaptures parses every real response in testdata/captures.
func TestCaptures(t *testing.T) {
	ingesttest.Captures(t, porkbun.Parse, porkbun.Name, porkbun.Name)
}
