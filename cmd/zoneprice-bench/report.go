package main

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The targets the report checks.
const (
	targetHTTPRatio = 0.85
	targetReady     = 3 * time.Second
	// targetCatchupRatio is issue 21's: the real consumer's catch-up at
	// most 1.15 times the bare consumer's, by the medians of
	// -catchup-runs runs each.
	targetCatchupRatio = 1.15
	// targetApplied is the events a query consumer applies per second.
	targetApplied  = 100_000
	targetFreshP99 = 100 * time.Millisecond
	targetRSS      = 200 << 20 // bytes, holding the prices
	// targetHistoryRSS is what holding the history may add to a pod's
	// resident memory, and targetHistoryLoad how many times a bare
	// consumer's read of the history stream a pod may take to load it.
	targetHistoryRSS  = 150 << 20
	targetHistoryLoad = 3.0
	// targetHookP99 is a change's time from an ingester's publish to a
	// subscriber's receiver, and targetHookRate the deliveries one notify
	// replica sends a second; targetHookRatio, that rate against a bare
	// Go client's sending the same signed bodies to the same receivers
	// (issue 23).
	targetHookP99   = 500 * time.Millisecond
	targetHookRate  = 2000
	targetHookRatio = 0.6
)

// results is everything one run measured; a part that did not run is nil
// or empty, and err says why the run stopped early.
type results struct {
	cfg     config
	machine machine
	started time.Time
	took    time.Duration
	err     error

	ingest      *ingestResult
	catchup     *catchupResult
	history     *historyResult
	historyLoad *historyLoadResult
	endpoints   []*endpointResult
	features    []*featureResult
	fresh       []*freshResult // prices, then history
	webhooks    *webhookResult
	// memory is the pod under test's, after the history was loaded.
	memory []memSample
	// heap is the appendix on where the query pod's memory goes: the
	// top of its heap profile after the HTTP runs; historyProfile, on
	// where its CPU goes while it loads the history.
	heap, historyProfile string
}

// machine describes where the bench ran.
type machine struct {
	cpus       int
	cpuModel   string
	kernel     string
	goVersion  string
	commit     string
	wrkVersion string
}

func describeMachine(ctx context.Context, wrk string) machine {
	m := machine{cpus: runtime.NumCPU(), goVersion: runtime.Version(), cpuModel: "unknown", kernel: "unknown", commit: "unknown"}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.cpuModel = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.kernel = strings.TrimSpace(string(b))
	}
	if out, err := exec.CommandContext(ctx, "git", "rev-parse", "--short", "HEAD").Output(); err == nil {
		m.commit = strings.TrimSpace(string(out))
		if st, err := exec.CommandContext(ctx, "git", "status", "--porcelain").Output(); err == nil && len(st) > 0 {
			m.commit += " with uncommitted changes"
		}
	}
	if wrk == "" {
		m.wrkVersion = "wrk not used"
		return m
	}
	// wrk -v prints its version and usage, and exits 1.
	out, _ := exec.CommandContext(ctx, wrk, "-v").CombinedOutput()
	m.wrkVersion, _, _ = strings.Cut(string(out), "\n")
	m.wrkVersion, _, _ = strings.Cut(m.wrkVersion, " Copyright")
	m.wrkVersion = strings.TrimSpace(m.wrkVersion)
	return m
}

// report is the markdown being written, and the names of the targets it
// found missed.
type report struct {
	strings.Builder
	checks int
	failed []string
}

// verdict records a target check and returns its cell.
func (r *report) verdict(name string, ok bool) string {
	r.checks++
	if ok {
		return "PASS"
	}
	r.failed = append(r.failed, name)
	return "**FAIL**"
}

func (r *report) line(format string, args ...any) {
	fmt.Fprintf(r, format, args...)
	r.WriteByte('\n')
}

