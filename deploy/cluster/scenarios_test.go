//go:build integration

package cluster

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/ory/dockertest/v3"
	dc "github.com/ory/dockertest/v3/docker"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
)

// The scenarios, in the order they run: the quick ones first.

// TestPermissions: an ingester holding porkbun's credentials publishes
// porkbun's prices, is refused when it publishes ovhcloud's, and nothing of
// ovhcloud's reaches the stream or a query pod.
func TestPermissions(t *testing.T) {
	start := time.Now()
	pool := newPool(t)
	c := startCluster(t, pool, clusterOptions{})
	p := c.startPod("query-1", podOptions{})
	p.waitReady(60 * time.Second)

	asyncErrs := make(chan error, 16)
	_, js := c.connect(userPorkbun, nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
		select {
		case asyncErrs <- err:
		default:
		}
	}))
	pub := bus.NewPublisher(js)
	const zone = ".fsperm"
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	published, acked, refused := 0, 0, 0
	publish := func(registrar string, cents int64) error {
		published++
		pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		_, err := pub.Publish(pctx, priceSet(registrar, zone, cents, time.Now()))
		if err == nil {
			acked++
		} else {
			refused++
		}
		return err
	}
	if err := publish("porkbun", 1111); err != nil {
		t.Fatalf("porkbun's user publishing porkbun's price: %v", err)
	}
	err := publish("ovhcloud", 999)
	if err == nil {
		t.Fatal("porkbun's user publishing ovhcloud's price: acknowledged, want refused")
	}
	t.Logf("porkbun's user publishing ovhcloud's price: %v", err)
	select {
	case aerr := <-asyncErrs:
		t.Logf("server reported: %v", aerr)
		if !errors.Is(aerr, nats.ErrPermissionViolation) {
			t.Errorf("server's asynchronous error: got %v, want a permissions violation", aerr)
		}
	case <-time.After(5 * time.Second):
		t.Error("the server reported no permissions violation")
	}
	// A later porkbun price is the barrier: once the pod shows it, it has
	// read everything the stream took after the refused publish.
	if err := publish("porkbun", 2222); err != nil {
		t.Fatalf("porkbun's user publishing porkbun's second price: %v", err)
	}
	if err := p.waitConverged("porkbun", []string{zone}, map[string]int64{zone: 2222}, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	rows, err := p.registrarRows(ctx, zone)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := rows["ovhcloud"]; ok {
		t.Errorf("comparison for %s: has an ovhcloud row (%v), want porkbun's only", zone, rows)
	}
	_, adminJS := c.connect(userAdmin)
	info, err := streamInfo(ctx, adminJS, jetstream.WithSubjectFilter(contracts.RegistrarPriceFilter("ovhcloud")))
	if err != nil {
		t.Fatal(err)
	}
	if len(info.State.Subjects) != 0 {
		t.Errorf("stream subjects of ovhcloud: got %v, want none", info.State.Subjects)
	}
	m := p.mustMetrics(t)
	t.Logf("permissions: updates published %d, acknowledged %d, refused %d; pod rows for %s: %v; ovhcloud subjects in the stream: %d; pod applied sequence %v; took %v",
		published, acked, refused, zone, rows, len(info.State.Subjects), m["zoneprice_consumer_applied_sequence"], time.Since(start).Round(time.Millisecond))
}

