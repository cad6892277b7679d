package gname_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/gname"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

func TestGolden(t *testing.T) { ingesttest.Golden(t, gname.Parse, "*.json") }
