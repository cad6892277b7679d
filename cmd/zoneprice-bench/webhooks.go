package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"golang.org/x/sync/errgroup"

	"github.com/zoneprice/zoneprice/cmd/internal/cmdtest"
	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/query/notify"
	"github.com/zoneprice/zoneprice/query/webhooks"
)

const (
	// hookRegistrar publishes the webhook runs' changes: not a sample
	// registrar, whose changes are no event.
	hookRegistrar = "bench-webhooks"
	hookSource    = "bench"

	hookLatencyChanges  = 200                   // changes published one at a time
	hookLatencyInterval = 20 * time.Millisecond // between publishes, at the least
	hookLatencyDeadline = 5 * time.Second       // for one change to arrive

	// The throughput run: hookEndpoints endpoints, each its own receiver
	// (a listener on its own port, as subscribers are on their own
	// hosts), all wanting each of hookChanges changes.
	hookEndpoints = 50
	hookChanges   = 400
	// hookQueueWait bounds the wait for the deliveries to be queued while
	// the receivers hold the first attempts: below the attempt timeout,
	// so that none of the held attempts fails.
	hookQueueWait = 10 * time.Second
	hookDeadline  = 3 * time.Minute // for every delivery of a run

	// hookFanout endpoints want one change.
	hookFanout          = 10_000
	hookRegisterWorkers = 16

	// hookProfileTime is how long notify's CPU profile (-notify-profile)
	// runs from the throughput run's start: longer than the run (1 to
	// 3 s here), whose end leaves notify idle.
	hookProfileTime = 4 * time.Second
)

// webhookResult is what the webhook runs measured.
type webhookResult struct {
	notifyWorkers int

	latency    []time.Duration // per change, in order
	latencyErr error

	// The throughput runs: deliveries queued before the receivers let
	// the first attempts finish (the fewest of the runs); each run's
	// time from then to the last one arriving; and the bare client's
	// time for the same requests, a run each. The first failure ends
	// the runs.
	deliveries   int
	queued       int
	realTook     []time.Duration
	realErr      error
	bareTook     []time.Duration
	bareErr      error
	bareFailures int
	// notifyCPU is the CPU time notify's process spent in the
	// throughput runs (notifyCPURuns of them, where its metrics could be
	// read), and benchCPU the bench's own (the NATS server and the
	// receivers); bareCPU, the bare client's process's in its runs, and
	// bareRecvCPU the bench's (the receivers). profile is the top of notify's CPU
	// profile over the first run (with -notify-profile), benchProfile
	// where the bench's own profile of that run was saved.
	notifyCPU, benchCPU, bareCPU, bareRecvCPU time.Duration
	notifyCPURuns                             int
	profile, benchProfile                     string

	// The fan-out runs: to endpoints spread over the receivers' ports,
	// then to endpoints all on one port.
	fanouts []*fanoutResult

	// Over every run: deliveries whose signature did not verify, and
	// repeats of a webhook-id.
	badSignatures, duplicates int64
}

// fanoutResult is one change's fan-out to hookFanout endpoints.
type fanoutResult struct {
	where       string        // where the endpoints are
	registered  time.Duration // registering the endpoints
	first, last time.Duration // publish to the first and the last delivery
	delivered   int
	err         error
}

// hookReceiver is the subscribers' side: every endpoint's URL path
// leads to its secret. A delivery is verified with the Standard Webhooks
// library's Verify, as a subscriber would, and counted once per
// webhook-id.
type hookReceiver struct {
	mu    sync.RWMutex
	hooks map[string]*standardwebhooks.Webhook // by URL path
	seen  map[string]bool                      // webhook-ids of the current run

	gate          atomic.Pointer[chan struct{}] // while set, answers wait for it to close
	onDelivery    atomic.Pointer[func(hookDelivery)]
	badSignatures atomic.Int64
	duplicates    atomic.Int64
}

// hookDelivery is one verified delivery as the receiver saw it.
type hookDelivery struct {
	path, id string
	body     []byte
	at       time.Time
}

func newHookReceiver() *hookReceiver {
	return &hookReceiver{hooks: map[string]*standardwebhooks.Webhook{}, seen: map[string]bool{}}
}

func (h *hookReceiver) add(path, secret string) error {
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		return err
	}
	h.mu.Lock()
	h.hooks[path] = wh
	h.mu.Unlock()
	return nil
}

