package openprovider_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/openprovider"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

func TestGolden(t *testing.T) { ingesttest.Golden(t, openprovider.Parse, "*.json") }
