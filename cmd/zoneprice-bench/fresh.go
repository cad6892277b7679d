package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
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
	name    string          // for the report's verdicts: "" for prices, "history"
	what    string          // what was published and where it was looked for
	lags    []time.Duration // per update seen, in order
	err     error           // why updates stopped early, if they did
	load    wrkResult       // the background load meanwhile
	loadErr error
}

// freshProbe is one kind of update the freshness runs publish, and where
// they look for it.
type freshProbe struct {
	name, what string
	url        string // polled
	// publish publishes update i and returns what shows it.
	publish func(ctx context.Context, i int) (want string, err error)
	// shows reports whether a 200 body of url shows want.
	shows func(body []byte, want string) (bool, error)
}

// freshness measures, one after the other, how fresh the prices and the
// history are under load: price sets for a zone's comparison, and change
// documents for the feed of changes.
func (b *bench) freshness(ctx context.Context, q *child, env *natsEnv, res *results) error {
	pub := bus.NewPublisher(env.js)
	exp, _ := contracts.CurrencyExponent("USD")
	zone := env.zones[1] // not the zone the throughput runs compared
	prices := freshProbe{
		what: fmt.Sprintf("publishing a price set for `%s` at `%s` until a GET of `/api/comparison/%s` shows it", env.registrar, zone.ASCII, zone.ASCII),
		url:  q.url + "/api/comparison/" + zone.ASCII,
		publish: func(ctx context.Context, i int) (string, error) {
			amount := int64(100000 + i) // above every generated price, and new each time
			price := &contracts.OpPrice{Regular: contracts.Price{Amount: amount, Currency: "USD"}}
			_, err := pub.Publish(ctx, &contracts.PriceSet{
				V: contracts.SchemaVersion, Kind: contracts.KindPriceSet,
				Registrar: env.registrar, Zone: zone.ASCII,
				Register: price, Renew: price, Transfer: price,
				ObservedAt: time.Now().UTC(), Source: freshSource,
			})
			return string(contracts.AppendAmount(nil, amount, exp)), err
		},
		shows: func(body []byte, want string) (bool, error) { return registers(body, env.registrar, want) },
	}
	p := env.probe
	last := p.offer // what the history says the probe's subject costs
	history := freshProbe{
		name: "history",
		what: fmt.Sprintf("publishing a change document (changed) for `%s` at `%s` on the history stream until a GET of `/api/changes?limit=1` shows it first", p.registrar, p.zone),
		url:  q.url + "/api/changes?limit=1",
		publish: func(ctx context.Context, i int) (string, error) {
			amount := int64(100000 + i)
			price := &contracts.OpPrice{Regular: contracts.Price{Amount: amount, Currency: "USD"}}
			after := &contracts.Offer{Register: price, Renew: price, Transfer: price}
			_, err := pub.Publish(ctx, &contracts.PriceChange{
				V: contracts.SchemaVersion, Kind: contracts.KindPriceChange, Change: contracts.ChangeChanged,
				Registrar: p.registrar, Zone: p.zone, Before: last, After: after,
				ObservedAt: time.Now().UTC(), Source: freshSource,
			})
			last = after
			return string(contracts.AppendAmount(nil, amount, exp)), err
		},
		shows: func(body []byte, want string) (bool, error) { return newestChange(body, p.registrar, p.zone, want) },
	}
	for _, probe := range []freshProbe{prices, history} {
		if err := b.fresh(ctx, q, probe, res); err != nil {
			return err
		}
	}
	return nil
}

// fresh publishes freshUpdates updates of probe's kind, one at a time,
// while wrk loads /api/domains on the real service, and times each from
// just before publishing until a poll of the probe's URL shows it. Polls
// send the last ETag, so an unchanged body costs a 304.
//
// An update not seen within freshDeadline ends the measurement and fails it
// in the report; the bench goes on to the next part.
func (b *bench) fresh(ctx context.Context, q *child, probe freshProbe, res *results) error {
	fr := &freshResult{name: probe.name, what: probe.what}
	res.fresh = append(res.fresh, fr)
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

	b.log.Info("freshness", "updates", freshUpdates, "of", cmp.Or(probe.name, "prices"), "url", probe.url)
	client := &http.Client{Timeout: freshDeadline, Transport: &http.Transport{DisableCompression: true}}
	defer client.CloseIdleConnections()
	etag := ""
	for i := range freshUpdates {
		next := time.Now().Add(freshInterval)
		t0 := time.Now()
		want, err := probe.publish(ctx, i)
		if err != nil {
			return err
		}
		lag, err := waitVisible(ctx, client, probe.url, &etag, func(body []byte) (bool, error) { return probe.shows(body, want) }, t0)
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
	b.log.Info("freshness done", "of", cmp.Or(probe.name, "prices"), "seen", len(fr.lags), "err", fr.err)
	return nil
}

// waitVisible polls url until a body shows the update, and returns the
// time from t0 to the response that showed it.
func waitVisible(ctx context.Context, client *http.Client, url string, etag *string, shows func([]byte) (bool, error), t0 time.Time) (time.Duration, error) {
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
			ok, err := shows(body)
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

// newestChange reports whether a page of /api/changes starts with a
// change of registrar's zone that left the register price want, compared
// as the JSON number's exact text.
func newestChange(body []byte, registrar, zone, want string) (bool, error) {
	var doc struct {
		Changes []struct {
			Registrar string `json:"registrar"`
			Zone      string `json:"zone"`
			After     struct {
				Register json.RawMessage `json:"register"`
			} `json:"after"`
		} `json:"changes"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return false, fmt.Errorf("changes body: %w", err)
	}
	if len(doc.Changes) == 0 {
		return false, nil
	}
	c := doc.Changes[0]
	return c.Registrar == registrar && c.Zone == zone && string(c.After.Register) == want, nil
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