// section opens a section of the report with its heading, and says "Not
// run." and reports false when the section has nothing to show.
func (r *report) section(title string, ran bool) bool {
	r.line("## %s", title)
	r.line("")
	if !ran {
		r.line("Not run.")
		r.line("")
	}
	return ran
}

// markdown renders the report and returns the targets missed.
func (res *results) markdown() (string, []string) {
	var body report
	res.writeHTTP(&body)
	res.writeFeatures(&body)
	res.writeCatchup(&body)
	res.writeHistoryLoad(&body)
	res.writeFresh(&body)
	res.writeWebhooks(&body)
	res.writeMemory(&body)
	res.writeIngest(&body)
	writeHowToRead(&body)
	res.writeHeap(&body)

	var r report
	m := res.machine
	r.line("# zoneprice benchmark")
	r.line("")
	r.line("Run %s on %s/%s, %d CPUs (%s), Linux %s; %s; commit %s; %s. The run took %s.",
		res.started.UTC().Format(time.RFC3339), runtime.GOOS, runtime.GOARCH, m.cpus, m.cpuModel, m.kernel,
		m.goVersion, m.commit, m.wrkVersion, res.took.Round(time.Second))
	r.line("")
	switch {
	case res.err != nil:
		r.line("**Result: INCOMPLETE.** The bench stopped early: `%s`. The sections below show what was measured before that.", oneLine(res.err.Error()))
	case len(body.failed) > 0:
		r.line("**Result: FAIL.** %d of %d targets missed: %s.", len(body.failed), body.checks, strings.Join(body.failed, "; "))
	default:
		r.line("**Result: PASS.** All %d targets met.", body.checks)
	}
	r.line("")
	res.writeParameters(&r)
	r.WriteString(body.String())
	if res.err != nil {
		r.line("## Error")
		r.line("")
		r.line("```")
		r.line("%s", res.err)
		r.line("```")
		r.line("")
	}
	return r.String(), body.failed
}

func (res *results) writeParameters(r *report) {
	c := res.cfg
	r.line("## Parameters")
	r.line("")
	r.line("| Parameter | Value |")
	r.line("|---|---|")
	r.line("| Data set | %s zones × %s registrars = %s price sets (every registrar prices every zone) |",
		fmtInt(int64(c.zones)), fmtInt(int64(c.registrars)), fmtInt(int64(c.zones*c.registrars)))
	if in := res.ingest; in != nil {
		r.line("| State stream | %s messages: the price sets, %s zone metadata, %d rates |",
			fmtInt(int64(in.events())), fmtInt(int64(in.metas)), in.rates)
	}
	if len(c.only) > 0 {
		r.line("| Sections | only %s (`-only`) |", strings.Join(slices.Sorted(maps.Keys(c.only)), ", "))
	}
	if c.selected("http") || c.selected("freshness") {
		r.line("| wrk | `-t%d -c%d -d%ds --latency`, %d runs per endpoint and server, real and bare back to back, first one alternating |",
			wrkThreads, c.connections, int(c.duration/time.Second), c.runs)
	}
	if h := res.history; h != nil {
		r.line("| History stream | %s changes of the %s prices (%s added, %s changed, %s withdrawn, %s known), observed from %s to %s, generated with seed %d |",
			fmtInt(int64(h.changes)), fmtInt(int64(h.subjects)), fmtInt(int64(h.kinds[kindAdded])), fmtInt(int64(h.kinds[kindChanged])),
			fmtInt(int64(h.kinds[kindWithdrawn])), fmtInt(int64(h.kinds[kindKnown])), h.from.Format(time.DateOnly), h.to.Format(time.DateOnly), historySeed)
	}
	if c.selected("catchup") {
		r.line("| Catch-up | %d runs each of the bare and the real consumer, alternating which goes first, in a process of their own (as a pod is one, apart from the server), against the embedded NATS over loopback TCP |", c.catchupRuns)
	}
	if c.selected("history") {
		r.line("| History load | %d runs each of a bare consumer (a process of its own) and a zoneprice-query pod, alternating; %d pods with an empty history stream before it is published |", c.runs, c.runs)
	}
	if c.selected("freshness") {
		r.line("| Freshness | %d price sets, then %d changes, one at a time at least %v apart, polled every %v with If-None-Match, under wrk `-c%d` on /api/domains |",
			freshUpdates, freshUpdates, freshInterval, freshPoll, c.connections)
	}
	if w := res.webhooks; w != nil {
		r.line("| Webhooks | one zoneprice-notify process (%d workers, `--webhook-allow-loopback --webhook-allow-http`); receivers in the bench's process on %d loopback ports, verifying every signature with the Standard Webhooks library's Verify; %d changes one at a time at least %v apart; %s × %d endpoints; one change to %s endpoints spread over the ports, then to as many on one port |",
			w.notifyWorkers, hookEndpoints, hookLatencyChanges, hookLatencyInterval, fmtInt(hookChanges), hookEndpoints, fmtInt(hookFanout))
	}
	r.line("")
}

