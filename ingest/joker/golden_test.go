package joker_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/joker"
)

func TestGolden(t *testing.T) { ingesttest.Golden(t, joker.Parse, "*.json") }
