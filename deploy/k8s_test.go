package deploy

import (
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/zoneprice/zoneprice/query/api"
	"github.com/zoneprice/zoneprice/query/notify"
)

// The parts of Kubernetes objects the tests read; kubectl is not needed.
type (
	k8sObject struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Metadata   struct {
			Name   string            `yaml:"name"`
			Labels map[string]string `yaml:"labels"`
		} `yaml:"metadata"`
		Spec yaml.Node `yaml:"spec"`
	}
	workloadSpec struct {
		Replicas *int `yaml:"replicas"`
		Selector struct {
			MatchLabels map[string]string `yaml:"matchLabels"`
		} `yaml:"selector"`
		Template struct {
			Metadata struct {
				Labels map[string]string `yaml:"labels"`
			} `yaml:"metadata"`
			Spec podSpec `yaml:"spec"`
		} `yaml:"template"`
	}
	podSpec struct {
		TerminationGracePeriodSeconds *int `yaml:"terminationGracePeriodSeconds"`
		SecurityContext               struct {
			RunAsNonRoot bool `yaml:"runAsNonRoot"`
			RunAsUser    int  `yaml:"runAsUser"`
			FSGroup      int  `yaml:"fsGroup"`
		} `yaml:"securityContext"`
		Affinity struct {
			PodAntiAffinity *yaml.Node `yaml:"podAntiAffinity"`
		} `yaml:"affinity"`
		Containers []container `yaml:"containers"`
		Volumes    []struct {
			Name   string `yaml:"name"`
			Secret *struct {
				SecretName  string `yaml:"secretName"`
				DefaultMode int    `yaml:"defaultMode"`
				Items       []struct {
					Key  string `yaml:"key"`
					Path string `yaml:"path"`
				} `yaml:"items"`
			} `yaml:"secret"`
		} `yaml:"volumes"`
	}
	container struct {
		Name  string   `yaml:"name"`
		Image string   `yaml:"image"`
		Args  []string `yaml:"args"`
		Ports []struct {
			Name          string `yaml:"name"`
			ContainerPort int    `yaml:"containerPort"`
		} `yaml:"ports"`
		Env []struct {
			Name      string `yaml:"name"`
			Value     string `yaml:"value"`
			ValueFrom *struct {
				SecretKeyRef *struct {
					Name string `yaml:"name"`
					Key  string `yaml:"key"`
				} `yaml:"secretKeyRef"`
			} `yaml:"valueFrom"`
		} `yaml:"env"`
		EnvFrom []struct {
			ConfigMapRef *struct {
				Name string `yaml:"name"`
			} `yaml:"configMapRef"`
		} `yaml:"envFrom"`
		ReadinessProbe *probe `yaml:"readinessProbe"`
		LivenessProbe  *probe `yaml:"livenessProbe"`
		Resources      struct {
			Requests map[string]string `yaml:"requests"`
			Limits   map[string]string `yaml:"limits"`
		} `yaml:"resources"`
		SecurityContext struct {
			ReadOnlyRootFilesystem   bool  `yaml:"readOnlyRootFilesystem"`
			AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
		} `yaml:"securityContext"`
		VolumeMounts []struct {
			Name      string `yaml:"name"`
			MountPath string `yaml:"mountPath"`
		} `yaml:"volumeMounts"`
	}
	probe struct {
		HTTPGet struct {
			Path string `yaml:"path"`
			Port string `yaml:"port"`
		} `yaml:"httpGet"`
		PeriodSeconds    int `yaml:"periodSeconds"`
		FailureThreshold int `yaml:"failureThreshold"`
	}
)

func (c *container) env(name string) (string, bool) {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value, true
		}
	}
	return "", false
}

func (c *container) port(name string) int {
	for _, p := range c.Ports {
		if p.Name == name {
			return p.ContainerPort
		}
	}
	return 0
}

