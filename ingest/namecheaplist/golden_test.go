package namecheaplist_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/namecheaplist"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

func TestGolden(t *testing.T) { ingesttest.Golden(t, namecheaplist.Parse, "*.json") }
