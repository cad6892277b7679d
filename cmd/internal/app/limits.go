package app

import (
	"encoding"
	"flag"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/query/access"
	"github.com/zoneprice/zoneprice/query/webhooks"
)

// TextValue is a setting that reads and writes itself as text.
type TextValue interface {
	encoding.TextMarshaler
	encoding.TextUnmarshaler
}

// TextVar is DurationVar for a TextValue: its default is p's value, or the
// environment variable's when that is set.
func TextVar(fs *flag.FlagSet, getenv Env, p TextValue, name, env, usage string) error {
	if v := getenv(env); v != "" {
		if err := p.UnmarshalText([]byte(v)); err != nil {
			return fmt.Errorf("%s: %w", env, err)
		}
	}
	fs.TextVar(p, name, p, usage+" (env "+env+")")
	return nil
}

// registerLimitFlags declares the rate limit flags of the query service,
// recording in names which field of the server's Config each sets.
func registerLimitFlags(fs *flag.FlagSet, getenv Env, c *access.Config, names FlagNames) error {
	if err := TextVar(fs, getenv, &c.Anonymous, "rate-limit", "ZONEPRICE_RATE_LIMIT",
		`requests per client address without an API key, per pod: N/s, N/m or N/h, optionally ";burst=N" (default burst: N), or "off"`); err != nil {
		return err
	}
	names.add("Limits.Anonymous", "rate-limit", "ZONEPRICE_RATE_LIMIT")
	if err := TextVar(fs, getenv, &c.Tiers, "tiers", "ZONEPRICE_TIERS",
		`API key tiers and their limits per key, per pod: comma-separated name=rate, rates as in --rate-limit ("free" is --rate-limit's)`); err != nil {
		return err
	}
	names.add("Limits.Tiers", "tiers", "ZONEPRICE_TIERS")
	if err := TextVar(fs, getenv, &c.TrustedProxies, "trusted-proxies", "ZONEPRICE_TRUSTED_PROXIES",
		"comma-separated CIDRs of proxies whose X-Forwarded-For names the client (not /0); empty: the TCP peer is the client"); err != nil {
		return err
	}
	names.add("Limits.TrustedProxies", "trusted-proxies", "ZONEPRICE_TRUSTED_PROXIES")
	if err := TextVar(fs, getenv, &c.WebhookEndpoints, "webhook-endpoints", "ZONEPRICE_WEBHOOK_ENDPOINTS",
		`webhook endpoints a key of each tier may register: comma-separated tier=count; a tier not named has no webhooks, nor has the free tier`); err != nil {
		return err
	}
	names.add("Limits.WebhookEndpoints", "webhook-endpoints", "ZONEPRICE_WEBHOOK_ENDPOINTS")
	names.add("Limits.Clients", "rate-limit-clients", "ZONEPRICE_RATE_LIMIT_CLIENTS")
	return IntVar(fs, getenv, &c.Clients, "rate-limit-clients", "ZONEPRICE_RATE_LIMIT_CLIENTS", c.Clients,
		fmt.Sprintf("clients whose limits a pod tracks at once (32 bytes each), rounded up to a power of two, at most %d; beyond it, the nearest to refilled are forgotten", access.MaxClients))
}

// newKeys is the query service's mirror of the API keys bucket.
func newKeys(js jetstream.JetStream, q *QueryFlags, log *slog.Logger, reg prometheus.Registerer) (*access.Keys, error) {
	return access.NewKeys(bus.Keys(js), q.Server.Limits.Tiers, log.With("part", "keys"), reg)
}

// newWebhooks is the query service's store of webhook registrations, of
// which --webhook-endpoints limits how many a key may have.
func newWebhooks(cfg webhooks.Config, js jetstream.JetStream) *webhooks.Store {
	return webhooks.NewStore(cfg, webhooks.Bus{Webhooks: bus.Webhooks(js), Owners: bus.WebhookOwners(js), Deliveries: bus.NewDeliveries(js)}, time.Now)
}
