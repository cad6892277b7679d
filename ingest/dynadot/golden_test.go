package dynadot_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/dynadot"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

func TestGolden(t *testing.T) { ingesttest.Golden(t, dynadot.Parse, "*.json") }
