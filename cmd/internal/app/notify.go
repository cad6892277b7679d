package app

import (
	"flag"
	"fmt"
	"log/slog"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/query/notify"
)

// NotifyFlags are the webhook sender's settings.
type NotifyFlags struct {
	Config notify.Config
	// Names are the flags that set Config's fields.
	Names FlagNames
	// ports is --webhook-ports as given, parsed into Config.Ports by
	// Notify; prefixes, --webhook-allow-prefixes into
	// Config.AllowPrefixes.
	ports, prefixes string
	// apiAllowHTTP and apiAllowLoopback are the API's
	// --webhook-allow-http and --webhook-allow-loopback in a command that
	// serves the API too; the sender follows them.
	apiAllowHTTP, apiAllowLoopback *flag.Flag
}

// allowHTTPFlag and allowLoopbackFlag are the operator's choices of plain
// http webhook URLs and of loopback receivers, which the API (accepting
// them) and the sender (delivering to them) share: a command with both
// registers each once.
const (
	allowHTTPFlag     = "webhook-allow-http"
	allowLoopbackFlag = "webhook-allow-loopback"
)

// loopbackUsage is --webhook-allow-loopback's usage, in a command with
// the API or the sender or both.
const loopbackUsage = "let webhooks reach loopback addresses on any port (registered, and delivered to): tests and local development only, never with untrusted subscribers (env ZONEPRICE_WEBHOOK_ALLOW_LOOPBACK)"

// RegisterNotifyFlags declares the webhook sender's flags. In a command
// that already has the API's --webhook-allow-http, the sender follows
// that one.
func RegisterNotifyFlags(fs *flag.FlagSet, getenv Env) (*NotifyFlags, error) {
	f := &NotifyFlags{Config: notify.DefaultConfig(), Names: FlagNames{}}
	c := &f.Config
	if err := IntVar(fs, getenv, &c.Workers, "webhook-workers", "ZONEPRICE_WEBHOOK_WORKERS", c.Workers, "webhook deliveries one process sends at once"); err != nil {
		return nil, err
	}
	f.Names.add("Workers", "webhook-workers", "ZONEPRICE_WEBHOOK_WORKERS")
	if err := DurationVar(fs, getenv, &c.Timeout, "webhook-timeout", "ZONEPRICE_WEBHOOK_TIMEOUT", c.Timeout, "how long one webhook delivery attempt may take"); err != nil {
		return nil, err
	}
	f.Names.add("Timeout", "webhook-timeout", "ZONEPRICE_WEBHOOK_TIMEOUT")
	StringVar(fs, getenv, &f.ports, "webhook-ports", "ZONEPRICE_WEBHOOK_PORTS", portList(c.Ports), "comma-separated ports webhook deliveries may connect to")
	f.Names.add("Ports", "webhook-ports", "ZONEPRICE_WEBHOOK_PORTS")
	StringVar(fs, getenv, &f.prefixes, "webhook-allow-prefixes", "ZONEPRICE_WEBHOOK_ALLOW_PREFIXES", "",
		"comma-separated networks (CIDR, at most /16 or /48) webhook deliveries may reach although they are internal, on --webhook-ports only: tests on a private container network only, never with untrusted subscribers")
	f.Names.add("AllowPrefixes", "webhook-allow-prefixes", "ZONEPRICE_WEBHOOK_ALLOW_PREFIXES")
	if f.apiAllowLoopback = fs.Lookup(allowLoopbackFlag); f.apiAllowLoopback == nil {
		loopback, err := Bool(getenv, "ZONEPRICE_WEBHOOK_ALLOW_LOOPBACK")
		if err != nil {
			return nil, err
		}
		fs.BoolVar(&c.AllowLoopback, allowLoopbackFlag, loopback, loopbackUsage)
	}
	if f.apiAllowHTTP = fs.Lookup(allowHTTPFlag); f.apiAllowHTTP == nil {
		allowHTTP, err := Bool(getenv, "ZONEPRICE_WEBHOOK_ALLOW_HTTP")
		if err != nil {
			return nil, err
		}
		fs.BoolVar(&c.AllowHTTP, allowHTTPFlag, allowHTTP, "deliver webhooks to plain http URLs too, not only https (env ZONEPRICE_WEBHOOK_ALLOW_HTTP)")
	}
	return f, nil
}

func portList(ports []uint16) string {
	s := make([]string, len(ports))
	for i, p := range ports {
		s[i] = strconv.Itoa(int(p))
	}
	return strings.Join(s, ",")
}

func parsePorts(s string) ([]uint16, error) {
	var out []uint16
	for p := range strings.SplitSeq(s, ",") {
		n, err := strconv.ParseUint(strings.TrimSpace(p), 10, 16)
		if err != nil || n == 0 {
			return nil, fmt.Errorf("%q is not a port", p)
		}
		out = append(out, uint16(n))
	}
	return out, nil
}

// Notify composes a webhook sender on js; the caller runs it.
func Notify(js jetstream.JetStream, f *NotifyFlags, log *slog.Logger, reg prometheus.Registerer) (*notify.Notify, error) {
	ports, err := parsePorts(f.ports)
	if err != nil {
		return nil, fmt.Errorf("--webhook-ports (ZONEPRICE_WEBHOOK_PORTS): %w", err)
	}
	f.Config.Ports = ports
	f.Config.AllowPrefixes = nil
	if f.prefixes != "" {
		for p := range strings.SplitSeq(f.prefixes, ",") {
			prefix, err := netip.ParsePrefix(strings.TrimSpace(p))
			if err != nil {
				return nil, fmt.Errorf("--webhook-allow-prefixes (ZONEPRICE_WEBHOOK_ALLOW_PREFIXES): %w", err)
			}
			f.Config.AllowPrefixes = append(f.Config.AllowPrefixes, prefix.Masked())
		}
	}
	for _, shared := range []struct {
		flag *flag.Flag
		to   *bool
	}{{f.apiAllowHTTP, &f.Config.AllowHTTP}, {f.apiAllowLoopback, &f.Config.AllowLoopback}} {
		if shared.flag == nil {
			continue
		}
		if *shared.to, err = strconv.ParseBool(shared.flag.Value.String()); err != nil {
			return nil, fmt.Errorf("--%s: %w", shared.flag.Name, err)
		}
	}
	if err := f.Config.Validate(); err != nil {
		return nil, f.Names.Explain(err)
	}
	b := notify.Bus{
		Webhooks:   bus.Webhooks(js),
		State:      bus.NewStreams(js),
		Dispatch:   bus.NewDurable(js, contracts.HistoryStream, bus.DispatchConsumerConfig()),
		Deliver:    bus.NewDurable(js, contracts.DeliveriesStream, bus.DeliverConsumerConfig(f.Config.AckWait)),
		Deliveries: bus.NewDeliveries(js),
	}
	return notify.New(b, f.Config, log.With("part", "notify"), reg, time.Now)
}
