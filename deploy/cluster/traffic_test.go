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
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/eventtest"
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

// priceChange is the change an ingester records before it publishes ps:
// added when the zone had no price (prev is 0), else changed from the
// register price prev.
func priceChange(ps *contracts.PriceSet, prev int64) *contracts.PriceChange {
	c := &contracts.PriceChange{
		V: contracts.SchemaVersion, Kind: contracts.KindPriceChange, Change: contracts.ChangeAdded,
		Registrar: ps.Registrar, Zone: ps.Zone, After: ps.Offer(), ObservedAt: ps.ObservedAt, Source: ps.Source,
	}
	if prev > 0 {
		c.Change = contracts.ChangeChanged
		c.Before = priceSet(ps.Registrar, ps.Zone, prev, ps.ObservedAt).Offer()
	}
	return c
}

// change is what the suite compares of a recorded price change: the
// zone, the change, the register price before and after it in cents (0
// for no offer) and when it was observed, in Unix seconds, as precise as
// the pods' feed shows it.
type change struct {
	zone          string
	kind          contracts.Change
	before, after int64
	observed      int64
}

func changeOf(c *contracts.PriceChange) change {
	cents := func(o *contracts.Offer) int64 {
		if o == nil || o.Register == nil {
			return 0
		}
		return o.Register.Regular.Amount
	}
	return change{zone: c.Zone, kind: c.Change, before: cents(c.Before), after: cents(c.After), observed: c.ObservedAt.Unix()}
}

func (c change) String() string {
	return fmt.Sprintf("%s %s %d→%d observed %s", c.zone, c.kind, c.before, c.after, time.Unix(c.observed, 0).UTC().Format(time.RFC3339))
}

// recorder is what a publisher knows: every event it published, the last
// price the stream acknowledged per zone and every change the history
// stream acknowledged.
type recorder struct {
	mu        sync.Mutex
	acked     map[string]int64
	changes   []change
	published int // publish attempts, retries included
	ackCount  int // prices acknowledged
	retried   int
	errs      []string // the first few publish errors
}

func newRecorder() *recorder { return &recorder{acked: map[string]int64{}} }

func (r *recorder) snapshot() map[string]int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.acked)
}

// wantChanges is every acknowledged change, with the sequence stored
// holds it at where it holds it exactly once (else 0): what a pod's feed
// must list, under that id.
func (r *recorder) wantChanges(stored map[change][]uint64) map[change]uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	want := make(map[change]uint64, len(r.changes))
	for _, c := range r.changes {
		want[c] = 0
		if seqs := stored[c]; len(seqs) == 1 {
			want[c] = seqs[0]
		}
	}
	return want
}

func (r *recorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return fmt.Sprintf("publish attempts %d (%d of them retries), acknowledged %d prices and %d changes, zones %d",
		r.published, r.retried, r.ackCount, len(r.changes), len(r.acked))
}

// ack records an event the stream acknowledged; r.mu is held.
func (r *recorder) ack(ev contracts.Event) {
	switch ev := ev.(type) {
	case *contracts.PriceSet:
		r.ackCount++
		r.acked[ev.Zone] = ev.Register.Regular.Amount
	case *contracts.PriceChange:
		r.changes = append(r.changes, changeOf(ev))
	}
}

