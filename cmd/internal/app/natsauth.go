package app

import (
	"cmp"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
)

// NATSAuth is how a command proves who it is to NATS and how it checks the
// server: an NKey seed (the deployment's choice, see deploy/nats), or a
// .creds file for decentralized JWT accounts, and TLS with an optional
// client certificate. Seeds and keys are only ever read from files or the
// environment.
type NATSAuth struct {
	// Creds is a NATS .creds file (JWT and seed).
	Creds string
	// NKeyFile is a file holding a user NKey seed ("SU…").
	NKeyFile string
	// NKeySeed is the seed itself, from NATS_NKEY.
	NKeySeed string
	// TLSCA is a PEM file of the CAs that sign the servers' certificates;
	// empty trusts the system's roots.
	TLSCA string
	// TLSCert and TLSKey are a PEM client certificate and its key, for
	// servers that verify clients (tls { verify: true }).
	TLSCert, TLSKey string
	// command, dataDir and embeddedListen say whose credentials to look
	// for, where, and which server to offer them to, when none are given
	// (see localSignIn).
	command, dataDir, embeddedListen string
}

// registerNATSAuth declares the NATS authentication and TLS flags.
func registerNATSAuth(fs *flag.FlagSet, getenv Env, a *NATSAuth) {
	StringVar(fs, getenv, &a.Creds, "nats-creds", "NATS_CREDS", "", "NATS credentials file (decentralized JWT auth)")
	StringVar(fs, getenv, &a.NKeyFile, "nats-nkey", "NATS_NKEY_FILE", "", "file holding the NATS user's NKey seed (or give the seed itself in NATS_NKEY)")
	StringVar(fs, getenv, &a.TLSCA, "nats-tls-ca", "NATS_TLS_CA", "", "PEM file of the CA(s) that sign the NATS servers' certificates; setting any --nats-tls-* flag requires TLS")
	StringVar(fs, getenv, &a.TLSCert, "nats-tls-cert", "NATS_TLS_CERT", "", "PEM client certificate for NATS servers that verify clients")
	StringVar(fs, getenv, &a.TLSKey, "nats-tls-key", "NATS_TLS_KEY", "", "PEM key of --nats-tls-cert")
	a.NKeySeed = getenv("NATS_NKEY")
	a.command = fs.Name()
	a.dataDir = envOr(getenv, dataDirEnv, DefaultDataDir)
	a.embeddedListen = envOr(getenv, embeddedListenEnv, DefaultEmbeddedListen)
}

// Given reports whether any credential or TLS setting is given, by flag
// or environment.
func (a *NATSAuth) Given() bool {
	return a.Creds != "" || a.NKeyFile != "" || a.NKeySeed != "" || a.TLSCA != "" || a.TLSCert != "" || a.TLSKey != ""
}

// Validate reports settings that cannot work together, naming the flags.
func (a *NATSAuth) Validate() error {
	var errs []error
	if a.NKeyFile != "" && a.NKeySeed != "" {
		errs = append(errs, errors.New("--nats-nkey (NATS_NKEY_FILE) and NATS_NKEY are both set; set one"))
	}
	if a.Creds != "" && (a.NKeyFile != "" || a.NKeySeed != "") {
		errs = append(errs, errors.New("--nats-creds (NATS_CREDS) and an NKey (--nats-nkey, NATS_NKEY_FILE or NATS_NKEY) are both set; a user signs in with one"))
	}
	if (a.TLSCert == "") != (a.TLSKey == "") {
		errs = append(errs, errors.New("--nats-tls-cert (NATS_TLS_CERT) and --nats-tls-key (NATS_TLS_KEY) go together; set both or neither"))
	}
	return errors.Join(errs...)
}

// Options returns the nats.Options the settings ask for. Every file is
// read now, so a wrong path or a malformed key is an error at start that
// names its flag, not a connection that retries forever.
func (a *NATSAuth) Options(log *slog.Logger) ([]nats.Option, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	opts := []nats.Option{nats.ErrorHandler(asyncErrorLogger(log)), nats.ReconnectErrHandler(connectErrorLogger(log))}
	if a.Creds != "" {
		if _, err := os.Stat(a.Creds); err != nil {
			return nil, fmt.Errorf("--nats-creds (NATS_CREDS): %w", err)
		}
		opts = append(opts, nats.UserCredentials(a.Creds))
	}
	if a.NKeyFile != "" || a.NKeySeed != "" {
		o, err := a.nkey()
		if err != nil {
			return nil, err
		}
		opts = append(opts, o)
	}
	if a.TLSCA != "" || a.TLSCert != "" {
		cfg, err := a.tlsConfig()
		if err != nil {
			return nil, err
		}
		opts = append(opts, nats.Secure(cfg))
	}
	if user := localUserOf(a.command); user != "" && !a.Given() {
		opts = append(opts, localSignIn(a.dataDir, a.embeddedListen, user, log))
	}
	return opts, nil
}

