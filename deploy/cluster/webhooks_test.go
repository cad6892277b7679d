//go:build integration

package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/ory/dockertest/v3"
	dc "github.com/ory/dockertest/v3/docker"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/query/webhooks"
)

const userNotify = "NOTIFY"

// TestWebhookLeaderLoss: three nodes, two zoneprice-notify containers, and
// three endpoints on a receiver in the test process, reached through the
// nats network's gateway address. Changes are published steadily as an
// ingester publishes them; mid-way the node that leads both the history
// and the deliveries streams is killed (the deliveries stream's leadership
// is first moved to the history stream's leader). Afterwards every
// acknowledged change has reached every endpoint, signed (verified with
// the Standard Webhooks library), under the webhook-id made of the
// endpoint and the change's sequence in the history stream, with the
// change's own content; repeats of a webhook-id (Standard Webhooks is
// at-least-once) are counted and logged, not failed.
func TestWebhookLeaderLoss(t *testing.T) {
	start := time.Now()
	pool := newPool(t)
	if _, err := pool.Client.InspectImage("zoneprice/notify:" + imageTag); err != nil {
		t.Fatalf("image zoneprice/notify:%s: %v; run make images (make test-integration does)", imageTag, err)
	}
	c := startCluster(t, pool, clusterOptions{leaders: true})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	// The receiver listens on the nats network's gateway, the host's
	// address on that network, which the containers reach directly.
	gateway := c.gateway()
	recv := newWebhookReceiver()
	ln, err := net.Listen("tcp", net.JoinHostPort(gateway, "0"))
	if err != nil {
		t.Fatalf("listen on the network's gateway %s: %v", gateway, err)
	}
	srv := &http.Server{Handler: recv, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	port := ln.Addr().(*net.TCPAddr).Port

	_, adminJS := c.connect(userAdmin)
	// The receiver's address is internal: allowed here as the notifiers
	// allow it (--webhook-allow-prefixes).
	store := webhooks.NewStore(webhooks.Config{AllowHTTP: true, AllowPrefixes: []netip.Prefix{netip.MustParsePrefix(gateway + "/32")}}, webhooks.Bus{Webhooks: bus.Webhooks(adminJS), Owners: bus.WebhookOwners(adminJS), Deliveries: bus.NewDeliveries(adminJS)}, time.Now)
	var hooks []string
	for i := range 3 {
		created, err := store.Create(ctx, "failuresuite1", webhooks.Registration{
			URL:    fmt.Sprintf("http://%s/hook/%d", net.JoinHostPort(gateway, strconv.Itoa(port)), i),
			Events: []contracts.EventType{contracts.EventPriceChanged, contracts.EventPriceDropped, contracts.EventZoneAdded, contracts.EventZoneWithdrawn},
		}, 10)
		if err != nil {
			t.Fatalf("register webhook %d: %v", i, err)
		}
		if err := recv.add(fmt.Sprintf("/hook/%d", i), created.Secret); err != nil {
			t.Fatal(err)
		}
		hooks = append(hooks, created.Webhook.ID)
	}
	notifiers := []*dockertest.Resource{c.startNotify("notify-1", port, gateway), c.startNotify("notify-2", port, gateway)}

	_, js := c.connect(userPorkbun)
	pub := bus.NewPublisher(js)
	// The notifiers' dispatch consumer starts at the changes stored after
	// it is made (DeliverNew): a probe is published until one arrives,
	// and only changes after that are expected.
	probes := 0
	deadline := time.Now().Add(90 * time.Second)
	for recv.count("/hook/0") == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no probe change delivered within 90s (receiver at %s:%d); notifiers' logs:\n%s\n%s", gateway, port,
				c.logTail(notifiers[0].Container.ID, 20), c.logTail(notifiers[1].Container.ID, 20))
		}
		ps := priceSet("porkbun", ".fsprobe", int64(100+probes), time.Now())
		if _, err := pub.Publish(ctx, priceChange(ps, int64(99+probes))); err != nil {
			t.Fatal(err)
		}
		probes++
		time.Sleep(time.Second)
	}
	t.Logf("probe delivered after %d probe changes (%v since the test began)", probes, time.Since(start).Round(time.Millisecond))

	leadersNC, leadersJS := c.connect(userLeaders)
	streams := []string{contracts.HistoryStream, contracts.DeliveriesStream}
	before := c.leadTogether(leadersNC, leadersJS, streams, 20*time.Second)
	t.Logf("leaders of %v, on one node: %v", streams, before)

	rec := newRecorder()
	zones := testZones(20)
	stop := make(chan struct{})
	var pubErr error
	pubDone := make(chan struct{})
	go func() {
		defer close(pubDone)
		pubErr = steadyPublish(ctx, stop, pub, "porkbun", zones, 20*time.Millisecond, rec)
	}()
	time.Sleep(8 * time.Second)
	// Checked again at the kill, and moved again should it have moved.
	atKill := c.leadTogether(leadersNC, leadersJS, streams, 10*time.Second)
	leader := atKill[0]
	killedAt := rec.String()
	deliveredAtKill := recv.total()
	if err := pool.Client.KillContainer(dc.KillContainerOptions{ID: c.node(leader).Container.ID, Signal: dc.SIGKILL}); err != nil {
		t.Fatalf("kill stream leader %s: %v", leader, err)
	}
	t.Logf("killed %s, the leader of %v, after %s and %d deliveries", leader, streams, killedAt, deliveredAtKill)
	elected := c.waitNewLeaders(leadersJS, streams, leader, 30*time.Second)
	t.Logf("leaders after the kill: %v", elected)

	time.Sleep(12 * time.Second)
	close(stop)
	select {
	case <-pubDone:
	case <-ctx.Done():
		t.Fatal("the publisher did not finish")
	}
	if pubErr != nil {
		t.Errorf("publisher: %v", pubErr)
	}
	published := time.Now()

	// What must arrive: for every acknowledged change, held once by the
	// history stream at sequence seq, a delivery to each endpoint with
	// webhook-id DeliveryID(endpoint, seq).
	stored, err := historyChanges(ctx, js, "porkbun")
	if err != nil {
		t.Fatalf("read the history stream: %v", err)
	}
	want := rec.wantChanges(stored)
	if d := diffChanges(onlyZones(stored, zones), want); d != "" {
		t.Errorf("history stream %s: %s", contracts.HistoryStream, d)
	}
	expected := map[string]change{}
	for ch, seq := range want {
		if seq == 0 {
			continue // reported by the diff above
		}
		for i, h := range hooks {
			expected[strconv.Itoa(i)+" "+contracts.DeliveryID(h, seq)] = ch
		}
	}
	var missing []string
	deadline = time.Now().Add(150 * time.Second)
	for {
		missing = recv.missing(expected)
		if len(missing) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	took := time.Since(published)
	wrong, repeats, bad := recv.check(expected)
	t.Logf("webhooks under leader loss: %s; %d deliveries expected (%d changes × %d endpoints), %d received in all (probes included), %d of the expected missing %v after the last publish; %d repeats of a webhook-id (at-least-once)%s; took %v",
		rec, len(expected), len(want), len(hooks), recv.total(), len(missing), took.Round(time.Millisecond), len(repeats), colonList(repeats), time.Since(start).Round(time.Millisecond))
	if len(missing) > 0 {
		t.Errorf("%d of %d acknowledged changes' deliveries never arrived (endpoint and webhook-id): %s", len(missing), len(expected), summary(missing))
	}
	if len(wrong) > 0 {
		t.Errorf("%d deliveries carried another change than their webhook-id's: %s", len(wrong), summary(wrong))
	}
	if bad > 0 {
		t.Errorf("%d deliveries did not verify", bad)
	}
	if len(expected) == 0 {
		t.Error("no change was expected: the publisher published nothing")
	}
}

