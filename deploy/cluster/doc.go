// Package cluster is zoneprice's failure suite: scenarios that start the
// real images (make images) as containers on private Docker networks, a
// three-node NATS JetStream cluster with the deployment's own configuration
// and freshly generated NKeys, query pods and zoneprice-lb, then break
// something (a node, a network link, a pod) under real traffic and check
// that no update is lost and no request fails.
//
// The tests are behind the build tag "integration", so go test ./... does
// not start containers:
//
//	make test-integration
//
// They need a Docker engine and fail, saying so, when none is reachable;
// ZONEPRICE_SKIP_DOCKER=1 skips them instead.
package cluster
