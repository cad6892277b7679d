package bus

import (
	"slices"

	"github.com/zoneprice/zoneprice/contracts"
)

// Role is what one kind of process does on the bus, and so what its NATS
// user may do there: the least a command needs, as the cluster's users in
// deploy/nats/accounts.conf grant it, and the all-in-one's local users
// (cmd/internal/app) are made from. A test holds the two to each other.
type Role string

const (
	// RoleIngest provisions the streams and buckets, publishes prices,
	// changes, zone metadata, rates and registrar statuses of any source,
	// reads the state and history streams, and answers zoneprice-admin's
	// republish request. The cluster's ingesters are narrower: each
	// publishes its own registrars' subjects only (accounts.conf's INGEST_
	// users).
	RoleIngest Role = "ingest"
	// RoleAdmin provisions, and manages the API keys and the webhooks; it
	// reads the subscribers to announce to them, reads the whole state
	// stream to check it (stream check, Verify), and asks the ingesters to
	// republish. It publishes no data. accounts.conf's ADMIN.
	RoleAdmin Role = "admin"
	// RoleQuery reads the state and history streams, follows the keys,
	// serves the webhook API (registrations, test deliveries after
	// counting the key's deliveries waiting, attempts)
	// and the subscription form's record of one address. accounts.conf's
	// QUERY.
	RoleQuery Role = "query"
	// RoleNotify follows the history with its own durable consumers, reads
	// the zones from the state stream, follows and writes the webhook
	// registrations, queues and sends the deliveries, drops a deleted
	// endpoint's (a purge of its subject of the deliveries stream), records
	// attempts, and runs the price-drop digests. accounts.conf's NOTIFY.
	RoleNotify Role = "notify"
)

// Roles are every role, in the order accounts.conf lists them.
var Roles = []Role{RoleAdmin, RoleIngest, RoleQuery, RoleNotify}

// Permissions are a role's allow lists: the subjects it may publish to
// (the JetStream API's among them) and subscribe to, each sorted.
type Permissions struct {
	Publish, Subscribe []string
	// Respond says the role answers requests (a NATS user's
	// allow_responses): the ingesters answer stream republish.
	Respond bool
}

// The JetStream API's subjects for one stream (a bucket's stream is
// "KV_" and its name).
func streamInfo(s string) string { return "$JS.API.STREAM.INFO." + s }
func consumers(s string) []string {
	return []string{"$JS.API.CONSUMER.CREATE." + s + ".>", "$JS.API.CONSUMER.DELETE." + s + ".>"}
}
func directGet(s string) string     { return "$JS.API.DIRECT.GET." + s + ".>" }
func flowControl(s string) string   { return "$JS.FC." + s + ".>" }
func kvStream(bucket string) string { return "KV_" + bucket }

// durable is what a process needs to take its messages from its own
// named durable consumer on stream s, and acknowledge them.
func durable(s, name string) []string {
	return []string{"$JS.API.CONSUMER.CREATE." + s + "." + name, "$JS.API.CONSUMER.MSG.NEXT." + s + "." + name,
		"$JS.ACK." + s + "." + name + ".>"}
}

// read is an ordered consumer's reading of stream s (Reader): one made,
// pulled, asked whether anything is left when a wait runs out, and, after
// a reconnect, the one it replaces deleted.
func read(s string) []string {
	return append([]string{streamInfo(s), "$JS.API.CONSUMER.MSG.NEXT." + s + ".>", "$JS.API.CONSUMER.INFO." + s + ".>"}, consumers(s)...)
}

// watch is a key-value bucket's watch (Records.Follow, List): a consumer
// of its stream whose flow control is answered; unanswered, the watch
// stalls.
func watch(bucket string) []string {
	s := kvStream(bucket)
	return append([]string{streamInfo(s), flowControl(s)}, consumers(s)...)
}

// write is reading one record of a bucket by its key and writing it
// (Records.Get and Change).
func write(bucket string) []string {
	s := kvStream(bucket)
	return []string{streamInfo(s), directGet(s), "$KV." + bucket + ".>"}
}

// provision is creating or updating every stream and bucket (Provision).
func provision() []string {
	out := []string{"$JS.API.INFO"}
	for _, s := range []string{contracts.StateStream, contracts.HistoryStream, kvStream(contracts.KeysBucket), contracts.DeliveriesStream,
		contracts.AttemptsStream, kvStream(contracts.WebhooksBucket), kvStream(contracts.WebhookOwnersBucket), kvStream(contracts.SubscribersBucket)} {
		out = append(out, streamInfo(s), "$JS.API.STREAM.CREATE."+s, "$JS.API.STREAM.UPDATE."+s)
	}
	return out
}

// deliveriesPurge is the one purge any role may ask for: notify's, of a
// deleted endpoint's subject of its own work queue (Deliveries.Drop).
// The server cannot narrow a purge permission to subjects; notify asks
// for nothing but one endpoint's.
const deliveriesPurge = "$JS.API.STREAM.PURGE." + contracts.DeliveriesStream

// PermissionsOf returns what role may do.
func PermissionsOf(role Role) Permissions {
	var publish []string
	p := Permissions{Subscribe: []string{"_INBOX.>"}}
	switch role {
	case RoleIngest:
		publish = slices.Concat(provision(), read(contracts.StateStream), read(contracts.HistoryStream), []string{
			contracts.PriceSubjectPrefix + ">", contracts.ChangeSubjectPrefix + ">",
			contracts.ZoneSubjectPrefix + ">", contracts.RatesSubjectPrefix + ">", contracts.StatusSubjectPrefix + ">",
			directGet(contracts.StateStream),
		})
		p.Subscribe = append(p.Subscribe, contracts.RepublishSubject)
		p.Respond = true
	case RoleAdmin:
		publish = slices.Concat(provision(), read(contracts.StateStream), watch(contracts.KeysBucket), write(contracts.KeysBucket),
			watch(contracts.WebhooksBucket), write(contracts.WebhooksBucket), write(contracts.WebhookOwnersBucket),
			watch(contracts.SubscribersBucket), []string{directGet(kvStream(contracts.SubscribersBucket)), contracts.RepublishSubject})
	case RoleQuery:
		publish = slices.Concat(read(contracts.StateStream), read(contracts.HistoryStream), watch(contracts.KeysBucket),
			watch(contracts.WebhooksBucket), write(contracts.WebhooksBucket), write(contracts.WebhookOwnersBucket), write(contracts.SubscribersBucket),
			[]string{contracts.DeliverySubjectPrefix + ">", streamInfo(contracts.DeliveriesStream), "$JS.API.CONSUMER.MSG.NEXT." + contracts.AttemptsStream + ".>"},
			consumers(contracts.AttemptsStream))
	case RoleNotify:
		publish = slices.Concat(read(contracts.StateStream),
			durable(contracts.HistoryStream, DispatchConsumer), durable(contracts.HistoryStream, AlertsConsumer),
			durable(contracts.DeliveriesStream, DeliverConsumer),
			[]string{streamInfo(contracts.DeliveriesStream), "$JS.API.CONSUMER.INFO." + contracts.DeliveriesStream + "." + DeliverConsumer,
				deliveriesPurge,
				contracts.DeliverySubjectPrefix + ">", contracts.AttemptSubjectPrefix + ">"},
			watch(contracts.WebhooksBucket), write(contracts.WebhooksBucket),
			watch(contracts.SubscribersBucket), write(contracts.SubscribersBucket))
	}
	slices.Sort(publish)
	p.Publish = slices.Compact(publish)
	slices.Sort(p.Subscribe)
	return p
}