// kustomization is deploy/k8s/kustomization.yaml.
type kustomization struct {
	Namespace string   `yaml:"namespace"`
	Resources []string `yaml:"resources"`
	Images    []struct {
		Name   string `yaml:"name"`
		NewTag string `yaml:"newTag"`
	} `yaml:"images"`
	ConfigMapGenerator []struct {
		Name     string   `yaml:"name"`
		Literals []string `yaml:"literals"`
	} `yaml:"configMapGenerator"`
}

// k8sFiles returns every manifest in deploy/k8s: the kustomization's
// resources and the optional ones it lists in comments.
func k8sFiles(t *testing.T) (kustomization, []string) {
	t.Helper()
	k := yamlDocs[kustomization](t, "k8s/kustomization.yaml")[0]
	files := slices.Clone(k.Resources)
	b, err := os.ReadFile("k8s/kustomization.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`(?m)^\s*#\s*-\s*(\S+\.yaml)\s*$`).FindAllSubmatch(b, -1) {
		files = append(files, string(m[1]))
	}
	all, err := filepath.Glob("k8s/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range all {
		base := filepath.Base(f)
		if base != "kustomization.yaml" && base != "nats-values.yaml" && !slices.Contains(files, base) {
			t.Errorf("k8s/%s is neither a resource of the kustomization nor listed there as optional", base)
		}
	}
	return k, files
}

type workload struct {
	file string
	obj  k8sObject
	spec workloadSpec
}

func k8sObjects(t *testing.T) (kustomization, []k8sObject, []workload) {
	t.Helper()
	k, files := k8sFiles(t)
	var objs []k8sObject
	var loads []workload
	for _, f := range files {
		for _, o := range yamlDocs[k8sObject](t, filepath.Join("k8s", f)) {
			if o.APIVersion == "" || o.Kind == "" || o.Metadata.Name == "" {
				t.Errorf("%s: an object without apiVersion, kind or name", f)
				continue
			}
			objs = append(objs, o)
			if o.Kind == "Deployment" || o.Kind == "Job" {
				var s workloadSpec
				if err := o.Spec.Decode(&s); err != nil {
					t.Fatalf("%s %s: %v", f, o.Metadata.Name, err)
				}
				loads = append(loads, workload{file: f, obj: o, spec: s})
			}
		}
	}
	return k, objs, loads
}

func find(objs []k8sObject, kind, name string) *k8sObject {
	for i := range objs {
		if objs[i].Kind == kind && objs[i].Metadata.Name == name {
			return &objs[i]
		}
	}
	return nil
}

