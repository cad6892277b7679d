package deploy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"
	"github.com/prometheus/client_golang/prometheus"
	"go.yaml.in/yaml/v3"

	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
	"github.com/zoneprice/zoneprice/query/api"
	"github.com/zoneprice/zoneprice/query/querytest"
	"github.com/zoneprice/zoneprice/query/replay"
)

// binDir holds the commands the tests build, once per run.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "zoneprice-deploy-")
	if err != nil {
		panic(err)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var builds sync.Map // command name → *build

type build struct {
	once sync.Once
	path string
	err  error
}

// command builds cmd/<name> (once per test run) and returns its path.
func command(t *testing.T, name string) string {
	t.Helper()
	v, _ := builds.LoadOrStore(name, &build{})
	b := v.(*build)
	b.once.Do(func() {
		b.path = filepath.Join(binDir, name)
		out, err := exec.Command("go", "build", "-o", b.path, "../cmd/"+name).CombinedOutput()
		if err != nil {
			b.err = errors.New(string(out))
		}
	})
	if b.err != nil {
		t.Fatalf("build %s: %v", name, b.err)
	}
	return b.path
}

// flagDefault returns the default of a command's flag as its --help
// prints it: the deployment files must agree with it.
func flagDefault(t *testing.T, cmd, flagName string) string {
	t.Helper()
	out, _ := exec.Command(command(t, cmd), "--help").CombinedOutput()
	re := regexp.MustCompile(`(?m)^  -` + regexp.QuoteMeta(flagName) + `\b[^\n]*\n(?:\s{4,}[^\n]*\n)*?\s{4,}[^\n]*\(default "([^"]*)"\)`)
	m := re.FindSubmatch(out)
	if m == nil {
		t.Fatalf("%s --help shows no default for -%s:\n%s", cmd, flagName, out)
	}
	return string(m[1])
}

// commandReads reports whether a command's --help names env as the
// variable of one of its flags.
func commandReads(t *testing.T, cmd, env string) bool {
	t.Helper()
	out, _ := exec.Command(command(t, cmd), "--help").CombinedOutput()
	return strings.Contains(string(out), "(env "+env+")")
}

// port returns the port of a listen address such as ":8080".
func port(t *testing.T, addr string) string {
	t.Helper()
	_, p, ok := strings.Cut(addr, ":")
	if !ok {
		t.Fatalf("listen address %q has no port", addr)
	}
	return p
}

// natsUsers returns the users of deploy/nats/accounts.conf.
func natsUsers(t *testing.T) []string {
	t.Helper()
	users := NATSUsers()
	if len(users) == 0 {
		t.Fatal("accounts.conf names no users")
	}
	return users
}

// natsKeys makes a key pair per user and returns the environment a NATS
// server (ZONEPRICE_NKEY_*) and the compose file (ZONEPRICE_SEED_*) read.
func natsKeys(t *testing.T) map[string]string {
	t.Helper()
	env := map[string]string{}
	for _, u := range natsUsers(t) {
		kp, err := nkeys.CreateUser()
		if err != nil {
			t.Fatal(err)
		}
		pub, _ := kp.PublicKey()
		seed, _ := kp.Seed()
		env["ZONEPRICE_NKEY_"+u] = pub
		env["ZONEPRICE_SEED_"+u] = string(seed)
	}
	return env
}

// builtImages returns the images `make images` builds: one per Dockerfile
// in deploy/docker, named zoneprice/<name>.
func builtImages(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("docker/*.Dockerfile")
	if err != nil || len(files) == 0 {
		t.Fatalf("no Dockerfiles in deploy/docker: %v", err)
	}
	var images []string
	for _, f := range files {
		images = append(images, "zoneprice/"+strings.TrimSuffix(filepath.Base(f), ".Dockerfile"))
	}
	return images
}

// imageName strips the tag from an image reference.
func imageName(ref string) string {
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		return ref[:i]
	}
	return ref
}

// yamlDocs decodes every document of a YAML file into out's element type.
func yamlDocs[T any](t *testing.T, path string) []T {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var docs []T
	dec := yaml.NewDecoder(bytes.NewReader(b))
	for {
		var d T
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			return docs
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		docs = append(docs, d)
	}
}

// argValue returns the value of --flagName in a command line.
func argValue(args []string, flagName string) (string, bool) {
	for i, a := range args {
		if a == "--"+flagName && i+1 < len(args) {
			return args[i+1], true
		}
		if v, ok := strings.CutPrefix(a, "--"+flagName+"="); ok {
			return v, true
		}
	}
	return "", false
}

// queryRoutes answers whether a real query pod serves each path: anything
// but the API's 404 (a pod still loading answers /readyz with 503, which
// is a real route).
func queryRoutes(t *testing.T, paths ...string) map[string]bool {
	t.Helper()
	_, js := bustest.Provisioned(t)
	url := startQuery(t, js, prometheus.NewRegistry(), false)
	out := map[string]bool{}
	for _, p := range paths {
		code, err := httpGet(context.Background(), url+p)
		if err != nil {
			t.Fatal(err)
		}
		out[p] = code != 404
	}
	return out
}

// startQuery serves a real query pod's API from js until the test ends,
// and returns its URL. With catchUp its consumer runs and the pod has
// caught up with the stream; without, the consumer never starts and the
// pod stays not ready, as one still loading.
func startQuery(t *testing.T, js jetstream.JetStream, reg *prometheus.Registry, catchUp bool) string {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	c, err := replay.New(bus.NewStreams(js), replay.DefaultConfig(), log, reg, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := api.NewServer(api.DefaultConfig(), c, nil, nil, log, reg, reg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { hs.Close(); srv.Close() })
	if !catchUp {
		return hs.URL
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-c.Ready():
	case <-time.After(30 * time.Second):
		t.Fatal("pod not ready within 30s")
	}
	return hs.URL
}

// ingestServes runs the real ingester against an in-process JetStream
// server and reports whether path answers 200 on its metrics port. The
// ingester listens on a port of the kernel's choice, read back from the
// address it logs.
func ingestServes(t *testing.T, path string) bool {
	t.Helper()
	srv, _ := bustest.Provisioned(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, command(t, "zoneprice-ingest"),
		"--nats-url", srv.ClientURL(), "--sources", "sample", "--metrics-listen", "127.0.0.1:0", "--log-format", "json")
	var stderr querytest.LogBuffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cancel()
		_ = cmd.Wait()
	}()
	for ctx.Err() == nil {
		if addr := listening(stderr.String()); addr != "" {
			resp, err := httpGet(ctx, "http://"+addr+path)
			if err != nil {
				t.Fatalf("ingester at %s: %v", addr, err)
			}
			return resp == 200
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("ingester never said where its metrics listen:\n%s", lastLines(stderr.String(), 20))
	return false
}

// listening returns the address of the JSON log line "metrics listening",
// "" before there is one.
func listening(log string) string {
	for _, line := range strings.Split(log, "\n") {
		var rec struct{ Msg, Addr string }
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "metrics listening" {
			return rec.Addr
		}
	}
	return ""
}

func lastLines(s string, n int) string {
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

func httpGet(ctx context.Context, url string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}
