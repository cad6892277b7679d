//go:build integration

package cluster

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"
	"github.com/ory/dockertest/v3"
	dc "github.com/ory/dockertest/v3/docker"

	"github.com/zoneprice/zoneprice/contracts"
)

// imageTag is the tag make images gives every image.
const imageTag = "local"

// The users of deploy/nats/accounts.conf this suite signs in as, by the
// suffix of their ZONEPRICE_NKEY_ variable.
const (
	userAdmin   = "ADMIN"
	userQuery   = "QUERY"
	userPorkbun = "INGEST_PORKBUN"
	// userLoader and userLeaders exist only in a scenario's copy of
	// accounts.conf (testAccounts): no real user may publish 150
	// registrars' prices, nor move a stream's leader.
	userLoader  = "TEST_LOADER"
	userLeaders = "TEST_LEADERS"
)

// The JetStream API subjects of a stream's info and of its leader's
// stepdown, the stream's name to follow. nats.go's jetstream has no call
// for a stepdown.
const (
	apiStreamInfo     = "$JS.API.STREAM.INFO."
	apiStreamStepDown = "$JS.API.STREAM.LEADER.STEPDOWN."
)

// namePrefix begins the name of every container and network the suite
// makes; with suiteLabel, it is how the sweep at the start of a run
// (TestMain) knows the leftovers of a killed run.
const namePrefix = "zpfs-"

// suiteLabel marks every container and network the suite makes, so that
// leftovers of an interrupted run can be found with docker ps --filter.
const suiteLabel = "zoneprice.failure-suite"

// newPool connects to the Docker engine, or fails the test saying why;
// only ZONEPRICE_SKIP_DOCKER=1 turns that into a skip.
func newPool(t *testing.T) *dockertest.Pool {
	t.Helper()
	if os.Getenv("ZONEPRICE_SKIP_DOCKER") == "1" {
		t.Skip("ZONEPRICE_SKIP_DOCKER=1: skipping the failure suite, which needs a Docker engine")
	}
	pool, err := dockertest.NewPool("")
	if err == nil {
		err = pool.Client.Ping()
	}
	if err != nil {
		t.Fatalf("no Docker engine reachable (%v): the failure suite runs real containers; start Docker (or set DOCKER_HOST), or set ZONEPRICE_SKIP_DOCKER=1 to skip it explicitly", err)
	}
	pool.MaxWait = 90 * time.Second
	for _, img := range []string{"nats-server", "query", "ingest", "lb"} {
		if _, err := pool.Client.InspectImage("zoneprice/" + img + ":" + imageTag); err != nil {
			t.Fatalf("image zoneprice/%s:%s: %v; run make images (make test-integration does)", img, imageTag, err)
		}
	}
	return pool
}

// cluster is one scenario's world: its networks, a three-node NATS cluster
// and the containers started on it.
type cluster struct {
	t      *testing.T
	pool   *dockertest.Pool
	prefix string // unique per scenario: names of containers and networks
	net    *dockertest.Network
	keys   map[string]nkeys.KeyPair
	nodes  []*dockertest.Resource
	names  []string // the nodes' server names (their container names)
}

type clusterOptions struct {
	// loader adds userLoader, who may publish any price subject.
	loader bool
	// leaders adds userLeaders, who may read the state, history and
	// deliveries streams' info and make their leaders step down.
	leaders bool
}

// testUsers are the users o adds to accounts.conf.
func (o clusterOptions) testUsers() []string {
	var users []string
	if o.loader {
		users = append(users, userLoader)
	}
	if o.leaders {
		users = append(users, userLeaders)
	}
	return users
}

