package deploy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"

	"github.com/zoneprice/zoneprice/contracts"
)

// ingester is one deployed zoneprice-ingest: a compose service or a
// Kubernetes Deployment, the NATS user it signs in as and the sources it
// runs.
type ingester struct {
	kind, name string // "compose service" or "Deployment", and its name
	user       string
	sources    []string
}

func (i ingester) String() string { return i.kind + " " + i.name }

// sourceInputs is what each deployed source reads in
// TestIngestersPublishAsAllowed instead of the network: its adapter's
// fixture in the registrar's real format (several for a list of pages,
// imported as one JSON array of them), or the settings that keep it
// offline. A source deployed without an entry here fails the test.
var sourceInputs = map[string]struct {
	files []string
	env   []string
}{
	"iana":     {env: []string{"ZONEPRICE_IANA_OFFLINE=true"}},
	"ecb":      {files: []string{"ecb/testdata/eurofxref-daily.xml"}},
	"sample":   {},
	"porkbun":  {files: []string{"porkbun/testdata/pricing.json"}},
	"ovhcloud": {files: []string{"ovhcloud/testdata/catalog_fr.json"}},
	// The credentialed sources, as deployed, have their credentials (never
	// used: the round reads the file), which the registrar status of
	// their import is made with.
	"namecheap": {files: []string{"namecheap/testdata/pricing.xml"},
		env: []string{"ZONEPRICE_NAMECHEAP_API_USER=user", "ZONEPRICE_NAMECHEAP_API_KEY=key", "ZONEPRICE_NAMECHEAP_CLIENT_IP=192.0.2.1"}},
	"namecheap-list": {files: []string{"namecheaplist/testdata/tlds.json"}},
	"namecom": {files: []string{"namecom/testdata/page1.json", "namecom/testdata/page2.json", "namecom/testdata/page3.json"},
		env: []string{"ZONEPRICE_NAMECOM_USERNAME=user", "ZONEPRICE_NAMECOM_TOKEN=token"}},
	"openprovider":    {files: []string{"openprovider/testdata/pricing.json"}},
	"inwx":            {files: []string{"inwx/testdata/all-prices.json"}},
	"dynadot":         {files: []string{"dynadot/testdata/current_list.json"}},
	"joker":           {files: []string{"joker/testdata/pricelist.json"}},
	"epik":            {files: []string{"epik/testdata/prices.json"}},
	"iwantmyname":     {files: []string{"iwantmyname/testdata/page1.json", "iwantmyname/testdata/page2.json"}},
	"nicnames":        {files: []string{"nicnames/testdata/prices.json"}},
	"tierra":          {files: []string{"tierra/testdata/pricingData.json"}},
	"gname":           {files: []string{"gname/testdata/page1.json", "gname/testdata/page2.json"}},
	"cfdomainpricing": {files: []string{"cloudflare/testdata/prices.json"}},
	"rebel":           {files: []string{"rebel/testdata/allTLDPrices.json"}},
	"internetbs":      {files: []string{"internetbs/testdata/pricelist.html"}},
	"register4less":   {files: []string{"register4less/testdata/pricing.html"}},
	"onlydomains":     {files: []string{"onlydomains/testdata/pricing.html"}},
	"sav":             {files: []string{"sav/testdata/pricing.html"}},
	"connectreseller": {files: []string{"connectreseller/testdata/domain-prices.html"}},
	"domaincostclub":  {files: []string{"domaincostclub/testdata/pricing.html"}},
	"hostpoint":       {files: []string{"hostpoint/testdata/domain-price-api.html"}},
	"metaname":        {files: []string{"metaname/testdata/pricing.html"}},
	"22cn":            {files: []string{"cn22/testdata/pricing.html"}},
	"lws":             {files: []string{"lws/testdata/pricing.html"}},
	"loopia":          {files: []string{"loopia/testdata/detaljerad_prislista.html"}},
	"domeneshop":      {files: []string{"domeneshop/testdata/pricelist.html"}},
	"gandi":           {files: []string{"gandi/testdata/page1.html", "gandi/testdata/page2.html", "gandi/testdata/page3.html"}},
	"onecom":          {files: []string{"onecom/testdata/domain-prices.html"}},
	"vpsor":           {files: []string{"vpsor/testdata/product-search.json"}},
	"forpsi":          {files: []string{"forpsi/testdata/pricing.html"}},
	"truehost":        {files: []string{"truehost/testdata/pricing.html"}},
	"lcn":             {files: []string{"lcn/testdata/pricing.html"}},
}

