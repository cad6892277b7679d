package app

import (
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"
)

// LocalNATS is the all-in-one's embedded NATS server with JetStream. It
// admits no one without credentials: the all-in-one itself signs in with a
// key made at each start and good for in-process connections only, so no
// file holds its rights; the separate commands on this machine sign in as
// the LocalUser each is, with the seeds kept in the data directory.
type LocalNATS struct {
	*server.Server
	self nkeys.KeyPair
}

// StartLocal starts the all-in-one's NATS server, storing streams under
// dir and keeping the local users' seeds in dir's credentials directory,
// made on the first start that finds none there. listen is host:port for
// other processes (the separate commands) to join; "" accepts in-process
// connections only. Every user is in the server's global account, where a
// store made before the server asked for credentials keeps its streams.
func StartLocal(dir, listen string, log *slog.Logger) (*LocalNATS, error) {
	users, err := localNkeyUsers(dir, log)
	if err != nil {
		return nil, fmt.Errorf("embedded nats credentials: %w", err)
	}
	self, err := nkeys.CreateUser()
	if err != nil {
		return nil, err
	}
	pub, err := self.PublicKey()
	if err != nil {
		return nil, err
	}
	// No permissions: every right in the account, JetStream's included.
	// "IN_PROCESS" is jwt.ConnectionTypeInProcess, which the server
	// checks when it starts.
	users = append(users, &server.NkeyUser{
		Nkey:                   pub,
		AllowedConnectionTypes: map[string]struct{}{"IN_PROCESS": {}},
	})
	srv, err := startEmbedded(dir, listen, log, func(o *server.Options) { o.Nkeys = users })
	if err != nil {
		self.Wipe()
		return nil, err
	}
	return &LocalNATS{Server: srv, self: self}, nil
}

// Connect connects this process to its own server, in-process, as the
// all-in-one, whatever credentials the flags name: those are for joining
// another NATS.
func (l *LocalNATS) Connect(name string, log *slog.Logger) (*nats.Conn, jetstream.JetStream, error) {
	pub, err := l.self.PublicKey()
	if err != nil {
		return nil, nil, err
	}
	return Connect(l.ClientURL(), name, "", log,
		nats.ErrorHandler(asyncErrorLogger(log)), nats.InProcessServer(l.Server), nats.Nkey(pub, l.self.Sign))
}

// StartEmbedded starts a NATS server with JetStream inside this process
// that admits anyone who reaches listen, with every right: the benchmark's
// throwaway server. The all-in-one starts StartLocal's, which does not.
func StartEmbedded(dir, listen string, log *slog.Logger) (*server.Server, error) {
	return startEmbedded(dir, listen, log, func(*server.Options) {})
}

// startEmbedded starts a NATS server with JetStream, storing streams under
// dir, listening on listen ("" for in-process connections only), with the
// users auth sets.
func startEmbedded(dir, listen string, log *slog.Logger, auth func(*server.Options)) (*server.Server, error) {
	opts := &server.Options{
		ServerName: "zoneprice-embedded",
		JetStream:  true,
		StoreDir:   dir,
		NoLog:      true,
		NoSigs:     true,
	}
	auth(opts)
	if listen == "" {
		opts.DontListen = true
	} else {
		host, port, err := net.SplitHostPort(listen)
		if err != nil {
			return nil, fmt.Errorf("--embedded-listen (ZONEPRICE_EMBEDDED_LISTEN): %w", err)
		}
		opts.Host = host
		if opts.Port, err = strconv.Atoi(port); err != nil {
			return nil, fmt.Errorf("--embedded-listen (ZONEPRICE_EMBEDDED_LISTEN): port %q: %w", port, err)
		}
	}
	srv, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("embedded nats: %w", err)
	}
	srv.Start()
	if !srv.ReadyForConnections(30 * time.Second) {
		srv.Shutdown()
		return nil, fmt.Errorf("embedded nats: not ready within 30s (is %s already in use? see --embedded-listen)", listen)
	}
	log.Info("embedded nats with jetstream started", "store", dir, "listen", listen, "authenticated", len(opts.Nkeys) > 0)
	return srv, nil
}
