package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/zoneprice/zoneprice/contracts"
)

// The --provision modes. Provisioning creates or updates the state stream
// and the API keys bucket, which takes a NATS user allowed to manage
// them. A least-privilege ingester (deploy/nats/accounts.conf) is not:
// it runs with ProvisionOff, and an admin job with ProvisionOnly does the
// provisioning once per deployment.
const (
	// ProvisionOn provisions, then ingests: one process that may do
	// everything, as on a laptop.
	ProvisionOn = "on"
	// ProvisionOff never creates or updates anything; it waits for the
	// state stream to exist, then ingests.
	ProvisionOff = "off"
	// ProvisionOnly provisions and exits.
	ProvisionOnly = "only"
)

func validProvision(mode string) error {
	switch mode {
	case ProvisionOn, ProvisionOff, ProvisionOnly:
		return nil
	}
	return fmt.Errorf("--provision (ZONEPRICE_PROVISION): %q is not on, off or only", mode)
}

// WaitForStream returns once the state stream exists, retrying while it
// does not (or NATS is not reachable yet) until ctx ends. It needs nothing
// but the stream's info, which every zoneprice user may read.
func WaitForStream(ctx context.Context, js jetstream.JetStream, log *slog.Logger) error {
	for backoff := 200 * time.Millisecond; ; backoff = min(2*backoff, 5*time.Second) {
		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, err := js.Stream(sctx, contracts.StateStream)
		cancel()
		if err == nil {
			return nil
		}
		msg := "stream not available yet; waiting for it to be provisioned"
		if !errors.Is(err, jetstream.ErrStreamNotFound) {
			msg = "stream not available yet; retrying"
		}
		log.Warn(msg, "stream", contracts.StateStream, "err", err, "in", backoff)
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for stream %s: %w", contracts.StateStream, err)
		case <-time.After(backoff):
		}
	}
}
