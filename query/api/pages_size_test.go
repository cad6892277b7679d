package api_test

import (
	"bytes"
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest/sample"
)

// The page weights the pages are held to, gzipped: the whole catalog,
// every zone in it, and one zone's page.
const (
	maxCatalogGzip = 150_000
	maxZoneGzip    = 60_000
)

// benchZones and benchRegistrars are the size of make bench's data set
// (cmd/zoneprice-bench: -zones, -registrars), and benchPeriods the
// periods each of its prices has in its history (2,000,000 changes over
// 225,000 prices).
const (
	benchZones      = 1500
	benchRegistrars = 150
	benchPeriods    = 9
)

// TestPageWeight serves the catalog and a zone's page from data of the
// benchmark's size, and from the sample, and checks what a browser
// downloads: each page gzipped, as a browser asks for it.
func TestPageWeight(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a snapshot of 225,000 prices")
	}
	observed := epoch
	list, err := sample.New(func() time.Time { return observed }).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var meta []contracts.Event
	for i := range list.Zones {
		meta = append(meta, &list.Zones[i])
	}
	for i := range list.Rates {
		meta = append(meta, &list.Rates[i])
	}

	t.Run("bench", func(t *testing.T) {
		all, err := sample.Zones()
		if err != nil {
			t.Fatal(err)
		}
		zones := all[:benchZones]
		prices, err := sample.Generate(zones, benchRegistrars, observed)
		if err != nil {
			t.Fatal(err)
		}
		events := append([]contracts.Event{}, meta...)
		for i := range prices {
			events = append(events, &prices[i])
		}
		f := serving(t, events...)
		// The first zone's history: each registrar's price changed
		// benchPeriods-1 times over three years, promotions included.
		var changes []*contracts.PriceChange
		start := observed.AddDate(-3, 0, 0)
		for i := range prices {
			ps := &prices[i]
			if ps.Zone != zones[0].ASCII {
				continue
			}
			var before *contracts.Offer
			for k := range benchPeriods {
				at := start.Add(time.Duration(k) * 3 * 365 * 24 * time.Hour / benchPeriods).Add(time.Duration(i%1000) * time.Minute)
				after := &contracts.Offer{Register: ps.Register, Renew: ps.Renew, Transfer: ps.Transfer}
				if k < benchPeriods-1 {
					after = offerAt(ps, int64(k))
				}
				kind := contracts.ChangeChanged
				if before == nil {
					kind = contracts.ChangeAdded
				}
				c := change(kind, ps.Registrar, ps.Zone, at, before, after)
				c.Source = ps.Source
				changes = append(changes, c)
				before = after
			}
		}
		f.hist = historyOf(t, changes...)
		p := startPod(t, nil, podConfig{snaps: f})
		checkWeight(t, p.url+"/", maxCatalogGzip, benchZones)
		if zone := checkWeight(t, p.url+"/zones/"+zones[0].ASCII, maxZoneGzip, benchRegistrars); !bytes.Contains(zone, []byte(`<g class="series s7">`)) {
			t.Errorf("the zone page of the benchmark's data has no chart of 8 registrars")
		}
	})

	t.Run("sample", func(t *testing.T) {
		events := append([]contracts.Event{}, meta...)
		for i := range list.Prices {
			events = append(events, &list.Prices[i])
		}
		p := startPod(t, nil, podConfig{snaps: serving(t, events...)})
		checkWeight(t, p.url+"/", maxCatalogGzip, len(list.Zones)-100)
		checkWeight(t, p.url+"/zones/.com", maxZoneGzip, 10)
	})
}

// offerAt is a price set's offer k steps before its current one: dearer,
// with a registration promotion on every other step.
func offerAt(ps *contracts.PriceSet, k int64) *contracts.Offer {
	o := &contracts.Offer{}
	for _, op := range []struct {
		dst **contracts.OpPrice
		src *contracts.OpPrice
	}{{&o.Register, ps.Register}, {&o.Renew, ps.Renew}, {&o.Transfer, ps.Transfer}} {
		if op.src == nil {
			continue
		}
		p := *op.src
		p.Promo = nil
		p.Regular.Amount += (8 - k) * 50
		*op.dst = &p
	}
	if o.Register != nil && k%2 == 1 {
		ends := epoch.AddDate(0, 0, int(k))
		o.Register.Promo = &contracts.Promo{Price: contracts.Price{Amount: o.Register.Regular.Amount / 2, Currency: o.Register.Regular.Currency}, EndsAt: &ends}
	}
	return o
}

// checkWeight gets a page as a browser does and checks its gzipped size,
// and that it has at least rows rows; it returns the page.
func checkWeight(t *testing.T, target string, limit, rows int) []byte {
	t.Helper()
	resp, zipped := get(t, target, "Accept-Encoding", "gzip")
	ex := send(t, http.MethodGet, target, "Accept-Encoding", "gzip")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("GET %s: %d, Content-Encoding %q", target, resp.StatusCode, resp.Header.Get("Content-Encoding"))
	}
	n := countRows(ex.body)
	t.Logf("%s: %d rows, %d bytes, %d gzipped (limit %d)", target, n, len(ex.body), len(zipped), limit)
	if len(zipped) > limit {
		t.Errorf("%s weighs %d bytes gzipped, over %d", target, len(zipped), limit)
	}
	if n < rows {
		t.Errorf("%s has %d rows, want at least %d", target, n, rows)
	}
	return ex.body
}

func countRows(body []byte) int { return bytes.Count(body, []byte(`<tr><th scope="row">`)) }
