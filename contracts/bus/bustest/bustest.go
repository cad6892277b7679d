// Package bustest runs a real, in-process NATS server with JetStream for
// tests: no mocks, the same server code the all-in-one binary embeds.
package bustest

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/zoneprice/zoneprice/contracts/bus"
)

// Server starts a JetStream-enabled server on a random loopback port with its
// store in a temporary directory. It is shut down when the test ends.
func Server(t testing.TB) *server.Server {
	t.Helper()
	return start(t, server.RANDOM_PORT, t.TempDir(), nil)
}

// ServerWith is Server with its options changed by configure before it
// starts: users and their permissions, say. The options are the server's
// own: a test keeps them to reload the server with a change
// (server.Server.ReloadOptions). Stop's restart starts a server without
// them.
func ServerWith(t testing.TB, configure func(*server.Options)) *server.Server {
	t.Helper()
	return start(t, server.RANDOM_PORT, t.TempDir(), configure)
}

func start(t testing.TB, port int, storeDir string, configure func(*server.Options)) *server.Server {
	t.Helper()
	opts := &server.Options{
		Host:      "127.0.0.1",
		Port:      port,
		JetStream: true,
		StoreDir:  storeDir,
		NoLog:     true,
		NoSigs:    true,
	}
	if configure != nil {
		configure(opts)
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
	return ConnectWith(t, srv, nil)
}

// ConnectWith is Connect with client options (nats.UserInfo, say) and
// JetStream options (jetstream.WithDefaultTimeout, say: a request the
// server's permissions deny is never answered, so it takes the timeout).
func ConnectWith(t testing.TB, srv *server.Server, opts []nats.Option, jsOpts ...jetstream.JetStreamOpt) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	nc, err := nats.Connect(srv.ClientURL(), opts...)
	if err != nil {
		t.Fatalf("connect to nats: %v", err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc, jsOpts...)
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
	if err := bus.Provision(ctx, js, bus.Options{}); err != nil {
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
		return start(t, addr.Port, filepath.Dir(dir), nil)
	}
}

// Restricted is a server with two users: "admin", who may do anything, and
// "restricted", who may not publish to some subjects, as a service whose
// NATS permissions are too narrow. A request to a JetStream API subject it
// may not publish to is never answered: it takes the client's timeout,
// which Restricted's handle keeps short.
type Restricted struct {
	Server *server.Server
	// Admin and Restricted are JetStream handles of the two users.
	Admin, Restricted jetstream.JetStream
	// Lift reloads the server with the restricted user allowed
	// everything, as an operator fixing the permissions.
	Lift func(t testing.TB)
}

// RestrictedServer starts a Restricted server whose restricted user may not
// publish to deny (wildcards allowed), and provisions its streams as admin.
func RestrictedServer(t testing.TB, deny ...string) *Restricted {
	t.Helper()
	users := func(deny []string) []*server.User {
		restricted := &server.User{Username: "restricted", Password: "restricted"}
		if len(deny) > 0 {
			restricted.Permissions = &server.Permissions{Publish: &server.SubjectPermission{Allow: []string{">"}, Deny: deny}}
		}
		return []*server.User{{Username: "admin", Password: "admin"}, restricted}
	}
	var opts *server.Options
	srv := ServerWith(t, func(o *server.Options) {
		o.Users = users(deny)
		opts = o
	})
	_, admin := ConnectWith(t, srv, []nats.Option{nats.UserInfo("admin", "admin")})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := bus.Provision(ctx, admin, bus.Options{}); err != nil {
		t.Fatalf("provision: %v", err)
	}
	// The server reports every refusal to the client, which would log it:
	// they are expected here.
	_, restricted := ConnectWith(t, srv,
		[]nats.Option{nats.UserInfo("restricted", "restricted"), nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {})},
		jetstream.WithDefaultTimeout(250*time.Millisecond))
	return &Restricted{Server: srv, Admin: admin, Restricted: restricted, Lift: func(t testing.TB) {
		t.Helper()
		o := *opts
		o.Users = users(nil)
		if err := srv.ReloadOptions(&o); err != nil {
			t.Fatalf("reload nats without the restriction: %v", err)
		}
	}}
}