func TestKubernetesWorkloads(t *testing.T) {
	k, _, loads := k8sObjects(t)
	images := builtImages(t)
	users := natsUsers(t)
	var tagged []string
	for _, img := range k.Images {
		tagged = append(tagged, img.Name)
	}
	for _, w := range loads {
		t.Run(w.obj.Metadata.Name, func(t *testing.T) {
			pod := w.spec.Template.Spec
			if !pod.SecurityContext.RunAsNonRoot || pod.SecurityContext.RunAsUser != 65532 || pod.SecurityContext.FSGroup != 65532 {
				t.Errorf("pod security context %+v: want non-root 65532 (the images' user), fsGroup 65532 (to read its secrets)", pod.SecurityContext)
			}
			for k, v := range w.spec.Selector.MatchLabels {
				if w.spec.Template.Metadata.Labels[k] != v {
					t.Errorf("selector %s=%s does not match the pod's labels", k, v)
				}
			}
			mounts := map[string]string{} // mount path → secret
			for _, c := range pod.Containers {
				for _, m := range c.VolumeMounts {
					for _, v := range pod.Volumes {
						if v.Name == m.Name && v.Secret != nil {
							mounts[m.MountPath] = v.Secret.SecretName
						}
					}
				}
			}
			for _, c := range pod.Containers {
				if !slices.Contains(images, c.Image) || !slices.Contains(tagged, c.Image) {
					t.Errorf("container %s runs %q: want one of the images make images builds %v, tagged in the kustomization", c.Name, c.Image, images)
				}
				if !c.SecurityContext.ReadOnlyRootFilesystem || c.SecurityContext.AllowPrivilegeEscalation == nil || *c.SecurityContext.AllowPrivilegeEscalation {
					t.Errorf("container %s: want a read-only root and no privilege escalation", c.Name)
				}
				if c.Resources.Requests["cpu"] == "" || c.Resources.Requests["memory"] == "" || c.Resources.Limits["memory"] == "" {
					t.Errorf("container %s: resources %+v; want CPU and memory requests and a memory limit", c.Name, c.Resources)
				}
				if limit, soft := bytesOf(c.Resources.Limits["memory"], false), bytesOf(envOr(&c, "GOMEMLIMIT"), true); soft <= 0 || soft >= limit {
					t.Errorf("container %s: GOMEMLIMIT %q for a memory limit of %q: want one below it, in the runtime's units (MiB), so that it collects before the kernel kills", c.Name, envOr(&c, "GOMEMLIMIT"), c.Resources.Limits["memory"])
				}
				if v, _ := c.env("NATS_URL"); v != "nats://nats:4222" {
					t.Errorf("container %s: NATS_URL %q, want the Helm release's Service nats://nats:4222", c.Name, v)
				}
				// Every file a variable names is in a mounted Secret, and
				// the NATS seed is a user of accounts.conf.
				for _, e := range c.Env {
					if !strings.HasSuffix(e.Name, "_FILE") {
						continue
					}
					secret := mounts[filepath.Dir(e.Value)]
					if secret == "" {
						t.Errorf("container %s: %s=%s is in no mounted Secret", c.Name, e.Name, e.Value)
					}
					if e.Name == "NATS_NKEY_FILE" && natsUserOf(pod, c) == "" {
						t.Errorf("container %s signs in to NATS with Secret %q, which is no user of accounts.conf %v", c.Name, secret, users)
					}
				}
				if _, ok := c.env("NATS_NKEY_FILE"); !ok {
					t.Errorf("container %s: no NATS_NKEY_FILE", c.Name)
				}
			}
		})
	}
}

