package iwantmyname_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/iwantmyname"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

func TestGolden(t *testing.T) { ingesttest.Golden(t, iwantmyname.Parse, "*.json") }