// publish publishes ev as an ingester does: a publish that fails (a
// leader election, a lost node) is retried with the same content, and
// therefore the same message id, until the stream acknowledges it; only
// then is it recorded. It gives up when ctx ends.
func (r *recorder) publish(ctx context.Context, pub *bus.Publisher, ev contracts.Event) error {
	for {
		r.mu.Lock()
		r.published++
		r.mu.Unlock()
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_, err := pub.Publish(pctx, ev)
		cancel()
		r.mu.Lock()
		if err == nil {
			r.ack(ev)
			r.mu.Unlock()
			return nil
		}
		r.retried++
		if len(r.errs) < 5 {
			r.errs = append(r.errs, err.Error())
		}
		r.mu.Unlock()
		if ctx.Err() != nil {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// steadyPublish publishes a new price for the next zone every interval
// until stop is closed, each preceded by its change, as an ingester
// records a change before the price it leads to (recorder.publish). It
// gives up when ctx ends.
func steadyPublish(ctx context.Context, stop <-chan struct{}, pub *bus.Publisher, registrar string, zones []string, interval time.Duration, rec *recorder) error {
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
		ps := priceSet(registrar, zone, int64(1000+n), time.Now())
		rec.mu.Lock()
		prev := rec.acked[zone]
		rec.mu.Unlock()
		if err := rec.publish(ctx, pub, priceChange(ps, prev)); err != nil {
			return err
		}
		if err := rec.publish(ctx, pub, ps); err != nil {
			return err
		}
	}
}

// seedPrices publishes a first price for every zone, so that the
// comparisons a load asks for exist from the start, after the changes
// that add them, and records them.
func seedPrices(ctx context.Context, pub *bus.Publisher, registrar string, zones []string, rec *recorder) error {
	prices := make([]contracts.Event, len(zones))
	changes := make([]contracts.Event, len(zones))
	for i, z := range zones {
		ps := priceSet(registrar, z, int64(500+i), time.Now())
		prices[i], changes[i] = ps, priceChange(ps, 0)
	}
	for _, events := range [][]contracts.Event{changes, prices} {
		if _, _, err := pub.PublishAll(ctx, events, 64); err != nil {
			return err
		}
		rec.mu.Lock()
		rec.published += len(events)
		for _, ev := range events {
			rec.ack(ev)
		}
		rec.mu.Unlock()
	}
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
	return p.waitUntil("converge", within, func(ctx context.Context) (string, error) {
		got, err := p.prices(ctx, registrar, zones)
		if err != nil {
			return "", err
		}
		return diffPrices(got, want), nil
	})
}

// waitUntil polls diff, which describes how the pod differs from what it
// should hold, until it says nothing (""). Its error names what the pod
// did not do, how it last differed, and the last error a poll met.
func (p *pod) waitUntil(what string, within time.Duration, diff func(context.Context) (string, error)) error {
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	last, lastErr := "no poll answered", ""
	for {
		d, err := diff(ctx)
		switch {
		case err == nil && d == "":
			return nil
		case err == nil:
			last = d
		case ctx.Err() == nil:
			lastErr = "; the last error: " + err.Error()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s did not %s within %v: %s%s", p.name, what, within, last, lastErr)
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

// historyChanges reads every change of registrar's that the history
// stream holds, each with the sequences it is stored at, as the
// registrar's ingester reads its history back: the admin user may ask for
// the stream's info only, not read it.
func historyChanges(ctx context.Context, js jetstream.JetStream, registrar string) (map[change][]uint64, error) {
	got := map[change][]uint64{}
	var bad error
	cfg := bus.ReaderConfig{Filters: []string{contracts.RegistrarChangeFilter(registrar)}, All: true}
	err := bus.ReadLast(ctx, js, contracts.HistoryStream, cfg, func(m bus.Msg) bool {
		ev, err := contracts.Decode(m.Data)
		c, ok := ev.(*contracts.PriceChange)
		if err != nil || !ok {
			bad = fmt.Errorf("history sequence %d on %s is not a change: %v", m.Seq, m.Subject, err)
			return false
		}
		k := changeOf(c)
		got[k] = append(got[k], m.Seq)
		return true
	})
	if err == nil {
		err = bad
	}
	return got, err
}

// feedPage is the part of a page of /api/changes the suite reads.
type feedPage struct {
	Next    *string `json:"next_cursor"`
	Changes []struct {
		ID         string     `json:"id"`
		Zone       string     `json:"zone"`
		Kind       string     `json:"kind"`
		ObservedAt time.Time  `json:"observed_at"`
		Before     *feedOffer `json:"before"`
		After      *feedOffer `json:"after"`
	} `json:"changes"`
}

type feedOffer struct {
	Register *json.Number `json:"register"`
}

// cents is the offer's register price in cents: 0 for no offer, -1 for
// one without registration.
func (o *feedOffer) cents() (int64, error) {
	switch {
	case o == nil:
		return 0, nil
	case o.Register == nil:
		return -1, nil
	}
	return toCents(o.Register.String())
}

// changes pages through the pod's feed of registrar's changes to its last
// page and returns each change with the ids it is listed under.
func (p *pod) changes(ctx context.Context, registrar string) (map[change][]uint64, error) {
	got := map[change][]uint64{}
	q := url.Values{"registrar": {registrar}, "limit": {"500"}}
	for {
		var page feedPage
		code, err := getJSON(ctx, p.url()+"/api/changes?"+q.Encode(), &page)
		if err == nil && code != http.StatusOK {
			err = fmt.Errorf("GET /api/changes?%s: %d", q.Encode(), code)
		}
		if err != nil {
			return nil, err
		}
		for _, item := range page.Changes {
			c := change{zone: item.Zone, kind: contracts.Change(item.Kind), observed: item.ObservedAt.Unix()}
			id, err := strconv.ParseUint(item.ID, 10, 64)
			if err == nil {
				c.before, err = item.Before.cents()
			}
			if err == nil {
				c.after, err = item.After.cents()
			}
			if err != nil {
				return nil, fmt.Errorf("GET /api/changes: change %q: %w", item.ID, err)
			}
			got[c] = append(got[c], id)
		}
		if page.Next == nil {
			return got, nil
		}
		q.Set("cursor", *page.Next)
	}
}

// waitChanges polls the pod until its feed of registrar's changes lists
// every change of want exactly once, under the id want gives it (where
// it gives one), and nothing else.
func (p *pod) waitChanges(registrar string, want map[change]uint64, within time.Duration) error {
	return p.waitUntil("list every acknowledged change once", within, func(ctx context.Context) (string, error) {
		got, err := p.changes(ctx, registrar)
		if err != nil {
			return "", err
		}
		return diffChanges(got, want), nil
	})
}

// diffChanges describes how got, the changes a reader found with the
// sequences (ids) it found each at, differs from want, every acknowledged
// change once with the sequence the history stream holds it at (0 where
// not known), or returns "".
func diffChanges(got map[change][]uint64, want map[change]uint64) string {
	var missing, doubled, moved, unknown []string
	for c, seq := range want {
		seqs := got[c]
		switch {
		case len(seqs) == 0:
			missing = append(missing, c.String())
		case len(seqs) > 1:
			doubled = append(doubled, fmt.Sprintf("%s at sequences %v", c, seqs))
		case seq != 0 && seqs[0] != seq:
			moved = append(moved, fmt.Sprintf("%s as %d, stored at %d", c, seqs[0], seq))
		}
	}
	for c, seqs := range got {
		if _, ok := want[c]; !ok {
			unknown = append(unknown, fmt.Sprintf("%s at sequences %v", c, seqs))
		}
	}
	var diffs []string
	for _, d := range []struct {
		what  string
		items []string
	}{
		{fmt.Sprintf("of %d acknowledged changes missing", len(want)), missing},
		{"doubled", doubled},
		{"listed under an id other than its stream sequence", moved},
		{"never acknowledged", unknown},
	} {
		if len(d.items) == 0 {
			continue
		}
		slices.Sort(d.items)
		n := len(d.items)
		if n > 5 {
			d.items = append(d.items[:5], fmt.Sprintf("and %d more", n-5))
		}
		diffs = append(diffs, fmt.Sprintf("%d %s: %s", n, d.what, strings.Join(d.items, "; ")))
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