func TestKubernetesQuery(t *testing.T) {
	_, objs, loads := k8sObjects(t)
	var q *workload
	for i := range loads {
		if loads[i].obj.Kind == "Deployment" && loads[i].obj.Metadata.Name == "zoneprice-query" {
			q = &loads[i]
		}
	}
	if q == nil {
		t.Fatal("no Deployment zoneprice-query")
	}
	pod := q.spec.Template.Spec
	c := pod.Containers[0]
	if c.ReadinessProbe == nil || c.LivenessProbe == nil {
		t.Fatal("the query pod needs a readiness and a liveness probe")
	}
	if c.ReadinessProbe.HTTPGet.Path != "/readyz" || c.LivenessProbe.HTTPGet.Path != "/healthz" {
		t.Errorf("readiness %q, liveness %q; want /readyz and /healthz", c.ReadinessProbe.HTTPGet.Path, c.LivenessProbe.HTTPGet.Path)
	}
	for path, real := range queryRoutes(t, c.ReadinessProbe.HTTPGet.Path, c.LivenessProbe.HTTPGet.Path) {
		if !real {
			t.Errorf("a query pod does not serve %s", path)
		}
	}
	apiPort, _ := strconv.Atoi(port(t, api.DefaultConfig().Addr))
	if got := c.port(c.ReadinessProbe.HTTPGet.Port); got != apiPort {
		t.Errorf("probes use port %q = %d, want the API port %d", c.ReadinessProbe.HTTPGet.Port, got, apiPort)
	}
	if got := port(t, flagDefault(t, "zoneprice-query", "listen")); strconv.Itoa(apiPort) != got {
		t.Errorf("zoneprice-query --listen defaults to port %s, api.DefaultConfig to %d", got, apiPort)
	}
	drainEnv, _ := c.env("ZONEPRICE_DRAIN_DELAY")
	drain, err := time.ParseDuration(drainEnv)
	if err != nil {
		t.Fatalf("ZONEPRICE_DRAIN_DELAY: %v", err)
	}
	if period := time.Duration(c.ReadinessProbe.PeriodSeconds) * time.Second; drain != period || c.ReadinessProbe.FailureThreshold != 1 {
		t.Errorf("drain delay %v, readiness every %v failing after %d; want the drain to last one readiness period, failing at once",
			drain, period, c.ReadinessProbe.FailureThreshold)
	}
	if g := pod.TerminationGracePeriodSeconds; g == nil || time.Duration(*g)*time.Second <= drain {
		t.Errorf("terminationGracePeriodSeconds %v is not longer than the drain delay %v", g, drain)
	}
	if pod.Affinity.PodAntiAffinity == nil {
		t.Error("no pod anti-affinity: the pods may all land on one node")
	}
	if q.spec.Replicas != nil {
		t.Error("the Deployment sets replicas, which the HorizontalPodAutoscaler owns: every apply would reset it")
	}

	labels := q.spec.Template.Metadata.Labels
	matches := func(sel map[string]string) bool {
		for k, v := range sel {
			if labels[k] != v {
				return false
			}
		}
		return len(sel) > 0
	}
	var svc struct {
		Selector map[string]string `yaml:"selector"`
		Ports    []struct {
			Port       int    `yaml:"port"`
			TargetPort string `yaml:"targetPort"`
		} `yaml:"ports"`
	}
	decodeSpec(t, objs, "Service", "zoneprice-query", &svc)
	if !matches(svc.Selector) || len(svc.Ports) != 1 || c.port(svc.Ports[0].TargetPort) != apiPort || svc.Ports[0].Port != apiPort {
		t.Errorf("Service %+v does not route port %d to the query pods' API port", svc, apiPort)
	}
	var pdb struct {
		MaxUnavailable int `yaml:"maxUnavailable"`
		Selector       struct {
			MatchLabels map[string]string `yaml:"matchLabels"`
		} `yaml:"selector"`
	}
	decodeSpec(t, objs, "PodDisruptionBudget", "zoneprice-query", &pdb)
	if !matches(pdb.Selector.MatchLabels) || pdb.MaxUnavailable != 1 {
		t.Errorf("PodDisruptionBudget %+v", pdb)
	}
	var hpa struct {
		ScaleTargetRef struct {
			Kind string `yaml:"kind"`
			Name string `yaml:"name"`
		} `yaml:"scaleTargetRef"`
		MinReplicas int `yaml:"minReplicas"`
		MaxReplicas int `yaml:"maxReplicas"`
		Metrics     []struct {
			Resource struct {
				Name string `yaml:"name"`
			} `yaml:"resource"`
		} `yaml:"metrics"`
	}
	decodeSpec(t, objs, "HorizontalPodAutoscaler", "zoneprice-query", &hpa)
	if hpa.ScaleTargetRef.Kind != "Deployment" || hpa.ScaleTargetRef.Name != "zoneprice-query" || hpa.MinReplicas < 2 ||
		hpa.MaxReplicas <= hpa.MinReplicas || len(hpa.Metrics) != 1 || hpa.Metrics[0].Resource.Name != "cpu" {
		t.Errorf("HorizontalPodAutoscaler %+v: want the query Deployment, at least two pods, on CPU", hpa)
	}
	if pdb.MaxUnavailable >= hpa.MinReplicas {
		t.Errorf("the disruption budget lets all %d pods go at once", hpa.MinReplicas)
	}
}

