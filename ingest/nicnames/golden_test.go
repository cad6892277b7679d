package nicnames_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/nicnames"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

func TestGolden(t *testing.T) { ingesttest.Golden(t, nicnames.Parse, "*.json") }
