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
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/query/notify"
	"github.com/zoneprice/zoneprice/query/subscribe"
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
	LocalIngest LocalUser = "ingest"
	// LocalAdmin is zoneprice-admin's: accounts.conf's ADMIN, which
	// provisions and manages the API keys but publishes no data.
	LocalAdmin LocalUser = "admin"
	// LocalQuery is zoneprice-query's: accounts.conf's QUERY, which reads
	// the state stream and watches the keys.
	LocalQuery LocalUser = "query"
	// LocalNotify is zoneprice-notify's: accounts.conf's NOTIFY, which
	// follows the history and sends the webhook deliveries.
	LocalNotify LocalUser = "notify"
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

// localPermissions is what user may do: allow lists, as in
// deploy/nats/accounts.conf, whose ADMIN and QUERY these are (a test holds
// them equal). Every user subscribes to _INBOX.> for the JetStream API's
// replies and its consumers' deliveries.
func localPermissions(user LocalUser) *server.Permissions {
	state, history, keys := contracts.StateStream, contracts.HistoryStream, "KV_"+contracts.KeysBucket
	provision := []string{"$JS.API.INFO"}
	read := []string{}
	subscribers := "KV_" + contracts.SubscribersBucket
	provisioned := []string{state, history, keys, contracts.DeliveriesStream, contracts.AttemptsStream, "KV_" + contracts.WebhooksBucket, subscribers}
	for _, s := range provisioned {
		provision = append(provision, "$JS.API.STREAM.INFO."+s, "$JS.API.STREAM.CREATE."+s, "$JS.API.STREAM.UPDATE."+s)
	}
	for _, s := range []string{state, history} {
		read = append(read, "$JS.API.STREAM.INFO."+s, "$JS.API.CONSUMER.CREATE."+s+".>",
			"$JS.API.CONSUMER.MSG.NEXT."+s+".>", "$JS.API.CONSUMER.DELETE."+s+".>")
	}
	// A key-value watch reads through a consumer and answers its flow
	// control; unanswered, the watch stalls.
	watchKeys := []string{
		"$JS.API.STREAM.INFO." + keys,
		"$JS.API.CONSUMER.CREATE." + keys + ".>",
		"$JS.API.CONSUMER.DELETE." + keys + ".>",
		"$JS.FC." + keys + ".>",
	}
	// The webhook API's: the registrations read, listed and changed, test
	// deliveries queued, and an endpoint's attempts read.
	webhooks, attempts := "KV_"+contracts.WebhooksBucket, contracts.AttemptsStream
	webhookAPI := []string{
		"$JS.API.STREAM.INFO." + webhooks,
		"$JS.API.DIRECT.GET." + webhooks + ".>",
		"$JS.API.CONSUMER.CREATE." + webhooks + ".>",
		"$JS.API.CONSUMER.DELETE." + webhooks + ".>",
		"$JS.FC." + webhooks + ".>",
		"$KV." + contracts.WebhooksBucket + ".>",
		contracts.DeliverySubjectPrefix + ">",
		"$JS.API.CONSUMER.CREATE." + attempts + ".>",
		"$JS.API.CONSUMER.MSG.NEXT." + attempts + ".>",
		"$JS.API.CONSUMER.DELETE." + attempts + ".>",
	}
	// The subscription form's: an address's record read and written
	// (compare and set), never listed.
	subscribeForm := []string{
		"$JS.API.STREAM.INFO." + subscribers,
		"$JS.API.DIRECT.GET." + subscribers + ".>",
		"$KV." + contracts.SubscribersBucket + ".>",
	}
	var publish []string
	switch user {
	case LocalIngest:
		publish = slices.Concat(provision, read, []string{
			contracts.PriceSubjectPrefix + ">", contracts.ChangeSubjectPrefix + ">",
			contracts.ZoneSubjectPrefix + ">", contracts.RatesSubjectPrefix + ">",
			"$JS.API.DIRECT.GET." + state + ".>",
		})
	case LocalAdmin:
		publish = slices.Concat(provision, watchKeys, []string{
			"$JS.API.DIRECT.GET." + keys + ".>",
			"$KV." + contracts.KeysBucket + ".>",
			contracts.RepublishSubject,
			// zoneprice-admin webhooks.
			"$JS.API.DIRECT.GET." + webhooks + ".>",
			"$JS.API.CONSUMER.CREATE." + webhooks + ".>",
			"$JS.API.CONSUMER.DELETE." + webhooks + ".>",
			"$JS.FC." + webhooks + ".>",
			"$KV." + contracts.WebhooksBucket + ".>",
			// zoneprice-admin announce reads the subscribers.
			"$JS.API.DIRECT.GET." + subscribers + ".>",
			"$JS.API.CONSUMER.CREATE." + subscribers + ".>",
			"$JS.API.CONSUMER.DELETE." + subscribers + ".>",
			"$JS.FC." + subscribers + ".>",
		})
	case LocalQuery:
		publish = slices.Concat(read, watchKeys, webhookAPI, subscribeForm)
	case LocalNotify:
		publish = notifyPermissions()
	}
	slices.Sort(publish)
	p := &server.Permissions{
		Publish:   &server.SubjectPermission{Allow: slices.Compact(publish)},
		Subscribe: &server.SubjectPermission{Allow: []string{"_INBOX.>"}},
	}
	if user == LocalIngest {
		// Ingesters hear zoneprice-admin stream republish, and answer it.
		p.Subscribe.Allow = append(p.Subscribe.Allow, contracts.RepublishSubject)
		p.Response = &server.ResponsePermission{MaxMsgs: 1, Expires: time.Minute}
	}
	return p
}

