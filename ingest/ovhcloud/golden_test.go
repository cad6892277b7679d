package ovhcloud_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/ovhcloud"
)

func TestGolden(t *testing.T) { ingesttest.Golden(t, ovhcloud.Parse, "*.json") }
