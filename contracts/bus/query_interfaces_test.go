package bus_test

import (
	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/query/access"
	"github.com/zoneprice/zoneprice/query/digest"
	"github.com/zoneprice/zoneprice/query/notify"
	"github.com/zoneprice/zoneprice/query/subscribe"
	"github.com/zoneprice/zoneprice/query/webhooks"
)

// The interfaces the query side declares for what it takes from the bus,
// each met by the type of this package that the commands hand it.
var (
	_ access.KeyRecords = (*bus.Records[contracts.APIKey])(nil)

	_ webhooks.Records    = (*bus.Records[contracts.Webhook])(nil)
	_ webhooks.Deliveries = (*bus.Deliveries)(nil)

	_ notify.WebhookRecords = (*bus.Records[contracts.Webhook])(nil)
	_ notify.StateReaders   = (*bus.Streams)(nil)
	_ notify.Consumer       = (*bus.Durable)(nil)
	_ notify.WorkQueue      = (*bus.Durable)(nil)
	_ notify.Deliveries     = (*bus.Deliveries)(nil)

	_ subscribe.Records = (*bus.Records[contracts.Subscriber])(nil)
	_ digest.Consumer   = (*bus.Durable)(nil)
)
