package deploy

import (
	"fmt"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/zoneprice/zoneprice/query/api"
)

// composeService is the part of a service in `docker compose config`
// output that the tests look at.
type composeService struct {
	Image           string            `yaml:"image"`
	Command         []string          `yaml:"command"`
	Environment     map[string]string `yaml:"environment"`
	Profiles        []string          `yaml:"profiles"`
	Ports           []yaml.Node       `yaml:"ports"`
	Volumes         []yaml.Node       `yaml:"volumes"`
	StopGracePeriod string            `yaml:"stop_grace_period"`
}

// composeTool returns the command line of Docker Compose: the docker CLI
// plugin, or the standalone docker-compose. The tests need one; a machine
// with Docker has one.
func composeTool(t *testing.T) []string {
	t.Helper()
	if exec.Command("docker", "compose", "version").Run() == nil {
		return []string{"docker", "compose"}
	}
	if p, err := exec.LookPath("docker-compose"); err == nil {
		return []string{p}
	}
	t.Fatal("neither `docker compose` nor `docker-compose` is installed: the compose file cannot be validated. Install Docker Compose.")
	return nil
}

// composeSubscribeSecret is the subscription's link secret the tests give
// the compose file, as make compose-keys does in deploy/compose/.env.
const composeSubscribeSecret = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// outboxDir is where the images that send mail have a directory of their
// user's for the mail outbox, and where the compose file mounts its volume.
const outboxDir = "/var/lib/zoneprice/outbox"

// composeConfig validates deploy/compose/compose.yaml with Docker Compose
// itself and returns its services as Compose resolves them, with fresh
// keys in the environment and composeSubscribeSecret.
func composeConfig(t *testing.T, env map[string]string) map[string]composeService {
	t.Helper()
	tool := composeTool(t)
	args := append(tool[1:], "-p", "zoneprice-test", "-f", "compose/compose.yaml", "config")
	cmd := exec.Command(tool[0], args...)
	cmd.Env = append(os.Environ(), "ZONEPRICE_SUBSCRIBE_SECRET="+composeSubscribeSecret)
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s config: %v\n%s", strings.Join(tool, " "), err, stderr.String())
	}
	var cfg struct {
		Services map[string]composeService `yaml:"services"`
	}
	if err := yaml.Unmarshal(out, &cfg); err != nil {
		t.Fatalf("compose config output: %v", err)
	}
	return cfg.Services
}

// TestComposeNeedsKeys checks that the compose file refuses to start
// without what make compose-keys makes: the NATS users' keys, and the
// subscription's link secret.
func TestComposeNeedsKeys(t *testing.T) {
	tool := composeTool(t)
	// An empty env file, so that keys a developer made are not read.
	empty := filepath.Join(t.TempDir(), "empty.env")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var base []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ZONEPRICE_NKEY_") && !strings.HasPrefix(kv, "ZONEPRICE_SEED_") && !strings.HasPrefix(kv, "ZONEPRICE_SUBSCRIBE_SECRET=") {
			base = append(base, kv)
		}
	}
	var keys []string
	for k, v := range natsKeys(t) {
		keys = append(keys, k+"="+v)
	}
	for name, env := range map[string][]string{
		"no keys":   base,
		"no secret": append(slices.Clone(base), keys...),
	} {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(tool[0], append(tool[1:], "-p", "zoneprice-test", "-f", "compose/compose.yaml", "--env-file", empty, "config")...)
			cmd.Env = env
			out, err := cmd.CombinedOutput()
			if err == nil || !strings.Contains(string(out), "make compose-keys") {
				t.Errorf("compose config: err %v, output %s; want a refusal that says to run make compose-keys", err, out)
			}
		})
	}
}

