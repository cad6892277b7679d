package bus_test

import (
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/ingest"
)

// The bus is what the ingesters read and publish through: ingest declares
// the small interfaces it consumes, and these lines prove the bus
// satisfies them.
var (
	_ ingest.LastReader  = (*bus.Streams)(nil)
	_ ingest.StateReader = (*bus.Streams)(nil)
	_ ingest.Sender      = (*bus.Publisher)(nil)
)
