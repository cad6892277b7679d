// Package bus is where the service's streams meet JetStream: the declared
// configuration of the streams and buckets named in package contracts and
// their provisioning; the Publisher that ingesters publish events with;
// Streams and its Reader, the one reader of the last message on each
// subject (then of what follows) that ingesters, query pods and the
// stand-in sources share; the records of the key-value buckets, with their
// one compare-and-set loop (Records); and the republish protocol between
// zoneprice-admin and the ingesters. Package contracts says what the
// streams and their documents mean and does no I/O; this package does the
// I/O. The packages that read and publish through it declare the small
// interfaces they use; its tests prove it satisfies them.
package bus

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/zoneprice/zoneprice/contracts"
)

// Options are the deployment choices provisioning leaves open.
type Options struct {
	// Replicas is the number of stream replicas: 1 for a single server,
	// 3 on a three-node cluster. Below 1 means 1.
	Replicas int
	// HistoryRetention is how long the history stream keeps a change;
	// zero means DefaultHistoryRetention.
	HistoryRetention time.Duration
}

func (o Options) replicas() int { return max(o.Replicas, 1) }

func (o Options) historyRetention() time.Duration {
	if o.HistoryRetention <= 0 {
		return DefaultHistoryRetention
	}
	return o.HistoryRetention
}

// DefaultHistoryRetention keeps three years of changes (1,096 days).
const DefaultHistoryRetention = 1096 * 24 * time.Hour

// The state stream's bounds: about ten times the benchmark's data set of
// 225,000 prices, and a hundred times every real registrar's list
// together.
const (
	MaxStateMsgs  = 2_000_000
	MaxStateBytes = 2 << 30
)

// StateConfig is the declared configuration of contracts.StateStream.
func StateConfig(o Options) jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:        contracts.StateStream,
		Description: "current zone prices, zone metadata and exchange rates (last value per subject)",
		Subjects:    contracts.StateSubjects(),
		Retention:   jetstream.LimitsPolicy,
		Storage:     jetstream.FileStorage,
		Replicas:    o.replicas(),
		// One message per subject is the current state; it is also what
		// lets the server answer deliver-last-per-subject on its fast path.
		MaxMsgsPerSubject: 1,
		// Bounds with ample headroom (the benchmark's 225,000 prices are
		// about 90 MB): a flood of new subjects is refused once they are
		// reached, while every existing subject can still be updated.
		// Discarding old messages instead would silently drop some
		// registrar's current price to make room.
		MaxMsgs:     MaxStateMsgs,
		MaxBytes:    MaxStateBytes,
		Discard:     jetstream.DiscardNew,
		Duplicates:  contracts.DuplicateWindow,
		AllowDirect: true,
		MaxMsgSize:  contracts.MaxEventSize,
	}
}

// The history stream's bounds: 25 times the benchmark's three years of
// 2,000,000 changes (about 1.3 GB), as a limit on disk against a source
// gone wrong, never reached by real changes.
const (
	MaxHistoryMsgs  = 50_000_000
	MaxHistoryBytes = 32 << 30
)

// HistoryConfig is the declared configuration of contracts.HistoryStream.
func HistoryConfig(o Options) jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:        contracts.HistoryStream,
		Description: "every change of what a registrar charges for a zone, oldest first",
		Subjects:    contracts.HistorySubjects(),
		Retention:   jetstream.LimitsPolicy,
		Storage:     jetstream.FileStorage,
		Replicas:    o.replicas(),
		MaxAge:      o.historyRetention(),
		// Every change of a subject is kept (the server's -1; 0 would
		// read back as -1 and look like drift).
		MaxMsgsPerSubject: -1,
		// Past the bounds the oldest changes go, unlike the state
		// stream's refusal of new subjects: an ingester publishes a
		// zone's change before its new price, so refusing changes would
		// freeze every price.
		MaxMsgs:     MaxHistoryMsgs,
		MaxBytes:    MaxHistoryBytes,
		Discard:     jetstream.DiscardOld,
		Duplicates:  contracts.DuplicateWindow,
		AllowDirect: true,
		MaxMsgSize:  contracts.MaxEventSize,
	}
}

// KeysConfig is the declared configuration of contracts.KeysBucket. One
// revision per key is enough: a revoked key is deleted, and the admin
// command's list is the audit that matters.
func KeysConfig(o Options) jetstream.KeyValueConfig {
	return jetstream.KeyValueConfig{
		Bucket:       contracts.KeysBucket,
		Description:  "subscriber API keys: the SHA-256 of each key with its tier and note, under the key's id",
		History:      1,
		Storage:      jetstream.FileStorage,
		Replicas:     o.replicas(),
		MaxValueSize: 4 << 10,
	}
}

// WebhooksConfig is the declared configuration of contracts.WebhooksBucket:
// one revision per registration (the API's updates compare and set on it).
func WebhooksConfig(o Options) jetstream.KeyValueConfig {
	return jetstream.KeyValueConfig{
		Bucket:       contracts.WebhooksBucket,
		Description:  "subscribers' webhook registrations, with their signing secrets, under each webhook's id",
		History:      1,
		Storage:      jetstream.FileStorage,
		Replicas:     o.replicas(),
		MaxValueSize: 64 << 10,
	}
}

// WebhookOwnersConfig is the declared configuration of
// contracts.WebhookOwnersBucket: one revision per key (the store compares
// and sets on it), and room for the ids of access.MaxEndpoints webhooks.
func WebhookOwnersConfig(o Options) jetstream.KeyValueConfig {
	return jetstream.KeyValueConfig{
		Bucket:       contracts.WebhookOwnersBucket,
		Description:  "which webhooks each API key has registered, under the key's id, as its tier's limit counts them",
		History:      1,
		Storage:      jetstream.FileStorage,
		Replicas:     o.replicas(),
		MaxValueSize: 768 << 10,
	}
}

