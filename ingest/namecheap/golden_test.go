package namecheap_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/namecheap"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

func TestGolden(t *testing.T) { ingesttest.Golden(t, namecheap.Parse, "*.xml") }
