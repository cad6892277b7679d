package app

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"

	"github.com/zoneprice/zoneprice/contracts/bus"
)

// LocalUser is a user of the all-in-one's embedded NATS that the separate
// commands on the same machine sign in as. The all-in-one makes each one's
// NKey seed in its data directory on first start (LocalSeedFile), and the
// commands find it there (see localSignIn). Each may do what its
// command does and no more, as the cluster's users in
// deploy/nats/accounts.conf: a command cannot forge an API key unless it
// is zoneprice-admin, and none may purge or delete a stream.
type LocalUser string

const (
	// LocalIngest is zoneprice-ingest's: it provisions the state stream
	// and the keys bucket (--provision on is the default), publishes
	// prices, zone metadata and rates of any source, and reads the state
	// stream. It may not touch the API keys.
	LocalIngest = LocalUser(bus.RoleIngest)
	// LocalAdmin is zoneprice-admin's: accounts.conf's ADMIN, which
	// provisions and manages the API keys but publishes no data.
	LocalAdmin = LocalUser(bus.RoleAdmin)
	// LocalQuery is zoneprice-query's: accounts.conf's QUERY, which reads
	// the state stream and watches the keys.
	LocalQuery = LocalUser(bus.RoleQuery)
	// LocalNotify is zoneprice-notify's: accounts.conf's NOTIFY, which
	// follows the history and sends the webhook deliveries.
	LocalNotify = LocalUser(bus.RoleNotify)
)

// localUserOf is the user the command named (as its flag set is) signs in
// as; "" for a command that never looks for the all-in-one's credentials,
// such as the all-in-one itself when it joins another NATS. The name, not
// a setting, decides, so no command has to ask for it.
func localUserOf(command string) LocalUser {
	switch command {
	case "zoneprice-ingest":
		return LocalIngest
	case "zoneprice-admin":
		return LocalAdmin
	case "zoneprice-query":
		return LocalQuery
	case "zoneprice-notify":
		return LocalNotify
	}
	return ""
}

// DefaultDataDir is the all-in-one's --data-dir unless set: its JetStream
// store and its users' credentials, relative to the working directory, as
// `make run` runs it from the repository root.
const DefaultDataDir = "data/nats"

// DefaultEmbeddedListen is the all-in-one's --embedded-listen unless set:
// where its NATS accepts the commands on this machine.
const DefaultEmbeddedListen = "127.0.0.1:4222"

// The variables that set the all-in-one's --data-dir and
// --embedded-listen. The other commands read them too, to find the
// credentials and the server to offer them to.
const (
	dataDirEnv        = "ZONEPRICE_DATA_DIR"
	embeddedListenEnv = "ZONEPRICE_EMBEDDED_LISTEN"
)

// LocalSeedFile is where the all-in-one with data directory dataDir keeps
// user's NKey seed.
func LocalSeedFile(dataDir string, user LocalUser) string {
	return filepath.Join(localCredentialsDir(dataDir), string(user)+".nk")
}

func localCredentialsDir(dataDir string) string { return filepath.Join(dataDir, "credentials") }

// localNkeyUsers makes the seeds of the local users that dataDir does not
// hold yet, and returns every local user as the server admits it: its
// public key and permissions. A seed is never replaced: a command started
// with an earlier one keeps working. The directory is the owner's alone
// (0700) and each seed readable by the owner only (0600); one that others
// may read is refused, as ssh refuses such a key, since anyone who read it
// may sign in.
func localNkeyUsers(dataDir string, log *slog.Logger) ([]*server.NkeyUser, error) {
	dir := localCredentialsDir(dataDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	info, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if err := ownerOnly(dir, info, "700", ""); err != nil {
		return nil, err
	}
	var made []string
	var users []*server.NkeyUser
	for _, u := range []LocalUser{LocalIngest, LocalAdmin, LocalQuery, LocalNotify} {
		path := LocalSeedFile(dataDir, u)
		created, err := writeNewSeed(path)
		if err != nil {
			return nil, err
		}
		if created {
			made = append(made, string(u))
		}
		kp, err := readLocalSeed(path)
		if err != nil {
			return nil, fmt.Errorf("%w; deleting it makes a new one at the next start", err)
		}
		pub, err := kp.PublicKey()
		kp.Wipe() // the server needs the public key only
		if err != nil {
			return nil, err
		}
		users = append(users, &server.NkeyUser{Nkey: pub, Permissions: localPermissions(u)})
	}
	if len(made) > 0 {
		log.Info("made nats credentials for the local commands", "dir", dir, "users", strings.Join(made, ","))
	}
	return users, nil
}

// writeNewSeed writes a new user seed to path unless a file is there, and
// reports whether it did.
func writeNewSeed(path string) (bool, error) {
	kp, err := nkeys.CreateUser()
	if err != nil {
		return false, err
	}
	defer kp.Wipe()
	seed, err := kp.Seed()
	if err != nil {
		return false, err
	}
	return writeNewFile(path, append(seed, '\n'))
}

// writeNewFile writes a secret to path, readable by its owner alone,
// unless a file is there, and reports whether it did.
func writeNewFile(path string, secret []byte) (bool, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	_, err = f.Write(secret)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, fmt.Errorf("write %s: %w", path, err)
	}
	return true, nil
}

// readLocalSeed reads a seed the all-in-one wrote, refusing it when other
// users may read it. Errors name the file, never its content.
func readLocalSeed(path string) (nkeys.KeyPair, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a file", path)
	}
	if err := ownerOnly(path, info, "600", ", who could sign in to nats with it"); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, 4<<10))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return parseUserSeed(path, b)
}

// ownerOnly refuses a file or directory that users other than its owner
// may use, saying why it matters and how to fix it (the mode fix). Windows
// has no such mode bits; its ACLs are left to the operator.
func ownerOnly(path string, info fs.FileInfo, fix, why string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("%s is open to other users (mode %04o)%s: chmod %s %s", path, perm, why, fix, path)
	}
	return nil
}

// localPermissions is what user may do: its role's allow lists on the bus
// (bus.PermissionsOf), which a test holds to deploy/nats/accounts.conf.
// Ingesters answer zoneprice-admin's republish request, one answer within
// a minute.
func localPermissions(user LocalUser) *server.Permissions {
	perms := bus.PermissionsOf(bus.Role(user))
	p := &server.Permissions{
		Publish:   &server.SubjectPermission{Allow: perms.Publish},
		Subscribe: &server.SubjectPermission{Allow: perms.Subscribe},
	}
	if perms.Respond {
		p.Response = &server.ResponsePermission{MaxMsgs: 1, Expires: time.Minute}
	}
	return p
}
