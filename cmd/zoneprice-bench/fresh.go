package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
)

const (
	freshUpdates  = 200                    // updates published
	freshInterval = 20 * time.Millisecond  // between publishes, at the least
	freshDeadline = 2 * time.Second        // for one update to be visible
	freshPoll     = time.Millisecond       // between polls of the comparison
	freshLoad     = 10 * time.Minute       // wrk's -d; it is stopped long before
	freshRamp     = 500 * time.Millisecond // of load before the first update
	freshSource   = "bench"                // the updates' source field
)

// freshResult is how long updates took from publish to being served.
type freshResult struct {
	zone, registrar string
	lags            []time.Duration // per update seen, in order
	err             error           // why updates stopped early, if they did
	load            wrkResult       // the background load meanwhile
	loadErr         error
}

// freshness publishes freshUpdates price changes, one at a time, while
// wrk loads /api/domains on the real service, and times each from just
// before publishing until a poll of the zone's comparison shows it. Polls
// send the last ETag, so an unchanged body costs a 304.
//
// An update not seen within freshDeadline ends the measurement and fails it
// in the report; the bench goes on to the next part.
func (b *bench) freshness(ctx context.Context, q *child, env *natsEnv, res *results) error {
	zone := env.zones[1] // not the zone the throughput runs compared
	fr := &freshResult{zone: zone.ASCII, registrar: env.registrar}
	res.fresh = fr
	w, err := b.startWrk(q.url+"/api/domains", freshLoad)
	if err != nil {
		return err
	}
	defer func() {
		if w.running() {
			_, _ = w.stop()
		}
	}()
	if err := sleep(ctx, freshRamp); err != nil {
		return err
	}

	b.log.Info("freshness", "updates", freshUpdates, "zone", zone.ASCII, "registrar", env.registrar)
	pub := ingest.NewPublisher(env.js)
	client := &http.Client{Timeout: freshDeadline, Transport: &http.Transport{DisableCompression: true}}
	defer client.CloseIdleConnections()
	url := q.url + "/api/comparison/" + zone.ASCII
	exp, _ := contracts.CurrencyExponent("USD")
	etag := ""
	for i := range freshUpdates {
		next := time.Now().Add(freshInterval)
		amount := int64(100000 + i) // above every generated price, and new each time
		price := &contracts.OpPrice{Regular: contracts.Price{Amount: amount, Currency: "USD"}}
		ev := &contracts.PriceSet{
			V: contracts.SchemaVersion, Kind: contracts.KindPriceSet,
			Registrar: env.registrar, Zone: zone.ASCII,
			Register: price, Renew: price, Transfer: price,
			ObservedAt: time.Now().UTC(), Source: freshSource,
		}
		want := string(contracts.AppendAmount(nil, amount, exp))
		t0 := time.Now()
		if _, err := pub.Publish(ctx, ev); err != nil {
			return err
		}
		lag, err := waitVisible(ctx, client, url, &etag, env.registrar, want, t0)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			fr.err = fmt.Errorf("update %d (register %s): %w", i+1, want, err)
			break
		}
		fr.lags = append(fr.lags, lag)
		if !w.running() {
			fr.err = fmt.Errorf("the background wrk stopped after update %d", i+1)
			break
		}
		if err := sleep(ctx, time.Until(next)); err != nil {
			return err
		}
	}
	fr.load, fr.loadErr = w.stop()
	b.log.Info("freshness done", "seen", len(fr.lags), "err", fr.err)
	return nil
}

// waitVisible polls url until its body shows registrar registering at
// want, and returns the time from t0 to the response that showed it.
func waitVisible(ctx context.Context, client *http.Client, url string, etag *string, registrar, want string, t0 time.Time) (time.Duration, error) {
	deadline := t0.Add(freshDeadline)
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return 0, err
		}
		if *etag != "" {
			req.Header.Set("If-None-Match", *etag)
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		seen := time.Now()
		if err != nil {
			return 0, err
		}
		switch resp.StatusCode {
		case http.StatusNotModified:
		case http.StatusOK:
			*etag = resp.Header.Get("Etag")
			ok, err := registers(body, registrar, want)
			if err != nil {
				return 0, err
			}
			if ok {
				return seen.Sub(t0), nil
			}
		default:
			return 0, fmt.Errorf("GET %s: %s: %.200s", url, resp.Status, body)
		}
		if seen.After(deadline) {
			return 0, fmt.Errorf("not served within %v", freshDeadline)
		}
		if err := sleep(ctx, freshPoll); err != nil {
			return 0, err
		}
	}
}

// registers reports whether a comparison body lists registrar with the
// register price want, compared as the JSON number's exact text.
func registers(body []byte, registrar, want string) (bool, error) {
	var doc struct {
		Prices []struct {
			Registrar string          `json:"registrar"`
			Register  json.RawMessage `json:"register"`
		} `json:"prices"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return false, fmt.Errorf("comparison body: %w", err)
	}
	for _, p := range doc.Prices {
		if p.Registrar == registrar {
			return string(p.Register) == want, nil
		}
	}
	return false, nil
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
