package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/zoneprice/zoneprice/cmd/internal/cmdtest"
	"github.com/zoneprice/zoneprice/contracts"
)

// endpointResult is one endpoint's wrk runs against the real service and
// the bare baseline; run i of each was taken back to back.
type endpointResult struct {
	path       string
	body       int // bytes
	real, bare []wrkResult
	ratios     []float64 // real/bare req/s, per run
}

// startQuery runs the real zoneprice-query binary against the embedded
// NATS and waits until it reports ready.
func (b *bench) startQuery(ctx context.Context, natsURL string, res *results) (*child, error) {
	addr, err := cmdtest.PortAddr()
	if err != nil {
		return nil, err
	}
	metricsAddr, err := cmdtest.PortAddr()
	if err != nil {
		return nil, err
	}
	b.log.Info("starting zoneprice-query", "listen", addr, "metrics", metricsAddr)
	start := time.Now()
	q, err := startChild(b.tmp, "zoneprice-query", "http://"+addr, b.queryBin,
		"--nats-url", natsURL, "--listen", addr, "--log-format", "json", "--log-level", "warn",
		// The limiter runs on every request, as in production, but wrk's
		// one address must never be refused.
		"--rate-limit", "1000000/s;burst=1000",
		// Metrics and heap profiles on an operator's port, as a public
		// deployment has them.
		"--metrics-listen", metricsAddr, "--pprof")
	if err != nil {
		return nil, err
	}
	q.metricsURL = "http://" + metricsAddr
	if err := q.waitOK(ctx, "/readyz"); err != nil {
		q.stop()
		return nil, err
	}
	took := time.Since(start)
	if res.catchup != nil {
		res.catchup.process = took
	}
	b.log.Info("zoneprice-query ready", "took", took.Round(time.Millisecond))
	return q, nil
}

// benchPaths are the endpoints measured: the three catalog bodies, the
// comparison of the first generated zone, which every registrar prices,
// that zone's price history and the first page of the feed of changes;
// the catalog and that comparison as CSV; the pages people use: the
// catalog page, every zone in it, and that zone's page with its chart;
// and the Atom feeds of every change and of that zone's.
func benchPaths(zones []contracts.Zone) []string {
	return []string{
		"/api/domains",
		"/api/domains/categories",
		"/api/comparison/zones",
		"/api/comparison/" + zones[0].ASCII,
		"/api/comparison/" + zones[0].ASCII + "/history",
		"/api/changes",
		"/api/domains?format=csv",
		"/api/comparison/" + zones[0].ASCII + "?format=csv",
		"/",
		"/zones/" + zones[0].ASCII,
		"/changes.atom",
		"/zones/" + zones[0].ASCII + "/changes.atom",
	}
}

// throughput starts the bare baseline as a second process, checks it
// answers with the same bytes as the real service, then runs wrk against
// both, endpoint by endpoint, alternating which server goes first.
func (b *bench) throughput(ctx context.Context, q *child, env *natsEnv, res *results) error {
	paths := benchPaths(env.zones)
	addr, err := cmdtest.PortAddr()
	if err != nil {
		return err
	}
	argv := append([]string{b.self, bareCommand, "-from", q.url, "-listen", addr}, paths...)
	bare, err := startChild(b.tmp, "bare", "http://"+addr, argv...)
	if err != nil {
		return err
	}
	defer bare.stop()
	if err := bare.waitOK(ctx, paths[0]); err != nil {
		return err
	}

	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableCompression: true}}
	defer client.CloseIdleConnections()
	sizes := make([]int, len(paths))
	for i, p := range paths {
		if sizes[i], err = sameResponses(ctx, client, q.url, bare.url, p); err != nil {
			return fmt.Errorf("the bare baseline does not serve the same response: %w", err)
		}
	}

	for i, p := range paths {
		er := &endpointResult{path: p, body: sizes[i]}
		res.endpoints = append(res.endpoints, er)
		for run := range b.cfg.runs {
			servers := []*child{q, bare}
			if run%2 == 1 {
				servers = []*child{bare, q}
			}
			got := map[*child]wrkResult{}
			for _, s := range servers {
				r, err := b.runWrk(ctx, s.url+p)
				if err != nil {
					return err
				}
				got[s] = r
			}
			for _, s := range servers {
				select {
				case <-s.done:
					return s.exitError()
				default:
				}
			}
			er.real = append(er.real, got[q])
			er.bare = append(er.bare, got[bare])
			ratio := 0.0
			if got[bare].reqPerSec > 0 {
				ratio = got[q].reqPerSec / got[bare].reqPerSec
			}
			er.ratios = append(er.ratios, ratio)
			b.log.Info("http", "path", p, "run", run+1,
				"real_rps", int(got[q].reqPerSec), "bare_rps", int(got[bare].reqPerSec),
				"ratio", fmt.Sprintf("%.2f", ratio))
		}
	}
	return b.features(ctx, q, bare, mcpRequest(env.zones[0].ASCII), res)
}
