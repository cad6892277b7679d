package deploy

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest/sample"
)

// loadNATS parses a server configuration of deploy/nats the way
// nats-server -c does, with env set.
func loadNATS(t *testing.T, path string, env map[string]string) *server.Options {
	t.Helper()
	for k, v := range env {
		t.Setenv(k, v)
	}
	opts, err := server.ProcessConfigFile(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return opts
}

func TestNATSConfigs(t *testing.T) {
	keys := natsKeys(t)
	tests := []struct {
		file string
		env  map[string]string
		// users is how many NKey users the file must define.
		users int
	}{
		{"nats/zoneprice-node.conf", keys, len(natsUsers(t))},
		{"nats/cluster-node.conf", map[string]string{"NODE_NAME": "n1", "CLIENT_PORT": "4222", "CLUSTER_PORT": "6222", "STORE_DIR": t.TempDir()}, 0},
		{"nats/single.conf", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			opts := loadNATS(t, tt.file, tt.env)
			if !opts.JetStream {
				t.Error("JetStream is off")
			}
			if got := len(opts.Nkeys); got != tt.users {
				t.Errorf("%d NKey users, want %d", got, tt.users)
			}
		})
	}
}

// TestNodeConfigPorts checks that the node configuration listens where the
// image, the compose file and the clients expect.
func TestNodeConfigPorts(t *testing.T) {
	opts := loadNATS(t, "nats/zoneprice-node.conf", natsKeys(t))
	if opts.Port != 4222 || opts.Cluster.Port != 6222 || opts.HTTPPort != 8222 {
		t.Errorf("client %d, cluster %d, monitoring %d; want 4222, 6222, 8222", opts.Port, opts.Cluster.Port, opts.HTTPPort)
	}
	if opts.StoreDir != "/data" {
		t.Errorf("store_dir %q; the image's writable directory is /data", opts.StoreDir)
	}
	df, err := os.ReadFile("docker/nats-server.Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(df), "EXPOSE 4222 6222 8222") || !strings.Contains(string(df), "/data/") {
		t.Error("nats-server.Dockerfile does not expose 4222 6222 8222 and own /data")
	}
}