// TestIngestersPublishAsAllowed runs every source of every deployed
// ingester (the compose file's and all Kubernetes manifests', optional ones
// included) for one round through the real zoneprice-ingest, signed in as
// the deployment's user on a NATS server loading accounts.conf, and checks
// that the server refused nothing: a source whose registrar its user may
// not publish would fail every round in production, quietly but for a
// log line and an alert hours later. The other way round, every price,
// zone or rate subject a user may publish must be one that a source of its
// deployments publishes, so that no right outlives the source that needed
// it. And no registrar's prices come from two ingesters of one deployment:
// each would withdraw the other's zones.
func TestIngestersPublishAsAllowed(t *testing.T) {
	keys := natsKeys(t)
	perms := accountsPermissions(t, keys)
	deployed := deployedIngesters(t, keys)

	// One round per user and source: the compose file and the manifests
	// mostly run the same ones.
	type run struct{ user, source string }
	ran := map[run][]string{} // subjects the round left on the streams
	for _, ing := range deployed {
		for _, src := range ing.sources {
			r := run{ing.user, src}
			if _, ok := ran[r]; ok {
				continue
			}
			ran[r] = nil
			t.Run(ing.user+"/"+src, func(t *testing.T) {
				got := ingestRound(t, keys, ing.user, src)
				if got.refused != "" {
					t.Fatalf("%s's user %s may not publish what source %s does; the server refused:\n%s", ing, ing.user, src, got.refused)
				}
				if got.err != nil {
					t.Fatalf("zoneprice-ingest --sources %s as %s: %v\n%s", src, ing.user, got.err, lastLines(got.log, 20))
				}
				if len(got.subjects) == 0 {
					t.Fatalf("source %s published nothing: the test proves nothing about its subjects", src)
				}
				ran[r] = got.subjects
				var registrars []string
				for _, s := range got.subjects {
					if reg, ok := priceRegistrar(s); ok && !slices.Contains(registrars, reg) {
						registrars = append(registrars, reg)
					}
				}
				t.Logf("%d subjects; prices of %v", len(got.subjects), registrars)
			})
		}
	}
	if t.Failed() {
		return
	}

	t.Run("every right is used", func(t *testing.T) {
		published := map[string][]string{} // user → subjects
		for r, subjects := range ran {
			published[r.user] = append(published[r.user], subjects...)
		}
		for _, user := range slices.Sorted(maps.Keys(perms)) {
			if !strings.HasPrefix(user, "INGEST_") {
				continue // not a source's right; TestNATSPermissionsLeastPrivilege holds the others
			}
			for _, allowed := range dataSubjects(perms[user]) {
				if !slices.ContainsFunc(published[user], func(s string) bool { return covers(allowed, s) }) {
					t.Errorf("%s may publish %s, but no source its deployments run publishes there: remove it from accounts.conf", user, allowed)
				}
			}
		}
	})

	t.Run("one ingester per registrar", func(t *testing.T) {
		// Within the compose file, and across every Kubernetes manifest:
		// two Deployments of one name are one (kustomize refuses both in
		// one kustomization), two of different names could run together.
		for _, kind := range []string{"compose service", "Deployment"} {
			by := map[string][]string{} // registrar → ingesters
			for _, ing := range deployed {
				if ing.kind != kind {
					continue
				}
				for _, src := range ing.sources {
					for _, s := range ran[run{ing.user, src}] {
						registrar, ok := priceRegistrar(s)
						if ok && !slices.Contains(by[registrar], ing.name) {
							by[registrar] = append(by[registrar], ing.name)
						}
					}
				}
			}
			for _, registrar := range slices.Sorted(maps.Keys(by)) {
				if names := by[registrar]; len(names) > 1 {
					t.Errorf("%ss %v publish %s's prices: each would withdraw the others' zones", kind, names, registrar)
				}
			}
		}
	})
}

// TestIngestRoundRefused checks that the check above sees a refusal: a
// source run as a user that may not publish its registrar.
func TestIngestRoundRefused(t *testing.T) {
	keys := natsKeys(t)
	got := ingestRound(t, keys, "INGEST_PORKBUN", "ovhcloud")
	if got.refused == "" {
		t.Fatalf("porkbun's user published ovhcloud's prices unrefused (err %v, subjects %v)", got.err, got.subjects)
	}
	if len(got.subjects) != 0 {
		t.Errorf("the stream holds %v", got.subjects)
	}
}