// BucketSubjects are the subjects a client publishes to in order to use the
// key-value bucket: its stream's info, its consumers, its keys. Denied,
// the bucket cannot be bound or watched.
func BucketSubjects(bucket string) []string {
	stream := "KV_" + bucket
	return []string{
		"$JS.API.STREAM.INFO." + stream,
		"$JS.API.CONSUMER.*." + stream, "$JS.API.CONSUMER.*." + stream + ".>",
		"$KV." + bucket + ".>",
	}
}

// The ways Damage damages a message block.
const (
	// Garbage overwrites 4 KiB in the middle of the block.
	Garbage = "garbage"
	// Emptied truncates the block to nothing.
	Emptied = "emptied"
)

// Damage stops srv, damages the first message block of the named stream
// as how says (Garbage or Emptied), and starts a server on the same port
// and store again, as a node whose disk went bad while it was down comes
// back. It returns the new server, shut down when the test ends.
func Damage(t testing.TB, srv *server.Server, stream, how string) *server.Server {
	t.Helper()
	return damageBlocks(t, srv, stream, func(blks []string) {
		data, err := os.ReadFile(blks[0])
		if err != nil {
			t.Fatal(err)
		}
		switch how {
		case Garbage:
			for i := len(data) / 2; i < min(len(data)/2+4096, len(data)); i++ {
				data[i] = 0xab
			}
		case Emptied:
			data = nil
		default:
			t.Fatalf("bustest.Damage: unknown damage %q", how)
		}
		if err := os.WriteFile(blks[0], data, 0o600); err != nil {
			t.Fatal(err)
		}
	})
}

// DamageValue is Damage flipping one byte in the middle of value where a
// message block of the stream holds it, as bit rot or a torn write would:
// that one message keeps its length, sequence and subject, and fails its
// checksum.
func DamageValue(t testing.TB, srv *server.Server, stream string, value []byte) *server.Server {
	t.Helper()
	return damageBlocks(t, srv, stream, func(blks []string) {
		for _, path := range blks {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if i := bytes.Index(b, value); i >= 0 {
				b[i+len(value)/2] ^= 0xff
				if err := os.WriteFile(path, b, 0o600); err != nil {
					t.Fatal(err)
				}
				return
			}
		}
		t.Fatalf("no message block of %s holds %q", stream, value)
	})
}

// Truncate is Damage cutting the stream's message block that holds value
// in the middle of value's record, and dropping everything after it, as a
// write torn by a crash would: the records from there on are gone, and
// nothing in the store says they were there.
func Truncate(t testing.TB, srv *server.Server, stream string, value []byte) *server.Server {
	t.Helper()
	return damageBlocks(t, srv, stream, func(blks []string) {
		for _, path := range blks {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if i := bytes.Index(b, value); i >= 0 {
				if err := os.WriteFile(path, b[:i+len(value)/2], 0o600); err != nil {
					t.Fatal(err)
				}
				return
			}
		}
		t.Fatalf("no message block of %s holds %q", stream, value)
	})
}

// RemoveStream stops srv, moves the named stream's directory out of its
// store, and starts the server again: the single server's repair of a
// stream with a message it can no longer read, which neither a restart nor
// a purge removes. The stream is gone until it is provisioned again.
func RemoveStream(t testing.TB, srv *server.Server, stream string) *server.Server {
	t.Helper()
	store := srv.JetStreamConfig().StoreDir
	restart := Stop(t, srv)
	dirs, err := filepath.Glob(filepath.Join(store, "*", "streams", stream))
	if err != nil || len(dirs) != 1 {
		t.Fatalf("no directory of %s under %s: %v", stream, store, err)
	}
	if err := os.Rename(dirs[0], filepath.Join(t.TempDir(), stream)); err != nil {
		t.Fatal(err)
	}
	return restart()
}

// damageBlocks stops srv, has damage change the stream's message blocks
// (in order), and starts the server again.
func damageBlocks(t testing.TB, srv *server.Server, stream string, damage func(blks []string)) *server.Server {
	t.Helper()
	store := srv.JetStreamConfig().StoreDir
	restart := Stop(t, srv)
	blks, err := filepath.Glob(filepath.Join(store, "*", "streams", stream, "msgs", "*.blk"))
	if err != nil || len(blks) == 0 {
		t.Fatalf("no message block of %s under %s: %v", stream, store, err)
	}
	slices.Sort(blks)
	damage(blks)
	return restart()
}