func (res *results) writeHTTP(r *report) {
	if !r.section("HTTP throughput (real vs bare net/http, same bytes)", len(res.endpoints) > 0) {
		return
	}
	r.line("Medians over %d runs. The bare server is a plain net/http ServeMux in its own process writing the same status, headers and bytes (checked byte for byte before measuring).", res.cfg.runs)
	r.line("")
	r.line("| Endpoint | Body | Real req/s | Bare req/s | Real/bare | Range | Real p50 / p99 | Bare p50 / p99 | Errors | Target | Result |")
	r.line("|---|--:|--:|--:|--:|--:|--:|--:|---|---|---|")
	for _, e := range res.endpoints {
		if len(e.ratios) == 0 {
			r.line("| `%s` | %s | — | — | — | — | — | — | — | ≥ %.2f | not run |", e.path, fmtBytes(int64(e.body)), targetHTTPRatio)
			continue
		}
		ratio := median(e.ratios)
		lo, hi := slices.Min(e.ratios), slices.Max(e.ratios)
		errs := runErrors("real", e.real) + runErrors("bare", e.bare)
		ok := ratio >= targetHTTPRatio && errs == ""
		if errs == "" {
			errs = "none"
		}
		r.line("| `%s` | %s | %s | %s | %.2f | %.2f–%.2f | %s / %s | %s / %s | %s | ≥ %.2f, no errors | %s |",
			e.path, fmtBytes(int64(e.body)),
			fmtRate(median(rates(e.real))), fmtRate(median(rates(e.bare))), ratio, lo, hi,
			fmtLatency(medianOf(e.real, p50)), fmtLatency(medianOf(e.real, p99)),
			fmtLatency(medianOf(e.bare, p50)), fmtLatency(medianOf(e.bare, p99)),
			errs, targetHTTPRatio, r.verdict("HTTP "+e.path, ok))
	}
	r.line("")
}