// startCluster starts three NATS nodes from zoneprice/nats-server with the
// image's zoneprice-node.conf, a fresh NKey per user of accounts.conf, on a
// private network, and provisions the state stream with three replicas by
// running the ingest image as the provision job does.
func startCluster(t *testing.T, pool *dockertest.Pool, o clusterOptions) *cluster {
	t.Helper()
	c := &cluster{t: t, pool: pool, prefix: namePrefix + randomHex(t, 3)}
	// The users and their permissions are the image's, not the work
	// tree's: accounts.conf may have changed since make images.
	conf := c.imageFile("zoneprice/nats-server", "/etc/nats/accounts.conf")
	c.net = c.network("nats")
	extra := o.testUsers()
	c.keys = newKeys(t, append(natsUsers(t, conf), extra...))

	var env []string
	for user, kp := range c.keys {
		pub, err := kp.PublicKey()
		if err != nil {
			t.Fatal(err)
		}
		env = append(env, "ZONEPRICE_NKEY_"+user+"="+pub)
	}
	var binds []string
	if len(extra) > 0 {
		binds = append(binds, testAccounts(t, conf, extra)+":/etc/nats/accounts.conf:ro")
	}
	for i := 1; i <= 3; i++ {
		c.names = append(c.names, fmt.Sprintf("%s-nats-%d", c.prefix, i))
	}
	var routes []string
	for _, n := range c.names {
		routes = append(routes, "nats-route://"+n+":6222")
	}
	for _, name := range c.names {
		res := c.run(&dockertest.RunOptions{
			Repository: "zoneprice/nats-server", Tag: imageTag, Name: name,
			Cmd:          []string{"--config", "/etc/nats/zoneprice-node.conf", "--name", name, "--routes", strings.Join(routes, ",")},
			Env:          env,
			NetworkID:    c.net.Network.ID,
			ExposedPorts: []string{"4222/tcp", "8222/tcp"},
		}, binds...)
		c.nodes = append(c.nodes, res)
	}
	for i, n := range c.nodes {
		url := "http://" + n.GetHostPort("8222/tcp") + "/healthz?js-enabled-only=true"
		c.waitHTTP(url, 60*time.Second, "nats node "+c.names[i])
	}
	// Registered after the nodes', so it runs before they are removed.
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("JetStream as each node saw it at the end:\n%s", c.jetStreamState())
		}
	})
	c.provision()
	return c
}

// network makes a private bridge network with its own subnet (so that a
// container can be reconnected with the address it had) and removes it
// when the test ends.
func (c *cluster) network(purpose string) *dockertest.Network {
	c.t.Helper()
	name := c.prefix + "-" + purpose
	var lastErr error
	for range 8 {
		n, err := rand.Int(rand.Reader, big.NewInt(40*256))
		if err != nil {
			c.t.Fatal(err)
		}
		subnet := fmt.Sprintf("10.%d.%d.0/24", 200+n.Int64()/256, n.Int64()%256)
		net, err := c.pool.CreateNetwork(name, func(o *dc.CreateNetworkOptions) {
			o.Driver = "bridge"
			o.Labels = map[string]string{suiteLabel: "1"}
			o.IPAM = &dc.IPAMOptions{Driver: "default", Config: []dc.IPAMConfig{{Subnet: subnet}}}
		})
		if err != nil {
			lastErr = err // most likely the subnet overlaps another network's
			continue
		}
		c.t.Cleanup(func() {
			if err := c.pool.Client.RemoveNetwork(net.Network.ID); err != nil {
				c.t.Logf("remove network %s: %v", name, err)
			}
		})
		return net
	}
	c.t.Fatalf("create network %s: %v", name, lastErr)
	return nil
}

// run starts a container, publishing its exposed ports on 127.0.0.1 only,
// and purges it (after logging its last lines if the test failed) when the
// test ends.
func (c *cluster) run(o *dockertest.RunOptions, binds ...string) *dockertest.Resource {
	c.t.Helper()
	o.Labels = map[string]string{suiteLabel: "1"}
	o.PortBindings = map[dc.Port][]dc.PortBinding{}
	for _, p := range o.ExposedPorts {
		o.PortBindings[dc.Port(p)] = []dc.PortBinding{{HostIP: "127.0.0.1", HostPort: ""}}
	}
	res, err := c.pool.RunWithOptions(o, func(hc *dc.HostConfig) {
		hc.PublishAllPorts = false
		hc.Binds = append(hc.Binds, binds...)
		hc.RestartPolicy = dc.RestartPolicy{Name: "no"}
	})
	if err != nil {
		c.t.Fatalf("start container %s: %v", o.Name, err)
	}
	c.t.Cleanup(func() {
		if c.t.Failed() {
			c.t.Logf("last log lines of %s:\n%s", o.Name, c.logTail(res.Container.ID, 40))
		}
		if err := c.pool.Purge(res); err != nil {
			c.t.Logf("purge %s: %v", o.Name, err)
		}
	})
	return res
}

