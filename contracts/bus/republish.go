package bus

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/zoneprice/zoneprice/contracts"
)

// The republish protocol, both sides: zoneprice-admin stream republish
// asks on contracts.RepublishSubject (a core NATS subject, not a stream),
// and every running ingester answers with the sources it runs and
// publishes their whole lists at its next round, changed or not: the
// repair after the state stream lost messages.

// republishWait is how long Republish listens for ingesters' answers.
const republishWait = 2 * time.Second

// Republish asks every running ingester to publish its whole list now and
// returns their answers, sorted: the sources each runs. None answering
// within two seconds is an error.
func Republish(ctx context.Context, nc *nats.Conn) ([]string, error) {
	inbox := nats.NewInbox()
	answers, err := nc.SubscribeSync(inbox)
	if err != nil {
		return nil, err
	}
	defer answers.Unsubscribe()
	if err := nc.PublishRequest(contracts.RepublishSubject, inbox, nil); err != nil {
		return nil, fmt.Errorf("ask the ingesters: %w", err)
	}
	var heard []string
	wctx, cancel := context.WithTimeout(ctx, republishWait)
	defer cancel()
	for {
		m, err := answers.NextMsgWithContext(wctx)
		if err != nil {
			break
		}
		heard = append(heard, string(m.Data))
	}
	if len(heard) == 0 {
		return nil, fmt.Errorf("no ingester answered within %v: is any running, and may it subscribe to %s?", republishWait, contracts.RepublishSubject)
	}
	slices.Sort(heard)
	return heard, nil
}

// AnswerRepublish calls republish whenever Republish asks, and answers
// with answer (the sources this process runs, so that the asker can say
// who heard it), until ctx ends.
func AnswerRepublish(ctx context.Context, nc *nats.Conn, answer string, republish func()) error {
	sub, err := nc.Subscribe(contracts.RepublishSubject, func(m *nats.Msg) {
		republish()
		if m.Reply != "" {
			_ = m.Respond([]byte(answer))
		}
	})
	if err != nil {
		return fmt.Errorf("subscribe %s: %w", contracts.RepublishSubject, err)
	}
	<-ctx.Done()
	_ = sub.Unsubscribe()
	return nil
}
