package namecheap_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/namecheap"
)

func TestGolden(t *testing.T) { ingesttest.Golden(t, namecheap.Parse, "*.xml") }