// TestNATSPermissionsLeastPrivilege reads accounts.conf as the server does
// and checks what each user may publish. That the permissions are enough
// for each command, and that the server enforces them, is tested with the
// real commands in cmd/internal/app (TestNATSPermissions).
func TestNATSPermissionsLeastPrivilege(t *testing.T) {
	byUser := accountsPermissions(t, natsKeys(t))
	list, err := sample.New(time.Now).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var samples []string
	for _, p := range list.Prices {
		if s := contracts.PriceSubjectPrefix + p.Registrar + ".>"; !slices.Contains(samples, s) {
			samples = append(samples, s, contracts.ChangeSubjectPrefix+p.Registrar+".>", contracts.StatusSubject(p.Registrar))
		}
	}
	streams := []string{contracts.StateStream, contracts.HistoryStream, contracts.DeliveriesStream, contracts.AttemptsStream,
		"KV_" + contracts.KeysBucket, "KV_" + contracts.WebhooksBucket, "KV_" + contracts.WebhookOwnersBucket, "KV_" + contracts.SubscribersBucket}
	buckets := []string{contracts.KeysBucket, contracts.WebhooksBucket, contracts.WebhookOwnersBucket, contracts.SubscribersBucket}
	for _, user := range natsUsers(t) {
		t.Run(user, func(t *testing.T) {
			perms := byUser[user]
			if perms == nil || perms.Publish == nil || perms.Subscribe == nil {
				t.Fatal("no publish and subscribe permissions")
			}
			// Ingesters hear zoneprice-admin stream republish and answer
			// it, once per request; nobody else listens or answers.
			_, ingester := strings.CutPrefix(user, "INGEST_")
			wantSub, wantResp := []string{"_INBOX.>"}, (*server.ResponsePermission)(nil)
			if ingester {
				wantSub, wantResp = []string{"_INBOX.>", contracts.RepublishSubject}, &server.ResponsePermission{MaxMsgs: 1, Expires: time.Minute}
			}
			if got := perms.Subscribe.Allow; !slices.Equal(got, wantSub) {
				t.Errorf("may subscribe to %v, want only %v", got, wantSub)
			}
			if got := perms.Response; (got == nil) != (wantResp == nil) || got != nil && *got != *wantResp {
				t.Errorf("may answer %+v, want %+v", got, wantResp)
			}
			var data, api []string
			control := false
			for _, s := range perms.Publish.Allow {
				switch {
				case strings.HasPrefix(s, "$"):
					api = append(api, s)
				case s == contracts.RepublishSubject:
					control = true
				default:
					data = append(data, s)
				}
			}
			if control != (user == "ADMIN") {
				t.Errorf("may publish %s: %v; only the admin asks the ingesters to republish", contracts.RepublishSubject, control)
			}
			for _, s := range api {
				// Every API subject names one of zoneprice's streams, or
				// is the account info the key-value client asks for.
				if s != "$JS.API.INFO" && !slices.ContainsFunc(streams, func(name string) bool { return strings.Contains(s, "."+name) }) &&
					!slices.ContainsFunc(buckets, func(b string) bool { return strings.HasPrefix(s, "$KV."+b+".") }) {
					t.Errorf("may publish %s, which is about no zoneprice stream", s)
				}
				// notify alone may purge, and only its own work queue: a
				// deleted endpoint's deliveries.
				notifyPurge := user == "NOTIFY" && s == "$JS.API.STREAM.PURGE."+contracts.DeliveriesStream
				if !notifyPurge && (strings.Contains(s, ".STREAM.DELETE.") || strings.Contains(s, ".STREAM.PURGE.") || strings.Contains(s, ".MSG.DELETE.")) {
					t.Errorf("may publish %s", s)
				}
			}
			writes := func(s string) bool {
				return strings.Contains(s, ".STREAM.CREATE.") || strings.Contains(s, ".STREAM.UPDATE.") || strings.HasPrefix(s, "$KV.")
			}
			registrar, _ := strings.CutPrefix(user, "INGEST_")
			switch {
			case user == "ADMIN":
				if len(data) != 0 {
					t.Errorf("the admin may publish data: %v", data)
				}
			case user == "QUERY":
				// The webhook API's and the subscription form's writes
				// alone: test deliveries queued, the subscribers'
				// registrations with each key's record of them, and the
				// subscribers' records.
				written := slices.DeleteFunc(slices.Clone(api), func(s string) bool { return !writes(s) })
				if !slices.Equal(data, []string{contracts.DeliverySubjectPrefix + ">"}) ||
					!slices.Equal(written, []string{"$KV." + contracts.WebhooksBucket + ".>", "$KV." + contracts.WebhookOwnersBucket + ".>", "$KV." + contracts.SubscribersBucket + ".>"}) {
					t.Errorf("a query pod may write: %v %v; want only the webhook API's", data, written)
				}
			case user == "NOTIFY":
				// Deliveries and their attempts; and the webhook
				// registrations, where it records an endpoint's failures.
				want := []string{contracts.DeliverySubjectPrefix + ">", contracts.AttemptSubjectPrefix + ">"}
				if !slices.Equal(data, want) {
					t.Errorf("may publish %v, want only %v", data, want)
				}
			case registrar == "REFERENCE":
				want := append([]string{contracts.ZoneSubjectPrefix + ">", contracts.RatesSubjectPrefix + ">"}, samples...)
				slices.Sort(want)
				slices.Sort(data)
				if !slices.Equal(data, want) {
					t.Errorf("may publish %v, want zone metadata, rates and the sample registrars' prices, changes and statuses %v", data, want)
				}
			case registrar == "SITES":
				// Whole registrars' prices, their changes and statuses,
				// and nothing else; which registrars,
				// TestIngestersPublishAsAllowed holds to the sources its
				// deployments run.
				if len(data) == 0 {
					t.Error("may publish no prices")
				}
				for _, s := range data {
					rest, price := strings.CutPrefix(s, contracts.PriceSubjectPrefix)
					r, whole := strings.CutSuffix(rest, ".>")
					if !price || !whole || r == "" || strings.ContainsAny(r, ".*>") {
						rest, change := strings.CutPrefix(s, contracts.ChangeSubjectPrefix)
						reg, status := strings.CutPrefix(s, contracts.StatusSubjectPrefix)
						if !(change && slices.Contains(data, contracts.PriceSubjectPrefix+rest)) && !(status && slices.Contains(data, contracts.PriceSubjectPrefix+reg+".>")) {
							t.Errorf("may publish %s, want only prices.v1.<registrar>.> subjects and the changes.v1.<registrar>.> and status.v1.<registrar> of each", s)
						}
					}
				}
			case ingester:
				reg := strings.ToLower(registrar)
				want := []string{contracts.PriceSubjectPrefix + reg + ".>", contracts.ChangeSubjectPrefix + reg + ".>", contracts.StatusSubject(reg)}
				if !slices.Equal(data, want) {
					t.Errorf("may publish %v, want only %v", data, want)
				}
			default:
				t.Errorf("a user this test does not know; say what it may do")
			}
			webhookFailures := func(s string) bool {
				return (user == "NOTIFY" || user == "QUERY") && (s == "$KV."+contracts.WebhooksBucket+".>" || s == "$KV."+contracts.SubscribersBucket+".>") ||
					user == "QUERY" && s == "$KV."+contracts.WebhookOwnersBucket+".>"
			}
			if user != "ADMIN" && slices.ContainsFunc(api, func(s string) bool { return writes(s) && !webhookFailures(s) }) {
				t.Errorf("may manage streams or keys: %v", api)
			}
		})
	}
}
