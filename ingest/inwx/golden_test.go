package inwx_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/inwx"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

func TestGolden(t *testing.T) { ingesttest.Golden(t, inwx.Parse, "*.json") }