// deployedIngesters returns the ingesters the compose file and the
// Kubernetes manifests (optional ones included) run, each with the user
// whose seed it is given.
func deployedIngesters(t *testing.T, keys map[string]string) []ingester {
	t.Helper()
	var out []ingester
	sources := func(where string, args []string) []string {
		v, _ := argValue(args, "sources")
		var names []string
		for name := range strings.SplitSeq(v, ",") {
			if name = strings.TrimSpace(name); name == "auto" || strings.HasPrefix(name, "-") {
				t.Errorf("%s runs --sources %s: name its sources, so that its user's rights can be held to them", where, v)
			}
			if name != "" {
				names = append(names, name)
			}
		}
		return names
	}
	seeds := map[string]string{} // seed → user
	for _, u := range natsUsers(t) {
		seeds[keys["ZONEPRICE_SEED_"+u]] = u
	}
	services := composeConfig(t, keys)
	for _, name := range slices.Sorted(maps.Keys(services)) {
		s := services[name]
		if v, _ := argValue(s.Command, "provision"); !strings.HasPrefix(name, "ingest-") || v == "only" {
			continue
		}
		ing := ingester{kind: "compose service", name: name, user: seeds[s.Environment["NATS_NKEY"]]}
		ing.sources = sources(ing.String(), s.Command)
		out = append(out, ing)
	}
	_, _, loads := k8sObjects(t)
	for _, w := range loads {
		if w.obj.Kind != "Deployment" || !strings.HasPrefix(w.obj.Metadata.Name, "zoneprice-ingest-") {
			continue
		}
		pod := w.spec.Template.Spec
		c := pod.Containers[0]
		ing := ingester{kind: "Deployment", name: w.obj.Metadata.Name, user: natsUserOf(pod, c)}
		ing.sources = sources(ing.String()+" ("+w.file+")", c.Args)
		out = append(out, ing)
	}
	for _, ing := range out {
		if ing.user == "" {
			t.Errorf("%s signs in as no user of accounts.conf", ing)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	return out
}

// natsUserOf is the user of accounts.conf whose seed a container is given:
// the Secret zoneprice-nats-<user> mounted where NATS_NKEY_FILE points;
// "" if none.
func natsUserOf(pod podSpec, c container) string {
	file, ok := c.env("NATS_NKEY_FILE")
	if !ok {
		return ""
	}
	for _, m := range c.VolumeMounts {
		if m.MountPath != filepath.Dir(file) {
			continue
		}
		for _, v := range pod.Volumes {
			if v.Name == m.Name && v.Secret != nil {
				user := strings.ToUpper(strings.ReplaceAll(strings.TrimPrefix(v.Secret.SecretName, "zoneprice-nats-"), "-", "_"))
				if slices.Contains(NATSUsers(), user) {
					return user
				}
			}
		}
	}
	return ""
}

// accountsPermissions returns each user's permissions in accounts.conf, as
// the server reads them with keys.
func accountsPermissions(t *testing.T, keys map[string]string) map[string]*server.Permissions {
	t.Helper()
	opts := loadNATS(t, "nats/zoneprice-node.conf", keys)
	byUser := map[string]*server.Permissions{}
	for _, nk := range opts.Nkeys {
		for _, u := range natsUsers(t) {
			if keys["ZONEPRICE_NKEY_"+u] == nk.Nkey {
				byUser[u] = nk.Permissions
			}
		}
	}
	return byUser
}

// dataSubjects are the subjects a user may publish that carry data:
// neither the JetStream API nor a control request.
func dataSubjects(p *server.Permissions) []string {
	if p == nil || p.Publish == nil {
		return nil
	}
	var out []string
	for _, s := range p.Publish.Allow {
		if !strings.HasPrefix(s, "$") && s != contracts.RepublishSubject {
			out = append(out, s)
		}
	}
	return out
}

// covers reports whether the allowed subject pattern covers subject, for
// the patterns accounts.conf uses (a trailing ">").
func covers(pattern, subject string) bool {
	if prefix, ok := strings.CutSuffix(pattern, ">"); ok {
		return strings.HasPrefix(subject, prefix)
	}
	return pattern == subject
}

// priceRegistrar is the registrar of a price subject.
func priceRegistrar(subject string) (string, bool) {
	rest, ok := strings.CutPrefix(subject, contracts.PriceSubjectPrefix)
	if !ok {
		return "", false
	}
	registrar, _, ok := strings.Cut(rest, ".")
	return registrar, ok
}

// roundResult is what one ingest round did.
type roundResult struct {
	subjects []string // on the streams afterwards
	refused  string   // the first permissions violations the command logged
	err      error    // its exit
	log      string
}

// ingestRound runs zoneprice-ingest --once --provision off --sources
// source, signed in as user, on a fresh NATS server loading accounts.conf
// whose stream the admin user provisioned, with the source reading its
// sourceInputs. A refused publish ends the command at once: it would
// otherwise wait out the round's minute for acknowledgements.
func ingestRound(t *testing.T, keys map[string]string, user, source string) roundResult {
	t.Helper()
	in, ok := sourceInputs[source]
	if !ok {
		t.Fatalf("source %s is deployed, but sourceInputs has no fixture for it", source)
	}
	srv := accountsServer(t, keys)
	env := []string{"NATS_URL=" + srv.ClientURL(), "ZONEPRICE_LOG_LEVEL=warn"}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	provision := exec.CommandContext(ctx, command(t, "zoneprice-ingest"), "--provision", "only", "--metrics-listen", "")
	provision.Env = append(env, "NATS_NKEY="+keys["ZONEPRICE_SEED_ADMIN"])
	if out, err := provision.CombinedOutput(); err != nil {
		t.Fatalf("provision as ADMIN: %v\n%s", err, out)
	}

	args := []string{"--once", "--provision", "off", "--sources", source}
	switch len(in.files) {
	case 0:
	case 1:
		args = append(args, "--file", filepath.Join("..", "ingest", in.files[0]))
	default:
		// A list of pages is imported as a JSON array of them, a page that
		// is no JSON (HTML) as a JSON string.
		var pages [][]byte
		for _, f := range in.files {
			b, err := os.ReadFile(filepath.Join("..", "ingest", f))
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(b) {
				if b, err = json.Marshal(string(b)); err != nil {
					t.Fatal(err)
				}
			}
			pages = append(pages, b)
		}
		path := filepath.Join(t.TempDir(), source+".json")
		if err := os.WriteFile(path, slices.Concat([]byte("["), bytes.Join(pages, []byte(",")), []byte("]")), 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--file", path)
	}
	cmd := exec.CommandContext(ctx, command(t, "zoneprice-ingest"), args...)
	cmd.Env = slices.Concat(env, []string{"NATS_NKEY=" + keys["ZONEPRICE_SEED_"+user]}, in.env)
	var log syncBuffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var res roundResult
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
wait:
	for {
		select {
		case res.err = <-done:
			break wait
		case <-tick.C:
			if strings.Contains(log.String(), "Permissions Violation") {
				cancel()
				res.err = <-done
				break wait
			}
		}
	}
	res.log = log.String()
	var refused []string
	for line := range strings.SplitSeq(res.log, "\n") {
		if strings.Contains(line, "Permissions Violation") {
			refused = append(refused, line)
		}
	}
	if len(refused) > 3 {
		refused = append(refused[:3], fmt.Sprintf("(and %d more)", len(refused)-3))
	}
	res.refused = strings.Join(refused, "\n")
	res.subjects = streamSubjects(t, srv, keys)
	return res
}

// accountsServer starts a JetStream server on a loopback port with the
// users and permissions of accounts.conf, keys in its environment, until
// the test ends.
func accountsServer(t *testing.T, keys map[string]string) *server.Server {
	t.Helper()
	dir := t.TempDir()
	b, err := os.ReadFile("nats/accounts.conf")
	if err != nil {
		t.Fatal(err)
	}
	conf := fmt.Sprintf("listen: 127.0.0.1:-1\njetstream { store_dir: %q }\ninclude accounts.conf\n", filepath.Join(dir, "js"))
	for name, content := range map[string][]byte{"accounts.conf": b, "server.conf": []byte(conf)} {
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	opts := loadNATS(t, filepath.Join(dir, "server.conf"), keys)
	opts.NoLog, opts.NoSigs = true, true
	srv, err := server.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats server not ready within 10s")
	}
	return srv
}

// streamSubjects returns the subjects the state and history streams hold,
// read as the admin user.
func streamSubjects(t *testing.T, srv *server.Server, keys map[string]string) []string {
	t.Helper()
	kp, err := nkeys.FromSeed([]byte(keys["ZONEPRICE_SEED_ADMIN"]))
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := kp.PublicKey()
	nc, err := nats.Connect(srv.ClientURL(), nats.Nkey(pub, kp.Sign))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out []string
	for _, name := range []string{contracts.StateStream, contracts.HistoryStream} {
		s, err := js.Stream(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		info, err := s.Info(ctx, jetstream.WithSubjectFilter(">"))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, slices.Sorted(maps.Keys(info.State.Subjects))...)
	}
	return out
}

// syncBuffer is a bytes.Buffer a command writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
