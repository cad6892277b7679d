package cloudflare_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/cloudflare"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

func TestGolden(t *testing.T) { ingesttest.Golden(t, cloudflare.Parse, "*.json") }
