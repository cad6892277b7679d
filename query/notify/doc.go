// Package notify is zoneprice-notify: it delivers webhooks about price
// changes to subscribers' endpoints.
//
// It follows the history stream with a durable consumer its replicas share
// (Dispatcher), matches each change against the registrations it mirrors
// from contracts.WebhooksBucket (Registrations), and queues one delivery per
// matching endpoint on contracts.DeliveriesStream, a work queue. Workers, on
// a second durable consumer the replicas share, send each delivery signed
// as Standard Webhooks says, retry it on contracts.RetrySchedule through
// JetStream's delayed redelivery (so a restart of every replica loses
// nothing), and record each attempt on contracts.AttemptsStream, in
// batches, each endpoint's attempts of a batch one message, before the
// server hears the attempt's outcome (record.go).
// Every connection to a receiver is checked after DNS resolution against
// a deny list of internal addresses (Guard). zoneprice-notify runs the
// garbage collector at GOGC=400 unless GOGC is set (README.md, Speed).
// See README.md.
package notify
