package namecom_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/namecom"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

func TestGolden(t *testing.T) { ingesttest.Golden(t, namecom.Parse, "*.json") }
