// Package contracts is the shared vocabulary of the zone price service: the
// versioned events that ingesters publish and query pods consume (Encode,
// Decode), the NATS subject scheme and stream configuration, zone-name
// normalisation, money in integer minor units, the API's error codes, and
// the records of the subscribers' API keys.
//
// It imports nothing else from this module; every other package speaks in its
// types.
package contracts
