package access

import (
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
)

// Rate is a limit of Limit requests per Window, of which up to Burst may
// come at once; the rest refill smoothly, one every Window/Limit. A zero
// Rate is no limit at all.
type Rate struct {
	Limit  int
	Window time.Duration
	Burst  int
}

// Off reports whether r limits nothing.
func (r Rate) Off() bool { return r.Limit == 0 }

// interval is the time one request's quota takes to refill.
func (r Rate) interval() time.Duration { return r.Window / time.Duration(r.Limit) }

var units = map[string]time.Duration{"s": time.Second, "m": time.Minute, "h": time.Hour}

// ParseRate reads a rate as the flags take it: "60/m" (60 a minute, all of
// them at once if the client was idle), "600/m;burst=100" (600 a minute,
// at most 100 at once), "10/s", "1000/h", and "off" (in any case) or "0"
// for no limit. The burst parameter is spelled as in RateLimit-Policy.
// Spaces around the parts are ignored ("600/m; burst=100").
func ParseRate(s string) (Rate, error) {
	s = strings.TrimSpace(s)
	if strings.EqualFold(s, "off") || s == "0" {
		return Rate{}, nil
	}
	spec, params, _ := strings.Cut(s, ";")
	params = strings.TrimSpace(params)
	count, unit, ok := strings.Cut(spec, "/")
	count, unit = strings.TrimSpace(count), strings.TrimSpace(unit)
	if !ok {
		return Rate{}, fmt.Errorf("rate %q: want a count per unit such as 60/m, or off", s)
	}
	var r Rate
	var err error
	if r.Limit, err = strconv.Atoi(count); err != nil || r.Limit < 1 {
		return Rate{}, fmt.Errorf("rate %q: %q is not a positive count", s, count)
	}
	if r.Window, ok = units[unit]; !ok {
		return Rate{}, fmt.Errorf("rate %q: unit %q is not s, m or h", s, unit)
	}
	r.Burst = r.Limit
	if params != "" {
		name, b, ok := strings.Cut(params, "=")
		b = strings.TrimSpace(b)
		if !ok || strings.TrimSpace(name) != "burst" {
			return Rate{}, fmt.Errorf("rate %q: the only parameter is burst=N", s)
		}
		if r.Burst, err = strconv.Atoi(b); err != nil {
			return Rate{}, fmt.Errorf("rate %q: burst %q is not a number", s, b)
		}
	}
	if err := r.validate(); err != nil {
		return Rate{}, err
	}
	return r, nil
}

func (r Rate) validate() error {
	if r.Off() {
		return nil
	}
	switch {
	case r.Limit < 1 || r.Window <= 0:
		return fmt.Errorf("rate %s: limit and window must be positive", r)
	case r.interval() < 1:
		return fmt.Errorf("rate %s: more than one request a nanosecond", r)
	case r.Burst < 1 || r.Burst > r.Limit:
		// A burst above the limit would make RateLimit-Remaining exceed
		// RateLimit-Limit, which clients cannot make sense of.
		return fmt.Errorf("rate %s: burst must be between 1 and the limit", r)
	}
	return nil
}

// String is the rate in ParseRate's syntax.
func (r Rate) String() string {
	if r.Off() {
		return "off"
	}
	unit := r.Window.String()
	for u, d := range units {
		if d == r.Window {
			unit = u
		}
	}
	s := strconv.Itoa(r.Limit) + "/" + unit
	if r.Burst != r.Limit {
		s += ";burst=" + strconv.Itoa(r.Burst)
	}
	return s
}