func decodeSpec(t *testing.T, objs []k8sObject, kind, name string, out any) {
	t.Helper()
	o := find(objs, kind, name)
	if o == nil {
		t.Fatalf("no %s %s", kind, name)
	}
	if err := o.Spec.Decode(out); err != nil {
		t.Fatalf("%s %s: %v", kind, name, err)
	}
}

func TestKubernetesIngest(t *testing.T) {
	_, _, loads := k8sObjects(t)
	metricsPort, _ := strconv.Atoi(port(t, flagDefault(t, "zoneprice-ingest", "metrics-listen")))
	healthz := map[string]bool{} // liveness paths of the ingesters
	n := 0
	for _, w := range loads {
		c := w.spec.Template.Spec.Containers[0]
		switch {
		case w.obj.Kind == "Job":
			if v, _ := argValue(c.Args, "provision"); v != "only" {
				t.Errorf("Job %s: --provision %q, want only", w.obj.Metadata.Name, v)
			}
			if v, _ := argValue(c.Args, "replicas"); v != "3" {
				t.Errorf("Job %s: --replicas %q, want 3 for the three-node NATS cluster", w.obj.Metadata.Name, v)
			}
		case strings.HasPrefix(w.obj.Metadata.Name, "zoneprice-ingest-"):
			n++
			if w.spec.Replicas == nil || *w.spec.Replicas != 1 {
				t.Errorf("%s: want exactly one replica per source group", w.obj.Metadata.Name)
			}
			if v, _ := argValue(c.Args, "provision"); v != "off" {
				t.Errorf("%s: --provision %q; its NATS user may not manage streams", w.obj.Metadata.Name, v)
			}
			if v, _ := argValue(c.Args, "sources"); v == "" {
				t.Errorf("%s: no --sources", w.obj.Metadata.Name)
			}
			if c.LivenessProbe == nil || c.port(c.LivenessProbe.HTTPGet.Port) != metricsPort {
				t.Errorf("%s: liveness probe %+v, want one on the metrics port %d", w.obj.Metadata.Name, c.LivenessProbe, metricsPort)
				continue
			}
			healthz[c.LivenessProbe.HTTPGet.Path] = true
		}
	}
	if n == 0 {
		t.Fatal("no ingest Deployments")
	}
	for path := range healthz {
		if !ingestServes(t, path) {
			t.Errorf("the ingester does not answer its liveness probe's %q with 200", path)
		}
	}
}

// TestKubernetesNotify checks the webhook senders: two replicas spread over
// nodes, a budget that keeps one, a liveness probe the command answers, a
// grace period longer than an attempt, and no loopback receivers.
func TestKubernetesNotify(t *testing.T) {
	_, objs, loads := k8sObjects(t)
	var n *workload
	for i := range loads {
		if loads[i].obj.Kind == "Deployment" && loads[i].obj.Metadata.Name == "zoneprice-notify" {
			n = &loads[i]
		}
	}
	if n == nil {
		t.Fatal("no Deployment zoneprice-notify")
	}
	if n.spec.Replicas == nil || *n.spec.Replicas != 2 {
		t.Errorf("replicas %v, want 2: the replicas share the work, and one may be lost", n.spec.Replicas)
	}
	if find(objs, "PodDisruptionBudget", "zoneprice-notify") == nil {
		t.Error("no PodDisruptionBudget zoneprice-notify")
	}
	pod := n.spec.Template.Spec
	c := pod.Containers[0]
	if pod.Affinity.PodAntiAffinity == nil {
		t.Error("no pod anti-affinity: both senders may land on one node")
	}
	metricsPort, _ := strconv.Atoi(port(t, flagDefault(t, "zoneprice-notify", "metrics-listen")))
	if c.LivenessProbe == nil || c.port(c.LivenessProbe.HTTPGet.Port) != metricsPort || c.LivenessProbe.HTTPGet.Path != "/healthz" {
		t.Errorf("liveness probe %+v, want /healthz on the metrics port %d", c.LivenessProbe, metricsPort)
	}
	timeout := notify.DefaultConfig().Timeout
	if g := pod.TerminationGracePeriodSeconds; g == nil || time.Duration(*g)*time.Second <= timeout {
		t.Errorf("terminationGracePeriodSeconds %v is not longer than an attempt's timeout %v", g, timeout)
	}
	if user := natsUserOf(pod, c); user != "NOTIFY" {
		t.Errorf("signs in to NATS as %q, want NOTIFY", user)
	}
	for _, e := range c.Env {
		if e.Name == "ZONEPRICE_WEBHOOK_ALLOW_LOOPBACK" {
			t.Error("loopback receivers allowed: for tests and local development only")
		}
	}
	if slices.Contains(c.Args, "--webhook-allow-loopback") {
		t.Error("loopback receivers allowed: for tests and local development only")
	}
}