// writeThroughput writes the throughput runs' rows: the medians of the
// runs, and their spread.
func (w *webhookResult) writeThroughput(r *report) {
	runs := func(ds []time.Duration) string {
		if len(ds) == 1 {
			return "1 run, " + fmtSeconds(ds[0])
		}
		return fmt.Sprintf("median of %d runs, %s–%s", len(ds), fmtSeconds(slices.Min(ds)), fmtSeconds(slices.Max(ds)))
	}
	if w.realErr != nil && len(w.realTook) == 0 {
		r.line("| zoneprice-notify, one replica: delivered per second | %s | ≥ %s/s | %s |", oneLine(w.realErr.Error()), fmtInt(targetHookRate), r.verdict("webhook throughput", false))
		return
	}
	if w.realErr != nil {
		r.line("| zoneprice-notify, a later run | %s | — | info |", oneLine(w.realErr.Error()))
	}
	rate := float64(w.deliveries) / medianDur(w.realTook).Seconds()
	r.line("| zoneprice-notify, one replica: delivered per second (%s a run; %s) | %s/s | ≥ %s/s | %s |",
		fmtInt(int64(w.deliveries)), runs(w.realTook), fmtRate(rate), fmtInt(targetHookRate), r.verdict("webhook throughput", rate >= targetHookRate))
	if w.bareErr != nil {
		r.line("| Bare Go client, same signed bodies, %d at once, to the same receivers | %s | — | info |", w.notifyWorkers, oneLine(w.bareErr.Error()))
	}
	if len(w.bareTook) > 0 {
		bare := float64(w.deliveries) / medianDur(w.bareTook).Seconds()
		failures := ""
		if w.bareFailures > 0 {
			failures = fmt.Sprintf(", %d not 2xx", w.bareFailures)
		}
		r.line("| Bare Go client, same signed bodies, %d at once, to the same receivers (%s) | %s/s%s | — | info |", w.notifyWorkers, runs(w.bareTook), fmtRate(bare), failures)
		r.line("| zoneprice-notify / bare (of the medians) | %.2f | ≥ %.1f | %s |", rate/bare, targetHookRatio, r.verdict("webhook throughput against a bare client", rate/bare >= targetHookRatio))
	}
	perDelivery := func(d time.Duration, runs int) string {
		return fmt.Sprintf("%.1f µs", d.Seconds()*1e6/float64(w.deliveries*runs))
	}
	if w.notifyCPURuns > 0 {
		r.line("| CPU time per delivery, zoneprice-notify's runs: notify (its process_cpu_seconds_total); the bench's process (NATS server, receivers) | %s; %s | — | info |",
			perDelivery(w.notifyCPU, w.notifyCPURuns), perDelivery(w.benchCPU, len(w.realTook)))
	}
	if len(w.bareTook) > 0 {
		r.line("| CPU time per delivery, the bare client's runs: the client's process; the bench's process (receivers) | %s; %s | — | info |",
			perDelivery(w.bareCPU, len(w.bareTook)), perDelivery(w.bareRecvCPU, len(w.bareTook)))
	}
}

// runErrors describes the failed requests of a series of runs.
func runErrors(name string, runs []wrkResult) string {
	var s string
	for i, w := range runs {
		if w.failed() {
			s += fmt.Sprintf("%s run %d: %s. ", name, i+1, w.errorSummary())
		}
	}
	return s
}

func (res *results) writeCatchup(r *report) {
	c := res.catchup
	if c == nil {
		r.section("Catch-up", false)
		return
	}
	r.section("Catch-up ("+fmtInt(int64(c.prices))+" prices)", true)
	r.line("Replaying the state stream (%s messages, last per subject) from start to serving. The bare consumer only reads: an ordered consumer with the same pull batch, until NumPending is 0. The real one is the service's consumer (query/replay) until Ready, i.e. with the whole index built and the first snapshot rendered.", fmtInt(int64(c.messages)))
	r.line("")
	r.line("| Measure | Min | Median | Max | Target | Result |")
	r.line("|---|--:|--:|--:|---|---|")
	if len(c.bare) > 0 {
		r.line("| Bare ordered consumer: start to last message | %s | — | info |", spreadCells(c.bare))
	}
	if len(c.real) > 0 {
		med := medianDur(c.real)
		r.line("| Real consumer: start to Ready | %s | median ≤ %s | %s |",
			spreadCells(c.real), fmtSeconds(targetReady), r.verdict("catch-up ready time", med <= targetReady))
	}
	if len(c.bare) > 0 && len(c.real) > 0 {
		ratio := medianDur(c.real).Seconds() / medianDur(c.bare).Seconds()
		r.line("| Real / bare (of the medians) | | %.2f | | ≤ %.2f | %s |",
			ratio, targetCatchupRatio, r.verdict("catch-up ratio", ratio <= targetCatchupRatio))
	}
	if len(c.real) > 0 {
		rate := float64(c.messages) / medianDur(c.real).Seconds()
		r.line("| Events applied per second (messages / real median) | | %s | | ≥ %s | %s |",
			fmtRate(rate), fmtRate(targetApplied), r.verdict("events applied per second", rate >= targetApplied))
	}
	if c.process > 0 {
		r.line("| zoneprice-query process: exec to /readyz 200 (once) | | %s | | — | info |", fmtSeconds(c.process))
	}
	r.line("")
}

