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
