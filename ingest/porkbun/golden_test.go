package porkbun_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
	"github.com/zoneprice/zoneprice/ingest/porkbun"
)

func TestGolden(t *testing.T) { ingesttest.Golden(t, porkbun.Parse, "*.json") }
