// Package cache holds the query service's authoritative zone Index, which
// one goroutine (the consumer) applies events to, and the responses rendered
// from it: immutable Snapshots of pre-rendered bodies that requests read.
// Responses, a bounded ristretto cache, holds only derived views (bodies for
// query options and zone aliases, which cannot all be pre-rendered); it is
// never a source of truth.
//
// The files follow a price: index.go applies it to the Index; build.go
// renders the zones it changed into views and a new Snapshot, which
// snapshot.go holds for requests, with the query options of options.go.
// catalog.go writes the catalog (/api/domains): a zone's element of it, the
// list filtered, sorted and paged for options, and the categories.
// comparison.go writes a zone's comparison: its rows resolved, summarized,
// sorted and written as JSON, which the catalog takes its minimums and
// costs from. Both show prices as style.go says (currency, rates, the
// moment) and write JSON with json.go; body.go gives each body its ETag and,
// on demand, its gzip form; responses.go caches the bodies rendered for
// options. directory.go keeps each registrar's status and what its live
// prices say, and writes the directory of registrars (/api/registrars),
// rendered again when a registrar changes or turns stale. A change of the history stream goes from history.go, which keeps
// it (records*.go hold the records outside the Go heap where the system
// allows), to history_render.go, which writes a zone's history and the feed
// of changes with the same style.go and json.go.
package cache