// nextRun forgets the webhook-ids seen and sets what each delivery of
// the next run is handed to.
func (h *hookReceiver) nextRun(f func(hookDelivery)) {
	h.mu.Lock()
	clear(h.seen)
	h.mu.Unlock()
	h.onDelivery.Store(&f)
}

// hold makes the receiver's answers wait until release is called, which
// may be more than once.
func (h *hookReceiver) hold() (release func()) {
	gate := make(chan struct{})
	h.gate.Store(&gate)
	return sync.OnceFunc(func() { close(gate) })
}

func (h *hookReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		return
	}
	h.mu.RLock()
	wh := h.hooks[r.URL.Path]
	h.mu.RUnlock()
	if wh == nil || wh.Verify(body, r.Header) != nil {
		h.badSignatures.Add(1)
		http.Error(w, "bad signature", http.StatusBadRequest)
		return
	}
	at := time.Now()
	id := r.Header.Get(standardwebhooks.HeaderWebhookID)
	h.mu.Lock()
	repeat := h.seen[id]
	h.seen[id] = true
	h.mu.Unlock()
	if gate := h.gate.Load(); gate != nil {
		<-*gate
	}
	if repeat {
		h.duplicates.Add(1)
	} else if f := h.onDelivery.Load(); f != nil {
		(*f)(hookDelivery{path: r.URL.Path, id: id, body: body, at: at})
	}
	w.WriteHeader(http.StatusNoContent)
}

// hookServers are the receivers' listeners, one per port, all served by
// one hookReceiver.
type hookServers struct {
	srv   []*http.Server
	addrs []string
	g     errgroup.Group
}

func startHookServers(n int, h http.Handler) (*hookServers, error) {
	s := &hookServers{}
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			s.close()
			return nil, err
		}
		srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
		s.srv = append(s.srv, srv)
		s.addrs = append(s.addrs, ln.Addr().String())
		s.g.Go(func() error {
			if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		})
	}
	return s, nil
}

func (s *hookServers) close() {
	for _, srv := range s.srv {
		_ = srv.Close()
	}
	_ = s.g.Wait()
}

// hookEndpoint is an endpoint the bench registered.
type hookEndpoint struct {
	path, url, secret string
}

// webhooks measures zoneprice-notify, the real binary, delivering to
// receivers in the bench's process: how long a change takes from an
// ingester's publish to a receiver, how many deliveries one replica sends
// a second (against a bare client sending the same signed bodies), and how
// long a change takes to reach 10,000 endpoints.
func (b *bench) webhooks(ctx context.Context, env *natsEnv, res *results) error {
	wr := &webhookResult{notifyWorkers: notify.DefaultConfig().Workers}
	res.webhooks = wr
	recv := newHookReceiver()
	defer func() {
		wr.badSignatures, wr.duplicates = recv.badSignatures.Load(), recv.duplicates.Load()
	}()
	servers, err := startHookServers(hookEndpoints, recv)
	if err != nil {
		return err
	}
	defer servers.close()
	store := webhooks.NewStore(webhooks.Config{AllowHTTP: true, AllowLoopback: true}, webhooks.Bus{Webhooks: bus.Webhooks(env.js), Owners: bus.WebhookOwners(env.js), Deliveries: bus.NewDeliveries(env.js)}, time.Now)
	// Each run's endpoints follow a zone of their own, so that no run's
	// changes reach another run's endpoints.
	latencyZone, rateZone := env.zones[0].ASCII, env.zones[1].ASCII

	latency, err := b.registerHooks(ctx, store, recv, "latency", latencyZone, 1, servers.addrs)
	if err != nil {
		return err
	}
	rate, err := b.registerHooks(ctx, store, recv, "rate", rateZone, hookEndpoints, servers.addrs)
	if err != nil {
		return err
	}
	n, err := b.startNotify(ctx, env)
	if err != nil {
		return err
	}
	defer n.stop()
	if err := waitRegistrations(ctx, n, len(latency)+len(rate)); err != nil {
		return err
	}

	pub := bus.NewPublisher(env.js)
	if err := b.hookLatency(ctx, pub, recv, latencyZone, wr); err != nil {
		return err
	}
	if err := b.hookThroughput(ctx, env, n, pub, recv, rateZone, rate, wr); err != nil {
		return err
	}

	// A fan-out to endpoints spread over the receivers, as subscribers
	// are spread over hosts; then to endpoints on one host and port, as
	// when many subscribers use one webhook service.
	registered := len(latency) + len(rate)
	for i, addrs := range [][]string{servers.addrs, servers.addrs[:1]} {
		fr := &fanoutResult{where: fmt.Sprintf("on %d receivers' ports", len(addrs))}
		if len(addrs) == 1 {
			fr.where = "all on one receiver's port"
		}
		wr.fanouts = append(wr.fanouts, fr)
		zone := env.zones[len(env.zones)-1-i].ASCII
		b.log.Info("webhooks: registering the fan-out's endpoints", "endpoints", hookFanout, "ports", len(addrs))
		start := time.Now()
		fan, err := b.registerHooks(ctx, store, recv, fmt.Sprintf("fan%d", i), zone, hookFanout, addrs)
		if err != nil {
			return err
		}
		fr.registered = time.Since(start)
		registered += len(fan)
		if err := waitRegistrations(ctx, n, registered); err != nil {
			return err
		}
		b.hookFanout(ctx, pub, recv, zone, len(fan), fr)
	}
	select {
	case <-n.done:
		return n.exitError()
	default:
	}
	return ctx.Err()
}