func (res *results) writeHistoryLoad(r *report) {
	h := res.historyLoad
	if !r.section("History load", h != nil && len(h.bare)+len(h.pod) > 0) {
		return
	}
	r.line("Reading the history stream (%s messages, every one) once the prices are ready. The bare consumer only reads, in a process of its own as the pod is: an ordered consumer delivering every message with the pod's pull batch, until NumPending is 0. The pod is zoneprice-query, which reads the stream the same way (stream.Open, All) and decodes and holds every change; its time is its zoneprice_history_load_seconds, from when it starts reading the history stream to loaded.", fmtInt(int64(h.changes)))
	r.line("")
	r.line("| Measure | Min | Median | Max | Target | Result |")
	r.line("|---|--:|--:|--:|---|---|")
	if len(h.bare) > 0 {
		r.line("| Bare ordered consumer: start to last message | %s | — | info |", spreadCells(h.bare))
	}
	if len(h.pod) > 0 {
		r.line("| zoneprice-query: zoneprice_history_load_seconds | %s | — | info |", spreadCells(h.pod))
		r.line("| Changes loaded per second (messages / pod median) | | %s | | — | info |", fmtRate(float64(h.changes)/medianDur(h.pod).Seconds()))
	}
	if len(h.bare) > 0 && len(h.pod) > 0 {
		ratio := medianDur(h.pod).Seconds() / medianDur(h.bare).Seconds()
		r.line("| Pod / bare (of the medians) | | %.2f | | ≤ %.1f | %s |",
			ratio, targetHistoryLoad, r.verdict("history load ratio", ratio <= targetHistoryLoad))
	}
	r.line("")
}

func (res *results) writeFresh(r *report) {
	if !r.section("Freshness under load", len(res.fresh) > 0) {
		return
	}
	for _, f := range res.fresh {
		writeFreshRun(r, f)
	}
}

func writeFreshRun(r *report, f *freshResult) {
	prefix := "freshness"
	if f.name != "" {
		prefix = f.name + " freshness"
	}
	r.line("Time from just before %s, while wrk loads `/api/domains`.", f.what)
	r.line("")
	r.line("| Measure | Value | Target | Result |")
	r.line("|---|--:|---|---|")
	seen := fmt.Sprintf("%d of %d", len(f.lags), freshUpdates)
	if f.err != nil {
		seen += " (" + oneLine(f.err.Error()) + ")"
	}
	r.line("| Updates seen | %s | all, each within %v | %s |", seen, freshDeadline,
		r.verdict(prefix+": every update seen", f.err == nil && len(f.lags) == freshUpdates))
	if len(f.lags) > 0 {
		sorted := slices.Sorted(slices.Values(f.lags))
		r.line("| p50 | %s | — | info |", fmtLatency(percentile(sorted, 50)))
		r.line("| p90 | %s | — | info |", fmtLatency(percentile(sorted, 90)))
		worst := percentile(sorted, 99)
		r.line("| p99 | %s | ≤ %s | %s |", fmtLatency(worst), fmtLatency(targetFreshP99), r.verdict(prefix+" p99", worst <= targetFreshP99))
		r.line("| max | %s | — | info |", fmtLatency(sorted[len(sorted)-1]))
	}
	if f.loadErr != nil {
		r.line("| Background load on /api/domains | %s | no errors | %s |", oneLine(f.loadErr.Error()), r.verdict(prefix+" background load", false))
	} else {
		errs := f.load.errorSummary()
		if errs == "" {
			errs = "no errors"
		}
		r.line("| Background load on /api/domains | %s req/s, p99 %s, %s | no errors | %s |",
			fmtRate(f.load.reqPerSec), fmtLatency(f.load.p99), errs, r.verdict(prefix+" background load", !f.load.failed()))
	}
	r.line("")
}

