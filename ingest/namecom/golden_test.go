package namecom_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/namecom"
)

func TestGolden(t *testing.T) { ingesttest.Golden(t, namecom.Parse, "*.json") }
