package porkbun_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/porkbun"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

func TestGolden(t *testing.T) { ingesttest.Golden(t, porkbun.Parse, "*.json") }