// notifyPermissions is what zoneprice-notify publishes to: accounts.conf's
// NOTIFY. Its consumers on the history and the deliveries are its own
// durable ones, named; the zones are read from the state stream as a query
// pod reads it; the webhooks bucket is watched, and written where notify
// records an endpoint's failures.
func notifyPermissions() []string {
	state, history, deliveries := contracts.StateStream, contracts.HistoryStream, contracts.DeliveriesStream
	webhooks, subscribers := "KV_"+contracts.WebhooksBucket, "KV_"+contracts.SubscribersBucket
	return []string{
		"$JS.API.STREAM.INFO." + state,
		"$JS.API.CONSUMER.CREATE." + state + ".>",
		"$JS.API.CONSUMER.MSG.NEXT." + state + ".>",
		"$JS.API.CONSUMER.DELETE." + state + ".>",
		"$JS.API.CONSUMER.CREATE." + history + "." + notify.DispatchConsumer,
		"$JS.API.CONSUMER.MSG.NEXT." + history + "." + notify.DispatchConsumer,
		"$JS.ACK." + history + "." + notify.DispatchConsumer + ".>",
		contracts.DeliverySubjectPrefix + ">",
		"$JS.API.STREAM.INFO." + deliveries,
		"$JS.API.CONSUMER.CREATE." + deliveries + "." + notify.DeliverConsumer,
		"$JS.API.CONSUMER.INFO." + deliveries + "." + notify.DeliverConsumer,
		"$JS.API.CONSUMER.MSG.NEXT." + deliveries + "." + notify.DeliverConsumer,
		"$JS.ACK." + deliveries + "." + notify.DeliverConsumer + ".>",
		contracts.AttemptSubjectPrefix + ">",
		"$JS.API.STREAM.INFO." + webhooks,
		"$JS.API.CONSUMER.CREATE." + webhooks + ".>",
		"$JS.API.CONSUMER.DELETE." + webhooks + ".>",
		"$JS.FC." + webhooks + ".>",
		"$JS.API.DIRECT.GET." + webhooks + ".>",
		"$KV." + contracts.WebhooksBucket + ".>",
		// The price-drop digests: their own durable consumer of the
		// history, and the subscribers watched and their records written.
		"$JS.API.CONSUMER.CREATE." + history + "." + subscribe.AlertsConsumer,
		"$JS.API.CONSUMER.MSG.NEXT." + history + "." + subscribe.AlertsConsumer,
		"$JS.ACK." + history + "." + subscribe.AlertsConsumer + ".>",
		"$JS.API.STREAM.INFO." + subscribers,
		"$JS.API.CONSUMER.CREATE." + subscribers + ".>",
		"$JS.API.CONSUMER.DELETE." + subscribers + ".>",
		"$JS.FC." + subscribers + ".>",
		"$JS.API.DIRECT.GET." + subscribers + ".>",
		"$KV." + contracts.SubscribersBucket + ".>",
	}
}