// logs returns a container's stdout and stderr, the last tail lines.
func (c *cluster) logs(id, tail string) string {
	var buf bytes.Buffer
	err := c.pool.Client.Logs(dc.LogsOptions{
		Container: id, OutputStream: &buf, ErrorStream: &buf, Stdout: true, Stderr: true, Tail: tail,
		InactivityTimeout: 5 * time.Second,
	})
	if err != nil {
		fmt.Fprintf(&buf, "(logs: %v)", err)
	}
	return buf.String()
}

// logTail returns the last n entries of a container's log, in order. A
// run of lines that differ only in their numbers (a node retrying a lost
// route every second) is one entry, its first and last lines and a count,
// so that a retry loop does not push what came before it out of view.
func (c *cluster) logTail(id string, n int) string {
	type entry struct {
		first, last, shape string
		more               int
	}
	var entries []entry
	for line := range strings.SplitSeq(strings.TrimRight(c.logs(id, "2000"), "\n"), "\n") {
		shape := digits.ReplaceAllString(line, "#")
		if k := len(entries) - 1; k >= 0 && entries[k].shape == shape {
			entries[k].more++
			entries[k].last = line
			continue
		}
		entries = append(entries, entry{first: line, shape: shape})
	}
	var b strings.Builder
	for _, e := range entries[max(0, len(entries)-n):] {
		b.WriteString(e.first + "\n")
		if e.more > 0 {
			fmt.Fprintf(&b, "  … %d more like it, the last:\n%s\n", e.more, e.last)
		}
	}
	return b.String()
}

var digits = regexp.MustCompile(`[0-9]+`)