// registerHooks registers count endpoints through query/webhooks' store,
// each with an owner of its own (an owner's limit is checked against its
// list), that want every change of zone. Endpoint i is on receiver i
// modulo the receivers.
func (b *bench) registerHooks(ctx context.Context, store *webhooks.Store, recv *hookReceiver, name, zone string, count int, addrs []string) ([]hookEndpoint, error) {
	eps := make([]hookEndpoint, count)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(hookRegisterWorkers)
	for i := range count {
		g.Go(func() error {
			path := fmt.Sprintf("/hook/%s/%d", name, i)
			url := "http://" + addrs[i%len(addrs)] + path
			owner := fmt.Sprintf("bench%s%08d", name, i)
			c, err := store.Create(gctx, owner, webhooks.Registration{
				URL: url, Events: []contracts.EventType{contracts.EventPriceChanged, contracts.EventPriceDropped},
				Filters: contracts.WebhookFilters{Zones: []string{zone}}, Description: "zoneprice-bench " + name,
			}, 1)
			if err != nil {
				return fmt.Errorf("register webhook %d of %s: %w", i, name, err)
			}
			eps[i] = hookEndpoint{path: path, url: url, secret: c.Secret}
			return recv.add(path, c.Secret)
		})
	}
	return eps, g.Wait()
}

