package deploy

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"

	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/sample"
	"github.com/zoneprice/zoneprice/query/access"
	"github.com/zoneprice/zoneprice/query/notify"
)

// exported runs a real ingester and query pod against an in-process
// JetStream server and returns every metric name they export.
func exported(t *testing.T) map[string]bool {
	t.Helper()
	_, js := bustest.Provisioned(t)
	log := slog.New(slog.DiscardHandler)
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	r, err := ingest.NewRunner(sample.New(time.Now), bus.NewStreams(js), bus.NewPublisher(js), ingest.RunnerConfig{Timeout: time.Minute, MinKeepRatio: 0.5}, log, reg, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Once(context.Background()); err != nil {
		t.Fatal(err)
	}
	url := startQuery(t, js, reg, true)
	// A query pod's key store registers its metrics when it is made.
	if _, err := access.NewKeys(bus.Keys(js), nil, log, reg); err != nil {
		t.Fatal(err)
	}
	// A webhook sender registers its metrics, every labelled series at 0,
	// when it is made.
	if _, err := notify.New(notify.Bus{}, notify.DefaultConfig(), log, reg, time.Now); err != nil {
		t.Fatal(err)
	}
	// One request of each kind, so that labelled series exist.
	for _, path := range []string{"/api/domains", "/api/comparison/.com", "/nope"} {
		if _, err := httpGet(context.Background(), url+path); err != nil {
			t.Fatal(err)
		}
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{"up": true}
	for _, mf := range mfs {
		names[mf.GetName()] = true
		if mf.GetType() == dto.MetricType_HISTOGRAM {
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				names[mf.GetName()+suffix] = true
			}
		}
	}
	return names
}

// used returns the metric names an expression selects.
func used(t *testing.T, expr string) []string {
	t.Helper()
	e, err := parser.ParseExpr(expr)
	if err != nil {
		t.Errorf("parse %q: %v", expr, err)
		return nil
	}
	var names []string
	parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
		if vs, ok := n.(*parser.VectorSelector); ok {
			names = append(names, vs.Name)
		}
		return nil
	})
	return names
}

func TestAlertRules(t *testing.T) {
	data, err := os.ReadFile("prometheus/alerts.yml")
	if err != nil {
		t.Fatal(err)
	}
	groups, errs := rulefmt.Parse(data, false, model.UTF8Validation)
	if len(errs) > 0 {
		t.Fatalf("alerts.yml: %v", errs)
	}
	names := exported(t)
	var alerts []string
	for _, g := range groups.Groups {
		for _, r := range g.Rules {
			alerts = append(alerts, r.Alert)
			for _, n := range used(t, r.Expr) {
				if !names[n] {
					t.Errorf("alert %s uses %s, which the service does not export", r.Alert, n)
				}
			}
		}
	}
	// The alerts operators were promised.
	for _, want := range []string{"ZonepriceSourceStale", "ZonepriceIngestFailing", "ZonepriceServingSample",
		"ZonepriceConsumerLagGrowing", "ZonepricePodNotReady", "ZonepriceHigh5xxRate", "ZonepricePriceListRefused",
		"ZonepriceWebhookQueueGrowing", "ZonepriceWebhookDeliveriesFailing", "ZonepriceAPIUnavailable", "ZonepriceAPIKeysUnavailable"} {
		if !slices.Contains(alerts, want) {
			t.Errorf("alerts.yml has no %s", want)
		}
	}
}

func TestDashboard(t *testing.T) {
	data, err := os.ReadFile("grafana/zoneprice.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatalf("zoneprice.json: %v", err)
	}
	names := exported(t)
	var titles []string
	for _, p := range dash.Panels {
		titles = append(titles, p.Title)
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			for _, n := range used(t, tg.Expr) {
				if !names[n] {
					t.Errorf("panel %q uses %s, which the service does not export", p.Title, n)
				}
			}
		}
	}
	all := strings.Join(titles, "|")
	for _, want := range []string{"Request rate", "Error rate", "Latency", "Data age per source", "Consumer lag", "Pods ready", "Pods serving the sample",
		"Webhook attempts by outcome", "Webhook attempt latency", "Webhook queue", "Webhook endpoints"} {
		if !strings.Contains(all, want) {
			t.Errorf("dashboard has no %q panel", want)
		}
	}
}