// jetStreamState describes, node by node, what each node's monitoring port
// says of the state and history streams and of the consumers the node
// holds: where a pod's readers were, and how far they got.
func (c *cluster) jetStreamState() string {
	var b strings.Builder
	for i, n := range c.nodes {
		fmt.Fprintf(&b, "%s: ", c.names[i])
		var jsz struct {
			Meta *struct {
				Leader string `json:"leader"`
			} `json:"meta_cluster"`
			Accounts []struct {
				Name    string `json:"name"`
				Streams []struct {
					Name      string                    `json:"name"`
					Cluster   *jetstream.ClusterInfo    `json:"cluster"`
					State     jetstream.StreamState     `json:"state"`
					Consumers []*jetstream.ConsumerInfo `json:"consumer_detail"`
				} `json:"stream_detail"`
			} `json:"account_details"`
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		code, body, err := fetch(ctx, "http://"+n.GetHostPort("8222/tcp")+"/jsz?accounts=true&streams=true&consumers=true")
		cancel()
		if err == nil && code != http.StatusOK {
			err = fmt.Errorf("%d %.200s", code, body)
		}
		if err == nil {
			err = json.Unmarshal(body, &jsz)
		}
		if err != nil {
			fmt.Fprintf(&b, "no answer (%v)\n", err)
			continue
		}
		if jsz.Meta != nil {
			fmt.Fprintf(&b, "meta leader %q", jsz.Meta.Leader)
		}
		b.WriteString("\n")
		for _, a := range jsz.Accounts {
			for _, st := range a.Streams {
				if st.Name != contracts.StateStream && st.Name != contracts.HistoryStream {
					continue
				}
				leader := ""
				if st.Cluster != nil {
					leader = st.Cluster.Leader
				}
				fmt.Fprintf(&b, "  stream %s: leader %q, last sequence %d, messages %d; %d consumers here\n",
					st.Name, leader, st.State.LastSeq, st.State.Msgs, len(st.Consumers))
				for _, ci := range st.Consumers {
					active := "never"
					if ci.Delivered.Last != nil {
						active = time.Since(*ci.Delivered.Last).Round(100*time.Millisecond).String() + " ago"
					}
					fmt.Fprintf(&b, "    consumer %s: created %s, delivered up to stream sequence %d, pending %d, pull requests waiting %d, last delivery %s\n",
						ci.Name, ci.Created.Format("15:04:05.000"), ci.Delivered.Stream, ci.NumPending, ci.NumWaiting, active)
				}
			}
		}
	}
	return b.String()
}

// provision runs zoneprice-ingest --provision only --replicas 3 as the
// admin user, as the compose file's provision job does, and waits until
// the stream has a leader and every replica is current.
func (c *cluster) provision() {
	c.t.Helper()
	res := c.run(&dockertest.RunOptions{
		Repository: "zoneprice/ingest", Tag: imageTag, Name: c.prefix + "-provision",
		Cmd:       []string{"--provision", "only", "--replicas", "3"},
		Env:       []string{"NATS_URL=" + c.innerURLs(), "NATS_NKEY=" + c.seed(userAdmin)},
		NetworkID: c.net.Network.ID,
	})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	code, err := c.pool.Client.WaitContainerWithContext(res.Container.ID, ctx)
	if err != nil || code != 0 {
		c.t.Fatalf("provision job: exit %d, %v\n%s", code, err, c.logs(res.Container.ID, "20"))
	}
	_, js := c.connect(userAdmin)
	c.waitStreamHealthy(js, 60*time.Second)
}

// innerURLs is how containers on the cluster's network reach NATS.
func (c *cluster) innerURLs() string {
	urls := make([]string, len(c.names))
	for i, n := range c.names {
		urls[i] = "nats://" + n + ":4222"
	}
	return strings.Join(urls, ",")
}

func (c *cluster) seed(user string) string {
	c.t.Helper()
	kp, ok := c.keys[user]
	if !ok {
		c.t.Fatalf("no NATS user %s", user)
	}
	s, err := kp.Seed()
	if err != nil {
		c.t.Fatal(err)
	}
	return string(s)
}

// connect signs in to the cluster from the test process, through the
// nodes' published ports, as user; the connection closes when the test
// ends. Errors the server reports asynchronously (permission violations)
// are sent to asyncErrs when it is given.
func (c *cluster) connect(user string, opts ...nats.Option) (*nats.Conn, jetstream.JetStream) {
	c.t.Helper()
	kp := c.keys[user]
	pub, err := kp.PublicKey()
	if err != nil {
		c.t.Fatal(err)
	}
	var urls []string
	for _, n := range c.nodes {
		urls = append(urls, "nats://"+n.GetHostPort("4222/tcp"))
	}
	base := []nats.Option{
		nats.Name("failure-suite-" + strings.ToLower(user)),
		nats.Nkey(pub, kp.Sign),
		// The nodes advertise addresses on the private network; the test
		// process reaches them only through their published ports.
		nats.IgnoreDiscoveredServers(),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond),
		nats.Timeout(5 * time.Second),
	}
	nc, err := nats.Connect(strings.Join(urls, ","), append(base, opts...)...)
	if err != nil {
		c.t.Fatalf("connect to nats as %s: %v", user, err)
	}
	c.t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		c.t.Fatal(err)
	}
	return nc, js
}

// waitStreamHealthy waits until the state stream has a leader and its
// replicas are current.
func (c *cluster) waitStreamHealthy(js jetstream.JetStream, within time.Duration) *jetstream.StreamInfo {
	c.t.Helper()
	var last error
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		info, err := streamInfo(ctx, js)
		cancel()
		if err == nil {
			if info.Cluster == nil || info.Cluster.Leader == "" {
				err = errors.New("no leader")
			} else {
				for _, r := range info.Cluster.Replicas {
					if !r.Current || r.Offline {
						err = fmt.Errorf("leader %s; replica %s: current %v, offline %v, lag %d, last seen %v ago",
							info.Cluster.Leader, r.Name, r.Current, r.Offline, r.Lag, r.Active.Round(time.Millisecond))
					}
				}
			}
			if err == nil {
				return info
			}
		}
		last = err
		time.Sleep(250 * time.Millisecond)
	}
	c.t.Fatalf("stream %s not healthy within %v: %v", contracts.StateStream, within, last)
	return nil
}