// TestNodeLoss: three nodes, replicas 3, two query pods, a steady stream of
// updates, each after its change on the history stream, and continuous
// GETs from both pods. Mid-way the container of the node that leads both
// streams is killed: the two leaders are placed independently, so the
// history stream's leadership is first moved to the state stream's
// leader, or the history stream would rarely lose its leader. Afterwards both pods hold exactly the prices the publisher saw
// acknowledged, the history stream and both pods' feeds hold every
// acknowledged change exactly once, and no GET failed.
func TestNodeLoss(t *testing.T) {
	start := time.Now()
	pool := newPool(t)
	c := startCluster(t, pool, clusterOptions{leaders: true})
	pods := []*pod{c.startPod("query-1", podOptions{}), c.startPod("query-2", podOptions{})}
	for _, p := range pods {
		p.waitReady(60 * time.Second)
	}
	_, js := c.connect(userPorkbun)
	leadersNC, leadersJS := c.connect(userLeaders)
	pub := bus.NewPublisher(js)
	zones := testZones(50)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rec := newRecorder()
	if err := seedPrices(ctx, pub, "porkbun", zones, rec); err != nil {
		t.Fatal(err)
	}
	for _, p := range pods {
		if err := p.waitConverged("porkbun", zones, rec.snapshot(), 30*time.Second); err != nil {
			t.Fatal(err)
		}
		// The feed answers once the pod has loaded the history.
		if err := p.waitChanges("porkbun", rec.wantChanges(nil), 30*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	// Moved before the updates begin, so that the kill is the only thing
	// the stream's clients live through.
	t0 := time.Now()
	before, moved := c.leadBoth(leadersNC, leadersJS, 20*time.Second)
	t.Logf("stream leaders before the move: %s; after it: %s (%v)", before, moved, time.Since(t0).Round(time.Millisecond))
	stop := make(chan struct{})
	var pubErr error
	pubDone := make(chan struct{})
	go func() {
		defer close(pubDone)
		pubErr = steadyPublish(ctx, stop, pub, "porkbun", zones, 20*time.Millisecond, rec)
	}()
	var wg sync.WaitGroup
	loadCtx, stopLoad := context.WithCancel(ctx)
	defer stopLoad()
	var reads load
	bases := func() []string { return []string{pods[0].url(), pods[1].url()} }
	paths := []string{"/api/comparison/" + zones[0], "/api/domains", "/api/comparison/" + zones[7], "/readyz", "/api/changes?registrar=porkbun"}
	wg.Go(func() { getLoad(loadCtx, bases, paths, &reads) })

	time.Sleep(8 * time.Second)
	_, adminJS := c.connect(userAdmin)
	c.waitStreamHealthy(adminJS, 30*time.Second)
	// Checked again at the kill, and moved again should it have moved.
	_, atKill := c.leadBoth(leadersNC, leadersJS, 10*time.Second)
	leader := atKill.state
	killedAt := rec.String()
	if err := pool.Client.KillContainer(dc.KillContainerOptions{ID: c.node(leader).Container.ID, Signal: dc.SIGKILL}); err != nil {
		t.Fatalf("kill stream leader %s: %v", leader, err)
	}
	t.Logf("killed %s, the leader of both streams (leaders at the kill: %s), after %s", leader, atKill, killedAt)
	// New leaders among the two survivors.
	var elected leaders
	lastSeen := "no answer"
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		ictx, icancel := context.WithTimeout(ctx, 3*time.Second)
		l, err := streamLeaders(ictx, leadersJS)
		icancel()
		if err == nil && l.state != "" && l.state != leader && l.history != "" && l.history != leader {
			elected = l
			break
		}
		lastSeen = l.String()
		if err != nil {
			lastSeen += " (" + err.Error() + ")"
		}
		time.Sleep(200 * time.Millisecond)
	}
	if elected == (leaders{}) {
		// Not a failure in itself: the convergence below says whether
		// anything was lost.
		t.Logf("no new leader of both streams within 30s; the last answer: %s", lastSeen)
	} else {
		t.Logf("new stream leaders: %s", elected)
	}

	time.Sleep(12 * time.Second)
	close(stop)
	// The publisher ends once its last update is acknowledged; reads go on
	// while the pods catch up.
	select {
	case <-pubDone:
	case <-ctx.Done():
		t.Fatal("the publisher did not finish")
	}
	final := rec.snapshot()
	published := time.Now()
	var convergeErr []string
	for _, p := range pods {
		if err := p.waitConverged("porkbun", zones, final, 60*time.Second); err != nil {
			convergeErr = append(convergeErr, err.Error())
		}
	}
	converged := time.Since(published)
	// Every acknowledged change exactly once: in the stream, then in each
	// pod's feed under the sequence the stream holds it at.
	stored, err := historyChanges(ctx, js, "porkbun")
	if err != nil {
		t.Errorf("read the history stream: %v", err)
	} else if d := diffChanges(stored, rec.wantChanges(nil)); d != "" {
		t.Errorf("history stream %s: %s", contracts.HistoryStream, d)
	}
	read := time.Since(published)
	for _, p := range pods {
		if err := p.waitChanges("porkbun", rec.wantChanges(stored), 30*time.Second); err != nil {
			t.Error(err)
		}
	}
	listed := time.Since(published)
	stopLoad()
	wg.Wait()
	if pubErr != nil {
		t.Errorf("publisher: %v", pubErr)
	}
	applied := make([]float64, len(pods))
	for i, p := range pods {
		applied[i] = p.mustMetrics(t)["zoneprice_consumer_applied_sequence"]
	}
	sinfo, err := streamInfo(ctx, adminJS)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("node loss: %s; publish errors retried: %v", rec, rec.errs)
	changes := 0
	for _, seqs := range stored {
		changes += len(seqs)
	}
	t.Logf("node loss: stream last sequence %d; pods' applied sequence %v; history stream: %d changes on porkbun's subjects; after the last publish, pods' prices converged in %v, the history stream read in %v, pods' feeds complete in %v; %s; took %v",
		sinfo.State.LastSeq, applied, changes, converged.Round(time.Millisecond), read.Round(time.Millisecond), listed.Round(time.Millisecond), &reads, time.Since(start).Round(time.Millisecond))
	for _, e := range convergeErr {
		t.Error(e)
	}
	if n := reads.failed.Load(); n > 0 {
		t.Errorf("%d of %d GETs failed during the node loss", n, reads.sent.Load())
	}
	if reads.sent.Load() == 0 {
		t.Error("no GET was sent")
	}
}

// TestRollingRestart: two query pods behind zoneprice-lb under steady GET
// load; each pod in turn gets SIGTERM (as docker stop sends it), drains and
// exits, is started again and taken back by the balancer. No request
// fails.
func TestRollingRestart(t *testing.T) {
	start := time.Now()
	pool := newPool(t)
	c := startCluster(t, pool, clusterOptions{})
	_, js := c.connect(userPorkbun)
	zones := testZones(50)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	if err := seedPrices(ctx, bus.NewPublisher(js), "porkbun", zones, newRecorder()); err != nil {
		t.Fatal(err)
	}
	pods := []*pod{c.startPod("query-1", podOptions{}), c.startPod("query-2", podOptions{})}
	for _, p := range pods {
		p.waitReady(60 * time.Second)
	}
	backends := make([]string, len(pods))
	for i, p := range pods {
		backends[i] = "http://" + p.name + ":8080"
	}
	lb := c.run(&dockertest.RunOptions{
		Repository: "zoneprice/lb", Tag: imageTag, Name: c.prefix + "-lb",
		Env: []string{"ZONEPRICE_LB_BACKENDS=" + strings.Join(backends, ","), "ZONEPRICE_LB_CHECK_INTERVAL=250ms",
			"ZONEPRICE_LOG_FORMAT=text"},
		NetworkID:    c.net.Network.ID,
		ExposedPorts: []string{"8080/tcp"},
	})
	lbURL := "http://" + lb.GetHostPort("8080/tcp")
	lbName := c.prefix + "-lb"
	for _, b := range backends {
		c.waitLog(lbName, lb.Container.ID, 0, 30*time.Second, []string{"backend in: ready", b})
	}

	loadCtx, stopLoad := context.WithCancel(ctx)
	defer stopLoad()
	var reads load
	var wg sync.WaitGroup
	paths := []string{"/api/domains", "/api/comparison/" + zones[3], "/api/comparison/zones"}
	for range 2 {
		wg.Go(func() { getLoad(loadCtx, func() []string { return []string{lbURL} }, paths, &reads) })
	}
	time.Sleep(2 * time.Second)
	for _, p := range pods {
		before := reads.sent.Load()
		mark := len(c.logLines(lb.Container.ID))
		t0 := time.Now()
		// docker stop's SIGTERM (dockertest's containers stop with another
		// signal, so it is sent here), its grace period, then SIGKILL.
		if err := pool.Client.KillContainer(dc.KillContainerOptions{ID: p.res.Container.ID, Signal: dc.SIGTERM}); err != nil {
			t.Fatalf("SIGTERM %s: %v", p.name, err)
		}
		wctx, wcancel := context.WithTimeout(ctx, 15*time.Second)
		code, err := pool.Client.WaitContainerWithContext(p.res.Container.ID, wctx)
		wcancel()
		if err != nil {
			t.Fatalf("%s did not exit within its grace period after SIGTERM: %v", p.name, err)
		}
		stopped := time.Since(t0)
		if err := pool.Client.StartContainer(p.res.Container.ID, nil); err != nil {
			t.Fatalf("start %s again: %v", p.name, err)
		}
		p.refresh()
		// Taken back is out and then in again after the SIGTERM: the
		// next pod may stop only once this one serves.
		backend := "http://" + p.name + ":8080"
		c.waitLog(lbName, lb.Container.ID, mark, 60*time.Second, []string{"backend out", backend}, []string{"backend in: ready", backend})
		t.Logf("restarted %s: exit code %d, %v from SIGTERM to exit, %v until the balancer took it back; %d requests meanwhile, %d failed so far",
			p.name, code, stopped.Round(time.Millisecond), time.Since(t0).Round(time.Millisecond), reads.sent.Load()-before, reads.failed.Load())
	}
	time.Sleep(2 * time.Second)
	stopLoad()
	wg.Wait()
	var changes []string
	for _, line := range c.logLines(lb.Container.ID) {
		if strings.Contains(line, "backend in") || strings.Contains(line, "backend out") {
			changes = append(changes, line)
		}
	}
	t.Logf("rolling restart: %s; took %v; the balancer's changes of mind:\n%s",
		&reads, time.Since(start).Round(time.Millisecond), strings.Join(changes, "\n"))
	if n := reads.failed.Load(); n > 0 {
		t.Errorf("%d of %d requests through the balancer failed during the rolling restart", n, reads.sent.Load())
	}
	if reads.sent.Load() == 0 {
		t.Error("no request was sent")
	}
}

// logLines returns a container's whole log, a line each.
func (c *cluster) logLines(id string) []string {
	log := strings.TrimRight(c.logs(id, "all"), "\n")
	if log == "" {
		return nil
	}
	return strings.Split(log, "\n")
}

// waitLog waits until the container's log, past its first from lines,
// holds a line with every string of each step, the steps' lines in order.
// Counting from a mark, rather than counting matches, keeps a line logged
// before the mark (a backend that flapped earlier) from passing for the
// one awaited.
func (c *cluster) waitLog(name, id string, from int, within time.Duration, steps ...[]string) {
	c.t.Helper()
	deadline := time.Now().Add(within)
	for {
		lines := c.logLines(id)
		step, at := 0, from
		for i := from; i < len(lines) && step < len(steps); i++ {
			if containsAll(lines[i], steps[step]) {
				step, at = step+1, i+1
			}
		}
		if step == len(steps) {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("log of %s: no line with %q after line %d within %v (the steps before it: %q); the log after line %d:\n%s",
				name, steps[step], at, within, steps[:step], from, strings.Join(lines[min(from, len(lines)):], "\n"))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func containsAll(line string, subs []string) bool {
	for _, s := range subs {
		if !strings.Contains(line, s) {
			return false
		}
	}
	return true
}

// TestPartition: one query pod is cut off from the NATS network while
// updates go on. It keeps answering from its last data, and its lag
// grows; once the link is back it catches up with the other pod, without
// a restart.
func TestPartition(t *testing.T) {
	start := time.Now()
	pool := newPool(t)
	c := startCluster(t, pool, clusterOptions{})
	// "…-api" sorts before "…-nats", so the API network stays the pod's
	// gateway, which is where Docker publishes its port.
	apiNet := c.network("api")
	pods := []*pod{c.startPod("query-1", podOptions{}), c.startPod("query-2", podOptions{apiNet: apiNet})}
	cut := pods[1]
	for _, p := range pods {
		p.waitReady(60 * time.Second)
	}
	_, js := c.connect(userPorkbun)
	_, adminJS := c.connect(userAdmin)
	pub := bus.NewPublisher(js)
	zones := testZones(50)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	rec := newRecorder()
	if err := seedPrices(ctx, pub, "porkbun", zones, rec); err != nil {
		t.Fatal(err)
	}
	for _, p := range pods {
		if err := p.waitConverged("porkbun", zones, rec.snapshot(), 30*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	cut.refresh()
	startedAt := cut.res.Container.State.StartedAt
	ip := cut.res.GetIPInNetwork(c.net)
	if ip == "" {
		t.Fatalf("%s has no address on the nats network", cut.name)
	}

	stop := make(chan struct{})
	var pubErr error
	pubDone := make(chan struct{})
	go func() {
		defer close(pubDone)
		pubErr = steadyPublish(ctx, stop, pub, "porkbun", zones, 20*time.Millisecond, rec)
	}()
	loadCtx, stopLoad := context.WithCancel(ctx)
	defer stopLoad()
	var reads load
	var wg sync.WaitGroup
	wg.Go(func() {
		getLoad(loadCtx, func() []string { return []string{cut.url()} }, []string{"/api/comparison/" + zones[0], "/api/domains"}, &reads)
	})
	time.Sleep(3 * time.Second)

	if err := pool.Client.DisconnectNetwork(c.net.Network.ID, dc.NetworkConnectionOptions{Container: cut.res.Container.ID, Force: true}); err != nil {
		t.Fatalf("disconnect %s from the nats network: %v", cut.name, err)
	}
	// While cut off: the pod's applied sequence stands still, the stream's
	// head moves on, and the newest data the pod serves ages.
	type sample struct {
		at                 time.Duration
		head, applied, lag float64
		age                time.Duration
		connected          float64
	}
	var samples []sample
	cutAt := time.Now()
	for time.Since(cutAt) < 10*time.Second {
		time.Sleep(2 * time.Second)
		m := cut.mustMetrics(t)
		ictx, icancel := context.WithTimeout(ctx, 5*time.Second)
		info, err := streamInfo(ictx, adminJS)
		icancel()
		if err != nil {
			t.Fatal(err)
		}
		head := float64(info.State.LastSeq)
		asOf := time.Unix(0, int64(m["zoneprice_snapshot_as_of_timestamp_seconds"]*1e9))
		samples = append(samples, sample{
			at: time.Since(cutAt).Round(100 * time.Millisecond), head: head,
			applied: m["zoneprice_consumer_applied_sequence"], lag: head - m["zoneprice_consumer_applied_sequence"],
			age: time.Since(asOf).Round(100 * time.Millisecond), connected: m["zoneprice_nats_connected"],
		})
	}
	for _, s := range samples {
		t.Logf("cut off %v: stream last sequence %.0f, pod applied %.0f, lag %.0f, data age %v, nats_connected %.0f",
			s.at, s.head, s.applied, s.lag, s.age, s.connected)
	}
	first, last := samples[0], samples[len(samples)-1]
	if !(last.lag > first.lag && last.age > first.age) {
		t.Errorf("while cut off: lag %.0f → %.0f, data age %v → %v; want both to grow", first.lag, last.lag, first.age, last.age)
	}

	if err := pool.Client.ConnectNetwork(c.net.Network.ID, dc.NetworkConnectionOptions{
		Container:      cut.res.Container.ID,
		EndpointConfig: &dc.EndpointConfig{IPAMConfig: &dc.EndpointIPAMConfig{IPv4Address: ip}},
	}); err != nil {
		t.Fatalf("reconnect %s to the nats network: %v", cut.name, err)
	}
	reconnected := time.Now()
	time.Sleep(3 * time.Second)
	close(stop)
	select {
	case <-pubDone:
	case <-ctx.Done():
		t.Fatal("the publisher did not finish")
	}
	final := rec.snapshot()
	if err := pods[0].waitConverged("porkbun", zones, final, 60*time.Second); err != nil {
		t.Error(err)
	}
	if err := cut.waitConverged("porkbun", zones, final, 120*time.Second); err != nil {
		t.Error(err)
	}
	caughtUp := time.Since(reconnected)
	stopLoad()
	wg.Wait()
	cut.refresh()
	if !cut.res.Container.State.StartedAt.Equal(startedAt) || cut.res.Container.RestartCount != 0 {
		t.Errorf("%s restarted (started %v, then %v)", cut.name, startedAt, cut.res.Container.State.StartedAt)
	}
	m := cut.mustMetrics(t)
	if pubErr != nil {
		t.Errorf("publisher: %v", pubErr)
	}
	t.Logf("partition: %s; cut-off pod: %s; caught up %v after the link came back, applied sequence %.0f, nats_connected %.0f; took %v",
		rec, &reads, caughtUp.Round(100*time.Millisecond), m["zoneprice_consumer_applied_sequence"], m["zoneprice_nats_connected"], time.Since(start).Round(time.Millisecond))
	if n := reads.failed.Load(); n > 0 {
		t.Errorf("%d of %d GETs to the cut-off pod failed", n, reads.sent.Load())
	}
}

// TestColdStart: a pod started on a stream holding 225,000 prices (1,500
// zones × 150 registrars) answers the catalog only once it has all of it:
// /readyz and /api/domains are polled side by side from the moment it
// starts, and every 200 of /api/domains must be the whole catalog.
func TestColdStart(t *testing.T) {
	const nZones, nRegistrars = 1500, 150
	start := time.Now()
	pool := newPool(t)
	c := startCluster(t, pool, clusterOptions{loader: true})
	_, js := c.connect(userLoader)
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()

	zones := testZones(nZones)
	events := make([]contracts.Event, 0, nZones*nRegistrars)
	observed := time.Now()
	for r := range nRegistrars {
		registrar := fmt.Sprintf("load-r%03d", r+1)
		for i, z := range zones {
			events = append(events, priceSet(registrar, z, int64(100+(i*7+r*13)%5000), observed))
		}
	}
	t0 := time.Now()
	// The window stays below the JetStream context's limit of pending
	// asynchronous publishes (4,000 by default): above it PublishMsgAsync
	// stalls and PublishAll gives up.
	published, _, err := bus.NewPublisher(js).PublishAll(ctx, events, 2048)
	if err != nil {
		t.Fatalf("publish %d prices: %v (after %d)", len(events), err, published)
	}
	publishTook := time.Since(t0)
	info, err := streamInfo(ctx, js)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != uint64(len(events)) {
		t.Fatalf("stream holds %d messages after %d prices were acknowledged", info.State.Msgs, published)
	}

	p := c.startPod("query-cold", podOptions{})
	type result struct {
		start, end time.Time
		code       int
		detail     string
		cat        *catalog
		err        error
	}
	var mu sync.Mutex
	var readyz, domains []result
	pollCtx, stopPoll := context.WithTimeout(ctx, 3*time.Minute)
	defer stopPoll()
	done := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.ContainsFunc(readyz, func(r result) bool { return r.code == http.StatusOK }) &&
			slices.ContainsFunc(domains, func(r result) bool { return r.code == http.StatusOK })
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for pollCtx.Err() == nil && !done() {
			r := result{start: time.Now()}
			var prob struct{ Detail string }
			r.code, r.err = getJSON(pollCtx, p.url()+"/readyz", &prob)
			r.end, r.detail = time.Now(), prob.Detail
			mu.Lock()
			readyz = append(readyz, r)
			mu.Unlock()
			time.Sleep(20 * time.Millisecond)
		}
	})
	wg.Go(func() {
		for pollCtx.Err() == nil && !done() {
			r := result{start: time.Now(), cat: &catalog{}}
			r.code, r.err = getJSON(pollCtx, p.url()+"/api/domains", r.cat)
			r.end = time.Now()
			mu.Lock()
			domains = append(domains, r)
			mu.Unlock()
			time.Sleep(20 * time.Millisecond)
		}
	})
	wg.Wait()
	if !done() {
		last := func(rs []result) string {
			if len(rs) == 0 {
				return "none"
			}
			r := rs[len(rs)-1]
			if r.err != nil {
				return fmt.Sprintf("%d, %v", r.code, r.err)
			}
			return fmt.Sprintf("%d %s", r.code, r.detail)
		}
		t.Fatalf("pod not ready with a catalog within the deadline (%d readyz polls, the last %s; %d catalog polls, the last %s)",
			len(readyz), last(readyz), len(domains), last(domains))
	}

	count := func(rs []result, code int) (n int) {
		for _, r := range rs {
			if r.err == nil && r.code == code {
				n++
			}
		}
		return n
	}
	var lastCatchingUp time.Time // start of the last /readyz that said the pod is catching up
	var firstReady time.Time
	for _, r := range readyz {
		if r.code == http.StatusServiceUnavailable && strings.Contains(r.detail, "catching up") {
			lastCatchingUp = r.start
		}
		if r.code == http.StatusOK && firstReady.IsZero() {
			firstReady = r.end
		}
	}
	var first *result
	for i, r := range domains {
		if r.code != http.StatusOK {
			continue
		}
		if r.err != nil {
			t.Errorf("a 200 of /api/domains: %v", r.err)
			continue
		}
		if first == nil {
			first = &domains[i]
		}
		if r.end.Before(lastCatchingUp) {
			t.Errorf("/api/domains answered 200 at %s, before /readyz still said the pod was catching up (%s)",
				r.end.Format("15:04:05.000"), lastCatchingUp.Format("15:04:05.000"))
		}
		bad := 0
		for _, z := range r.cat.Zones {
			if z.Registrars != nRegistrars {
				bad++
			}
		}
		if r.cat.Count != nZones || len(r.cat.Zones) != nZones || bad > 0 {
			t.Errorf("a 200 of /api/domains: count %d, %d zones, %d of them without %d registrars; want %d zones with %d registrars each",
				r.cat.Count, len(r.cat.Zones), bad, nRegistrars, nZones, nRegistrars)
		}
	}
	m := p.mustMetrics(t)
	t.Logf("cold start: prices published %d, acknowledged %d in %v; stream messages %d", len(events), published, publishTook.Round(time.Millisecond), info.State.Msgs)
	t.Logf("cold start: /readyz polls %d (503: %d, no answer: %d), /api/domains polls %d (503: %d, 200: %d, no answer: %d)",
		len(readyz), count(readyz, 503), len(readyz)-count(readyz, 503)-count(readyz, 200),
		len(domains), count(domains, 503), count(domains, 200), len(domains)-count(domains, 503)-count(domains, 200))
	t.Logf("cold start: first ready %v after the pod was started; first catalog: %d zones; pod catch-up %.2fs, index prices %.0f, registrars %.0f, zones %.0f, applied sequence %.0f; took %v",
		firstReady.Sub(readyz[0].start).Round(time.Millisecond), len(first.cat.Zones), m["zoneprice_consumer_catchup_seconds"],
		m["zoneprice_index_prices"], m["zoneprice_index_registrars"], m["zoneprice_index_zones"], m["zoneprice_consumer_applied_sequence"],
		time.Since(start).Round(time.Millisecond))
	if count(domains, 503) == 0 {
		t.Log("note: no 503 of /api/domains was seen; the pod caught up before the first poll reached it")
	}
}

// catalog is the part of /api/domains the suite reads.
type catalog struct {
	Count int `json:"count"`
	Zones []struct {
		Zone       string `json:"zone"`
		Registrars int    `json:"registrars"`
	} `json:"zones"`
}