// MarshalText implements encoding.TextMarshaler, for flags.
func (r Rate) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler, for flags.
func (r *Rate) UnmarshalText(b []byte) error {
	v, err := ParseRate(string(b))
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// Tiers are the limits of the API key tiers by name.
type Tiers map[string]Rate

// ParseTiers reads "standard=600/m,pro=6000/m;burst=1000": comma-separated
// name=rate pairs, each rate as ParseRate takes it. "" is no tiers: every
// key is then served at the free rate.
func ParseTiers(s string) (Tiers, error) {
	t := Tiers{}
	for pair := range strings.SplitSeq(s, ",") {
		pair = strings.TrimSpace(pair)
		if pair == "" {
			continue
		}
		name, rate, ok := strings.Cut(pair, "=")
		if !ok {
			return nil, fmt.Errorf("tier %q: want name=rate, such as pro=6000/m", pair)
		}
		name = strings.TrimSpace(name)
		if err := contracts.ValidateTier(name); err != nil {
			return nil, err
		}
		if err := reservedTier(name); err != nil {
			return nil, err
		}
		if _, dup := t[name]; dup {
			return nil, fmt.Errorf("tier %s given twice", name)
		}
		r, err := ParseRate(rate)
		if err != nil {
			return nil, fmt.Errorf("tier %s: %w", name, err)
		}
		t[name] = r
	}
	return t, nil
}

// reservedTier refuses the names a pod gives a meaning of its own.
func reservedTier(name string) error {
	switch name {
	case contracts.FreeTier:
		return errors.New("tier free is the limit of clients without a key; set it as the anonymous rate")
	case unknownTier:
		return errors.New(`tier unknown is reserved: zoneprice_api_keys{tier="unknown"} counts the keys of tiers a pod does not define`)
	}
	return nil
}

// Names are the tier names in order.
func (t Tiers) Names() []string {
	names := make([]string, 0, len(t))
	for n := range t {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// String is the tiers in ParseTiers's syntax.
func (t Tiers) String() string {
	var b strings.Builder
	for i, n := range t.Names() {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(n + "=" + t[n].String())
	}
	return b.String()
}

// MarshalText implements encoding.TextMarshaler, for flags.
func (t Tiers) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler, for flags.
func (t *Tiers) UnmarshalText(b []byte) error {
	v, err := ParseTiers(string(b))
	if err != nil {
		return err
	}
	*t = v
	return nil
}

// Endpoints are how many webhook endpoints a key of each tier may
// register; a tier not named, and the free tier always, may register none.
type Endpoints map[string]int

// MaxEndpoints bounds a tier's webhook endpoints per key.
const MaxEndpoints = 10_000

// ParseEndpoints reads "standard=5,pro=50": comma-separated name=count
// pairs. "" is no webhooks for any tier.
func ParseEndpoints(s string) (Endpoints, error) {
	e := Endpoints{}
	for pair := range strings.SplitSeq(s, ",") {
		pair = strings.TrimSpace(pair)
		if pair == "" {
			continue
		}
		name, count, ok := strings.Cut(pair, "=")
		if !ok {
			return nil, fmt.Errorf("webhook endpoints %q: want tier=count, such as pro=50", pair)
		}
		name = strings.TrimSpace(name)
		if _, dup := e[name]; dup {
			return nil, fmt.Errorf("tier %s given twice", name)
		}
		n, err := strconv.Atoi(strings.TrimSpace(count))
		if err != nil {
			return nil, fmt.Errorf("tier %s: %q is not a count", name, count)
		}
		e[name] = n
		if err := e.validate(name); err != nil {
			return nil, err
		}
	}
	return e, nil
}

func (e Endpoints) validate(name string) error {
	if err := contracts.ValidateTier(name); err != nil {
		return err
	}
	if name == contracts.FreeTier {
		return errors.New("the free tier (no key) never has webhooks: a webhook belongs to a key")
	}
	if n := e[name]; n < 0 || n > MaxEndpoints {
		return fmt.Errorf("tier %s: %d endpoints is not between 0 and %d", name, n, MaxEndpoints)
	}
	return nil
}

// Of is how many endpoints a key of tier may register.
func (e Endpoints) Of(tier string) int { return e[tier] }

// String is the endpoints in ParseEndpoints's syntax.
func (e Endpoints) String() string {
	names := slices.Sorted(maps.Keys(e))
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + "=" + strconv.Itoa(e[n])
	}
	return strings.Join(parts, ",")
}

// MarshalText implements encoding.TextMarshaler, for flags.
func (e Endpoints) MarshalText() ([]byte, error) { return []byte(e.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler, for flags.
func (e *Endpoints) UnmarshalText(b []byte) error {
	v, err := ParseEndpoints(string(b))
	if err != nil {
		return err
	}
	*e = v
	return nil
}

// Prefixes are the address ranges of trusted proxies.
type Prefixes []netip.Prefix

// ParsePrefixes reads comma-separated CIDRs; a bare address is a range of
// one.
func ParsePrefixes(s string) (Prefixes, error) {
	var ps Prefixes
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if !strings.Contains(part, "/") {
			a, err := netip.ParseAddr(part)
			if err != nil {
				return nil, fmt.Errorf("trusted proxy %q is not a CIDR or an address", part)
			}
			ps = append(ps, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(part)
		if err != nil {
			return nil, fmt.Errorf("trusted proxy %q is not a CIDR or an address", part)
		}
		ps = append(ps, p.Masked())
	}
	return ps, nil
}

// Contains reports whether a is in one of the ranges.
func (ps Prefixes) Contains(a netip.Addr) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// String is the prefixes in ParsePrefixes's syntax.
func (ps Prefixes) String() string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.String()
	}
	return strings.Join(s, ",")
}

// MarshalText implements encoding.TextMarshaler, for flags.
func (ps Prefixes) MarshalText() ([]byte, error) { return []byte(ps.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler, for flags.
func (ps *Prefixes) UnmarshalText(b []byte) error {
	v, err := ParsePrefixes(string(b))
	if err != nil {
		return err
	}
	*ps = v
	return nil
}

// Config is the limits a pod enforces.
type Config struct {
	// Anonymous is the free tier: the limit of each client without a key,
	// by address.
	Anonymous Rate
	// Tiers are the limits of keys by tier, each per key.
	Tiers Tiers
	// TrustedProxies are the peers whose X-Forwarded-For is believed.
	TrustedProxies Prefixes
	// Clients bounds the clients whose limits are tracked at once, rounded
	// up to a power of two; at most MaxClients.
	Clients int
	// WebhookEndpoints are how many webhook endpoints a key of each tier
	// may register (the webhook API); none for a tier not named.
	WebhookEndpoints Endpoints
}

// MaxClients is the most clients a limiter tracks: 128 MiB of table.
const MaxClients = 1 << 22

// DefaultConfig is the free tier at 60 requests a minute per address, and
// keys at 600 (standard) and 6,000 (pro) a minute, each with a burst of a
// whole minute's worth; no trusted proxies; 131,072 clients tracked (4 MiB);
// 5 webhook endpoints per standard key and 50 per pro key.
// A person, a page or a dashboard never meets the free limit, and the whole
// catalog is one request; a script comparing every one of ~1,500 zones
// takes 25 minutes on it, under 3 with a standard key and 15 s with pro.
// A free service can afford that: at 6,000 a minute, a pro client costs a
// pod a few percent of one core at most.
func DefaultConfig() Config {
	return Config{
		Anonymous: Rate{Limit: 60, Window: time.Minute, Burst: 60},
		Tiers: Tiers{
			contracts.StandardTier: {Limit: 600, Window: time.Minute, Burst: 600},
			contracts.ProTier:      {Limit: 6000, Window: time.Minute, Burst: 6000},
		},
		Clients: 1 << 17,
		WebhookEndpoints: Endpoints{
			contracts.StandardTier: 5,
			contracts.ProTier:      50,
		},
	}
}

// Validate reports a configuration that cannot work, naming the field
// (contracts.ValidationError).
func (c Config) Validate() error {
	if err := c.Anonymous.validate(); err != nil {
		return contracts.Invalid("Anonymous", "%v", err)
	}
	for _, name := range c.Tiers.Names() {
		if err := contracts.ValidateTier(name); err != nil {
			return contracts.Invalid("Tiers", "%q cannot name a tier", name)
		}
		if err := reservedTier(name); err != nil {
			return contracts.Invalid("Tiers", "%v", err)
		}
		if err := c.Tiers[name].validate(); err != nil {
			return contracts.Invalid("Tiers", "tier %s: %v", name, err)
		}
	}
	for _, p := range c.TrustedProxies {
		if !p.IsValid() {
			return contracts.Invalid("TrustedProxies", "invalid prefix")
		}
		if p.Bits() == 0 {
			// Trusting every address lets any client write its own
			// address into X-Forwarded-For.
			return contracts.Invalid("TrustedProxies", "%s trusts every address, so every client could choose its own; list the proxies' ranges", p)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.WebhookEndpoints)) {
		if err := c.WebhookEndpoints.validate(name); err != nil {
			return contracts.Invalid("WebhookEndpoints", "%v", err)
		}
	}
	if c.Clients < ways || c.Clients > MaxClients {
		return contracts.Invalid("Clients", "%d is not between %d and %d", c.Clients, ways, MaxClients)
	}
	return nil
}
