package ecb_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ecb"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

func TestGolden(t *testing.T) { ingesttest.Golden(t, ecb.Parse, "*.xml") }