func streamInfo(ctx context.Context, js jetstream.JetStream, opts ...jetstream.StreamInfoOpt) (*jetstream.StreamInfo, error) {
	s, err := js.Stream(ctx, contracts.StateStream)
	if err != nil {
		return nil, err
	}
	return s.Info(ctx, opts...)
}

// leaders is the server name of the node that leads each stream, "" where
// a stream has none.
type leaders struct{ state, history string }

func (l leaders) String() string {
	return fmt.Sprintf("state stream %q, history stream %q", l.state, l.history)
}

// streamLeaders asks each stream's leader for the stream's info.
func streamLeaders(ctx context.Context, js jetstream.JetStream) (leaders, error) {
	var l leaders
	for _, s := range []struct {
		name   string
		leader *string
	}{{contracts.StateStream, &l.state}, {contracts.HistoryStream, &l.history}} {
		st, err := js.Stream(ctx, s.name)
		if err != nil {
			return l, fmt.Errorf("stream %s: %w", s.name, err)
		}
		if ci := st.CachedInfo().Cluster; ci != nil {
			*s.leader = ci.Leader
		}
	}
	return l, nil
}

// leadBoth makes the node that leads the state stream lead the history
// stream too, so that losing that one node makes both streams elect a
// leader: the history stream's leader is asked to step down in favour of
// that node, and asked again while it lands elsewhere, until within has
// passed. It returns the leaders it first saw and those it left. nc and
// js sign in as userLeaders.
func (c *cluster) leadBoth(nc *nats.Conn, js jetstream.JetStream, within time.Duration) (before, after leaders) {
	c.t.Helper()
	var last error
	seen := false
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		l, err := streamLeaders(ctx, js)
		if err == nil && !seen {
			before, seen = l, true
		}
		switch {
		case err != nil:
		case l.state == "" || l.history == "":
			err = fmt.Errorf("a stream without a leader: %s", l)
		case l.state == l.history:
			cancel()
			return before, l
		default:
			err = stepDown(ctx, nc, contracts.HistoryStream, l.state)
		}
		cancel()
		last = err
		time.Sleep(200 * time.Millisecond)
	}
	c.t.Fatalf("one node to lead both streams within %v: leaders at first %s; the last attempt: %v", within, before, last)
	return before, after
}

// stepDown asks stream's leader to hand its leadership to the node named
// preferred (a placement preference, which nats-server takes since 2.11).
func stepDown(ctx context.Context, nc *nats.Conn, stream, preferred string) error {
	req, err := json.Marshal(map[string]any{"placement": map[string]string{"preferred": preferred}})
	if err != nil {
		return err
	}
	msg, err := nc.RequestWithContext(ctx, apiStreamStepDown+stream, req)
	if err != nil {
		return fmt.Errorf("step down the leader of %s: %w", stream, err)
	}
	var resp struct {
		Error   *jetstream.APIError `json:"error"`
		Success bool                `json:"success"`
	}
	switch err := json.Unmarshal(msg.Data, &resp); {
	case err != nil:
		return fmt.Errorf("step down the leader of %s: %w: %.200s", stream, err, msg.Data)
	case resp.Error != nil:
		return fmt.Errorf("step down the leader of %s in favour of %s: %w", stream, preferred, resp.Error)
	case !resp.Success:
		return fmt.Errorf("step down the leader of %s: no success in %.200s", stream, msg.Data)
	}
	return nil
}

// node returns the node with the given server name.
func (c *cluster) node(name string) *dockertest.Resource {
	c.t.Helper()
	for i, n := range c.names {
		if n == name {
			return c.nodes[i]
		}
	}
	c.t.Fatalf("no node named %q", name)
	return nil
}

