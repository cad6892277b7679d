package bus

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/zoneprice/zoneprice/contracts"
)

// Health is what a stream's own state says about whether it holds every
// message it acknowledged. A stream that keeps one message per subject (the
// state stream) must hold exactly one message per subject it knows.
type Health struct {
	Stream string
	// Msgs, Subjects, FirstSeq and LastSeq are the stream's state.
	Msgs, Subjects    uint64
	FirstSeq, LastSeq uint64
	// LostMsgs counts the messages the server reports lost (its own
	// Lost field, set when it found damaged storage it could not read).
	LostMsgs int
	// Problems says, one sentence each, what is wrong; none when healthy.
	Problems []string
}

// Healthy reports whether the stream holds what it says.
func (h Health) Healthy() bool { return len(h.Problems) == 0 }

// String is one line for a log or a terminal.
func (h Health) String() string {
	state := fmt.Sprintf("%s: %d messages on %d subjects, sequences %d to %d", h.Stream, h.Msgs, h.Subjects, h.FirstSeq, h.LastSeq)
	if h.Healthy() {
		return state + ": healthy"
	}
	return state + ": " + strings.Join(h.Problems, "; ")
}

// Repair is what an operator does about an unhealthy state stream; the
// README's operations section says the same at more length.
const Repair = "restart the NATS server that holds the stream (in a cluster, the node whose replica is damaged) so that it " +
	"rebuilds the stream's index from its message blocks, then run `zoneprice-admin stream republish` so that every " +
	"ingester publishes its whole list again; `zoneprice-admin stream check` says when the stream is whole. A message the server " +
	"can no longer read survives a restart: then remove the damaged replica (a cluster) or move the stream's directory out of the " +
	"store and provision it anew before the republish (deploy/README.md, A damaged state stream)"

// CheckState judges a state stream from its info, without reading a
// message: the server's own report of lost data; more subjects than
// messages, which a stream keeping one message per subject only shows when
// messages were lost under a subject index that still names them (then the
// server also drops new messages on those subjects as if they were
// surplus); and a stream emptied although it had messages, which this
// service never does (only damaged storage, or someone purging it).
func CheckState(info *jetstream.StreamInfo) Health {
	st := info.State
	h := Health{Stream: info.Config.Name, Msgs: st.Msgs, Subjects: st.NumSubjects, FirstSeq: st.FirstSeq, LastSeq: st.LastSeq}
	if st.Lost != nil && len(st.Lost.Msgs) > 0 {
		h.LostMsgs = len(st.Lost.Msgs)
		h.Problems = append(h.Problems, fmt.Sprintf("the server reports %d messages lost to damaged storage", h.LostMsgs))
	}
	if info.Config.MaxMsgsPerSubject == 1 && st.NumSubjects != st.Msgs {
		h.Problems = append(h.Problems, fmt.Sprintf("%d subjects but %d messages: messages were lost, and new ones on their subjects are dropped as surplus", st.NumSubjects, st.Msgs))
	}
	if st.Msgs == 0 && st.LastSeq > 0 {
		h.Problems = append(h.Problems, fmt.Sprintf("no messages left of %d stored: its storage was lost or it was purged", st.LastSeq))
	}
	return h
}

// Check asks the server for the state stream's info and judges it.
func Check(ctx context.Context, js jetstream.JetStream) (Health, error) {
	return NewStreams(js).Health(ctx, contracts.StateStream)
}

// Verify is Check, and reads the last message of every subject of the
// state stream too, which tells what its state alone cannot: messages
// lost at its end (Reader.Short). It costs a read of the whole state, for
// zoneprice-admin stream check; a query pod learns the same from its
// catch-up.
func Verify(ctx context.Context, js jetstream.JetStream) (Health, error) {
	streams := NewStreams(js)
	h, err := streams.Health(ctx, contracts.StateStream)
	if err != nil || !h.Healthy() {
		return h, err
	}
	err = streams.ReadLast(ctx, contracts.StateStream, ReaderConfig{}, func(Msg) bool { return true })
	var short *shortError
	switch {
	case errors.As(err, &short):
		h.Problems = append(h.Problems, short.problem)
	case err != nil:
		return h, err
	}
	return h, nil
}

func checkStream(ctx context.Context, s jetstream.Stream) (Health, error) {
	info, err := s.Info(ctx)
	if err != nil {
		return Health{}, fmt.Errorf("stream %s info: %w", s.CachedInfo().Config.Name, err)
	}
	return CheckState(info), nil
}
