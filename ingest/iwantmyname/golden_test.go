package iwantmyname_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/iwantmyname"
)

func TestGolden(t *testing.T) { ingesttest.Golden(t, iwantmyname.Parse, "*.json") }