// pod is one zoneprice-query container.
type pod struct {
	c    *cluster
	name string
	res  *dockertest.Resource
}

type podOptions struct {
	// apiNet, when set, is the network the pod is created on and its
	// port is published through; the pod then joins the NATS network as
	// a second one, which can be cut without losing the port.
	apiNet *dockertest.Network
}

// startPod starts a query pod joined to the three nodes as the query user.
func (c *cluster) startPod(name string, o podOptions) *pod {
	c.t.Helper()
	netID := c.net.Network.ID
	if o.apiNet != nil {
		netID = o.apiNet.Network.ID
	}
	p := &pod{c: c, name: c.prefix + "-" + name}
	p.res = c.run(&dockertest.RunOptions{
		Repository: "zoneprice/query", Tag: imageTag, Name: p.name,
		Cmd: []string{"--nats-url", c.innerURLs(), "--rate-limit", "off", "--drain-delay", "2s",
			"--log-format", "text"},
		Env:          []string{"NATS_NKEY=" + c.seed(userQuery)},
		NetworkID:    netID,
		ExposedPorts: []string{"8080/tcp"},
	})
	// Registered after the container's, so it runs before it is removed.
	c.t.Cleanup(func() {
		if c.t.Failed() {
			c.t.Logf("metrics of %s at the end: %s", p.name, p.consumerMetrics())
		}
	})
	if o.apiNet != nil {
		if err := p.res.ConnectToNetwork(c.net); err != nil {
			c.t.Fatalf("connect %s to the nats network: %v", p.name, err)
		}
	}
	return p
}

// consumerMetrics are the pod's gauges and counters that say how far its
// reader got and whether it is connected, one line.
func (p *pod) consumerMetrics() string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	m, err := p.metrics(ctx)
	if err != nil {
		return err.Error()
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(m)) {
		for _, prefix := range []string{"zoneprice_consumer_", "zoneprice_history_", "zoneprice_nats_", "zoneprice_snapshot_as_of", "zoneprice_stream_"} {
			if strings.HasPrefix(name, prefix) {
				out = append(out, fmt.Sprintf("%s %g", name, m[name]))
				break
			}
		}
	}
	return strings.Join(out, ", ")
}

// url is the pod's API through its published port, as of the last
// inspection (a restarted container gets a new port).
func (p *pod) url() string { return "http://" + p.res.GetHostPort("8080/tcp") }

// refresh re-reads the container, after a restart or a network change.
func (p *pod) refresh() {
	p.c.t.Helper()
	ct, err := p.c.pool.Client.InspectContainer(p.res.Container.ID)
	if err != nil {
		p.c.t.Fatalf("inspect %s: %v", p.name, err)
	}
	p.res.Container = ct
}

func (p *pod) waitReady(within time.Duration) {
	p.c.t.Helper()
	p.c.waitHTTP(p.url()+"/readyz", within, "pod "+p.name)
}

// waitHTTP polls url until it answers 200.
func (c *cluster) waitHTTP(url string, within time.Duration, what string) {
	c.t.Helper()
	deadline := time.Now().Add(within)
	last := "no answer"
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		code, body, err := fetch(ctx, url)
		cancel()
		if err == nil {
			if code == http.StatusOK {
				return
			}
			last = fmt.Sprintf("%d %.512s", code, body)
		} else {
			last = err.Error()
		}
		time.Sleep(100 * time.Millisecond)
	}
	c.t.Fatalf("%s not ready within %v (%s): last answer %s", what, within, url, last)
}

// newKeys makes an NKey user pair for every user.
func newKeys(t *testing.T, users []string) map[string]nkeys.KeyPair {
	t.Helper()
	keys := make(map[string]nkeys.KeyPair, len(users))
	for _, u := range users {
		kp, err := nkeys.CreateUser()
		if err != nil {
			t.Fatal(err)
		}
		keys[u] = kp
	}
	return keys
}

