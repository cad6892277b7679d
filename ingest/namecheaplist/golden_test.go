package namecheaplist_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/namecheaplist"
)

func TestGolden(t *testing.T) { ingesttest.Golden(t, namecheaplist.Parse, "*.json") }
