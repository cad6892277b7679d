package app

import (
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// StartEmbedded starts a NATS server with JetStream inside this process,
// storing streams under dir. listen is host:port for other processes (the
// separate query and ingest commands) to join; "" accepts in-process
// connections only.
func StartEmbedded(dir, listen string, log *slog.Logger) (*server.Server, error) {
	opts := &server.Options{
		ServerName: "zoneprice-embedded",
		JetStream:  true,
		StoreDir:   dir,
		NoLog:      true,
		NoSigs:     true,
	}
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
	log.Info("embedded nats with jetstream started", "store", dir, "listen", listen)
	return srv, nil
}