// nkeyVar is how accounts.conf names a user's public key, as in
// deploy.NATSUsers, which reads the copy compiled into the test binary;
// the suite reads the one in the image it runs.
var nkeyVar = regexp.MustCompile(`nkey: *\$ZONEPRICE_NKEY_([A-Z_]+)`)

// natsUsers returns the users of an accounts.conf by the suffix of their
// ZONEPRICE_NKEY_ variable.
func natsUsers(t *testing.T, conf []byte) []string {
	t.Helper()
	var users []string
	for _, m := range nkeyVar.FindAllSubmatch(conf, -1) {
		users = append(users, string(m[1]))
	}
	if len(users) == 0 {
		t.Fatalf("the image's accounts.conf names no users:\n%.2000s", conf)
	}
	return users
}

// imageFile returns a file of the image's (tag imageTag), read from a
// container created for it and never started.
func (c *cluster) imageFile(repo, path string) []byte {
	c.t.Helper()
	ct, err := c.pool.Client.CreateContainer(dc.CreateContainerOptions{
		Name:       c.prefix + "-files",
		Config:     &dc.Config{Image: repo + ":" + imageTag, Labels: map[string]string{suiteLabel: "1"}},
		HostConfig: &dc.HostConfig{RestartPolicy: dc.RestartPolicy{Name: "no"}},
	})
	if err != nil {
		c.t.Fatalf("create a container of %s to read %s: %v", repo, path, err)
	}
	defer func() {
		if err := c.pool.Client.RemoveContainer(dc.RemoveContainerOptions{ID: ct.ID, Force: true}); err != nil {
			c.t.Logf("remove container %s: %v", ct.Name, err)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var archive bytes.Buffer
	if err := c.pool.Client.DownloadFromContainer(ct.ID, dc.DownloadFromContainerOptions{Path: path, OutputStream: &archive, Context: ctx}); err != nil {
		c.t.Fatalf("read %s from %s: %v", path, repo, err)
	}
	tr := tar.NewReader(&archive)
	for {
		h, err := tr.Next()
		if err != nil {
			c.t.Fatalf("read %s from %s: no such file in the archive (%v)", path, repo, err)
		}
		if h.Name == filepath.Base(path) && h.Typeflag == tar.TypeReg {
			b, err := io.ReadAll(tr)
			if err != nil {
				c.t.Fatalf("read %s from %s: %v", path, repo, err)
			}
			return b
		}
	}
}

// testUserPublish is what a test-only user may publish.
func testUserPublish(t *testing.T, user string) []string {
	t.Helper()
	switch user {
	case userLoader:
		return []string{"prices.v1.>", apiStreamInfo + contracts.StateStream}
	case userLeaders:
		var subjects []string
		for _, s := range []string{contracts.StateStream, contracts.HistoryStream, contracts.DeliveriesStream} {
			subjects = append(subjects, apiStreamInfo+s, apiStreamStepDown+s)
		}
		return subjects
	}
	t.Fatalf("no test-only user %s", user)
	return nil
}

// testAccounts writes conf, an accounts.conf, with the test-only users
// added, and returns its path for a bind mount.
func testAccounts(t *testing.T, conf []byte, users []string) string {
	t.Helper()
	const anchor = "users: ["
	if bytes.Count(conf, []byte(anchor)) != 1 {
		t.Fatalf("the image's accounts.conf: want exactly one %q to add the test-only users after", anchor)
	}
	added := anchor
	for _, u := range users {
		var publish []string
		for _, s := range testUserPublish(t, u) {
			publish = append(publish, strconv.Quote(s))
		}
		added += `
      { nkey: $ZONEPRICE_NKEY_` + u + `, permissions: {
          publish: [` + strings.Join(publish, ", ") + `], subscribe: ["_INBOX.>"] } }`
	}
	b := bytes.Replace(conf, []byte(anchor), []byte(added), 1)
	dir, err := os.MkdirTemp("", "zpfs-accounts-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	// The server runs as an unprivileged user.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "accounts.conf")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func randomHex(t *testing.T, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}