// localSignIn signs a command in to the all-in-one's embedded NATS with the
// seed the all-in-one wrote for it (LocalSeedFile), so that the commands
// beside `make run` need no flags. It reads dataDir, relative to the
// working directory, as `make run` writes it from the repository root. The
// seed is offered only to the all-in-one: every server dialed is on this
// machine (localhost or a loopback address) at the port of listen, where
// the all-in-one listens, and no URL carries a user of its own: the
// client fails to connect to a NATS that asks for no credentials, such as
// the benchmark's, when it offers a key ("nkeys not supported by the
// server"). Only nats.Connect knows the servers dialed, so this is an
// Option. It logs
// which file it used or, when there is none, where it looked; a seed that
// others may read is refused.
func localSignIn(dataDir, listen string, user LocalUser, log *slog.Logger) nats.Option {
	return func(o *nats.Options) error {
		if o.InProcessServer != nil || o.Nkey != "" || o.UserJWT != nil || o.User != "" || o.Token != "" || !dialsAllInOne(o.Servers, listen) {
			return nil
		}
		path := LocalSeedFile(dataDir, user)
		kp, err := readLocalSeed(path)
		if errors.Is(err, os.ErrNotExist) {
			log.Info("no nats credentials given, and none in the all-in-one's data directory; connecting without", "looked_for", path)
			return nil
		}
		if err != nil {
			return fmt.Errorf("the all-in-one's credentials: %w", err)
		}
		pub, err := kp.PublicKey()
		if err != nil {
			return err
		}
		log.Info("signing in to nats as the all-in-one's "+string(user)+" user", "nkey_file", path)
		return nats.Nkey(pub, kp.Sign)(o)
	}
}

// dialsAllInOne reports whether every server is the all-in-one listening
// on listen, reached on this machine: the same port, on localhost or a
// loopback address, with no user in the URL.
func dialsAllInOne(servers []string, listen string) bool {
	host, port, err := net.SplitHostPort(listen)
	if err != nil || !(loopback(host) || host == "" || net.ParseIP(host).IsUnspecified()) {
		return false
	}
	for _, s := range servers {
		if !strings.Contains(s, "://") {
			s = "nats://" + s
		}
		u, err := url.Parse(s)
		if err != nil || u.User != nil || !loopback(u.Hostname()) || cmp.Or(u.Port(), strconv.Itoa(nats.DefaultPort)) != port {
			return false
		}
	}
	return len(servers) > 0
}

// loopback reports whether host names this machine.
func loopback(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || (ip != nil && ip.IsLoopback())
}

// nkey signs the server's nonce with the user's seed. The key pair stays
// in memory for reconnects; the seed is never logged.
func (a *NATSAuth) nkey() (nats.Option, error) {
	source, seed := "NATS_NKEY", []byte(a.NKeySeed)
	if a.NKeyFile != "" {
		source = "--nats-nkey (NATS_NKEY_FILE)"
		b, err := os.ReadFile(a.NKeyFile)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", source, err)
		}
		seed = b
	}
	kp, err := parseUserSeed(source, seed)
	if err != nil {
		return nil, err
	}
	pub, err := kp.PublicKey()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return nats.Nkey(pub, kp.Sign), nil
}

// parseUserSeed reads a user's seed from a file's content, naming source
// (a flag, a variable or a file) and never the content in its errors.
func parseUserSeed(source string, seed []byte) (nkeys.KeyPair, error) {
	// A seed file as nk writes it, or one decorated like a .creds file.
	kp, err := nkeys.ParseDecoratedNKey(seed)
	if err != nil {
		kp, err = nkeys.FromSeed([]byte(strings.TrimSpace(string(seed))))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: not an NKey seed: %w", source, err)
	}
	if _, err := kp.Seed(); err != nil {
		return nil, fmt.Errorf("%s: holds a public key; give the user's seed (SU…)", source)
	}
	pub, err := kp.PublicKey()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	if !nkeys.IsValidPublicUserKey(pub) {
		return nil, fmt.Errorf("%s: the seed is not a user seed (SU…)", source)
	}
	return kp, nil
}

func (a *NATSAuth) tlsConfig() (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if a.TLSCA != "" {
		pem, err := os.ReadFile(a.TLSCA)
		if err != nil {
			return nil, fmt.Errorf("--nats-tls-ca (NATS_TLS_CA): %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--nats-tls-ca (NATS_TLS_CA): %s holds no PEM certificate", a.TLSCA)
		}
		cfg.RootCAs = pool
	}
	if a.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(a.TLSCert, a.TLSKey)
		if err != nil {
			return nil, fmt.Errorf("--nats-tls-cert (NATS_TLS_CERT), --nats-tls-key (NATS_TLS_KEY): %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// asyncErrorLogger logs what the server reports outside any request: a
// permissions violation (a publish or subscribe the user may not make,
// which the server drops) is how a misconfigured user shows itself, so it
// is an error, not a warning.
func asyncErrorLogger(log *slog.Logger) nats.ErrHandler {
	return func(_ *nats.Conn, sub *nats.Subscription, err error) {
		attrs := []any{"err", err}
		if sub != nil {
			attrs = append(attrs, "subject", sub.Subject)
		}
		if errors.Is(err, nats.ErrPermissionViolation) || errors.Is(err, nats.ErrAuthorization) {
			log.Error("nats refused an operation: check this user's permissions", attrs...)
			return
		}
		log.Warn("nats error", attrs...)
	}
}

// connectErrorLogger logs why a connection attempt failed (a refused or
// untrusted certificate, a server that cannot be reached), which would
// otherwise only show as a process that never gets ready. The connection
// retries every half second, so an error is logged when it differs from
// the last one, not on every attempt.
func connectErrorLogger(log *slog.Logger) nats.ConnErrHandler {
	var mu sync.Mutex
	last := ""
	return func(_ *nats.Conn, err error) {
		if err == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if err.Error() == last {
			return
		}
		last = err.Error()
		log.Warn("nats connection attempt failed; retrying", "err", err)
	}
}
