// Package cache holds the query service's authoritative zone Index, which
// one goroutine (the consumer) applies events to, and the responses rendered
// from it: immutable Snapshots of pre-rendered bodies that requests read.
// Responses, a bounded ristretto cache, holds only derived views (bodies for
// query options and zone aliases, which cannot all be pre-rendered); it is
// never a source of truth.
//
// The files follow a price: index.go applies it to the Index; build.go
// renders the zones it changed into a new Snapshot, showing prices as
// style.go says and writing JSON with json.go; body.go gives each body its
// ETag and, on demand, its gzip form; snapshot.go holds the bodies for
// requests and renders others for the query options of options.go;
// responses.go caches those.
package cache
