package tierra_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/tierra"
)

func TestGolden(t *testing.T) { ingesttest.Golden(t, tierra.Parse, "*.json") }
