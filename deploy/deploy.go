// Package deploy holds the operators' files: NATS server configurations
// with zoneprice's users and permissions, the container images
// (docker/), a compose file for a local cluster, Kubernetes manifests and
// values for the NATS Helm chart, Prometheus scrape configuration and
// alert rules, and the Grafana dashboard. Its tests keep them honest: the
// rules and the dashboard must parse and use only metrics the service
// exports, and the deployment files must agree with the commands' routes,
// ports and flags, with the images the Makefile builds, and with the NATS
// users' least privilege. Its one function reads the NATS users, for
// tests elsewhere that run the real configuration.
package deploy

import (
	_ "embed"
	"regexp"
)

//go:embed nats/accounts.conf
var accountsConf []byte

// nkeyVar is how accounts.conf names a user's public key.
var nkeyVar = regexp.MustCompile(`nkey: *\$ZONEPRICE_NKEY_([A-Z_]+)`)

// NATSUsers lists the users of nats/accounts.conf by the suffix of the
// variable holding each one's public key (ADMIN, QUERY, INGEST_PORKBUN),
// as the Makefile's compose-keys finds them.
func NATSUsers() []string {
	var users []string
	for _, m := range nkeyVar.FindAllSubmatch(accountsConf, -1) {
		users = append(users, string(m[1]))
	}
	return users
}