func TestKubernetesMonitoring(t *testing.T) {
	_, objs, loads := k8sObjects(t)
	ports := map[string]bool{}
	for _, w := range loads {
		for _, c := range w.spec.Template.Spec.Containers {
			for _, p := range c.Ports {
				ports[p.Name] = true
			}
		}
	}
	var pm struct {
		JobLabel  string `yaml:"jobLabel"`
		Endpoints []struct {
			Port string `yaml:"port"`
			Path string `yaml:"path"`
		} `yaml:"podMetricsEndpoints"`
	}
	decodeSpec(t, objs, "PodMonitor", "zoneprice", &pm)
	for _, e := range pm.Endpoints {
		if !ports[e.Port] || e.Path != "/metrics" {
			t.Errorf("PodMonitor scrapes port %q path %q, which no pod names", e.Port, e.Path)
		}
	}
	// The dashboard and alerts select job="zoneprice-query": the job is
	// the pods' name label.
	for _, w := range loads {
		if name := w.spec.Template.Metadata.Labels[pm.JobLabel]; w.obj.Kind == "Deployment" && name != "zoneprice-query" && name != "zoneprice-ingest" && name != "zoneprice-notify" {
			t.Errorf("%s would be scraped as job %q", w.obj.Metadata.Name, name)
		}
	}
	cfg := yamlDocs[promConfig](t, "k8s/prometheus-scrape.yml")[0]
	var jobs []string
	for _, sc := range cfg.ScrapeConfigs {
		jobs = append(jobs, sc.JobName)
		for _, rc := range sc.RelabelConfigs {
			if _, err := regexp.Compile(rc.Regex); err != nil {
				t.Errorf("job %s: relabel regex %q: %v", sc.JobName, rc.Regex, err)
			}
			if slices.Contains(rc.SourceLabels, "__meta_kubernetes_pod_container_port_name") && !ports[rc.Regex] {
				t.Errorf("job %s keeps port %q, which no pod names", sc.JobName, rc.Regex)
			}
		}
	}
	if !slices.Equal(jobs, []string{"zoneprice-query", "zoneprice-ingest", "zoneprice-notify"}) {
		t.Errorf("scrape jobs %v", jobs)
	}
}

