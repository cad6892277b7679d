package main

import (
	"context"
	"fmt"
	"net/http"
	"slices"
)

// The HTTP features' targets: a client that takes gzip gets the catalog at
// least this much faster than the bare server sends it uncompressed, and a
// revalidation answered 304 at least this much faster than a full 200.
const (
	targetGzipRatio = 1.5
	target304Ratio  = 1.5
)

// featureResult is one HTTP feature measured against its baseline, run i
// of each taken back to back.
type featureResult struct {
	name, measured, baseline string
	target                   float64
	real, base               []wrkResult
	ratios                   []float64 // real/base req/s, per run
}

// wrkTarget is one side of a comparison: a server, a path, the request
// headers wrk sends and the Lua script it runs (-s; "" for none), which
// makes a POST with content.
type wrkTarget struct {
	url     string
	headers []string
	script  string
}

// features measures the catalog as clients that use HTTP well fetch it,
// compressed and revalidated with its ETag; and an MCP tools/call
// (mcpCall) against the MCP SDK's bare handler (mcp.go).
func (b *bench) features(ctx context.Context, q, bare *child, mcpCall string, res *results) error {
	const path = "/api/domains"
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	defer client.CloseIdleConnections()
	plain, err := get(ctx, client, q.url+path)
	if err != nil {
		return err
	}
	etag := plain.header.Get("Etag")
	if err := expect(ctx, client, q.url+path, http.StatusOK, "gzip", "Accept-Encoding", "gzip"); err != nil {
		return err
	}
	if err := expect(ctx, client, q.url+path, http.StatusNotModified, "", "If-None-Match", etag); err != nil {
		return err
	}
	bareMCP, err := b.startBareMCP(ctx, q, mcpCall)
	if err != nil {
		return err
	}
	defer bareMCP.stop()
	if _, err := sameMCP(ctx, client, q.url, bareMCP.url, mcpCall); err != nil {
		return fmt.Errorf("the bare MCP handler does not answer the same: %w", err)
	}
	script, err := b.mcpScript(mcpCall)
	if err != nil {
		return err
	}
	comparisons := []struct {
		f          *featureResult
		real, base wrkTarget
	}{
		{
			&featureResult{name: "gzip", measured: "real, `Accept-Encoding: gzip`", baseline: "bare, uncompressed", target: targetGzipRatio},
			wrkTarget{url: q.url + path, headers: []string{"Accept-Encoding: gzip"}}, wrkTarget{url: bare.url + path},
		},
		{
			&featureResult{name: "304", measured: "real, `If-None-Match` → 304", baseline: "real, full 200", target: target304Ratio},
			wrkTarget{url: q.url + path, headers: []string{"If-None-Match: " + etag}}, wrkTarget{url: q.url + path},
		},
		{
			&featureResult{name: "MCP", measured: "real `/mcp`, `tools/call` compare_zone", baseline: "go-sdk's bare handler, same answer", target: targetMCPRatio},
			wrkTarget{url: q.url + "/mcp", script: script}, wrkTarget{url: bareMCP.url + "/mcp", script: script},
		},
	}
	for _, c := range comparisons {
		res.features = append(res.features, c.f)
		for run := range b.cfg.runs {
			order := []*wrkTarget{&c.real, &c.base}
			if run%2 == 1 {
				slices.Reverse(order)
			}
			got := map[*wrkTarget]wrkResult{}
			for _, t := range order {
				r, err := b.runTarget(ctx, *t)
				if err != nil {
					return err
				}
				got[t] = r
			}
			c.f.real = append(c.f.real, got[&c.real])
			c.f.base = append(c.f.base, got[&c.base])
			ratio := 0.0
			if rps := got[&c.base].reqPerSec; rps > 0 {
				ratio = got[&c.real].reqPerSec / rps
			}
			c.f.ratios = append(c.f.ratios, ratio)
			b.log.Info("http feature", "feature", c.f.name, "run", run+1, "real_rps", int(got[&c.real].reqPerSec),
				"baseline_rps", int(got[&c.base].reqPerSec), "ratio", fmt.Sprintf("%.2f", ratio))
		}
	}
	return nil
}

// expect checks that a request with one header answers status with the
// given Content-Encoding: the benchmark must measure what it names.
func expect(ctx context.Context, client *http.Client, url string, status int, encoding, header, value string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set(header, value)
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != status || resp.Header.Get("Content-Encoding") != encoding {
		return fmt.Errorf("GET %s with %s: %s: got %d, Content-Encoding %q; want %d, %q",
			url, header, value, resp.StatusCode, resp.Header.Get("Content-Encoding"), status, encoding)
	}
	return nil
}

func (res *results) writeFeatures(r *report) {
	r.line("## HTTP features (the catalog, `/api/domains`, and MCP)")
	r.line("")
	if len(res.features) == 0 {
		r.line("Not run.")
		r.line("")
		return
	}
	r.line("Medians over %d runs, each paired with its baseline in the same run. Compression happens once per data version, so a gzip client gets fewer bytes for no work per request; a 304 sends none. MCP: a `tools/call` of `compare_zone` for the first zone, posted by wrk, through the whole service against the official go-sdk's own stateless Streamable HTTP handler whose one tool returns the same result (the same bytes).", res.cfg.runs)
	r.line("")
	r.line("| Feature | Measured | req/s | Baseline | req/s | Ratio | Range | Errors | Target | Result |")
	r.line("|---|---|--:|---|--:|--:|--:|---|---|---|")
	for _, f := range res.features {
		if len(f.ratios) == 0 {
			r.line("| %s | %s | — | %s | — | — | — | — | ≥ %.2f | not run |", f.name, f.measured, f.baseline, f.target)
			continue
		}
		ratio := median(f.ratios)
		errs := runErrors("measured", f.real) + runErrors("baseline", f.base)
		ok := ratio >= f.target && errs == ""
		if errs == "" {
			errs = "none"
		}
		r.line("| %s | %s | %s | %s | %s | %.2f | %.2f–%.2f | %s | ≥ %.2f×, no errors | %s |",
			f.name, f.measured, fmtRate(median(rates(f.real))), f.baseline, fmtRate(median(rates(f.base))),
			ratio, slices.Min(f.ratios), slices.Max(f.ratios), errs, f.target, r.verdict("HTTP feature "+f.name, ok))
	}
	r.line("")
}
