package nicnames_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/nicnames"
)

func TestGolden(t *testing.T) { ingesttest.Golden(t, nicnames.Parse, "*.json") }
