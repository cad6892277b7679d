package ovhcloud_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ovhcloud"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

func TestGolden(t *testing.T) { ingesttest.Golden(t, ovhcloud.Parse, "*.json") }