// startNotify runs the real zoneprice-notify against the embedded NATS,
// with loopback receivers allowed, and waits until it serves /healthz and
// has made its consumers.
func (b *bench) startNotify(ctx context.Context, env *natsEnv) (*child, error) {
	metricsAddr, err := cmdtest.PortAddr()
	if err != nil {
		return nil, err
	}
	b.log.Info("starting zoneprice-notify", "metrics", metricsAddr)
	args := []string{b.notifyBin, "--nats-url", env.url, "--metrics-listen", metricsAddr, "--log-format", "json", "--log-level", "warn",
		"--webhook-allow-loopback", "--webhook-allow-http"}
	if b.cfg.notifyProfile {
		args = append(args, "--pprof")
	}
	n, err := startChild(b.tmp, "zoneprice-notify", "http://"+metricsAddr, args...)
	if err != nil {
		return nil, err
	}
	if err := n.waitOK(ctx, "/healthz"); err != nil {
		n.stop()
		return nil, err
	}
	err = pollUntil(ctx, n, readyTimeout, "its consumers", func() (bool, error) {
		for _, c := range []struct{ stream, name string }{
			{contracts.HistoryStream, notify.DispatchConsumer}, {contracts.DeliveriesStream, notify.DeliverConsumer},
		} {
			if _, err := env.js.Consumer(ctx, c.stream, c.name); err != nil {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		n.stop()
		return nil, err
	}
	return n, nil
}

// waitRegistrations waits until notify has want active registrations.
func waitRegistrations(ctx context.Context, n *child, want int) error {
	name := `zoneprice_notify_registrations{state="active"}`
	return pollUntil(ctx, n, readyTimeout, fmt.Sprintf("%d registrations", want), func() (bool, error) {
		v, err := scrape(ctx, n.url+"/metrics", name)
		return err == nil && int(v[0]) == want, nil
	})
}

// pollUntil calls ok every 20 ms until it is true, the child exits or
// timeout passes.
func pollUntil(ctx context.Context, c *child, timeout time.Duration, what string, ok func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	for {
		done, err := ok()
		if err != nil || done {
			return err
		}
		select {
		case <-c.done:
			return c.exitError()
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: no %s within %v; last log lines:\n%s", c.name, what, timeout, c.logTail(10))
		}
		if err := sleep(ctx, 20*time.Millisecond); err != nil {
			return err
		}
	}
}

// hookChange is change i of a run on zone: the register price 1000.00 + i
// USD, after the price of change i-1.
func hookChange(zone string, i int) *contracts.PriceChange {
	offer := func(i int) *contracts.Offer {
		p := &contracts.OpPrice{Regular: contracts.Price{Amount: int64(100000 + i), Currency: "USD"}}
		return &contracts.Offer{Register: p, Renew: p, Transfer: p}
	}
	return &contracts.PriceChange{
		V: contracts.SchemaVersion, Kind: contracts.KindPriceChange, Change: contracts.ChangeChanged,
		Registrar: hookRegistrar, Zone: zone, Before: offer(i - 1), After: offer(i),
		ObservedAt: time.Now().UTC(), Source: hookSource,
	}
}

// changeIndex reads back which hookChange a delivery's body carries.
func changeIndex(body []byte) (int, error) {
	var p struct {
		Data struct {
			After struct {
				Register struct {
					Regular struct {
						Amount int64 `json:"amount"`
					} `json:"regular"`
				} `json:"register"`
			} `json:"after"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &p); err != nil {
		return 0, err
	}
	return int(p.Data.After.Register.Regular.Amount - 100000), nil
}

// hookLatency publishes hookLatencyChanges changes one at a time, as an
// ingester does (bus.Publisher), and times each from just before its
// publish to its verified arrival at the one endpoint that wants it.
func (b *bench) hookLatency(ctx context.Context, pub *bus.Publisher, recv *hookReceiver, zone string, wr *webhookResult) error {
	b.log.Info("webhooks: latency", "changes", hookLatencyChanges)
	arrived := make(chan hookDelivery, 16)
	recv.nextRun(func(d hookDelivery) { arrived <- d })
	for i := 1; i <= hookLatencyChanges; i++ {
		next := time.Now().Add(hookLatencyInterval)
		t0 := time.Now()
		if _, err := pub.Publish(ctx, hookChange(zone, i)); err != nil {
			return err
		}
		lag, err := awaitChange(ctx, arrived, i, t0)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			wr.latencyErr = fmt.Errorf("change %d: %w", i, err)
			break
		}
		wr.latency = append(wr.latency, lag)
		if err := sleep(ctx, time.Until(next)); err != nil {
			return err
		}
	}
	b.log.Info("webhooks: latency done", "seen", len(wr.latency), "err", wr.latencyErr)
	return nil
}

// awaitChange waits for change i to arrive and returns the time from t0.
func awaitChange(ctx context.Context, arrived <-chan hookDelivery, i int, t0 time.Time) (time.Duration, error) {
	timeout := time.NewTimer(hookLatencyDeadline)
	defer timeout.Stop()
	for {
		select {
		case d := <-arrived:
			got, err := changeIndex(d.body)
			if err != nil {
				return 0, err
			}
			if got == i {
				return d.at.Sub(t0), nil
			}
		case <-timeout.C:
			return 0, fmt.Errorf("not delivered within %v", hookLatencyDeadline)
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

// hookThroughput measures one notify replica's deliveries per second
// against a bare Go client's, in -runs pairs. In a notify run the
// receivers hold their answers while hookChanges changes are published
// for the hookEndpoints endpoints, until the deliveries stream holds every
// delivery (or hookQueueWait passes); from when they let go to the last
// delivery's arrival is the replica's time. In a bare run a Go client,
// a process of its own at notify's GOGC (barehooks.go), posts the bodies
// notify last delivered, signed the same way, with as many requests at
// once as the replica has workers, to the same receivers: the baseline,
// timed from the word to start to the last arrival. The first pair starts with notify (the bare
// client resends what it delivered); after it, which goes first
// alternates, as in the catch-up.
func (b *bench) hookThroughput(ctx context.Context, env *natsEnv, n *child, pub *bus.Publisher, recv *hookReceiver, zone string, eps []hookEndpoint, wr *webhookResult) error {
	wr.deliveries = hookChanges * len(eps)
	var sent []hookDelivery
	for run := range b.cfg.runs {
		notifyRun := func() (err error) {
			sent, err = b.notifyDeliveries(ctx, env, n, pub, recv, zone, run, wr)
			return err
		}
		bareRun := func() error { return b.bareDeliveries(ctx, n, recv, eps, sent, wr) }
		// Run 0 is even, so notify goes first in it.
		err := inTurn(run, notifyRun, bareRun)
		if errors.Is(err, errRunFailed) {
			return nil // the report says why
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// errRunFailed ends the throughput runs after one that failed, which
// webhookResult records.
var errRunFailed = errors.New("a throughput run failed")

// notifyDeliveries is run's notify half: it queues the run's changes'
// deliveries while the receivers hold, then times notify's delivering
// them all, and returns what arrived.
func (b *bench) notifyDeliveries(ctx context.Context, env *natsEnv, n *child, pub *bus.Publisher, recv *hookReceiver, zone string, run int, wr *webhookResult) ([]hookDelivery, error) {
	b.log.Info("webhooks: throughput", "run", run+1, "changes", hookChanges, "deliveries", wr.deliveries)
	arrivals := &hookArrivals{total: wr.deliveries, allIn: make(chan struct{})}
	recv.nextRun(arrivals.note)
	release := recv.hold()
	defer func() {
		release()
		recv.gate.Store(nil)
	}()
	if err := queueHooks(ctx, env, pub, zone, run*hookChanges, wr); err != nil {
		return nil, err
	}
	// Each half starts on a freshly collected heap, as the catch-up runs
	// do. This process holds the embedded NATS server, whose heap after
	// the history data set is some 600 to 900 MiB live: a collection that
	// began during one half (about a second of marking on the two cores)
	// fell on notify's or the bare client's by chance, and a full run
	// measured 0.35 to 0.46 where the webhooks alone measure 0.55 to 0.61.
	runtime.GC()
	cpu := notifyCPU(ctx, n)
	profiled := make(chan struct{})
	if b.cfg.notifyProfile && run == 0 {
		go func() {
			defer close(profiled)
			path := filepath.Join(b.profileDir(), "cpu-notify-deliveries.pb.gz")
			top, err := n.cpuProfile(ctx, hookProfileTime, path, b.notifyBin)
			if err != nil {
				wr.profile = "not taken: " + err.Error()
				return
			}
			wr.profile = "Saved to `" + path + "` (`go tool pprof " + b.notifyBin + " " + path + "`). The top, by time spent in each function and what it calls:\n\n```\n" + top + "```"
		}()
	} else {
		close(profiled)
	}
	defer func() { <-profiled }()
	stopProfile := func() {}
	if run == 0 {
		stopProfile = b.profileSelf(wr)
	}
	benchCPU := selfCPU()
	start := time.Now()
	release()
	var took time.Duration
	select {
	case <-arrivals.allIn:
		took = arrivals.last.Sub(start)
		wr.realTook = append(wr.realTook, took)
		wr.benchCPU += selfCPU() - benchCPU
		stopProfile()
		if after := notifyCPU(ctx, n); cpu > 0 && after > cpu {
			wr.notifyCPU += after - cpu
			wr.notifyCPURuns++
		}
	case <-time.After(hookDeadline):
		wr.realErr = fmt.Errorf("run %d: %d of %d deliveries within %v", run+1, len(arrivals.delivered()), wr.deliveries, hookDeadline)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	b.log.Info("webhooks: throughput done", "run", run+1, "took", took, "err", wr.realErr)
	if wr.realErr != nil {
		return nil, errRunFailed
	}
	return arrivals.delivered(), nil
}

// notifyCPU is the CPU time notify's process has spent, from its
// metrics; 0 if they cannot be read.
func notifyCPU(ctx context.Context, n *child) time.Duration {
	v, err := scrape(ctx, n.metrics()+"/metrics", "process_cpu_seconds_total")
	if err != nil {
		return 0
	}
	return time.Duration(v[0] * float64(time.Second))
}

// selfCPU is the CPU time the bench's process has spent.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// profileSelf starts a CPU profile of the bench's own process (the NATS
// server and the receivers) when notify's is taken (-notify-profile), and
// returns what stops it.
func (b *bench) profileSelf(wr *webhookResult) (stop func()) {
	if !b.cfg.notifyProfile {
		return func() {}
	}
	path := filepath.Join(b.profileDir(), "cpu-bench-deliveries.pb.gz")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		wr.benchProfile = "not taken: " + err.Error()
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		wr.benchProfile = "not taken: " + err.Error()
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		wr.benchProfile = "not taken: " + err.Error()
		return func() {}
	}
	return sync.OnceFunc(func() {
		pprof.StopCPUProfile()
		f.Close()
		wr.benchProfile = "`" + path + "` (`go tool pprof " + b.self + " " + path + "`)"
	})
}

// hookArrivals gathers a run's deliveries; allIn closes at the total-th,
// whose arrival is last.
type hookArrivals struct {
	total  int
	mu     sync.Mutex
	got    []hookDelivery
	last   time.Time
	allIn  chan struct{}
	closed bool
}

func (a *hookArrivals) note(d hookDelivery) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.got = append(a.got, d)
	if len(a.got) == a.total && !a.closed {
		a.last, a.closed = time.Now(), true
		close(a.allIn)
	}
}

// delivered is the deliveries so far.
func (a *hookArrivals) delivered() []hookDelivery {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.got
}

// queueHooks waits for the deliveries stream to be empty (the run
// before's last acknowledgements removed), publishes hookChanges changes
// on zone, numbered after first, and waits until the stream holds their
// deliveries, wr.deliveries, or hookQueueWait passes; wr.queued is the
// fewest it held in a run.
func queueHooks(ctx context.Context, env *natsEnv, pub *bus.Publisher, zone string, first int, wr *webhookResult) error {
	if _, err := waitQueued(ctx, env, func(n int) bool { return n == 0 }); err != nil {
		return err
	}
	events := make([]contracts.Event, hookChanges)
	for i := range events {
		events[i] = hookChange(zone, first+1+i)
	}
	if _, _, err := pub.PublishAll(ctx, events, publishWindow); err != nil {
		return err
	}
	queued, err := waitQueued(ctx, env, func(n int) bool { return n >= wr.deliveries })
	if err != nil {
		return err
	}
	if wr.queued == 0 || queued < wr.queued {
		wr.queued = queued
	}
	return nil
}

// waitQueued waits until the number of deliveries the stream holds is
// done, or hookQueueWait passes, and returns that number.
func waitQueued(ctx context.Context, env *natsEnv, done func(int) bool) (int, error) {
	s, err := env.js.Stream(ctx, contracts.DeliveriesStream)
	if err != nil {
		return 0, err
	}
	queued := 0
	for deadline := time.Now().Add(hookQueueWait); time.Now().Before(deadline); {
		info, err := s.Info(ctx)
		if err != nil {
			return queued, err
		}
		if queued = int(info.State.Msgs); done(queued) {
			break
		}
		if err := sleep(ctx, 20*time.Millisecond); err != nil {
			return queued, err
		}
	}
	return queued, nil
}

// hookFanout publishes one change that endpoints endpoints want and times
// it to the first and to the last delivery.
func (b *bench) hookFanout(ctx context.Context, pub *bus.Publisher, recv *hookReceiver, zone string, endpoints int, fr *fanoutResult) {
	b.log.Info("webhooks: fan-out", "endpoints", endpoints, "where", fr.where)
	var (
		mu          sync.Mutex
		first, last time.Time
		count       int
		allIn       = make(chan struct{})
	)
	recv.nextRun(func(d hookDelivery) {
		mu.Lock()
		defer mu.Unlock()
		if count == 0 {
			first = d.at
		}
		if count++; count == endpoints {
			last = d.at
			close(allIn)
		}
	})
	t0 := time.Now()
	if _, err := pub.Publish(ctx, hookChange(zone, 1)); err != nil {
		fr.err = err
		return
	}
	select {
	case <-allIn:
	case <-time.After(hookDeadline):
		fr.err = fmt.Errorf("not every endpoint got it within %v", hookDeadline)
	case <-ctx.Done():
		fr.err = ctx.Err()
	}
	mu.Lock()
	defer mu.Unlock()
	fr.delivered = count
	if count > 0 {
		fr.first = first.Sub(t0)
	}
	if fr.err == nil {
		fr.last = last.Sub(t0)
	}
	b.log.Info("webhooks: fan-out done", "delivered", count, "last", fr.last, "err", fr.err)
}
