package api

import (
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/cache"
	"github.com/zoneprice/zoneprice/contracts"
)

// SnapshotOf is the snapshot a pod in USD serves once it has applied
// events in order, each stored at at, and built it at at: the data of a
// handler test, which needs no stream. It is here, in package query, so
// that both this package's tests and query_test's build data one way.
func SnapshotOf(t testing.TB, at time.Time, events ...contracts.Event) *cache.Snapshot {
	t.Helper()
	x := cache.NewIndex("USD")
	for i, ev := range events {
		if err := ev.Validate(); err != nil {
			t.Fatalf("fixture %T is not a valid event: %v", ev, err)
		}
		x.Apply(uint64(i+1), at, ev)
	}
	return x.Build(at)
}

// APIRoot are the paths that send a person to /docs, which are no
// endpoints of the API.
var APIRoot = apiRoot

// MCPPath is where the API answers agents over MCP.
const MCPPath = mcpPath

// PrefersCSV reads Accept field lines as the catalog and comparison do.
var PrefersCSV = prefersCSV