func (res *results) writeWebhooks(r *report) {
	w := res.webhooks
	if !r.section("Webhooks", w != nil) {
		return
	}
	r.line("The real zoneprice-notify process delivers to receivers in the bench's process, which verify each delivery's signature with the Standard Webhooks library's Verify and count each webhook-id once. Changes are published on the history stream as an ingester publishes them (bus.Publisher), by a registrar of the bench's; endpoints are registered through query/webhooks' store, each run's on a zone of its own.")
	r.line("")
	r.line("| Measure | Value | Target | Result |")
	r.line("|---|--:|---|---|")
	seen := fmt.Sprintf("%d of %d", len(w.latency), hookLatencyChanges)
	if w.latencyErr != nil {
		seen += " (" + oneLine(w.latencyErr.Error()) + ")"
	}
	r.line("| Latency: changes published one at a time, delivered to the one endpoint that wants them | %s | all, each within %v | %s |", seen, hookLatencyDeadline,
		r.verdict("webhooks: every change delivered", w.latencyErr == nil && len(w.latency) == hookLatencyChanges))
	if len(w.latency) > 0 {
		sorted := slices.Sorted(slices.Values(w.latency))
		r.line("| Publish to verified arrival, p50 / p90 | %s / %s | — | info |", fmtLatency(percentile(sorted, 50)), fmtLatency(percentile(sorted, 90)))
		worst := percentile(sorted, 99)
		r.line("| Publish to verified arrival, p99 | %s | ≤ %s | %s |", fmtLatency(worst), fmtLatency(targetHookP99), r.verdict("webhook latency p99", worst <= targetHookP99))
		r.line("| Publish to verified arrival, max | %s | — | info |", fmtLatency(sorted[len(sorted)-1]))
	}
	if w.deliveries > 0 {
		r.line("| Throughput: deliveries queued (%s changes × %d endpoints, each on its own port) before the receivers let the first attempts finish (the fewest of the runs) | %s of %s | — | info |",
			fmtInt(hookChanges), hookEndpoints, fmtInt(int64(w.queued)), fmtInt(int64(w.deliveries)))
		w.writeThroughput(r)
	}
	for _, f := range w.fanouts {
		r.line("| Fan-out %s: %s endpoints registered through the store (%d at once) | %s | — | info |", f.where, fmtInt(hookFanout), hookRegisterWorkers, fmtSeconds(f.registered))
		got := fmt.Sprintf("%s of %s", fmtInt(int64(f.delivered)), fmtInt(hookFanout))
		if f.err != nil {
			got += " (" + oneLine(f.err.Error()) + ")"
		}
		r.line("| Fan-out %s: endpoints that got the one change | %s | all | %s |", f.where, got, r.verdict("webhook fan-out "+f.where, f.err == nil && f.delivered == hookFanout))
		if f.delivered > 0 {
			r.line("| Fan-out %s: publish to the first delivery | %s | — | info |", f.where, fmtLatency(f.first))
		}
		if f.err == nil {
			r.line("| Fan-out %s: publish to the %sth delivery | %s | — | info |", f.where, fmtInt(hookFanout), fmtLatency(f.last))
		}
	}
	r.line("| Deliveries whose signature did not verify | %d | 0 | %s |", w.badSignatures, r.verdict("webhook signatures", w.badSignatures == 0))
	r.line("| Repeats of a webhook-id within a run (at-least-once; none expected here) | %d | — | info |", w.duplicates)
	r.line("")
}

