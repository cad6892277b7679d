package joker_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/joker"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

func TestGolden(t *testing.T) { ingesttest.Golden(t, joker.Parse, "*.json") }
