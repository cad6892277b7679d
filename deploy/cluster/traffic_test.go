//go:build integration

package cluster

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/eventtest"
	"github.com/zoneprice/zoneprice/ingest"
)

// priceSet is a registrar's USD register price for a zone, its source
// the suite, so that a stream it wrote to says who wrote what.
func priceSet(registrar, zone string, cents int64, observed time.Time) *contracts.PriceSet {
	ps := eventtest.RegisterOnly(registrar, zone, observed.UTC(), "USD", cents)
	ps.Source = "failure-suite"
	return ps
}

// testZones are n zones with one label each, all distinct.
func testZones(n int) []string {
	zones := make([]string, n)
	for i := range zones {
		zones[i] = fmt.Sprintf(".fs%03d", i)
	}
	return zones
}

// recorder is what a publisher knows: every event it published and the
// last price the stream acknowledged per zone.
type recorder struct {
	mu        sync.Mutex
	acked     map[string]int64
	published int // publish attempts, retries included
	ackCount  int
	retried   int
	errs      []string // the first few publish errors
}

func newRecorder() *recorder { return &recorder{acked: map[string]int64{}} }

func (r *recorder) snapshot() map[string]int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.acked)
}

func (r *recorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return fmt.Sprintf("updates published %d (attempts, %d of them retries), acknowledged %d, zones %d", r.published, r.retried, r.ackCount, len(r.acked))
}

