package bus_test

import (
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/query/replay"
)

// The bus is what the ingesters and the query pods' replay read and
// publish through: each declares the small interfaces it consumes, and
// these lines prove the bus satisfies them.
var (
	_ ingest.LastReader  = (*bus.Streams)(nil)
	_ ingest.StateReader = (*bus.Streams)(nil)
	_ ingest.Sender      = (*bus.Publisher)(nil)

	_ replay.Reader               = (*bus.Reader)(nil)
	_ replay.Heads                = (*bus.Streams)(nil)
	_ replay.Streams[*bus.Reader] = (*bus.Streams)(nil)
)
