// Package natstest runs a real, in-process NATS server with JetStream for
// tests: no mocks, the same server code the all-in-one binary embeds.
package natstest

import (
	"context"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/zoneprice/zoneprice/contracts"
)

// Server starts a JetStream-enabled server on a random loopback port with its
// store in a temporary directory. It is shut down when the test ends.
func Server(t testing.TB) *server.Server {
	t.Helper()
	return start(t, server.RANDOM_PORT, t.TempDir())
}

func start(t testing.TB, port int, storeDir string) *server.Server {
	t.Helper()
	opts := &server.Options{
		Host:      "127.0.0.1",
		Port:      port,
		JetStream: true,
		StoreDir:  storeDir,
		NoLog:     true,
		NoSigs:    true,
	}
	srv, err := server.NewServer(opts)
	if err != nil {
		t.Fatalf("new nats server: %v", err)
	}
	srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats server not ready within 10s")
	}
	t.Cleanup(func() {
		srv.Shutdown()
		srv.WaitForShutdown()
	})
	return srv
}

// Connect opens a client connection to srv, closed when the test ends.
func Connect(t testing.TB, srv *server.Server) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	nc, err := nats.Connect(srv.ClientURL())
	if err != nil {
		t.Fatalf("connect to nats: %v", err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatalf("jetstream: %v", err)
	}
	return nc, js
}

// Provisioned starts a server, provisions the state stream on it and returns
// the server and a JetStream handle.
func Provisioned(t testing.TB) (*server.Server, jetstream.JetStream) {
	t.Helper()
	srv := Server(t)
	_, js := Connect(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := contracts.Provision(ctx, js, contracts.StreamOptions{}); err != nil {
		t.Fatalf("provision: %v", err)
	}
	return srv, js
}

// Stop shuts srv down, as a NATS node going away, and returns a function
// that starts a new server on the same port and store, as the node coming
// back. The new server is shut down when the test ends.
func Stop(t testing.TB, srv *server.Server) (restart func() *server.Server) {
	t.Helper()
	addr := srv.Addr().(*net.TCPAddr)
	dir := srv.JetStreamConfig().StoreDir
	srv.Shutdown()
	srv.WaitForShutdown()
	return func() *server.Server {
		t.Helper()
		return start(t, addr.Port, filepath.Dir(dir))
	}
}