// gateway is the host's address on the nats network.
func (c *cluster) gateway() string {
	c.t.Helper()
	n, err := c.pool.Client.NetworkInfo(c.net.Network.ID)
	if err != nil {
		c.t.Fatal(err)
	}
	for _, cfg := range n.IPAM.Config {
		if cfg.Gateway != "" {
			return cfg.Gateway
		}
		// A network made with a subnet and no gateway gets the subnet's
		// first address, and Docker does not always say so.
		if p, err := netip.ParsePrefix(cfg.Subnet); err == nil && p.Addr().Is4() {
			return p.Masked().Addr().Next().String()
		}
	}
	c.t.Fatalf("network %s has no gateway address", n.Name)
	return ""
}

// startNotify starts a zoneprice-notify container on the nats network as
// the notify user, allowed to deliver over http to the receiver's port on
// the gateway address alone.
func (c *cluster) startNotify(name string, port int, gateway string) *dockertest.Resource {
	c.t.Helper()
	return c.run(&dockertest.RunOptions{
		Repository: "zoneprice/notify", Tag: imageTag, Name: c.prefix + "-" + name,
		Cmd: []string{"--nats-url", c.innerURLs(), "--log-format", "text", "--webhook-allow-http",
			"--webhook-ports", strconv.Itoa(port), "--webhook-allow-prefixes", gateway + "/32"},
		Env:       []string{"NATS_NKEY=" + c.seed(userNotify)},
		NetworkID: c.net.Network.ID,
	})
}

// streamLeader is the server name of the node that leads stream, "" when
// none does.
func streamLeader(ctx context.Context, js jetstream.JetStream, stream string) (string, error) {
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return "", fmt.Errorf("stream %s: %w", stream, err)
	}
	if ci := s.CachedInfo().Cluster; ci != nil {
		return ci.Leader, nil
	}
	return "", nil
}

