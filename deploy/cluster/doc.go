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
//
// Every container and network a run makes is named zpfs-… and labelled
// zoneprice.failure-suite. A run killed before its cleanups (Ctrl-C, the
// test timeout, kill -9) leaves them behind; the next run removes them
// first, logging each, before it creates anything. Runs on one machine
// coordinate through a lock file in the temporary directory: a run that
// starts while another is in progress skips the sweep, so it never removes
// the other's containers. Runs from different machines (or containers that
// do not share the temporary directory) against one Docker engine cannot
// see each other's lock: there, run the suite one at a time.
package cluster
