package gname_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/gname"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

func TestFormatDrift(t *testing.T) {
	ingesttest.Drift(t, gname.Name, gname.Parse, ingesttest.Fixture(t, "page1.json"),
		ingesttest.DriftPaths{Row: "data.ymjg[]", Field: "xfjg", Shape: "data.ymjg"})
}

// TestCaptures parses every real response in testdata/captures.
func TestCaptures(t *testing.T) {
	ingesttest.Captures(t, gname.Parse, gname.Name, gname.Name)
}