// The deliveries stream's bounds: a million pending deliveries is a
// hundred changes fanned out to 10,000 endpoints that are all down.
// Past them a new delivery is refused (and notify retries queueing it)
// rather than an older pending one dropped. Within them each endpoint
// may have contracts.MaxQueuedPerEndpoint waiting, and each key
// contracts.MaxQueuedPerKey.
const (
	MaxDeliveryMsgs  = 1_000_000
	MaxDeliveryBytes = 4 << 30
)

// DeliveriesConfig is the declared configuration of
// contracts.DeliveriesStream: a work queue, so that a delivery leaves the
// stream once a notify worker acknowledges it, and a message id window so
// that a delivery queued twice is kept once. Nothing ages out: the
// retry schedule spans more than three days, and a delivery ends only by
// a worker's decision.
//
// Its subjects are deliveries.v1.<key>.<webhook>, and, for deliveries
// queued before the key was in the subject, deliveries.v1.<webhook>.
// Each subject, one endpoint's, holds at most
// contracts.MaxQueuedPerEndpoint: the server refuses the next one
// (DiscardNewPerSubject), whoever publishes it. The limit came with an
// update of the stream, which cut an endpoint holding more down to it,
// its oldest deliveries first.
func DeliveriesConfig(o Options) jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:                 contracts.DeliveriesStream,
		Description:          "webhook deliveries waiting to be sent or retried, one per change and endpoint",
		Subjects:             []string{contracts.DeliverySubjectPrefix + ">"},
		Retention:            jetstream.WorkQueuePolicy,
		Storage:              jetstream.FileStorage,
		Replicas:             o.replicas(),
		MaxMsgs:              MaxDeliveryMsgs,
		MaxBytes:             MaxDeliveryBytes,
		MaxMsgsPerSubject:    contracts.MaxQueuedPerEndpoint,
		Discard:              jetstream.DiscardNew,
		DiscardNewPerSubject: true,
		Duplicates:           contracts.DuplicateWindow,
		MaxMsgSize:           contracts.MaxPayloadSize + 1024,
	}
}

// AttemptsRetention is how long an endpoint's recorded attempts are kept.
const AttemptsRetention = 30 * 24 * time.Hour

// maxAttemptsRecordSize bounds a message of contracts.AttemptsStream, in
// bytes: the stream's MaxMsgSize, which RecordAll fills up to. The
// stream keeps contracts.MaxAttemptsKept messages of each endpoint, so it
// holds at most 400 KiB of each.
const maxAttemptsRecordSize = 4 << 10

// AttemptsConfig is the declared configuration of contracts.AttemptsStream:
// the last contracts.MaxAttemptsKept messages of each endpoint, each of
// one to contracts.MaxAttemptsPerMessage attempts, for at most AttemptsRetention.
func AttemptsConfig(o Options) jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:              contracts.AttemptsStream,
		Description:       "each webhook endpoint's recent delivery attempts",
		Subjects:          []string{contracts.AttemptSubjectPrefix + "*"},
		Retention:         jetstream.LimitsPolicy,
		Storage:           jetstream.FileStorage,
		Replicas:          o.replicas(),
		MaxAge:            AttemptsRetention,
		MaxMsgsPerSubject: contracts.MaxAttemptsKept,
		MaxBytes:          1 << 30,
		Discard:           jetstream.DiscardOld,
		AllowDirect:       true,
		MaxMsgSize:        maxAttemptsRecordSize,
	}
}

// SubscribersConfig is the declared configuration of
// contracts.SubscribersBucket: one revision per address (the form and the
// alerts compare and set on it), so that an address deleted by
// unsubscribing leaves no earlier revision behind.
func SubscribersConfig(o Options) jetstream.KeyValueConfig {
	return jetstream.KeyValueConfig{
		Bucket:       contracts.SubscribersBucket,
		Description:  "email subscribers: address, interests and pending price-drop digest, under a hash of the address",
		History:      1,
		Storage:      jetstream.FileStorage,
		Replicas:     o.replicas(),
		MaxValueSize: 64 << 10,
	}
}

// Provision creates the state, history, deliveries and attempts streams
// and the API keys, webhooks, webhook owners and subscribers buckets, or updates them to
// the declared configuration. It is idempotent and safe to run from every process that
// starts.
func Provision(ctx context.Context, js jetstream.JetStream, o Options) error {
	for _, cfg := range []jetstream.StreamConfig{StateConfig(o), HistoryConfig(o), DeliveriesConfig(o), AttemptsConfig(o)} {
		if _, err := js.CreateOrUpdateStream(ctx, cfg); err != nil {
			return fmt.Errorf("provision stream %s: %w", cfg.Name, err)
		}
	}
	if _, err := ProvisionKeys(ctx, js, o); err != nil {
		return err
	}
	for _, cfg := range []jetstream.KeyValueConfig{WebhooksConfig(o), WebhookOwnersConfig(o), SubscribersConfig(o)} {
		if _, err := js.CreateOrUpdateKeyValue(ctx, cfg); err != nil {
			return fmt.Errorf("provision key-value bucket %s: %w", cfg.Bucket, err)
		}
	}
	return nil
}

// ProvisionKeys creates the API keys bucket, or updates it to the declared
// configuration. Query pods never call it: they only need to read the
// bucket.
func ProvisionKeys(ctx context.Context, js jetstream.JetStream, o Options) (jetstream.KeyValue, error) {
	kv, err := js.CreateOrUpdateKeyValue(ctx, KeysConfig(o))
	if err != nil {
		return nil, fmt.Errorf("provision key-value bucket %s: %w", contracts.KeysBucket, err)
	}
	return kv, nil
}
