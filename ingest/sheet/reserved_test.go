package sheet_test

import (
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/ingest/sheet"
)

func TestParseReserved(t *testing.T) {
	body := []byte("registrar,zone,currency,register\nporkbun,.com,USD,9.68\nacme-names,.com,USD,10.00\n")
	list, err := sheet.ParseReserved([]string{"porkbun"})(body, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Prices) != 1 || list.Prices[0].Registrar != "acme-names" || list.Skipped != 1 {
		t.Errorf("got %d prices (%+v), %d skipped; want only acme-names, porkbun's row skipped", len(list.Prices), list.Prices, list.Skipped)
	}
}