func (res *results) writeMemory(r *report) {
	hl := res.historyLoad
	if !r.section("Memory", len(res.memory) > 0 || hl != nil && len(hl.empty) > 0) {
		return
	}
	r.line("Resident memory of zoneprice-query processes: VmRSS and its peak VmHWM from /proc/<pid>/status, and from /metrics the Go heap in use and the GC's heap goal (the heap size that starts the next collection; with the default GOGC=100 about twice what was live after the last one). The prices' target was set for 225,000 prices; the history may add %d MiB to it. A pod's memory with its history loaded is read %v after zoneprice_history_loaded turns 1, once it has returned the load's garbage to the system; the first two rows are the medians (by RSS) of %d pods each, the rest the pod under test.", targetHistoryRSS>>20, historySettle, res.cfg.runs)
	r.line("")
	r.line("| When | RSS | Peak so far | Go heap in use | GC heap goal | Target | Result |")
	r.line("|---|--:|--:|--:|--:|---|---|")
	row := func(name string, m memSample, limit int64) {
		if m.err != nil {
			r.line("| %s | %s | | | | RSS ≤ %d MiB | %s |", m.when, oneLine(m.err.Error()), limit>>20, r.verdict(name, false))
			return
		}
		r.line("| %s | %s | %s | %s | %s | RSS ≤ %d MiB | %s |", m.when, fmtMiB(m.rss), fmtMiB(m.hwm),
			fmtMiBOrDash(m.heapInuse), fmtMiBOrDash(m.heapGoal), limit>>20, r.verdict(name, m.rss <= limit))
	}
	var empty, full memSample
	if hl != nil && len(hl.empty) > 0 {
		empty = medianMem(hl.empty)
		row("memory, prices only", empty, targetRSS)
	}
	if hl != nil && len(hl.full) > 0 {
		full = medianMem(hl.full)
		row("memory, prices and history", full, targetRSS+targetHistoryRSS)
	}
	if hl != nil && len(hl.empty) > 0 && len(hl.full) > 0 && empty.err == nil && full.err == nil {
		cost := full.rss - empty.rss
		r.line("| The history's cost: the second row less the first | %s | | %s | | ≤ %d MiB | %s |",
			fmtMiB(cost), fmtMiB(full.heapInuse-empty.heapInuse), targetHistoryRSS>>20, r.verdict("history memory", cost <= targetHistoryRSS))
	}
	for _, m := range res.memory {
		row("memory "+m.when, m, targetRSS+targetHistoryRSS)
	}
	r.line("")
}

// medianMem is the sample of median RSS (the lower of the middle two).
func medianMem(ms []memSample) memSample {
	for _, m := range ms {
		if m.err != nil {
			return m
		}
	}
	s := slices.SortedFunc(slices.Values(ms), func(a, b memSample) int { return cmp.Compare(a.rss, b.rss) })
	m := s[(len(s)-1)/2]
	m.when = fmt.Sprintf("%s (median of %d)", m.when, len(s))
	return m
}

func (res *results) writeHeap(r *report) {
	if w := res.webhooks; w != nil && w.profile != "" {
		r.line("## Appendix: where zoneprice-notify's CPU goes while it delivers")
		r.line("")
		r.line("A CPU profile of zoneprice-notify (`/debug/pprof/profile` on its metrics port, served with `--pprof`; bench flag `-notify-profile`) over %v from when the receivers let the throughput run's deliveries go.", hookProfileTime)
		r.line("%s", w.profile)
		r.line("")
		r.line("The bench's own process (the NATS server and the receivers) over the same run, until the last delivery: %s.", w.benchProfile)
		r.line("")
	}
	if res.historyProfile != "" {
		r.line("## Appendix: where the query pod's CPU goes while it loads the history")
		r.line("")
		r.line("A CPU profile of the pod under test (`/debug/pprof/profile` on its metrics port) over the first %v of its history load, from when it is ready; that pod's load is not one of the timed ones.", historyProfileTime)
		r.line("%s", res.historyProfile)
		r.line("")
	}
	if res.heap == "" {
		return
	}
	r.line("## Appendix: where the query pod's memory goes")
	r.line("")
	r.line("The heap profile of zoneprice-query after the HTTP runs (`/debug/pprof/heap?gc=1` on its metrics port, served with `--pprof`).")
	r.line("%s", res.heap)
	r.line("")
}

