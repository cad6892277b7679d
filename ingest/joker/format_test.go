package joker_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/joker"
)

func TestFormatDrift(t *testing.T) {
	ingesttest.Drift(t, joker.Name, joker.Parse, ingesttest.Fixture(t, "pricelist.json"),
		ingesttest.DriftPaths{Row: "result.pricelist.domains.*", Field: "renewal", Shape: "result.pricelist.domains"})
}
