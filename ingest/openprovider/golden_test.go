package openprovider_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/openprovider"
)

func TestGolden(t *testing.T) { ingesttest.Golden(t, openprovider.Parse, "*.json") }