func TestCompose(t *testing.T) {
	keys := natsKeys(t)
	services := composeConfig(t, keys)
	images := builtImages(t)
	queryPort := port(t, api.DefaultConfig().Addr)
	ingestPort := port(t, flagDefault(t, "zoneprice-ingest", "metrics-listen"))
	notifyPort := port(t, flagDefault(t, "zoneprice-notify", "metrics-listen"))
	nodes := []string{"nats-1", "nats-2", "nats-3"}
	var clientURLs, routes []string
	for _, n := range nodes {
		clientURLs = append(clientURLs, "nats://"+n+":4222")
		routes = append(routes, "nats-route://"+n+":6222")
	}

	for name, s := range services {
		if name == "prometheus" {
			continue
		}
		if !slices.Contains(images, imageName(s.Image)) {
			t.Errorf("service %s runs %s, which make images does not build (%v)", name, s.Image, images)
		}
	}

	t.Run("nats cluster", func(t *testing.T) {
		for _, n := range nodes {
			s := services[n]
			if v, _ := argValue(s.Command, "name"); v != n {
				t.Errorf("%s: --name %q", n, v)
			}
			if v, _ := argValue(s.Command, "routes"); v != strings.Join(routes, ",") {
				t.Errorf("%s: --routes %q, want %q", n, v, strings.Join(routes, ","))
			}
			for _, u := range natsUsers(t) {
				if k := "ZONEPRICE_NKEY_" + u; s.Environment[k] != keys[k] {
					t.Errorf("%s: %s is not the user's public key", n, k)
				}
			}
		}
	})

	// Each client runs as the user its job needs, with the whole cluster
	// to dial.
	clients := map[string]string{
		"provision": "ADMIN", "admin": "ADMIN", "query-1": "QUERY", "query-2": "QUERY",
		"ingest-reference": "INGEST_REFERENCE", "ingest-porkbun": "INGEST_PORKBUN", "ingest-ovhcloud": "INGEST_OVHCLOUD",
		"ingest-sites": "INGEST_SITES", "ingest-namecheap": "INGEST_NAMECHEAP",
		"notify-1": "NOTIFY", "notify-2": "NOTIFY",
	}
	t.Run("clients", func(t *testing.T) {
		for name, user := range clients {
			s, ok := services[name]
			if !ok {
				t.Errorf("no service %s", name)
				continue
			}
			if s.Environment["NATS_NKEY"] != keys["ZONEPRICE_SEED_"+user] {
				t.Errorf("%s does not sign in as %s", name, user)
			}
			if got := s.Environment["NATS_URL"]; got != strings.Join(clientURLs, ",") {
				t.Errorf("%s: NATS_URL %q, want every node", name, got)
			}
		}
		for name, s := range services {
			if _, ok := clients[name]; !ok && s.Environment["NATS_NKEY"] != "" {
				t.Errorf("%s signs in to NATS, but this test does not say as whom", name)
			}
		}
	})

	t.Run("webhook senders", func(t *testing.T) {
		for _, name := range []string{"notify-1", "notify-2"} {
			s := services[name]
			if imageName(s.Image) != "zoneprice/notify" {
				t.Errorf("%s runs %s", name, s.Image)
			}
			if v := s.Environment["ZONEPRICE_WEBHOOK_ALLOW_LOOPBACK"]; v != "" {
				t.Errorf("%s allows loopback receivers (%s): for tests and local development only", name, v)
			}
		}
	})

	// The processes that make or check subscription links and send its
	// mail share the secret, link to the balancer's published port on
	// localhost, and write into one outbox volume, there being no relay;
	// every setting is one their command reads.
	t.Run("subscriptions", func(t *testing.T) {
		lbPorts := nodeText(services["lb"].Ports[0])
		for name, cmd := range map[string]string{
			"query-1": "zoneprice-query", "query-2": "zoneprice-query", "notify-1": "zoneprice-notify", "notify-2": "zoneprice-notify",
			"admin": "zoneprice-admin",
		} {
			env := services[name].Environment
			if env["ZONEPRICE_SUBSCRIBE_SECRET"] != composeSubscribeSecret {
				t.Errorf("%s: ZONEPRICE_SUBSCRIBE_SECRET %q, want the one of .env", name, env["ZONEPRICE_SUBSCRIBE_SECRET"])
			}
			u, err := url.Parse(env["ZONEPRICE_PUBLIC_URL"])
			if err != nil || u.Scheme != "http" || u.Hostname() != "localhost" || u.Port() == "" || !strings.Contains(lbPorts, u.Port()) {
				t.Errorf("%s: ZONEPRICE_PUBLIC_URL %q, want http://localhost at the balancer's published port (%s)", name, env["ZONEPRICE_PUBLIC_URL"], lbPorts)
			}
			if env["ZONEPRICE_MAIL_FROM"] == "" || env["ZONEPRICE_SMTP_HOST"] != "" || env["ZONEPRICE_MAIL_OUTBOX"] != outboxDir {
				t.Errorf("%s: sender %q, relay %q, outbox %q; want a sender, no relay and the outbox %s", name,
					env["ZONEPRICE_MAIL_FROM"], env["ZONEPRICE_SMTP_HOST"], env["ZONEPRICE_MAIL_OUTBOX"], outboxDir)
			}
			mounted := false
			for _, v := range services[name].Volumes {
				text := nodeText(v)
				mounted = mounted || (strings.Contains(text, outboxDir) && (strings.HasPrefix(text, "outbox:") || strings.Contains(text, "source:outbox ")))
			}
			if !mounted {
				t.Errorf("%s does not mount the volume outbox at %s: %v", name, outboxDir, services[name].Volumes)
			}
			for k := range env {
				if strings.HasPrefix(k, "ZONEPRICE_") && k != "ZONEPRICE_SUBSCRIBE_SECRET" && !commandReads(t, cmd, k) {
					t.Errorf("%s: %s reads no %s", name, cmd, k)
				}
			}
		}
	})

	t.Run("provisioning and ingesters", func(t *testing.T) {
		p := services["provision"]
		if v, _ := argValue(p.Command, "provision"); v != "only" {
			t.Errorf("provision: --provision %q", v)
		}
		if v, _ := argValue(p.Command, "replicas"); v != "3" {
			t.Errorf("provision: --replicas %q, want 3 on three nodes", v)
		}
		for name, s := range services {
			if !strings.HasPrefix(name, "ingest-") {
				continue
			}
			if v, _ := argValue(s.Command, "provision"); v != "off" {
				t.Errorf("%s: --provision %q; its user may not manage streams", name, v)
			}
			if v, _ := argValue(s.Command, "sources"); v == "" {
				t.Errorf("%s: no --sources", name)
			}
		}
	})

	t.Run("query pods and balancer", func(t *testing.T) {
		lb := services["lb"]
		var want []string
		for _, q := range []string{"query-1", "query-2"} {
			want = append(want, "http://"+q+":"+queryPort)
			drain, err := time.ParseDuration(services[q].Environment["ZONEPRICE_DRAIN_DELAY"])
			if err != nil {
				t.Fatalf("%s: ZONEPRICE_DRAIN_DELAY: %v", q, err)
			}
			interval, err := time.ParseDuration(lb.Environment["ZONEPRICE_LB_CHECK_INTERVAL"])
			if err != nil {
				t.Fatalf("lb: ZONEPRICE_LB_CHECK_INTERVAL: %v", err)
			}
			if drain < interval {
				t.Errorf("%s drains for %v, less than the balancer's check interval %v", q, drain, interval)
			}
			grace, err := time.ParseDuration(services[q].StopGracePeriod)
			if err != nil || grace <= drain {
				t.Errorf("%s: stop_grace_period %q is not longer than the drain delay %v", q, services[q].StopGracePeriod, drain)
			}
		}
		if got := lb.Environment["ZONEPRICE_LB_BACKENDS"]; got != strings.Join(want, ",") {
			t.Errorf("lb backends %q, want %q", got, strings.Join(want, ","))
		}
		if len(lb.Ports) != 1 || !strings.Contains(nodeText(lb.Ports[0]), "8080") {
			t.Errorf("lb publishes %v, want the API on 8080", lb.Ports)
		}
	})

	t.Run("prometheus", func(t *testing.T) {
		p := services["prometheus"]
		if !slices.Equal(p.Profiles, []string{"monitoring"}) {
			t.Errorf("prometheus profiles %v: its image must be pulled, so it may not start by default", p.Profiles)
		}
		var mounts string
		for _, v := range p.Volumes {
			mounts += nodeText(v) + " "
		}
		for _, f := range []string{"deploy/prometheus/alerts.yml", "deploy/compose/prometheus.yml"} {
			if !strings.Contains(mounts, f) {
				t.Errorf("prometheus does not mount %s: %s", f, mounts)
			}
		}
		cfg := yamlDocs[promConfig](t, "compose/prometheus.yml")[0]
		if !slices.Equal(cfg.RuleFiles, []string{"alerts.yml"}) {
			t.Errorf("rule files %v", cfg.RuleFiles)
		}
		targets := map[string][]string{}
		for _, sc := range cfg.ScrapeConfigs {
			for _, st := range sc.StaticConfigs {
				targets[sc.JobName] = append(targets[sc.JobName], st.Targets...)
			}
		}
		want := map[string][]string{}
		for _, name := range slices.Sorted(maps.Keys(services)) {
			switch {
			case strings.HasPrefix(name, "query-"):
				want["zoneprice-query"] = append(want["zoneprice-query"], name+":"+queryPort)
			case strings.HasPrefix(name, "ingest-"):
				want["zoneprice-ingest"] = append(want["zoneprice-ingest"], name+":"+ingestPort)
			case strings.HasPrefix(name, "notify-"):
				want["zoneprice-notify"] = append(want["zoneprice-notify"], name+":"+notifyPort)
			}
		}
		for job, w := range want {
			got := slices.Clone(targets[job])
			slices.Sort(got)
			if !slices.Equal(got, w) {
				t.Errorf("job %s scrapes %v, want %v", job, got, w)
			}
		}
	})
}

// promConfig is the part of a Prometheus configuration the tests read.
type promConfig struct {
	RuleFiles     []string `yaml:"rule_files"`
	ScrapeConfigs []struct {
		JobName       string `yaml:"job_name"`
		StaticConfigs []struct {
			Targets []string `yaml:"targets"`
		} `yaml:"static_configs"`
		RelabelConfigs []struct {
			SourceLabels []string `yaml:"source_labels"`
			Regex        string   `yaml:"regex"`
			Action       string   `yaml:"action"`
		} `yaml:"relabel_configs"`
	} `yaml:"scrape_configs"`
}

// nodeText renders a YAML node (short or long syntax) as one line, for
// matching.
func nodeText(n yaml.Node) string {
	var v any
	if err := n.Decode(&v); err != nil {
		return ""
	}
	return fmt.Sprint(v)
}