// TestNATSHelmValues checks the values for the official NATS chart: a
// three-node JetStream cluster on disk, loading accounts.conf with every
// user's public key in its environment.
func TestNATSHelmValues(t *testing.T) {
	type values struct {
		Config struct {
			Cluster struct {
				Enabled  bool `yaml:"enabled"`
				Replicas int  `yaml:"replicas"`
			} `yaml:"cluster"`
			JetStream struct {
				Enabled   bool `yaml:"enabled"`
				FileStore struct {
					Enabled bool `yaml:"enabled"`
					PVC     struct {
						Enabled bool   `yaml:"enabled"`
						Size    string `yaml:"size"`
					} `yaml:"pvc"`
				} `yaml:"fileStore"`
			} `yaml:"jetstream"`
			Merge map[string]any `yaml:"merge"`
		} `yaml:"config"`
		Container struct {
			Merge struct {
				EnvFrom []struct {
					ConfigMapRef struct {
						Name string `yaml:"name"`
					} `yaml:"configMapRef"`
				} `yaml:"envFrom"`
			} `yaml:"merge"`
		} `yaml:"container"`
	}
	v := yamlDocs[values](t, "k8s/nats-values.yaml")[0]
	c := v.Config
	if !c.Cluster.Enabled || c.Cluster.Replicas != 3 || !c.JetStream.Enabled || !c.JetStream.FileStore.Enabled ||
		!c.JetStream.FileStore.PVC.Enabled || c.JetStream.FileStore.PVC.Size == "" {
		t.Errorf("config %+v: want a three-node cluster with JetStream on persistent file storage", c)
	}
	raw, err := os.ReadFile("k8s/nats-values.yaml")
	if err != nil {
		t.Fatal(err)
	}
	include, _ := c.Merge["$include"].(string)
	if include == "" || !strings.Contains(string(raw), "configMap.merge.data."+strings.ReplaceAll(include, ".", `\.`)+"=deploy/nats/accounts.conf") {
		t.Errorf("the chart includes %q, which the documented --set-file does not fill with deploy/nats/accounts.conf", include)
	}
	if len(v.Container.Merge.EnvFrom) != 1 {
		t.Fatal("the NATS container takes the users' public keys from no ConfigMap")
	}
	cm := v.Container.Merge.EnvFrom[0].ConfigMapRef.Name
	if !strings.Contains(string(raw), "create configmap "+cm+" ") {
		t.Errorf("the values read ConfigMap %q, which the instructions do not create", cm)
	}
}

// TestKubernetesSubscriptions checks that the query pods (the form) and the
// webhook senders (the digests) have the subscription's settings, so that
// the form does not answer 503 in a cluster: where people reach the service
// (https) and the sender from the kustomization's ConfigMap zoneprice-mail;
// the link secret, one Secret for both, as a mounted file; the relay's host
// and port from its Secret, its credentials as files of that Secret. Every
// variable is one the command reads.
func TestKubernetesSubscriptions(t *testing.T) {
	k, _, loads := k8sObjects(t)
	mail := map[string]string{}
	for _, g := range k.ConfigMapGenerator {
		if g.Name == "zoneprice-mail" {
			for _, l := range g.Literals {
				name, v, _ := strings.Cut(l, "=")
				mail[name] = v
			}
		}
	}
	if u, err := url.Parse(mail["ZONEPRICE_PUBLIC_URL"]); err != nil || u.Scheme != "https" || u.Host == "" {
		t.Errorf("ConfigMap zoneprice-mail: ZONEPRICE_PUBLIC_URL %q, want an https URL (one-click unsubscribe needs it)", mail["ZONEPRICE_PUBLIC_URL"])
	}
	if mail["ZONEPRICE_MAIL_FROM"] == "" {
		t.Error("ConfigMap zoneprice-mail: no ZONEPRICE_MAIL_FROM")
	}
	// The Secret (and key) each credential file is in.
	files := map[string]string{
		"ZONEPRICE_SUBSCRIBE_SECRET_FILE": "zoneprice-subscribe",
		"ZONEPRICE_SMTP_USERNAME_FILE":    "zoneprice-smtp/username",
		"ZONEPRICE_SMTP_PASSWORD_FILE":    "zoneprice-smtp/password",
	}
	refs := map[string]string{"ZONEPRICE_SMTP_HOST": "zoneprice-smtp/host", "ZONEPRICE_SMTP_PORT": "zoneprice-smtp/port"}
	for _, name := range []string{"zoneprice-query", "zoneprice-notify"} {
		t.Run(name, func(t *testing.T) {
			var pod *podSpec
			for i := range loads {
				if loads[i].obj.Kind == "Deployment" && loads[i].obj.Metadata.Name == name {
					pod = &loads[i].spec.Template.Spec
				}
			}
			if pod == nil {
				t.Fatalf("no Deployment %s", name)
			}
			c := pod.Containers[0]
			fromMail := false
			for _, e := range c.EnvFrom {
				fromMail = fromMail || (e.ConfigMapRef != nil && e.ConfigMapRef.Name == "zoneprice-mail")
			}
			if !fromMail {
				t.Error("no envFrom of the ConfigMap zoneprice-mail")
			}
			for v := range mail {
				if !commandReads(t, name, v) {
					t.Errorf("ConfigMap zoneprice-mail sets %s, which %s does not read", v, name)
				}
			}
			got := map[string]string{}
			for _, e := range c.Env {
				switch {
				case e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil:
					got[e.Name] = e.ValueFrom.SecretKeyRef.Name + "/" + e.ValueFrom.SecretKeyRef.Key
				case strings.HasSuffix(e.Name, "_FILE"):
					got[e.Name] = secretFile(*pod, c, e.Value)
				}
			}
			for v, want := range refs {
				if got[v] != want {
					t.Errorf("%s from %q, want the Secret and key %s", v, got[v], want)
				}
				if !commandReads(t, name, v) {
					t.Errorf("%s does not read %s", name, v)
				}
			}
			for v, want := range files {
				if got[v] != want && !strings.HasPrefix(got[v], want+"/") {
					t.Errorf("%s is a file of %q, want one of the Secret %s", v, got[v], want)
				}
				if !credentialVariable(t, strings.TrimSuffix(v, "_FILE")) {
					t.Errorf("the commands read no %s (or its _FILE)", strings.TrimSuffix(v, "_FILE"))
				}
			}
		})
	}
}