func (res *results) writeIngest(r *report) {
	in := res.ingest
	if !r.section("Ingest", in != nil) {
		return
	}
	r.line("| Measure | Value | Target | Result |")
	r.line("|---|--:|---|---|")
	r.line("| Events published (bus.Publisher.PublishAll, window %d, encode and validate included) | %s | — | info |", publishWindow, fmtInt(int64(in.events())))
	r.line("| Time to the last acknowledgement | %s | — | info |", fmtSeconds(in.took))
	r.line("| Ingest throughput | %s events/s | — | info |", fmtRate(float64(in.events())/in.took.Seconds()))
	if h := res.history; h != nil {
		r.line("| History: %s changes generated (plans drawn, trimmed to the count, sorted) | %s | — | info |", fmtInt(int64(h.changes)), fmtSeconds(h.generated))
		if h.published > 0 {
			r.line("| History: encoded, validated and published (contracts.Encode, Publisher.Send, window %d), to the last acknowledgement | %s (%s changes/s) | — | info |",
				publishWindow, fmtSeconds(h.published), fmtRate(float64(h.changes)/h.published.Seconds()))
		}
	}
	r.line("")
}

func writeHowToRead(r *report) {
	r.line("## How to read this")
	r.line("")
	r.line("This runs on a shared, noisy 2-core machine where wrk, the server under test and the bench itself share the same cores, so absolute numbers move from run to run with whatever else the machine is doing. Compare the ratios, whose two halves were measured back to back in the same run, rather than absolute req/s across reports; the bare baseline is the best a Go server can do with the same bytes here, so real/bare is the cost of the service's own code (echo, routing, metrics, the snapshot lookup). Rerun `make bench` several times and look at the min/median/max: a target missed in one run but met in the others is noise; one missed by its whole range is not.")
	r.line("")
}

// Statistics.

func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n == 0 {
		return math.NaN()
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func medianDur(ds []time.Duration) time.Duration {
	xs := make([]float64, len(ds))
	for i, d := range ds {
		xs[i] = float64(d)
	}
	return time.Duration(median(xs))
}

// percentile is the nearest-rank percentile of sorted values.
func percentile(sorted []time.Duration, p int) time.Duration {
	i := int(math.Ceil(float64(p)/100*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func rates(runs []wrkResult) []float64 {
	xs := make([]float64, len(runs))
	for i, r := range runs {
		xs[i] = r.reqPerSec
	}
	return xs
}

func p50(w wrkResult) time.Duration { return w.p50 }
func p99(w wrkResult) time.Duration { return w.p99 }

// medianOf is the median of one latency figure over a series of runs.
func medianOf(runs []wrkResult, f func(wrkResult) time.Duration) time.Duration {
	ds := make([]time.Duration, len(runs))
	for i, r := range runs {
		ds[i] = f(r)
	}
	return medianDur(ds)
}

// Formatting.

func fmtInt(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func fmtRate(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "—"
	}
	return fmtInt(int64(math.Round(f)))
}

func fmtLatency(d time.Duration) string {
	if d >= time.Second {
		return fmt.Sprintf("%.2f s", d.Seconds())
	}
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}

func fmtSeconds(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

// spreadCells is the min, median and max of a series of times, as three
// table cells.
func spreadCells(ds []time.Duration) string {
	return fmtSeconds(slices.Min(ds)) + " | " + fmtSeconds(medianDur(ds)) + " | " + fmtSeconds(slices.Max(ds))
}

func fmtMiB(n int64) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) }

func fmtMiBOrDash(n int64) string {
	if n == 0 {
		return "—"
	}
	return fmtMiB(n)
}

func fmtBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// oneLine keeps an error's first line, for a table cell.
func oneLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.ReplaceAll(s, "|", `\|`)
}
