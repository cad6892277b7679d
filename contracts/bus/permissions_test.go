package bus_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/deploy"
)

// TestPermissionsMatchAccountsConf holds the roles' lists to the cluster's
// users in deploy/nats/accounts.conf, read as a server loading it reads
// it: ADMIN, QUERY and NOTIFY are the admin, query and notify roles, and
// every INGEST_ user may do no more than the ingest role. So a command
// that works beside `make run` (whose local users are these roles) works
// in the cluster, and the other way round.
func TestPermissionsMatchAccountsConf(t *testing.T) {
	cluster := clusterPermissions(t)
	for user, role := range map[string]bus.Role{"ADMIN": bus.RoleAdmin, "QUERY": bus.RoleQuery, "NOTIFY": bus.RoleNotify} {
		got, want := bus.PermissionsOf(role), cluster[user]
		if want == nil {
			t.Fatalf("accounts.conf has no %s user", user)
		}
		if !sameSubjects(got.Publish, want.Publish) || !sameSubjects(got.Subscribe, want.Subscribe) || got.Respond != (want.Response != nil) {
			t.Errorf("role %s: publish %v, subscribe %v, respond %v;\naccounts.conf's %s: publish %v, subscribe %v, responds %v",
				role, got.Publish, got.Subscribe, got.Respond, user, want.Publish.Allow, want.Subscribe.Allow, want.Response != nil)
		}
	}
	ingest := bus.PermissionsOf(bus.RoleIngest)
	n := 0
	for user, perms := range cluster {
		if !strings.HasPrefix(user, "INGEST_") {
			continue
		}
		n++
		for _, subject := range perms.Publish.Allow {
			if !slices.ContainsFunc(ingest.Publish, func(s string) bool { return covers(s, subject) }) {
				t.Errorf("accounts.conf's %s may publish to %s, the ingest role may not", user, subject)
			}
		}
		if perms.Response == nil || !slices.Equal(perms.Subscribe.Allow, ingest.Subscribe) {
			t.Errorf("accounts.conf's %s: subscribe %v, responds %v; the ingest role subscribes to %v and responds", user,
				perms.Subscribe.Allow, perms.Response != nil, ingest.Subscribe)
		}
	}
	if n == 0 {
		t.Error("accounts.conf has no INGEST_ user")
	}
}

// TestPermissionsLeastPrivilege: no role may delete or purge a stream,
// but notify its own work queue, the deliveries (to drop a deleted
// endpoint's); and only the admin role may write API keys.
func TestPermissionsLeastPrivilege(t *testing.T) {
	notifyPurge := "$JS.API.STREAM.PURGE." + contracts.DeliveriesStream
	for _, role := range bus.Roles {
		for _, s := range bus.PermissionsOf(role).Publish {
			if role == bus.RoleNotify && s == notifyPurge {
				continue
			}
			if strings.Contains(s, ".STREAM.DELETE.") || strings.Contains(s, ".STREAM.PURGE.") || s == ">" || s == "$JS.API.>" {
				t.Errorf("role %s may publish to %s", role, s)
			}
			if strings.HasPrefix(s, "$KV.ZONEPRICE_KEYS.") && role != bus.RoleAdmin {
				t.Errorf("role %s may write API keys (%s)", role, s)
			}
		}
	}
}

// covers reports whether the allowed subject pattern covers subject, for
// the patterns accounts.conf uses (a trailing ">").
func covers(pattern, subject string) bool {
	if prefix, ok := strings.CutSuffix(pattern, ">"); ok {
		return strings.HasPrefix(subject, prefix)
	}
	return pattern == subject
}

func sameSubjects(a []string, b *server.SubjectPermission) bool {
	if b == nil {
		return len(a) == 0
	}
	want := slices.Clone(b.Allow)
	slices.Sort(want)
	return slices.Equal(a, want) && len(b.Deny) == 0
}

// clusterPermissions reads accounts.conf's users' permissions, as a
// server loading it does, by user (ADMIN, INGEST_PORKBUN).
func clusterPermissions(t *testing.T) map[string]*server.Permissions {
	t.Helper()
	users := map[string]string{}
	for _, user := range deploy.NATSUsers() {
		kp, err := nkeys.CreateUser()
		if err != nil {
			t.Fatal(err)
		}
		pub, _ := kp.PublicKey()
		t.Setenv("ZONEPRICE_NKEY_"+user, pub)
		users[pub] = user
	}
	conf, err := os.ReadFile(filepath.Join("..", "..", "deploy", "nats", "accounts.conf"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, content := range map[string][]byte{"accounts.conf": conf, "server.conf": []byte("include accounts.conf\n")} {
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	opts, err := server.ProcessConfigFile(filepath.Join(dir, "server.conf"))
	if err != nil {
		t.Fatal(err)
	}
	perms := map[string]*server.Permissions{}
	for _, u := range opts.Nkeys {
		perms[users[u.Nkey]] = u.Permissions
	}
	return perms
}