// secretFile is the Secret, and its key, of the file at path in c: the
// Secret mounted at path's directory, "/" and the key projected to path's
// name (the name itself when the volume projects every key); "" if none.
func secretFile(pod podSpec, c container, path string) string {
	for _, m := range c.VolumeMounts {
		if m.MountPath != filepath.Dir(path) {
			continue
		}
		for _, v := range pod.Volumes {
			if v.Name != m.Name || v.Secret == nil {
				continue
			}
			key := filepath.Base(path)
			for _, it := range v.Secret.Items {
				if it.Path == key {
					return v.Secret.SecretName + "/" + it.Key
				}
			}
			if len(v.Secret.Items) > 0 {
				return ""
			}
			return v.Secret.SecretName + "/" + key
		}
	}
	return ""
}

// credentialVariable reports whether the commands read the credential
// variable name: cmd/internal/app names each such variable once, and reads
// it or its _FILE (app.Secret).
func credentialVariable(t *testing.T, name string) bool {
	t.Helper()
	srcs, err := filepath.Glob("../cmd/internal/app/*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range srcs {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(f, "_test.go") && strings.Contains(string(b), `"`+name+`"`) {
			return true
		}
	}
	return false
}

// envOr is the container's variable name, or "".
func envOr(c *container, name string) string {
	v, _ := c.env(name)
	return v
}

// bytesOf reads a size in bytes, as Kubernetes writes a quantity (512Mi,
// binary suffixes without B) or, with goUnits, as GOMEMLIMIT takes it
// (450MiB: B, KiB, MiB, GiB; the runtime refuses "450Mi" at start); -1
// when it is neither.
func bytesOf(size string, goUnits bool) int64 {
	num := strings.TrimRight(size, "KMGiB")
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || num == "" {
		return -1
	}
	shifts := map[string]uint{"": 0, "Ki": 10, "Mi": 20, "Gi": 30}
	if goUnits {
		shifts = map[string]uint{"B": 0, "": 0, "KiB": 10, "MiB": 20, "GiB": 30}
	}
	shift, ok := shifts[size[len(num):]]
	if !ok {
		return -1
	}
	return n << shift
}
