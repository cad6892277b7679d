package tierra_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/tierra"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

func TestGolden(t *testing.T) { ingesttest.Golden(t, tierra.Parse, "*.json") }
