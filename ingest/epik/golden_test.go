package epik_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/epik"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

func TestGolden(t *testing.T) { ingesttest.Golden(t, epik.Parse, "*.json") }
