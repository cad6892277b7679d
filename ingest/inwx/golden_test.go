package inwx_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/inwx"
)

func TestGolden(t *testing.T) { ingesttest.Golden(t, inwx.Parse, "*.json") }