// leadTogether makes the node that leads streams[0] lead every other
// stream of streams too, asking their leaders to step down in its favour
// until within has passed, and returns the leaders it left, in the order
// of streams. nc and js sign in as userLeaders.
func (c *cluster) leadTogether(nc *nats.Conn, js jetstream.JetStream, streams []string, within time.Duration) []string {
	c.t.Helper()
	var last error
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		l := make([]string, len(streams))
		var err error
		for i, s := range streams {
			if l[i], err = streamLeader(ctx, js, s); err == nil && l[i] == "" {
				err = fmt.Errorf("stream %s has no leader", s)
			}
			if err != nil {
				break
			}
		}
		if err == nil {
			i := slices.IndexFunc(l, func(n string) bool { return n != l[0] })
			if i < 0 {
				cancel()
				return l
			}
			err = stepDown(ctx, nc, streams[i], l[0])
		}
		cancel()
		last = err
		time.Sleep(200 * time.Millisecond)
	}
	c.t.Fatalf("one node to lead %v within %v: %v", streams, within, last)
	return nil
}

// waitNewLeaders waits until each of streams is led by a node other than
// lost, and returns the leaders; it only logs when within passes, since
// whether anything was lost is for the checks after it to say.
func (c *cluster) waitNewLeaders(js jetstream.JetStream, streams []string, lost string, within time.Duration) []string {
	c.t.Helper()
	var l []string
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		l = make([]string, len(streams))
		ok := true
		for i, s := range streams {
			var err error
			if l[i], err = streamLeader(ctx, js, s); err != nil || l[i] == "" || l[i] == lost {
				ok = false
			}
		}
		cancel()
		if ok {
			return l
		}
		time.Sleep(200 * time.Millisecond)
	}
	c.t.Logf("not every stream of %v had a new leader within %v; the last answer: %v", streams, within, l)
	return l
}

// onlyZones is stored without the changes of other zones (the probes).
func onlyZones(stored map[change][]uint64, zones []string) map[change][]uint64 {
	out := map[change][]uint64{}
	for ch, seqs := range stored {
		if slices.Contains(zones, ch.zone) {
			out[ch] = seqs
		}
	}
	return out
}

// colonList is ": " and the summary of items, or nothing.
func colonList(items []string) string {
	if len(items) == 0 {
		return ""
	}
	return ": " + summary(items)
}

// summary is the first few of items, sorted, and how many more.
func summary(items []string) string {
	slices.Sort(items)
	if len(items) > 5 {
		return strings.Join(items[:5], "; ") + fmt.Sprintf("; and %d more", len(items)-5)
	}
	return strings.Join(items, "; ")
}

// webhookReceiver is the subscribers' side: each endpoint's path leads to
// its secret; every delivery is verified with the Standard Webhooks
// library's Verify, and what arrived under each endpoint and webhook-id is
// kept.
type webhookReceiver struct {
	mu    sync.Mutex
	hooks map[string]*standardwebhooks.Webhook // by path
	// got is, by endpoint (its path's last element) and webhook-id, the
	// change each arrival carried.
	got map[string][]change
	bad int
	all int
}

func newWebhookReceiver() *webhookReceiver {
	return &webhookReceiver{hooks: map[string]*standardwebhooks.Webhook{}, got: map[string][]change{}}
}

func (r *webhookReceiver) add(path, secret string) error {
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.hooks[path] = wh
	r.mu.Unlock()
	return nil
}

func (r *webhookReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	r.mu.Lock()
	defer r.mu.Unlock()
	wh := r.hooks[req.URL.Path]
	if err != nil || wh == nil || wh.Verify(body, req.Header) != nil {
		r.bad++
		http.Error(w, "bad signature", http.StatusBadRequest)
		return
	}
	var payload struct {
		Data contracts.PriceChange `json:"data"`
	}
	if err := json.Unmarshal(body, &payload); err != nil {
		r.bad++
		http.Error(w, "not a change", http.StatusBadRequest)
		return
	}
	r.all++
	endpoint := strings.TrimPrefix(req.URL.Path, "/hook/")
	key := endpoint + " " + req.Header.Get(standardwebhooks.HeaderWebhookID)
	r.got[key] = append(r.got[key], changeOf(&payload.Data))
	w.WriteHeader(http.StatusNoContent)
}

// count is how many deliveries the endpoint at path got.
func (r *webhookReceiver) count(path string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	prefix := strings.TrimPrefix(path, "/hook/") + " "
	n := 0
	for k, v := range r.got {
		if strings.HasPrefix(k, prefix) {
			n += len(v)
		}
	}
	return n
}

func (r *webhookReceiver) total() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.all
}

// missing is the expected deliveries not received yet.
func (r *webhookReceiver) missing(expected map[string]change) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for k, ch := range expected {
		if len(r.got[k]) == 0 {
			out = append(out, k+" ("+ch.String()+")")
		}
	}
	return out
}

// check returns the deliveries that carried another change than
// expected under their webhook-id, the webhook-ids that arrived more than
// once, and how many deliveries did not verify.
func (r *webhookReceiver) check(expected map[string]change) (wrong, repeats []string, bad int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, got := range r.got {
		if len(got) > 1 {
			repeats = append(repeats, fmt.Sprintf("%s ×%d", k, len(got)))
		}
		want, ok := expected[k]
		if !ok {
			continue // a probe
		}
		for _, g := range got {
			if g != want {
				wrong = append(wrong, fmt.Sprintf("%s: %s, want %s", k, g, want))
			}
		}
	}
	return wrong, repeats, r.bad
}