// steadyPublish publishes a new price for the next zone every interval
// until stop is closed, as an ingester does: a publish that fails (a leader
// election, a lost node) is retried with the same content, and therefore
// the same message id, until the stream acknowledges it; only then does
// the price count as published. It gives up when ctx ends.
func steadyPublish(ctx context.Context, stop <-chan struct{}, pub *ingest.Publisher, registrar string, zones []string, interval time.Duration, rec *recorder) error {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for n := 0; ; n++ {
		select {
		case <-stop:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		zone := zones[n%len(zones)]
		cents := int64(1000 + n)
		ev := priceSet(registrar, zone, cents, time.Now())
		for {
			rec.mu.Lock()
			rec.published++
			rec.mu.Unlock()
			pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			_, err := pub.Publish(pctx, ev)
			cancel()
			rec.mu.Lock()
			if err == nil {
				rec.ackCount++
				rec.acked[zone] = cents
				rec.mu.Unlock()
				break
			}
			rec.retried++
			if len(rec.errs) < 5 {
				rec.errs = append(rec.errs, err.Error())
			}
			rec.mu.Unlock()
			if ctx.Err() != nil {
				return fmt.Errorf("publish %s %s: %w", registrar, zone, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// seedPrices publishes a first price for every zone, so that the
// comparisons a load asks for exist from the start, and records them.
func seedPrices(ctx context.Context, pub *ingest.Publisher, registrar string, zones []string, rec *recorder) error {
	events := make([]contracts.Event, len(zones))
	for i, z := range zones {
		events[i] = priceSet(registrar, z, int64(500+i), time.Now())
	}
	if _, _, err := pub.PublishAll(ctx, events, 64); err != nil {
		return err
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for i, z := range zones {
		rec.acked[z] = int64(500 + i)
	}
	rec.published += len(zones)
	rec.ackCount += len(zones)
	return nil
}

// load counts requests and what went wrong with them.
type load struct {
	sent, failed atomic.Int64
	mu           sync.Mutex
	failures     []string // the first few
}

func (l *load) fail(format string, args ...any) {
	l.failed.Add(1)
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.failures) < 10 {
		l.failures = append(l.failures, time.Now().Format("15:04:05.000")+" "+fmt.Sprintf(format, args...))
	}
}

func (l *load) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := fmt.Sprintf("requests sent %d, failed %d", l.sent.Load(), l.failed.Load())
	if len(l.failures) > 0 {
		s += "; first failures:\n  " + strings.Join(l.failures, "\n  ")
	}
	return s
}

// getLoad GETs paths in turn from every base URL until ctx ends; any answer
// but 200, or no answer, is a failure. bases is called before each round,
// so a caller can follow a pod whose port changed.
func getLoad(ctx context.Context, bases func() []string, paths []string, l *load) {
	for i := 0; ctx.Err() == nil; i++ {
		for _, base := range bases() {
			path := paths[i%len(paths)]
			l.sent.Add(1)
			code, body, err := fetch(ctx, base+path)
			switch {
			case err != nil && ctx.Err() != nil:
				l.sent.Add(-1) // cut short by the end of the run, not a failure
				return
			case err != nil:
				l.fail("GET %s%s: %v", base, path, err)
			case code != http.StatusOK:
				l.fail("GET %s%s: %d %.300s", base, path, code, body)
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// comparison is the part of /api/comparison/{zone} the suite reads.
type comparison struct {
	Zone   string `json:"zone"`
	Prices []struct {
		Registrar string       `json:"registrar"`
		Register  *json.Number `json:"register"`
	} `json:"prices"`
}

var httpClient = &http.Client{Timeout: 5 * time.Second}

// fetch is the suite's one request: it GETs url and returns the status
// and the body. An error reading the body comes with the status.
func fetch(ctx context.Context, url string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, nil, err
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, nil, fmt.Errorf("reading the body: %w", err)
	}
	return resp.StatusCode, body, nil
}

// getJSON GETs url and decodes a 200's body into v (unless v is nil),
// numbers kept as their literal text.
func getJSON(ctx context.Context, url string, v any) (int, error) {
	code, body, err := fetch(ctx, url)
	if err != nil || code != http.StatusOK || v == nil {
		return code, err
	}
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	return code, d.Decode(v)
}

// registrarRows returns, for each zone, the registrars in the pod's
// comparison and their register price in cents; a zone nobody prices is
// absent.
func (p *pod) registrarRows(ctx context.Context, zone string) (map[string]int64, error) {
	var cmp comparison
	code, err := getJSON(ctx, p.url()+"/api/comparison/"+zone, &cmp)
	switch {
	case err != nil:
		return nil, err
	case code == http.StatusNotFound:
		return nil, nil
	case code != http.StatusOK:
		return nil, fmt.Errorf("GET /api/comparison/%s: %d", zone, code)
	}
	rows := map[string]int64{}
	for _, r := range cmp.Prices {
		if r.Register == nil {
			rows[r.Registrar] = -1
			continue
		}
		cents, err := toCents(r.Register.String())
		if err != nil {
			return nil, err
		}
		rows[r.Registrar] = cents
	}
	return rows, nil
}

// prices is the pod's register price of registrar per zone.
func (p *pod) prices(ctx context.Context, registrar string, zones []string) (map[string]int64, error) {
	out := map[string]int64{}
	for _, z := range zones {
		rows, err := p.registrarRows(ctx, z)
		if err != nil {
			return nil, err
		}
		if c, ok := rows[registrar]; ok {
			out[z] = c
		}
	}
	return out, nil
}

// toCents reads a USD amount as the API writes it ("12.34").
func toCents(s string) (int64, error) {
	whole, frac, _ := strings.Cut(s, ".")
	frac = (frac + "00")[:2]
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("price %q: %w", s, err)
	}
	f, err := strconv.ParseInt(frac, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("price %q: %w", s, err)
	}
	return w*100 + f, nil
}

// waitConverged polls the pod until it holds exactly want for registrar.
// Its error says how the pod's prices last differed, and the last error
// a poll met.
func (p *pod) waitConverged(registrar string, zones []string, want map[string]int64, within time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	last, lastErr := "no poll answered", ""
	for {
		got, err := p.prices(ctx, registrar, zones)
		switch {
		case err == nil:
			diff := diffPrices(got, want)
			if diff == "" {
				return nil
			}
			last = diff
		case ctx.Err() == nil:
			lastErr = "; the last error: " + err.Error()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s did not converge within %v: %s%s", p.name, within, last, lastErr)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// diffPrices describes where got differs from want, or returns "".
func diffPrices(got, want map[string]int64) string {
	var diffs []string
	for _, z := range slices.Sorted(maps.Keys(want)) {
		if got[z] != want[z] {
			diffs = append(diffs, fmt.Sprintf("%s got %d want %d", z, got[z], want[z]))
		}
	}
	for z := range got {
		if _, ok := want[z]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s got %d, never acknowledged", z, got[z]))
		}
	}
	if len(diffs) > 5 {
		diffs = append(diffs[:5], fmt.Sprintf("and %d more", len(diffs)-5))
	}
	return strings.Join(diffs, "; ")
}

// metrics reads the pod's unlabelled gauges and counters from /metrics.
func (p *pod) metrics(ctx context.Context) (map[string]float64, error) {
	code, body, err := fetch(ctx, p.url()+"/metrics")
	if err != nil {
		return nil, err
	}
	if code != http.StatusOK {
		return nil, fmt.Errorf("GET /metrics: %d", code)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.Contains(line, "{") {
			continue
		}
		name, value, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		if v, err := strconv.ParseFloat(strings.Fields(value)[0], 64); err == nil {
			out[name] = v
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errors.New("GET /metrics: no samples")
	}
	return out, nil
}

// mustMetrics is metrics for the test goroutine.
func (p *pod) mustMetrics(t *testing.T) map[string]float64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	m, err := p.metrics(ctx)
	if err != nil {
		t.Fatalf("%s: %v", p.name, err)
	}
	return m
}
